import type { IncomingHttpHeaders } from 'node:http';
import { PaymentPayloadV1Schema, PaymentPayloadV2Schema, z } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { getAddress, isAddress, type Address, type Hex } from 'viem';
import { accept, refuse, type PaymentResult } from './payment-errors.js';

/** Longest payment header accepted (an exact EVM payment is about 1 KB; smart-wallet signatures more). */
export const MAX_PAYMENT_HEADER_LENGTH = 8192;

/** The EIP-3009 TransferWithAuthorization a payer signed, with its numbers as bigints. */
export interface TransferAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  /** bytes32, lowercase hex. */
  nonce: Hex;
}

/** An x402 v1 payment payload as sent in `X-PAYMENT`. */
export interface PaymentPayloadV1 {
  x402Version: 1;
  scheme: string;
  network: string;
  payload: Record<string, unknown>;
}

/** A payment header, decoded and shape-checked (not yet verified). */
export interface DecodedPayment {
  version: 1 | 2;
  /** The header it came in. */
  header: 'PAYMENT-SIGNATURE' | 'X-PAYMENT';
  scheme: string;
  /** The network the payer names (`accepted.network` in v2, `network` in v1). */
  network: string;
  /** v2 only: the requirements the payer says it accepted. */
  accepted?: PaymentRequirements;
  authorization: TransferAuthorization;
  signature: Hex;
  /** The payload as received, forwarded as is to a facilitator. */
  payload: PaymentPayload | PaymentPayloadV1;
}

const MAX_UINT256 = (1n << 256n) - 1n;
const uint256 = z
  .string()
  .regex(/^\d{1,78}$/, 'an unsigned integer in decimal')
  .transform((text) => BigInt(text))
  .refine((value) => value <= MAX_UINT256, 'larger than uint256');
const address = z
  .string()
  .refine((text) => isAddress(text, { strict: false }), 'an EVM address')
  .transform((text) => getAddress(text));
const exactEvmPayload = z.object({
  signature: z
    .string()
    .regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'a hex signature')
    .transform((text) => text as Hex),
  authorization: z.object({
    from: address,
    to: address,
    value: uint256,
    validAfter: uint256,
    validBefore: uint256,
    nonce: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'a bytes32 hex nonce')
      .transform((text) => text.toLowerCase() as Hex),
  }),
});

/** The payment header of a request and its name: `PAYMENT-SIGNATURE` wins over `X-PAYMENT`. */
export function paymentHeaderOf(headers: IncomingHttpHeaders): { header: DecodedPayment['header']; value: string } | undefined {
  const pick = (name: string): string | undefined => {
    const value = headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined || first.trim() === '' ? undefined : first.trim();
  };
  const v2 = pick('payment-signature');
  if (v2 !== undefined) return { header: 'PAYMENT-SIGNATURE', value: v2 };
  const v1 = pick('x-payment');
  if (v1 !== undefined) return { header: 'X-PAYMENT', value: v1 };
  return undefined;
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Decodes a payment header: base64 → JSON → an x402 payload (v1 or v2, by its `x402Version`, in
 * either header) → an exact EVM payload. Never throws: anything malformed is `payment_malformed`.
 */
export function decodePayment(header: DecodedPayment['header'], value: string): PaymentResult<DecodedPayment> {
  if (value.length > MAX_PAYMENT_HEADER_LENGTH) return refuse('payment_malformed', `the ${header} header is longer than ${MAX_PAYMENT_HEADER_LENGTH} characters`);
  if (value.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return refuse('payment_malformed', `the ${header} header is not base64`);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    return refuse('payment_malformed', `the ${header} header is not base64-encoded JSON`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return refuse('payment_malformed', `the ${header} header is not a JSON object`);
  const version = (json as { x402Version?: unknown }).x402Version;
  if (version === 2) {
    const parsed = PaymentPayloadV2Schema.safeParse(json);
    if (!parsed.success) return refuse('payment_malformed', `not an x402 v2 payment payload: ${issues(parsed.error)}`);
    const exact = exactEvmPayload.safeParse(parsed.data.payload);
    if (!exact.success) return refuse('payment_malformed', `not an exact EVM payment: ${issues(exact.error)}`);
    const accepted = parsed.data.accepted as PaymentRequirements;
    return accept({
      version: 2,
      header,
      scheme: accepted.scheme,
      network: accepted.network,
      accepted,
      authorization: exact.data.authorization,
      signature: exact.data.signature,
      payload: parsed.data as PaymentPayload,
    });
  }
  if (version === 1) {
    const parsed = PaymentPayloadV1Schema.safeParse(json);
    if (!parsed.success) return refuse('payment_malformed', `not an x402 v1 payment payload: ${issues(parsed.error)}`);
    const exact = exactEvmPayload.safeParse(parsed.data.payload);
    if (!exact.success) return refuse('payment_malformed', `not an exact EVM payment: ${issues(exact.error)}`);
    return accept({
      version: 1,
      header,
      scheme: parsed.data.scheme,
      network: parsed.data.network,
      authorization: exact.data.authorization,
      signature: exact.data.signature,
      payload: parsed.data,
    });
  }
  const shown = version === undefined ? 'none' : JSON.stringify(version).slice(0, 40);
  return refuse('payment_malformed', `unsupported x402Version ${shown}: send 1 (X-PAYMENT) or 2 (PAYMENT-SIGNATURE)`);
}
