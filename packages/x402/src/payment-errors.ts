/**
 * Why a payment was refused: a stable snake_case code (docs/x402.md lists them) and a message for
 * people. Every payment failure is a 402 but `rate_limited` (429); the code says what to fix.
 */
export type PaymentErrorCode =
  /** No `PAYMENT-SIGNATURE` or `X-PAYMENT` header on a paid route. */
  | 'payment_missing'
  /** Not base64, not JSON, or not the shape of an x402 exact EVM payment. */
  | 'payment_malformed'
  /** A scheme other than `exact`. */
  | 'payment_wrong_scheme'
  /** Signed for another network than the host's. */
  | 'payment_wrong_network'
  /** Another token than the host's USDC. */
  | 'payment_wrong_asset'
  /** `to` (or `accepted.payTo`) is not the host's address. */
  | 'payment_wrong_recipient'
  /** v2: value differs from the price; v1: value below the price. */
  | 'payment_wrong_amount'
  /** `validAfter` is in the future. */
  | 'payment_not_yet_valid'
  /** `validBefore` is past, or less than 6 s away (too late to settle). */
  | 'payment_expired'
  /** The EIP-712 signature does not recover `from`, or is not in the form USDC accepts (65 bytes, v 27 or 28, low s). */
  | 'payment_invalid_signature'
  /** This (payer, nonce) was already used. */
  | 'payment_replayed'
  /** The facilitator's verify refused the payment (its reason is in the message). */
  | 'payment_rejected'
  /** The facilitator could not be reached or answered nonsense while verifying. */
  | 'payment_facilitator_unavailable'
  /** The handler succeeded but the facilitator did not settle; nothing was charged. */
  | 'payment_settlement_failed'
  /** 429: too many refused signature checks for this payer or client address (`PaymentRateLimiter`); retry later. */
  | 'rate_limited';

/** A refused payment. */
export interface PaymentFailure {
  code: PaymentErrorCode;
  /** Shown to the client. */
  message: string;
  /** For the host's log only (what a facilitator answered, say): never sent to the client. */
  cause?: string;
}

/** Outcome of a payment step: a value, or a refusal with its reason. */
export type PaymentResult<T> = { ok: true; value: T } | { ok: false; failure: PaymentFailure };

/** A refusal. */
export function refuse<T = never>(code: PaymentErrorCode, message: string, cause?: string): PaymentResult<T> {
  return { ok: false, failure: cause === undefined ? { code, message } : { code, message, cause } };
}

/** A success. */
export function accept<T>(value: T): PaymentResult<T> {
  return { ok: true, value };
}
