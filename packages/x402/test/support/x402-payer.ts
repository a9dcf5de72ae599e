import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { requirementsV2, TRANSFER_WITH_AUTHORIZATION_TYPES, type PaymentConfig } from '../../src/index.js';

/** A fresh payer (random key: nothing on any chain). */
export function newPayer(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** What a hand-made payment may get wrong; defaults make a valid payment. */
export interface PaymentShape {
  version?: 1 | 2;
  value?: bigint;
  to?: Address;
  /** Unix seconds. */
  validAfter?: bigint;
  validBefore?: bigint;
  nonce?: Hex;
  scheme?: string;
  /** v2: `accepted.network`; v1: `network`. */
  network?: string;
  /** v2: `accepted.asset`. */
  acceptedAsset?: string;
  /** The EIP-712 domain signed (default: the host's USDC). */
  domain?: { name?: string; version?: string; chainId?: number; verifyingContract?: Address };
  /** Sign with another key than `from` (a forged payment). */
  signer?: PrivateKeyAccount;
  /** Replace the signature. */
  signature?: Hex;
}

/** A signed payment and the header that carries it. */
export interface SignedPayment {
  headers: Record<string, string>;
  nonce: Hex;
  from: Address;
  payload: Record<string, unknown>;
}

/** A random bytes32 nonce. */
export const newNonce = (): Hex => `0x${randomBytes(32).toString('hex')}`;

/**
 * Signs an EIP-3009 TransferWithAuthorization like the official clients do, and wraps it as an x402
 * v2 (`PAYMENT-SIGNATURE`) or v1 (`X-PAYMENT`) header; `shape` bends one field to test a refusal.
 */
export async function signPayment(payer: PrivateKeyAccount, config: PaymentConfig, amount: bigint, nowSeconds: number, shape: PaymentShape = {}): Promise<SignedPayment> {
  const version = shape.version ?? 2;
  const authorization = {
    from: payer.address,
    to: shape.to ?? config.payTo,
    value: shape.value ?? amount,
    validAfter: shape.validAfter ?? BigInt(nowSeconds - 600),
    validBefore: shape.validBefore ?? BigInt(nowSeconds + config.maxTimeoutSeconds),
    nonce: shape.nonce ?? newNonce(),
  };
  const signer = shape.signer ?? payer;
  const signature =
    shape.signature ??
    (await signer.signTypedData({
      domain: { name: config.assetName, version: config.assetVersion, chainId: config.chainId, verifyingContract: config.asset, ...shape.domain },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: authorization,
    }));
  const exact = {
    signature,
    authorization: {
      ...authorization,
      value: authorization.value.toString(),
      validAfter: authorization.validAfter.toString(),
      validBefore: authorization.validBefore.toString(),
    },
  };
  const payload: Record<string, unknown> =
    version === 2
      ? {
          x402Version: 2,
          resource: { url: 'http://127.0.0.1/x402/v2/chat', mimeType: 'application/json' },
          accepted: {
            ...requirementsV2(config, amount),
            ...(shape.scheme === undefined ? {} : { scheme: shape.scheme }),
            ...(shape.network === undefined ? {} : { network: shape.network }),
            ...(shape.acceptedAsset === undefined ? {} : { asset: shape.acceptedAsset }),
          },
          payload: exact,
        }
      : { x402Version: 1, scheme: shape.scheme ?? 'exact', network: shape.network ?? config.v1Network, payload: exact };
  const encoded = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64');
  return { headers: { [version === 2 ? 'payment-signature' : 'x-payment']: encoded }, nonce: authorization.nonce, from: payer.address, payload };
}

/** Base64 JSON of a header value. */
export function decodeHeader(value: string | string[] | number | undefined): Record<string, unknown> {
  if (typeof value !== 'string') throw new Error(`expected a header value, got ${String(value)}`);
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as Record<string, unknown>;
}
