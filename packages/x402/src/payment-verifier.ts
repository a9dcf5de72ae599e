import type { PaymentRequirements } from '@x402/core/types';
import type { Address, Hex } from 'viem';
import { decodePayment, paymentHeaderOf, type DecodedPayment } from './decode-payment.js';
import { HttpFacilitator, type PaymentFacilitator } from './facilitator-client.js';
import { formatUsd, priceAtomic, settlementProblem, type PaymentConfig, type PaymentNetwork } from './payment-config.js';
import { accept, type PaymentFailure, type PaymentResult } from './payment-errors.js';
import { encodePaymentReceipt, encodePaymentRequired, PAYMENT_HEADERS, type PaymentReceipt } from './payment-headers.js';
import type { NonceKey, PaymentLedger } from './payment-ledger.js';
import { PaymentRateLimiter, type PaymentRateLimits, type SignatureSlot } from './payment-rate-limiter.js';
import { paymentRequiredBody, paymentRequiredV2, requirementsV1, requirementsV2, type Charge, type PaymentRequirementsV1 } from './requirements.js';
import { checkPaymentTerms, verifyPaymentSignature } from './verify-payment.js';

/** The payment of a paid request, once verified: who paid, how much, with which nonce. */
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

/** Where the verifier reports what only the operator should see (a facilitator's answer, say). */
export interface PaymentLog {
  /** Logs a warning with structured `fields` (pino's argument order, so a Fastify request's `log` fits). */
  warn(fields: Record<string, unknown>, message: string): void;
}

/** What one paid request is asked to pay. */
export interface PaidRequest {
  /** The request's headers (lower-case names, as Node gives them). */
  headers: Record<string, string | string[] | undefined>;
  /** Its price in credits (more than 0). */
  credits: number;
  /** Absolute URL of the resource, shown to payers and required by x402 v1. */
  resourceUrl: string;
  /** What the payer buys, shown by clients. */
  description: string;
  /** The route, recorded with the nonce (`POST /x402/v2/auto/chat`). */
  route: string;
  /** The client's address (Fastify's `request.ip`), for the per-address rate limit; none: only the per-payer one applies. */
  clientAddress?: string;
}

/** A response to send as is: the 402 (or the 429 of a rate limit) with its headers and JSON body. */
export interface PaymentResponse {
  status: 402 | 429;
  headers: Record<string, string>;
  /** 402: the x402 v1 JSON body (`x402Version`, `error`, `accepts`); 429: `{success: false, error: {code, message}}`; serialised. */
  body: string;
}

/** A verified payment whose nonce is claimed, waiting to be settled or released. */
export interface AcceptedPayment {
  readonly payment: RequestPayment;
  /** The ledger entry its nonce holds. */
  readonly key: NonceKey;
  readonly decoded: DecodedPayment;
  readonly requirements: PaymentRequirements | PaymentRequirementsV1;
  readonly charge: Charge;
}

/** The outcome of checking a paid request: accepted, or the 402 to answer and why. */
export type PaymentCheck = { ok: true; accepted: AcceptedPayment } | { ok: false; failure: PaymentFailure; response: PaymentResponse };

/** How a verifier is made. */
export interface PaymentVerifierOptions {
  config: PaymentConfig;
  /** The nonce ledger: one use of each (payer, nonce), shared by every process of the host. */
  ledger: PaymentLedger;
  /** Verifies and settles on chain; default: one at `config.facilitatorUrl`, or none (offline: signatures only). */
  facilitator?: PaymentFacilitator;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
  /** Default log of `check` and `settle` (each call may pass its own, a request's logger say). */
  log?: PaymentLog;
  /**
   * Bounds on refused signature checks per payer and per client address (defaults: 20 and 60 a minute),
   * or a limiter shared with other verifiers (one per host: the plugin shares one between its routes).
   */
  rateLimits?: PaymentRateLimits | PaymentRateLimiter;
}

const PRUNE_EVERY_MS = 60_000;
const silent: PaymentLog = { warn: () => undefined };

/**
 * The x402 payment protocol of spec 4.5 and 5.3 without any web framework: `check` reads
 * `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1), verifies it locally (cheap checks first: shape,
 * amount, recipient, validity window, signature form, a nonce already used, the rate limits; then the
 * EIP-712 signature), claims its nonce in the ledger and asks the facilitator when there is one;
 * `settle` settles it once the request has succeeded (on chain through the facilitator, else recorded
 * as `local`) and `release` frees the nonce when the request failed, so the payer is not charged.
 * Every refusal comes with the response to send: the 402, or a 429 past a rate limit. The Fastify gate
 * (`@eql/x402/fastify`) is this plus hooks; any other server can call it the same way.
 */
