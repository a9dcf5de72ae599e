import { hexToBigInt, verifyTypedData, type Address, type Hex } from 'viem';
import type { DecodedPayment } from './decode-payment.js';
import type { PaymentConfig } from './payment-config.js';
import { accept, refuse, type PaymentResult } from './payment-errors.js';

/** A facilitator needs this long before `validBefore` to get the transfer mined. */
export const SETTLEMENT_MARGIN_SECONDS = 6n;

/** EIP-712 types of EIP-3009 `transferWithAuthorization` (what USDC verifies on chain). */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The order of secp256k1's group: a signature's `s` above `n / 2` is the malleated twin of a valid one. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * The signature is in the one form USDC's `transferWithAuthorization` accepts on chain (Circle's
 * `ECRecover`): 65 bytes `r ‖ s ‖ v`, `v` 27 or 28, and `s` in the lower half of the curve order
 * (EIP-2; `s' = n − s` with `v` flipped recovers the same address but is refused on chain). A payment
 * in any other form could never settle, so it is refused as `payment_invalid_signature` before any
 * recovery. Smart-wallet signatures (ERC-1271, ERC-6492) are not this form either.
 */
export function checkSignatureForm(signature: Hex): PaymentResult<void> {
  if (signature.length !== 2 + 65 * 2) {
    return refuse('payment_invalid_signature', `the signature has ${(signature.length - 2) / 2} bytes; USDC takes a 65-byte ECDSA signature (r, s, v) from an EOA`);
  }
  const v = Number.parseInt(signature.slice(130, 132), 16);
  if (v !== 27 && v !== 28) return refuse('payment_invalid_signature', `the signature's v is ${v}; USDC takes 27 or 28`);
  const s = hexToBigInt(`0x${signature.slice(66, 130)}`);
  if (s === 0n || s > SECP256K1_N / 2n) {
    return refuse('payment_invalid_signature', "the signature's s is not in the lower half of the curve order (EIP-2): USDC refuses such a signature on chain; sign again (standard signers make low-s signatures)");
  }
  return accept(undefined);
}

/**
 * The cheap checks of a decoded payment, everything but the signature recovery: scheme `exact`; the
 * host's network; its USDC (v2 `accepted.asset`; v1 payloads name no asset, the signature's domain
 * binds it); `to` (and v2 `accepted.payTo`) is the host's address; the value (and v2
 * `accepted.amount`) is the price exactly (v2) or at least the price (v1); `validAfter <= now`;
 * `validBefore >= now + 6`; the signature's form (`checkSignatureForm`). Returns the payer the
 * payment claims (not yet verified). Never throws.
 */
export function checkPaymentTerms(payment: DecodedPayment, config: PaymentConfig, amount: bigint, nowSeconds: number): PaymentResult<Address> {
  const { authorization } = payment;
  if (payment.scheme !== 'exact') return refuse('payment_wrong_scheme', `the scheme is "${payment.scheme.slice(0, 40)}"; this host takes "exact"`);
  const networkOk = payment.version === 2 ? payment.network === config.network : payment.network === config.v1Network || payment.network === config.network;
  if (!networkOk) {
    return refuse('payment_wrong_network', `the payment is for network "${payment.network.slice(0, 40)}"; this host takes ${payment.version === 2 ? config.network : config.v1Network}`);
  }
  if (payment.accepted && !sameAddress(payment.accepted.asset, config.asset)) {
    return refuse('payment_wrong_asset', `the payment is in asset ${payment.accepted.asset.slice(0, 42)}; this host takes USDC ${config.asset}`);
  }
  if (!sameAddress(authorization.to, config.payTo)) return refuse('payment_wrong_recipient', `the authorization pays ${authorization.to}; this host is paid at ${config.payTo}`);
  if (payment.accepted && !sameAddress(payment.accepted.payTo, config.payTo)) {
    return refuse('payment_wrong_recipient', `the accepted requirements pay ${payment.accepted.payTo.slice(0, 42)}; this host is paid at ${config.payTo}`);
  }
  if (payment.accepted && payment.accepted.amount !== amount.toString()) {
    return refuse('payment_wrong_amount', `the accepted requirements say ${payment.accepted.amount.slice(0, 80)} atomic units; this request costs exactly ${amount}`);
  }
  if (payment.version === 2 ? authorization.value !== amount : authorization.value < amount) {
    const wanted = payment.version === 2 ? `exactly ${amount}` : `at least ${amount}`;
    return refuse('payment_wrong_amount', `the authorization is for ${authorization.value} atomic units; this request costs ${wanted}`);
  }
  const now = BigInt(Math.floor(nowSeconds));
  if (authorization.validAfter > now) return refuse('payment_not_yet_valid', `the authorization is valid only after ${authorization.validAfter} (now ${now})`);
  if (authorization.validBefore < now + SETTLEMENT_MARGIN_SECONDS) {
    return refuse('payment_expired', `the authorization expires at ${authorization.validBefore}, too soon to settle (now ${now}; at least ${SETTLEMENT_MARGIN_SECONDS} s needed)`);
  }
  const form = checkSignatureForm(payment.signature);
  if (!form.ok) return form;
  return accept(authorization.from);
}

/**
 * The expensive check: the EIP-712 signature, in the domain of the host's USDC (never the client's
 * `accepted`), recovers `from` (viem `verifyTypedData`). Returns the payer. Never throws.
 */
export async function verifyPaymentSignature(payment: DecodedPayment, config: PaymentConfig): Promise<PaymentResult<Address>> {
  const { authorization } = payment;
  let valid: boolean;
  try {
    valid = await verifyTypedData({
      address: authorization.from,
      domain: { name: config.assetName, version: config.assetVersion, chainId: config.chainId, verifyingContract: config.asset },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: authorization.from,
        to: authorization.to,
        value: authorization.value,
        validAfter: authorization.validAfter,
        validBefore: authorization.validBefore,
        nonce: authorization.nonce,
      },
      signature: payment.signature,
    });
  } catch {
    valid = false;
  }
  if (!valid) return refuse('payment_invalid_signature', `the signature is not ${authorization.from}'s TransferWithAuthorization for USDC on ${config.network}`);
  return accept(authorization.from);
}

/**
 * Checks a decoded payment against what the host asks for, the checks a facilitator makes, without
 * a chain: `checkPaymentTerms`, then `verifyPaymentSignature`. Returns the payer.
 *
 * Only EOA (ECDSA) signatures verify offline; smart-wallet signatures (ERC-1271, ERC-6492) need a
 * chain and are refused as `payment_invalid_signature`. Never throws.
 */
export async function verifyPayment(payment: DecodedPayment, config: PaymentConfig, amount: bigint, nowSeconds: number): Promise<PaymentResult<Address>> {
  const terms = checkPaymentTerms(payment, config, amount, nowSeconds);
  if (!terms.ok) return terms;
  return verifyPaymentSignature(payment, config);
}
