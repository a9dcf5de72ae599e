import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { PaymentConfig, PaymentNetworkV1 } from './payment-config.js';
import type { PaymentErrorCode, PaymentFailure } from './payment-errors.js';

/** What one request costs and what it is: the input of both protocol versions' requirements. */
export interface Charge {
  /** Price in atomic USDC units. */
  amount: bigint;
  /** Absolute URL of the resource (v1 requires a URL). */
  resourceUrl: string;
  description: string;
}

/** The MIME type of every paid resource of the host. */
export const RESOURCE_MIME_TYPE = 'application/json';

/** The x402 v2 `accepts` entry of a charge: exact scheme, USDC on the host's network. */
export function requirementsV2(config: PaymentConfig, amount: bigint): PaymentRequirements {
  return {
    scheme: 'exact',
    network: config.network,
    amount: amount.toString(),
    asset: config.asset,
    payTo: config.payTo,
    maxTimeoutSeconds: config.maxTimeoutSeconds,
    extra: { name: config.assetName, version: config.assetVersion },
  };
}

/** The x402 v2 PaymentRequired object (sent base64-encoded in `PAYMENT-REQUIRED`). */
export function paymentRequiredV2(config: PaymentConfig, charge: Charge, error?: PaymentErrorCode): PaymentRequired {
  return {
    x402Version: 2,
    ...(error === undefined ? {} : { error }),
    resource: { url: charge.resourceUrl, description: charge.description, mimeType: RESOURCE_MIME_TYPE },
    accepts: [requirementsV2(config, charge.amount)],
  };
}

/**
 * An x402 v1 `accepts` entry. Declared here rather than taken from @x402/core, whose v1 type insists on
 * a CAIP-2 network while v1 names networks `base` / `base-sepolia`.
 */
export interface PaymentRequirementsV1 {
  scheme: 'exact';
  network: PaymentNetworkV1;
  maxAmountRequired: string;
  resource: string;
  description: string;
  mimeType: string;
  payTo: string;
  maxTimeoutSeconds: number;
  asset: string;
  extra: { name: string; version: string };
}

/** The x402 v1 `accepts` entry of a charge. */
export function requirementsV1(config: PaymentConfig, charge: Charge): PaymentRequirementsV1 {
  return {
    scheme: 'exact',
    network: config.v1Network,
    maxAmountRequired: charge.amount.toString(),
    resource: charge.resourceUrl,
    description: charge.description,
    mimeType: RESOURCE_MIME_TYPE,
    payTo: config.payTo,
    maxTimeoutSeconds: config.maxTimeoutSeconds,
    asset: config.asset,
    extra: { name: config.assetName, version: config.assetVersion },
  };
}

/**
 * The JSON body of every 402: the x402 v1 PaymentRequired response (read by legacy clients, and by v2
 * clients when the header is absent) with the host's `success: false` and a `message`. `error` is the
 * failure code as a string, as v1 defines it (v1 clients such as the Python SDK reject a non-string
 * `error`), so this body deliberately differs from the host's `{error: {code, message}}` envelope.
 */
export interface PaymentRequiredBody {
  success: false;
  x402Version: 1;
  error: PaymentErrorCode;
  message: string;
  accepts: PaymentRequirementsV1[];
}

/** The 402 body for a charge and the reason it was refused. */
export function paymentRequiredBody(config: PaymentConfig, charge: Charge, failure: PaymentFailure): PaymentRequiredBody {
  return { success: false, x402Version: 1, error: failure.code, message: failure.message, accepts: [requirementsV1(config, charge)] };
}
