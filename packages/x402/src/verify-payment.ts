import { verifyTypedData, type Address } from 'viem';
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

/**
 * Checks a decoded payment against what the host asks for, the checks a facilitator makes, without
 * a chain: scheme `exact`; the host's network; its USDC (v2 `accepted.asset`; v1 payloads name no
 * asset, the signature's domain binds it); `to` (and v2 `accepted.payTo`) is the host's address; the
 * value (and v2 `accepted.amount`) is the price exactly (v2) or at least the price (v1); `validAfter <= now`; `validBefore >= now + 6`;
 * the EIP-712 signature, in the domain of the host's USDC, recovers `from`. Returns the payer.
 *
 * Only EOA (ECDSA) signatures verify offline; smart-wallet signatures (ERC-1271, ERC-6492) need a
 * chain and are refused as `payment_invalid_signature`. Never throws.
 */
export async function verifyPayment(payment: DecodedPayment, config: PaymentConfig, amount: bigint, nowSeconds: number): Promise<PaymentResult<Address>> {
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