export class PaymentVerifier {
  private readonly config: PaymentConfig;
  private readonly ledger: PaymentLedger;
  private readonly facilitator: PaymentFacilitator | undefined;
  private readonly now: () => number;
  private readonly log: PaymentLog;
  private readonly limiter: PaymentRateLimiter;
  private lastPrune = -Infinity;

  /** Throws when the configuration must not run (`settlementProblem`: real money and no facilitator, unless offline on purpose). */
  constructor(options: PaymentVerifierOptions) {
    this.config = options.config;
    this.ledger = options.ledger;
    this.facilitator = options.facilitator ?? (options.config.facilitatorUrl ? new HttpFacilitator({ url: options.config.facilitatorUrl }) : undefined);
    const problem = settlementProblem(options.config, this.facilitator !== undefined);
    if (problem) throw new Error(problem);
    this.now = options.now ?? (() => Date.now());
    this.log = options.log ?? silent;
    this.limiter = options.rateLimits instanceof PaymentRateLimiter ? options.rateLimits : new PaymentRateLimiter(options.rateLimits, this.now);
  }

  /** Whether payments are settled on chain (a facilitator), or only verified (offline). */
  get settles(): boolean {
    return this.facilitator !== undefined;
  }

  /** The charge of a paid request: its price in atomic USDC units, resource and description. */
  chargeOf(request: Pick<PaidRequest, 'credits' | 'resourceUrl' | 'description'>): Charge {
    return { amount: priceAtomic(request.credits), resourceUrl: request.resourceUrl, description: request.description };
  }

  /** Checks the payment of a request; on success its nonce is claimed until `settle` or `release`. */
  async check(request: PaidRequest, log: PaymentLog = this.log): Promise<PaymentCheck> {
    const { config, ledger } = this;
    const charge = this.chargeOf(request);
    const refuse = (failure: PaymentFailure): PaymentCheck => ({ ok: false, failure, response: this.paymentRequired(charge, failure) });
    const nowMs = this.now();
    if (nowMs - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = nowMs;
      await ledger.prune(Math.floor(nowMs / 1000));
    }
    const found = paymentHeaderOf(request.headers);
    if (!found) {
      return refuse({
        code: 'payment_missing',
        message: `this request costs ${request.credits} credits (${formatUsd(charge.amount)} in USDC on ${config.network}); pay with the PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (x402 v1) header`,
      });
    }
    const decoded = decodePayment(found.header, found.value);
    if (!decoded.ok) return refuse(decoded.failure);
    const payment = decoded.value;
    // The cheap checks, all before the signature recovery (docs/x402.md, "Verification, in order").
    const terms = checkPaymentTerms(payment, config, charge.amount, nowMs / 1000);
    if (!terms.ok) return refuse(terms.failure);
    const claimed = terms.value;
    const key: NonceKey = { network: config.network, payer: claimed, nonce: payment.authorization.nonce };
    if (await ledger.lookup(key)) return refuse(replayed(key));
    const slot = await this.limiter.take(claimed, request.clientAddress);
    if (!slot.ok) return { ok: false, failure: { code: 'rate_limited', message: rateLimitMessage(slot, claimed) }, response: tooManyRequests(slot, claimed) };
    const verified = await verifyPaymentSignature(payment, config);
    await slot.done(verified.ok);
    if (!verified.ok) return refuse(verified.failure);
    const payer = verified.value;
    const claim = { ...key, validBefore: payment.authorization.validBefore, route: request.route, amount: payment.authorization.value.toString(), createdAt: new Date(nowMs).toISOString() };
    if (!(await ledger.claim(claim))) return refuse(replayed(key));
    const requirements = payment.version === 2 ? requirementsV2(config, charge.amount) : requirementsV1(config, charge);
    if (this.facilitator) {
      const checked = await this.facilitator.verify({ payload: payment.payload, requirements });
      if (!checked.ok) {
        await ledger.release(key);
        if (checked.failure.cause !== undefined) log.warn({ code: checked.failure.code, cause: checked.failure.cause }, 'x402 facilitator verify failed');
        return refuse(checked.failure);
      }
    }
    const accepted: AcceptedPayment = {
      payment: { payer, network: config.network, amount: payment.authorization.value.toString(), nonce: payment.authorization.nonce, version: payment.version, credits: request.credits },
      key,
      decoded: payment,
      requirements,
      charge,
    };
    return { ok: true, accepted };
  }

