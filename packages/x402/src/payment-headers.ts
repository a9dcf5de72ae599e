import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';

/** Header names of x402 (HTTP header names are case-insensitive; Node lowercases incoming ones). */
export const PAYMENT_HEADERS = {
  /** 402 answer, v2: base64 JSON PaymentRequired. */
  required: 'PAYMENT-REQUIRED',
  /** Client payment, v2: base64 JSON PaymentPayload. */
  signature: 'PAYMENT-SIGNATURE',
  /** Client payment, v1 (legacy). */
  legacySignature: 'X-PAYMENT',
  /** Settlement receipt, v2. */
  response: 'PAYMENT-RESPONSE',
  /** Settlement receipt, v1. */
  legacyResponse: 'X-PAYMENT-RESPONSE',
} as const;

/** Headers a browser client must be allowed to read (`Access-Control-Expose-Headers`). */
export const EXPOSED_PAYMENT_HEADERS = [PAYMENT_HEADERS.required, PAYMENT_HEADERS.response, PAYMENT_HEADERS.legacyResponse] as const;

/** The `PAYMENT-REQUIRED` value: base64 of the JSON object (@x402/core's encoder). */
export function encodePaymentRequired(required: PaymentRequired): string {
  return encodePaymentRequiredHeader(required);
}

/**
 * What the host tells the payer after a paid request (`PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE`).
 * `transaction` is the on-chain transaction hash when a facilitator settled, and the empty string when
 * nothing was settled on chain (offline verification, or a failed settlement).
 */
export interface PaymentReceipt {
  success: boolean;
  transaction: string;
  /** CAIP-2 for v2 payments, the v1 name for v1 payments. */
  network: string;
  payer: string;
  errorReason?: string;
}

/** The receipt header value: base64 of the JSON receipt (@x402/core's encoder). */
export function encodePaymentReceipt(receipt: PaymentReceipt): string {
  return encodePaymentResponseHeader({ ...receipt, network: receipt.network as `${string}:${string}` });
}

/** `existing` plus the x402 headers, without duplicates (keeps what CORS or another hook set). */
export function mergeExposedHeaders(existing: unknown): string {
  const names = typeof existing === 'string' ? existing.split(',').map((name) => name.trim()).filter(Boolean) : [];
  const seen = new Set(names.map((name) => name.toLowerCase()));
  for (const name of EXPOSED_PAYMENT_HEADERS) if (!seen.has(name.toLowerCase())) names.push(name);
  return names.join(', ');
}
