import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { PaymentFacilitator } from '../facilitator-client.js';
import { settlementProblem, type PaymentConfig } from '../payment-config.js';
import type { PaymentLedger } from '../payment-ledger.js';
import { PaymentRateLimiter, type PaymentRateLimits } from '../payment-rate-limiter.js';
import { agentGate } from './agent-gate.js';
import { paymentGate, type PaymentGate } from './payment-gate.js';

/** How a route is paid for, in its `config.x402`. */
export interface X402RouteConfig {
  /** Credits per request (0 = free), or a function of the request (which may throw a 400); absent: no payment (an agent route alone). */
  credits?: number | ((request: FastifyRequest) => number | Promise<number>);
  /** What the payer buys, shown by clients. */
  description?: string | ((request: FastifyRequest) => string);
  /** An agent route: `x-svc-agent-secret` is checked before the payment, and sets `request.agent`. */
  agent?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Makes the route a paid x402 route (`@eql/x402/fastify`'s `x402Payments` plugin). */
    x402?: X402RouteConfig;
  }
  interface FastifyRequest {
    /**
     * Settles this request's payment now, before a durable side effect (see `PaymentGate.settle`);
     * does nothing on a route without payment.
     */
    settlePayment(): Promise<void>;
  }
}

/** The plugin's options: one configuration, ledger and facilitator for every paid route. */
export interface X402PluginOptions {
  config: PaymentConfig;
  ledger: PaymentLedger;
  facilitator?: PaymentFacilitator;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
  /**
   * Bounds on refused signature checks per payer and per client address, shared by every paid route
   * (default `DEFAULT_PAYMENT_RATE_LIMITS`: 20 and 60 a minute; 0 turns one off).
   */
  rateLimits?: PaymentRateLimits;
}

const toArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function plugin(app: FastifyInstance, options: X402PluginOptions, done: (error?: Error) => void): void {
  // Real money without a facilitator (unless offline on purpose) stops the host at boot, not at the first route.
  const problem = settlementProblem(options.config, options.facilitator !== undefined || options.config.facilitatorUrl !== undefined);
  if (problem) {
    done(new Error(problem));
    return;
  }
  const gates = new WeakMap<X402RouteConfig, PaymentGate>();
  const agent = options.config.agentSecrets.length > 0 ? agentGate(options.config) : undefined;
  // One limiter for all routes: a payer's refused signatures count wherever they are sent.
  const rateLimits = new PaymentRateLimiter(options.rateLimits, options.now);
  app.decorateRequest('settlePayment', async function settlePayment(this: FastifyRequest): Promise<void> {
    const route = this.routeOptions.config.x402;
    const gate = route ? gates.get(route) : undefined;
    if (gate) await gate.settle(this);
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    const paid = route.config?.x402;
    if (!paid) return;
    if (paid.agent) route.onRequest = [...toArray(route.onRequest), agent ?? agentGate({ agentSecrets: [] })];
    const { credits } = paid;
    if (credits === undefined) return;
    const gate = paymentGate({
      config: options.config,
      ledger: options.ledger,
      credits: typeof credits === 'number' ? () => credits : credits,
      description: paid.description ?? `${route.method.toString()} ${route.url}`,
      ...(options.facilitator ? { facilitator: options.facilitator } : {}),
      ...(options.now ? { now: options.now } : {}),
      rateLimits,
    });
    gates.set(paid, gate);
    route.preHandler = [...toArray(route.preHandler), gate.preHandler];
    route.onSend = [...toArray(route.onSend), gate.onSend];
  });
  done();
}

/**
 * x402 payments as a Fastify plugin, in the manner of `@fastify/rate-limit`: register it once, then
 * mark paid routes with `config: { x402: { credits, description } }` (and `agent: true` for agent
 * routes). Each marked route gets the agent check, the payment gate's preHandler (402 unless paid)
 * and its onSend (settle on success, release on failure); handlers call `request.settlePayment()`
 * before durable side effects. Register the plugin before the routes it should see.
 */
export const x402Payments = fastifyPlugin(plugin, { name: '@eql/x402', fastify: '5.x' });