  /**
   * Settles an accepted payment: with the facilitator on chain, or recorded as `local` without one.
   * A failed settlement frees the nonce (nothing was charged) and says why.
   */
  async settle(accepted: AcceptedPayment, log: PaymentLog = this.log): Promise<PaymentResult<PaymentReceipt>> {
    const receipt: PaymentReceipt = { success: true, transaction: '', network: this.networkOf(accepted), payer: accepted.key.payer };
    if (!this.facilitator) {
      await this.ledger.markSettled(accepted.key, 'local');
      return accept(receipt);
    }
    const settled = await this.facilitator.settle({ payload: accepted.decoded.payload, requirements: accepted.requirements });
    if (!settled.ok) {
      await this.ledger.release(accepted.key);
      log.warn({ code: settled.failure.code, payer: accepted.key.payer, reason: settled.failure.message, cause: settled.failure.cause }, 'x402 settlement failed; nothing was charged');
      return settled;
    }
    await this.ledger.markSettled(accepted.key, settled.value.transaction);
    return accept({ ...receipt, transaction: settled.value.transaction });
  }

  /** Frees the nonce of a payment whose request failed: the payer may use it again. */
  async release(accepted: AcceptedPayment): Promise<void> {
    await this.ledger.release(accepted.key);
  }

  /** The receipt header of a settled payment (`PAYMENT-RESPONSE` for v2, `X-PAYMENT-RESPONSE` for v1). */
  receiptHeader(accepted: AcceptedPayment, receipt: PaymentReceipt): Record<string, string> {
    return { [this.receiptHeaderName(accepted)]: encodePaymentReceipt(receipt) };
  }

  /** The 402 answering an accepted payment whose settlement failed, with a receipt saying so. */
  settlementFailed(accepted: AcceptedPayment, failure: PaymentFailure): PaymentResponse {
    const response = this.paymentRequired(accepted.charge, failure);
    const receipt = encodePaymentReceipt({ success: false, transaction: '', network: this.networkOf(accepted), payer: accepted.key.payer, errorReason: failure.code });
    return { ...response, headers: { ...response.headers, [this.receiptHeaderName(accepted)]: receipt } };
  }

  /** The standard 402: `PAYMENT-REQUIRED` (v2) and the v1 JSON body, both naming the reason. */
  paymentRequired(charge: Charge, failure: PaymentFailure): PaymentResponse {
    return {
      status: 402,
      headers: {
        [PAYMENT_HEADERS.required]: encodePaymentRequired(paymentRequiredV2(this.config, charge, failure.code)),
        'cache-control': 'no-store',
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify(paymentRequiredBody(this.config, charge, failure)),
    };
  }

  private networkOf(accepted: AcceptedPayment): string {
    return accepted.decoded.version === 2 ? this.config.network : this.config.v1Network;
  }

  private receiptHeaderName(accepted: AcceptedPayment): string {
    return accepted.decoded.version === 2 ? PAYMENT_HEADERS.response : PAYMENT_HEADERS.legacyResponse;
  }
}

function replayed(key: NonceKey): PaymentFailure {
  return { code: 'payment_replayed', message: `the nonce ${key.nonce} of ${key.payer} was already used; sign a new authorization` };
}

type Refusal = Extract<SignatureSlot, { ok: false }>;

function rateLimitMessage(slot: Refusal, payer: string): string {
  const who = slot.limit === 'payer' ? `for payer ${payer}` : 'from this client address';
  return `too many payments with a refused signature ${who} (${slot.max} in the current window); retry in ${slot.retryAfterSeconds} s`;
}

/** The 429 of a rate limit, in the host's error envelope, with `retry-after` and the `x-ratelimit-*` headers. */
function tooManyRequests(slot: Refusal, payer: string): PaymentResponse {
  return {
    status: 429,
    headers: {
      'retry-after': String(slot.retryAfterSeconds),
      'x-ratelimit-limit': String(slot.max),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(slot.retryAfterSeconds),
      'cache-control': 'no-store',
      'content-type': 'application/json; charset=utf-8',
    },
    body: JSON.stringify({ success: false, error: { code: 'rate_limited', message: rateLimitMessage(slot, payer) } }),
  };
}
