import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PaymentFacilitator } from '../facilitator-client.js';
import type { PaymentConfig } from '../payment-config.js';
import type { PaymentFailure } from '../payment-errors.js';
import { mergeExposedHeaders, type PaymentReceipt } from '../payment-headers.js';
import { PaymentHttpError } from '../payment-http-error.js';
import type { PaymentLedger } from '../payment-ledger.js';
import type { PaymentRateLimiter, PaymentRateLimits } from '../payment-rate-limiter.js';
import { PaymentVerifier, type AcceptedPayment, type PaymentLog, type PaymentResponse, type RequestPayment } from '../payment-verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `paymentGate` on a paid request that passed verification. */
    payment?: RequestPayment;
  }
}

/** How one route is paid for. */
export interface PaymentGateOptions {
  config: PaymentConfig;
  ledger: PaymentLedger;
  /** Credits the request costs, from its body or parameters; 0 = free (no payment asked). May throw (a 400, say). */
  credits: (request: FastifyRequest) => number | Promise<number>;
  /** What the payer buys, shown by clients. */
  description: string | ((request: FastifyRequest) => string);
  /** Facilitator to verify and settle with; default: one at `config.facilitatorUrl`, or none (offline). */
  facilitator?: PaymentFacilitator;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
  /** Absolute URL of the resource for the requirements; default: protocol, Host header and path of the request. */
  resourceUrl?: (request: FastifyRequest) => string;
  /**
   * Bounds on refused signature checks per payer and per client address (`request.ip`), or a limiter
   * shared between gates (the plugin shares one); default: `DEFAULT_PAYMENT_RATE_LIMITS`, per gate.
   */
  rateLimits?: PaymentRateLimits | PaymentRateLimiter;
}

/** Route hooks: spread into the route options, `app.post(path, { ...gate.hooks }, handler)`. */
export interface PaymentGate {
  /** Resolves to the reply when it answered 402 itself (Fastify's early-reply convention). */
  preHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
  /**
   * Settles the payment after a response below 400 and adds the receipt header, or frees the nonce after a
   * failure; resolves to the payload to send (a 402's body when settlement failed).
   */
  onSend: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>;
  /** `preHandler` and `onSend` together, to spread into a route's options. */
  hooks: Pick<PaymentGate, 'preHandler' | 'onSend'>;
  /**
   * Settles the request's payment now, from the handler, before a durable side effect (creating a
   * query): once settled, a later failure of the handler no longer frees the nonce (the payer has paid).
   * Does nothing on a free or already settled request. When settlement fails it frees the nonce and
   * throws a `PaymentHttpError` 402 `payment_settlement_failed` (the response is then the standard 402).
   */
  settle: (request: FastifyRequest) => Promise<void>;
}

interface Pending {
  accepted: AcceptedPayment;
  /** Set once settled (early, by `settle`). */
  receipt?: PaymentReceipt;
  /** Set when an early settlement failed: onSend answers the standard 402. */
  failure?: PaymentFailure;
}

function defaultResourceUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host || 'localhost'}${request.url}`;
}

/** Sends a verifier's response as the reply's status and headers; returns its body. */
function answer(reply: FastifyReply, response: PaymentResponse): string {
  void reply.code(response.status).headers(response.headers);
  return response.body;
}

/**
 * Spec 4.5 and 5.3 for one Fastify route, over `PaymentVerifier`. preHandler: prices the request; a
 * free one passes; otherwise checks its payment and sets `request.payment`, or answers the 402.
 * onSend: after a response below 400, settles and sends the receipt header; after a failure (>= 400),
 * releases the nonce so the payer is not charged. A settlement that fails turns the response into a
 * 402 `payment_settlement_failed`. Handlers with durable side effects call `gate.settle(request)`
 * before committing them.
 */
export function paymentGate(options: PaymentGateOptions): PaymentGate {
  const resourceUrl = options.resourceUrl ?? defaultResourceUrl;
  const describe = typeof options.description === 'function' ? options.description : () => options.description as string;
  const pending = new WeakMap<FastifyRequest, Pending>();
  const verifier = new PaymentVerifier({
    config: options.config,
    ledger: options.ledger,
    ...(options.facilitator ? { facilitator: options.facilitator } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
  });
  const logOf = (request: FastifyRequest): PaymentLog => ({ warn: (fields, message) => request.log.warn(fields, message) });

  const preHandler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const credits = await options.credits(request);
    if (credits === 0) return undefined;
    const route = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0] ?? ''}`;
    const checked = await verifier.check({ headers: request.headers, credits, resourceUrl: resourceUrl(request), description: describe(request), route, clientAddress: request.ip }, logOf(request));
    if (!checked.ok) return reply.send(answer(reply, checked.response));
    pending.set(request, { accepted: checked.accepted });
    request.payment = checked.accepted.payment;
    return undefined;
  };

  const settle = async (request: FastifyRequest): Promise<void> => {
    const state = pending.get(request);
    if (!state || state.receipt || state.failure) return;
    const settled = await verifier.settle(state.accepted, logOf(request));
    if (settled.ok) {
      state.receipt = settled.value;
      return;
    }
    state.failure = settled.failure;
    throw new PaymentHttpError(402, settled.failure.code, settled.failure.message);
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    void reply.header('access-control-expose-headers', mergeExposedHeaders(reply.getHeader('access-control-expose-headers')));
    const state = pending.get(request);
    if (!state) return payload;
    pending.delete(request);
    if (state.failure) return answer(reply, verifier.settlementFailed(state.accepted, state.failure));
    if (state.receipt) {
      // Settled early: the payer has paid, whatever the handler answered.
      if (reply.statusCode >= 400) request.log.warn({ status: reply.statusCode, payer: state.accepted.key.payer }, 'x402 payment settled before the handler failed');
      void reply.headers(verifier.receiptHeader(state.accepted, state.receipt));
      return payload;
    }
    if (reply.statusCode >= 400) {
      await verifier.release(state.accepted);
      return payload;
    }
    const settled = await verifier.settle(state.accepted, logOf(request));
    if (!settled.ok) return answer(reply, verifier.settlementFailed(state.accepted, settled.failure));
    void reply.headers(verifier.receiptHeader(state.accepted, settled.value));
    return payload;
  };

  return { preHandler, onSend, hooks: { preHandler, onSend }, settle };
}
