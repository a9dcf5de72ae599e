import type { PaymentRequirements } from '@x402/core/types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Address, Hex } from 'viem';
import { decodePayment, paymentHeaderOf, type DecodedPayment } from './decode-payment.js';
import { HttpFacilitator, type PaymentFacilitator } from './facilitator-client.js';
import { formatUsd, priceAtomic, type PaymentConfig, type PaymentNetwork } from './payment-config.js';
import { ApiError } from '../http/errors.js';
import { accept, type PaymentFailure, type PaymentResult } from './payment-errors.js';
import { encodePaymentReceipt, encodePaymentRequired, mergeExposedHeaders, PAYMENT_HEADERS, type PaymentReceipt } from './payment-headers.js';
import type { NonceKey, PaymentLedger } from './payment-ledger.js';
import { paymentRequiredBody, paymentRequiredV2, requirementsV1, requirementsV2, type Charge, type PaymentRequirementsV1 } from './requirements.js';
import { verifyPayment } from './verify-payment.js';

/** The payment of a paid request, set by the gate before the handler runs. */
export interface RequestPayment {
  payer: Address;
  network: PaymentNetwork;
  /** Atomic USDC units authorized (v1 may authorize more than the price). */
  amount: string;
  nonce: Hex;
  version: 1 | 2;
  /** Credits this request was priced at. */
  credits: number;
}

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
  /** Credits the request costs, from its body or parameters; 0 = free (no payment asked). May throw an ApiError (400). */
  credits: (request: FastifyRequest) => number | Promise<number>;
  /** What the payer buys, shown by clients. */
  description: string | ((request: FastifyRequest) => string);
  /** Facilitator to verify and settle with; default: one at `config.facilitatorUrl`, or none (offline). */
  facilitator?: PaymentFacilitator;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
  /** Absolute URL of the resource for the requirements; default: protocol, Host header and path of the request. */
  resourceUrl?: (request: FastifyRequest) => string;
}

/** Route hooks: spread into the route options, `app.post(path, { ...gate.hooks }, handler)`. */
export interface PaymentGate {
  /** Resolves to the reply when it answered 402 itself (Fastify's early-reply convention). */
  preHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
  onSend: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>;
  hooks: Pick<PaymentGate, 'preHandler' | 'onSend'>;
  /**
   * Settles the request's payment now, from the handler, before a durable side effect (creating a
   * query): once settled, a later failure of the handler no longer frees the nonce (the payer has paid).
   * Does nothing on a free or already settled request. When settlement fails it frees the nonce and
   * throws an ApiError 402 `payment_settlement_failed` (the response is then the standard 402).
   */
  settle: (request: FastifyRequest) => Promise<void>;
}

interface Pending {
  key: NonceKey;
  payment: DecodedPayment;
  requirements: PaymentRequirements | PaymentRequirementsV1;
  charge: Charge;
  /** Set once settled (early, by `settle`). */
  receipt?: PaymentReceipt;
  /** Set when an early settlement failed: onSend answers the standard 402. */
  failure?: PaymentFailure;
}

const PRUNE_EVERY_MS = 60_000;

function defaultResourceUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host || 'localhost'}${request.url}`;
}

/**
 * Spec 4.5 and 5.3 for one route. preHandler: prices the request; a free one passes; otherwise reads
 * `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1), verifies it locally (and with the facilitator when one
 * is configured), claims its nonce, and sets `request.payment`; a missing or refused payment is a 402
 * with the `PAYMENT-REQUIRED` header (v2) and the v1 JSON body. onSend: after a response below 400,
 * settles (facilitator: on chain; offline: recorded as `local`) and sends `PAYMENT-RESPONSE` (v2) or
 * `X-PAYMENT-RESPONSE` (v1); after a failure (>= 400), releases the nonce so the payer is not charged.
 * A settlement that fails turns the response into a 402 `payment_settlement_failed`. Handlers with
 * durable side effects call `gate.settle(request)` before committing them.
 */
