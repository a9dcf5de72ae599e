import { getAddress, isAddress, type Address } from 'viem';

/** The CAIP-2 networks the host accepts USDC payments on: Base and Base Sepolia. */
export type PaymentNetwork = 'eip155:8453' | 'eip155:84532';

/** The x402 v1 name of a network (the legacy `X-PAYMENT` protocol names networks, v2 uses CAIP-2). */
export type PaymentNetworkV1 = 'base' | 'base-sepolia';

/** USDC on one network: the token contract and its EIP-712 domain (name, version). */
export interface UsdcDeployment {
  network: PaymentNetwork;
  v1Name: PaymentNetworkV1;
  chainId: number;
  asset: Address;
  name: string;
  version: string;
  /** A test network (test USDC, worth nothing): a host may run there without a facilitator. */
  testnet: boolean;
}

/** USDC deployments by network (6 decimals on both). */
export const USDC: Readonly<Record<PaymentNetwork, UsdcDeployment>> = {
  'eip155:8453': { network: 'eip155:8453', v1Name: 'base', chainId: 8453, asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', testnet: false },
  'eip155:84532': { network: 'eip155:84532', v1Name: 'base-sepolia', chainId: 84532, asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2', testnet: true },
};

/** The default network: Base Sepolia (test USDC). */
export const DEFAULT_PAYMENT_NETWORK: PaymentNetwork = 'eip155:84532';

/** Atomic USDC units (6 decimals) per credit: 1 credit = 0.009 USD = 9000 units. */
export const ATOMIC_UNITS_PER_CREDIT = 9000n;

/** Shortest agent secret accepted: a secret is a bearer credential and must not be guessable. */
export const MIN_AGENT_SECRET_LENGTH = 16;

/**
 * What the payment model needs (spec 4.5, 5.3): where the money goes, on which network, in which
 * token (derived from the network), an optional facilitator that verifies and settles on chain, and
 * the agent secrets of the agent routes.
 */
export interface PaymentConfig {
  network: PaymentNetwork;
  /** x402 v1 name of `network`, used in the legacy body and `X-PAYMENT` payloads. */
  v1Network: PaymentNetworkV1;
  chainId: number;
  /** The address paid (checksummed). */
  payTo: Address;
  /** The USDC contract of `network` (checksummed). */
  asset: Address;
  /** EIP-712 domain name and version of the asset (x402 `extra.name` / `extra.version`). */
  assetName: string;
  assetVersion: string;
  /** Base URL of an x402 facilitator (`POST {url}/verify`, `POST {url}/settle`); absent = offline. */
  facilitatorUrl?: string;
  /** How long a signed authorization may stay valid, announced to clients (must exceed 6 s). */
  maxTimeoutSeconds: number;
  /** Accepted values of `x-svc-agent-secret` (several allow rotation). */
  agentSecrets: string[];
  /**
   * Runs without a facilitator on purpose: payments are verified and never settled. Required for that
   * on a network with real money (Base mainnet); see `settlementProblem`.
   */
  offline?: boolean;
}

/** The inputs of a payment configuration; everything else is derived. */
export interface PaymentConfigInput {
  payTo: string;
  network?: string;
  facilitatorUrl?: string;
  maxTimeoutSeconds?: number;
  agentSecrets?: string[];
  /** Without a facilitator on purpose (`PaymentConfig.offline`). */
  offline?: boolean;
}

function isPaymentNetwork(value: string): value is PaymentNetwork {
  return Object.hasOwn(USDC, value);
}

/** A network given as CAIP-2 (`eip155:84532`) or by its v1 name (`base-sepolia`). */
export function parsePaymentNetwork(value: string): PaymentNetwork {
  const trimmed = value.trim();
  if (isPaymentNetwork(trimmed)) return trimmed;
  const byName = Object.values(USDC).find((deployment) => deployment.v1Name === trimmed);
  if (byName) return byName.network;
  throw new Error(`unsupported x402 network "${value}": use eip155:8453 (Base) or eip155:84532 (Base Sepolia)`);
}

/** Validates the inputs and derives the asset, its EIP-712 domain and the chain; throws on bad values. */
export function createPaymentConfig(input: PaymentConfigInput): PaymentConfig {
  const network = input.network === undefined ? DEFAULT_PAYMENT_NETWORK : parsePaymentNetwork(input.network);
  const usdc = USDC[network];
  if (!isAddress(input.payTo, { strict: false })) throw new Error(`the x402 payTo must be an EVM address (0x and 40 hex digits), not "${input.payTo}"`);
  const maxTimeoutSeconds = input.maxTimeoutSeconds ?? 60;
  if (!Number.isInteger(maxTimeoutSeconds) || maxTimeoutSeconds <= 6 || maxTimeoutSeconds > 86_400) {
    throw new Error('maxTimeoutSeconds must be an integer above 6 (a facilitator needs 6 s to settle) and at most 86400');
  }
  let facilitatorUrl: string | undefined;
  if (input.facilitatorUrl !== undefined && input.facilitatorUrl.trim() !== '') {
    let url: URL;
    try {
      url = new URL(input.facilitatorUrl.trim());
    } catch {
      throw new Error(`the x402 facilitator URL is not a URL: "${input.facilitatorUrl}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('the x402 facilitator URL must be http or https');
    facilitatorUrl = url.toString().replace(/\/+$/, '');
  }
  const agentSecrets = input.agentSecrets ?? [];
  for (const secret of agentSecrets) {
    if (secret.length < MIN_AGENT_SECRET_LENGTH) throw new Error(`an agent secret has at least ${MIN_AGENT_SECRET_LENGTH} characters`);
  }
  return {
    network,
    v1Network: usdc.v1Name,
    chainId: usdc.chainId,
    payTo: getAddress(input.payTo),
    asset: usdc.asset,
    assetName: usdc.name,
    assetVersion: usdc.version,
    ...(facilitatorUrl === undefined ? {} : { facilitatorUrl }),
    maxTimeoutSeconds,
    agentSecrets: [...agentSecrets],
    ...(input.offline === true ? { offline: true } : {}),
  };
}

/**
 * Why a payment configuration must not run, or undefined when it may. On a network with real money
 * (any network of `USDC` that is not a testnet: Base mainnet), a host without a facilitator would
 * accept signatures that are never settled, so it needs one, or `offline` set on purpose; `offline`
 * with a facilitator is a contradiction. `facilitator`: whether one is configured or given.
 */
export function settlementProblem(config: Pick<PaymentConfig, 'network' | 'offline'>, facilitator: boolean): string | undefined {
  if (config.offline === true && facilitator) return 'x402: a facilitator is configured and offline mode is on; choose one (unset EQL_X402_OFFLINE to settle through the facilitator)';
  if (!facilitator && config.offline !== true && !USDC[config.network].testnet) {
    return `x402: ${config.network} is a network with real money and no facilitator is configured: payments would be verified but never settled. Set EQL_X402_FACILITATOR_URL, or EQL_X402_OFFLINE=1 to accept unsettled payments on purpose`;
  }
  return undefined;
}

/** Whether an environment flag is on (`1`, `true`, `yes`, `on`). */
function flagOn(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/** `EQL_AGENT_SECRET` as a list: comma-separated, blanks dropped. */
export function agentSecretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.EQL_AGENT_SECRET ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret !== '');
}

/**
 * The payment configuration from `EQL_X402_NETWORK`, `EQL_X402_PAY_TO`, `EQL_X402_FACILITATOR_URL`,
 * `EQL_X402_OFFLINE` and `EQL_AGENT_SECRET` (comma-separated). Undefined when `EQL_X402_PAY_TO` is not
 * set (the payment model is off); throws when a value is invalid, or on a network with real money
 * without a facilitator unless `EQL_X402_OFFLINE` is on (`settlementProblem`).
 */
export function paymentConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PaymentConfig | undefined {
  const payTo = env.EQL_X402_PAY_TO?.trim();
  if (payTo === undefined || payTo === '') return undefined;
  const config = createPaymentConfig({
    payTo,
    ...(env.EQL_X402_NETWORK?.trim() ? { network: env.EQL_X402_NETWORK } : {}),
    ...(env.EQL_X402_FACILITATOR_URL?.trim() ? { facilitatorUrl: env.EQL_X402_FACILITATOR_URL } : {}),
    agentSecrets: agentSecretsFromEnv(env),
    offline: flagOn(env.EQL_X402_OFFLINE),
  });
  const problem = settlementProblem(config, config.facilitatorUrl !== undefined);
  if (problem) throw new Error(problem);
  return config;
}

/** The price of `credits` in atomic USDC units (credits × 9000), in integers. */
export function priceAtomic(credits: number): bigint {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new RangeError(`credits must be a non-negative integer, not ${credits}`);
  return BigInt(credits) * ATOMIC_UNITS_PER_CREDIT;
}

/** An atomic USDC amount as a price string `$<decimal>` (5 credits → `$0.045`). */
export function formatUsd(atomic: bigint): string {
  const whole = atomic / 1_000_000n;
  const fraction = (atomic % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction === '' ? `$${whole}` : `$${whole}.${fraction}`;
}
