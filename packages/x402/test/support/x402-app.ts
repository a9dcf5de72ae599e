import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { errorBody, handleError } from './error-handler.js';
import { agentGate, paymentGate } from '../../src/fastify/index.js';
import {
  createPaymentConfig,
  MemoryPaymentLedger,
  PaymentHttpError,
  type PaymentConfig,
  type PaymentFacilitator,
  type PaymentLedger,
  type PaymentRateLimiter,
  type PaymentRateLimits,
} from '../../src/index.js';

/** The agent secrets of the test apps. */
export const AGENT_SECRETS = ['agent-secret-one-0123456789', 'agent-secret-two-0123456789'];

/** A configuration on Base Sepolia paying a fixed test address. */
export function testPaymentConfig(overrides: { facilitatorUrl?: string; network?: string } = {}): PaymentConfig {
  return createPaymentConfig({ payTo: '0x1111111111111111111111111111111111111111', agentSecrets: AGENT_SECRETS, ...overrides });
}

/** Chat pricing (spec 4.5): fast 5 credits, expert 18; anything else is a 400. */
export function chatCredits(request: FastifyRequest): number {
  const speed = (request.body as { speed?: unknown } | undefined)?.speed ?? 'fast';
  if (speed === 'fast') return 5;
  if (speed === 'expert') return 18;
  throw new PaymentHttpError(400, 'invalid_request', 'speed is "fast" or "expert"');
}

export interface PaidApp {
  app: FastifyInstance;
  config: PaymentConfig;
  ledger: PaymentLedger;
  /** How many times each paid handler ran. */
  handled: Map<string, number>;
}

export interface PaidAppOptions {
  config?: PaymentConfig;
  ledger?: PaymentLedger;
  facilitator?: PaymentFacilitator;
  /** Fixed clock (epoch ms); default the real one. */
  now?: () => number;
  /** Rate limits of the gates (a limiter instance is shared by all of them); default: each gate its own, on the defaults. */
  rateLimits?: PaymentRateLimits | PaymentRateLimiter;
}

/**
 * A tiny host with the gates on routes shaped like spec 4.5: a paid chat (fast 5 / expert 18), a paid
 * route whose handler refuses (422) and one whose handler crashes (500), one that settles before
 * committing (and fails afterwards when the body says `fail: true`), a free agent route, and a paid
 * agent route.
 */
export async function paidApp(options: PaidAppOptions = {}): Promise<PaidApp> {
  const config = options.config ?? testPaymentConfig();
  const ledger = options.ledger ?? new MemoryPaymentLedger();
  const handled = new Map<string, number>();
  const count = (name: string): void => void handled.set(name, (handled.get(name) ?? 0) + 1);
  const gate = (credits: (request: FastifyRequest) => number, description: string) =>
    paymentGate({
      config,
      ledger,
      credits,
      description,
      ...(options.facilitator ? { facilitator: options.facilitator } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    });
  const agent = agentGate(config);

  const app = Fastify({ logger: false });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => reply.status(404).send(errorBody('route_not_found', `no route ${request.method} ${request.url}`)));

  app.post('/x402/v2/chat', { ...gate(chatCredits, 'AI chat reply').hooks }, (request) => {
    count('chat');
    return { success: true, data: { creditsConsumed: request.payment?.credits, payer: request.payment?.payer, version: request.payment?.version, message: 'the paid reply' } };
  });
  app.post('/x402/v2/refuses', { ...gate(() => 5, 'a handler that refuses').hooks }, () => {
    count('refuses');
    throw new PaymentHttpError(422, 'query_rejected', 'the handler refused the request');
  });
  app.post('/x402/v2/crashes', { ...gate(() => 5, 'a handler that crashes').hooks }, () => {
    count('crashes');
    throw new Error('boom');
  });
  const early = gate(() => 5, 'a handler that settles before committing');
  app.post('/x402/v2/settles-first', { ...early.hooks }, async (request) => {
    await early.settle(request);
    await early.settle(request);
    count('committed');
    if ((request.body as { fail?: unknown } | undefined)?.fail === true) throw new PaymentHttpError(422, 'query_rejected', 'the handler failed after the payment settled');
    return { success: true, data: { committed: true } };
  });
  app.post('/x402/v2/auto/queries/validate', { onRequest: agent, ...gate(() => 0, 'validate (free)').hooks }, (request) => {
    count('validate');
    return { success: true, data: { valid: true, agent: request.agent?.id, paid: request.payment !== undefined } };
  });
  app.post('/x402/v2/auto/queries', { onRequest: agent, ...gate(() => 5, 'create a query').hooks }, (request) => {
    count('create');
    return { success: true, data: { agent: request.agent?.id, payer: request.payment?.payer } };
  });
  await app.ready();
  return { app, config, ledger, handled };
}