export function paymentGate(options: PaymentGateOptions): PaymentGate {
  const { config, ledger } = options;
  const facilitator = options.facilitator ?? (config.facilitatorUrl ? new HttpFacilitator({ url: config.facilitatorUrl }) : undefined);
  const now = options.now ?? (() => Date.now());
  const resourceUrl = options.resourceUrl ?? defaultResourceUrl;
  const describe = typeof options.description === 'function' ? options.description : () => options.description as string;
  const pending = new WeakMap<FastifyRequest, Pending>();
  let lastPrune = -Infinity;

  const paymentRequired = (reply: FastifyReply, charge: Charge, failure: PaymentFailure): string => {
    void reply
      .code(402)
      .header(PAYMENT_HEADERS.required, encodePaymentRequired(paymentRequiredV2(config, charge, failure.code)))
      .header('cache-control', 'no-store')
      .header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify(paymentRequiredBody(config, charge, failure));
  };

  const preHandler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const credits = await options.credits(request);
    if (credits === 0) return undefined;
    const charge: Charge = { amount: priceAtomic(credits), resourceUrl: resourceUrl(request), description: describe(request) };
    const refuse = (failure: PaymentFailure): FastifyReply => reply.send(paymentRequired(reply, charge, failure));
    const nowMs = now();
    if (nowMs - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = nowMs;
      await ledger.prune(Math.floor(nowMs / 1000));
    }
    const found = paymentHeaderOf(request.headers);
    if (!found) {
      return refuse({
        code: 'payment_missing',
        message: `this request costs ${credits} credits (${formatUsd(charge.amount)} in USDC on ${config.network}); pay with the PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (x402 v1) header`,
      });
    }
    const decoded = decodePayment(found.header, found.value);
    if (!decoded.ok) return refuse(decoded.failure);
    const payment = decoded.value;
    const verified = await verifyPayment(payment, config, charge.amount, nowMs / 1000);
    if (!verified.ok) return refuse(verified.failure);
    const payer = verified.value;
    const key: NonceKey = { network: config.network, payer, nonce: payment.authorization.nonce };
    const route = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0] ?? ''}`;
    const claim = { ...key, validBefore: payment.authorization.validBefore, route, amount: payment.authorization.value.toString(), createdAt: new Date(nowMs).toISOString() };
    if (!(await ledger.claim(claim))) return refuse({ code: 'payment_replayed', message: `the nonce ${payment.authorization.nonce} of ${payer} was already used; sign a new authorization` });
    const requirements = payment.version === 2 ? requirementsV2(config, charge.amount) : requirementsV1(config, charge);
    if (facilitator) {
      const checked = await facilitator.verify({ payload: payment.payload, requirements });
      if (!checked.ok) {
        await ledger.release(key);
        if (checked.failure.cause !== undefined) request.log.warn({ code: checked.failure.code, cause: checked.failure.cause }, 'x402 facilitator verify failed');
        return refuse(checked.failure);
      }
    }
    pending.set(request, { key, payment, requirements, charge });
    request.payment = { payer, network: config.network, amount: payment.authorization.value.toString(), nonce: payment.authorization.nonce, version: payment.version, credits };
    return undefined;
  };

  /** Settles with the facilitator, or records a local settlement; updates the ledger either way. */
  const settleState = async (request: FastifyRequest, state: Pending): Promise<PaymentResult<PaymentReceipt>> => {
    const receipt: PaymentReceipt = { success: true, transaction: '', network: state.payment.version === 2 ? config.network : config.v1Network, payer: state.key.payer };
    if (!facilitator) {
      await ledger.markSettled(state.key, 'local');
      return accept(receipt);
    }
    const settled = await facilitator.settle({ payload: state.payment.payload, requirements: state.requirements });
    if (!settled.ok) {
      await ledger.release(state.key);
      request.log.warn({ code: settled.failure.code, payer: state.key.payer, reason: settled.failure.message, cause: settled.failure.cause }, 'x402 settlement failed; nothing was charged');
      return settled;
    }
    await ledger.markSettled(state.key, settled.value.transaction);
    return accept({ ...receipt, transaction: settled.value.transaction });
  };

  const settle = async (request: FastifyRequest): Promise<void> => {
    const state = pending.get(request);
    if (!state || state.receipt || state.failure) return;
    const settled = await settleState(request, state);
    if (settled.ok) {
      state.receipt = settled.value;
      return;
    }
    state.failure = settled.failure;
    throw new ApiError(402, settled.failure.code, settled.failure.message);
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    void reply.header('access-control-expose-headers', mergeExposedHeaders(reply.getHeader('access-control-expose-headers')));
    const state = pending.get(request);
    if (!state) return payload;
    pending.delete(request);
    const receiptHeader = state.payment.version === 2 ? PAYMENT_HEADERS.response : PAYMENT_HEADERS.legacyResponse;
    const failed = (failure: PaymentFailure): string => {
      const network = state.payment.version === 2 ? config.network : config.v1Network;
      void reply.header(receiptHeader, encodePaymentReceipt({ success: false, transaction: '', network, payer: state.key.payer, errorReason: failure.code }));
      return paymentRequired(reply, state.charge, failure);
    };
    if (state.failure) return failed(state.failure);
    if (state.receipt) {
      // Settled early: the payer has paid, whatever the handler answered.
      if (reply.statusCode >= 400) request.log.warn({ status: reply.statusCode, payer: state.key.payer }, 'x402 payment settled before the handler failed');
      void reply.header(receiptHeader, encodePaymentReceipt(state.receipt));
      return payload;
    }
    if (reply.statusCode >= 400) {
      await ledger.release(state.key);
      return payload;
    }
    const settled = await settleState(request, state);
    if (!settled.ok) return failed(settled.failure);
    void reply.header(receiptHeader, encodePaymentReceipt(settled.value));
    return payload;
  };

  return { preHandler, onSend, hooks: { preHandler, onSend }, settle };
}
