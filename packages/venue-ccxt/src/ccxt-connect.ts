import { ExchangeAdapterError } from './adapter-error.js';
import { ccxtErrorKinds, describeCcxtError, isTransientCcxtError } from './ccxt-errors.js';
import { createCcxtClient, UnknownExchangeError, type CcxtConfig } from './ccxt-load.js';
import { type CcxtClient } from './ccxt-types.js';
import { redactor } from './redact.js';

/** Credentials of an exchange account: API keys, or a wallet for wallet venues (Hyperliquid). */
export interface ExchangeCredentials {
  apiKey?: string;
  secret?: string;
  /** The passphrase some venues add to API keys (OKX, KuCoin). */
  password?: string;
  uid?: string;
  walletAddress?: string;
  privateKey?: string;
}

/** How {@link connectCcxt} builds the ccxt instance: extra constructor options and the pro (websocket) class. */
export interface ConnectOptions {
  /** More ccxt constructor options (`options`, `urls`, `timeout`, ...), merged under the credentials. */
  config?: CcxtConfig;
  /** Use the ccxt pro class when the venue has one. Default false. */
  pro?: boolean;
}

/** Orders trade perpetuals: balances and defaults of the swap account. */
const DEFAULT_OPTIONS: Record<string, unknown> = { defaultType: 'swap' };

/**
 * Per-venue ccxt options set unless the config says otherwise. On Hyperliquid, ccxt by default charges
 * every order a builder fee paid to ccxt's builder address and permanently sets a ccxt referrer on the
 * account; a host trading on its users' behalf must not do either silently, so both are off
 * (`builderFee: false` makes ccxt approve its builder at 0% and attach it with fee 0).
 */
const VENUE_OPTIONS: Record<string, Record<string, unknown>> = {
  hyperliquid: { builderFee: false, refSet: true },
};

const CREDENTIAL_FIELDS = ['apiKey', 'secret', 'password', 'uid', 'walletAddress', 'privateKey'] as const;

/**
 * Builds `ccxt[exchangeId]` with credentials and proves them with one cheap authenticated call
 * (`fetchBalance`). Orders trade perpetuals, so `options.defaultType` is `swap` unless the config says
 * otherwise; on Hyperliquid ccxt's builder fee and referrer are turned off unless the config sets them. Thrown errors are
 * {@link ExchangeAdapterError}s naming missing fields, never values, and the venue's answer is
 * scrubbed of every credential value.
 */
export async function connectCcxt(exchangeId: string, credentials: ExchangeCredentials, options: ConnectOptions = {}): Promise<CcxtClient> {
  const id = exchangeId.trim().toLowerCase();
  const provided: Record<string, string> = {};
  for (const field of CREDENTIAL_FIELDS) {
    const value = credentials[field];
    if (typeof value === 'string' && value !== '') provided[field] = value;
  }
  const config = options.config ?? {};
  const ccxtOptions = { ...DEFAULT_OPTIONS, ...VENUE_OPTIONS[id], ...(isRecord(config.options) ? config.options : {}) };
  let client: CcxtClient;
  try {
    client = await createCcxtClient(id, { ...config, ...provided, options: ccxtOptions }, { pro: options.pro ?? false });
  } catch (error) {
    if (error instanceof UnknownExchangeError) throw new ExchangeAdapterError('EXCHANGE_UNKNOWN', error.message);
    throw error;
  }
  const missing = Object.entries(client.requiredCredentials ?? {})
    .filter(([field, required]) => required === true && provided[field] === undefined)
    .map(([field]) => field);
  if (missing.length > 0) {
    await client.close?.();
    throw new ExchangeAdapterError('EXCHANGE_CREDENTIALS_MISSING', `${id} needs ${missing.join(', ')}`);
  }
  if (id === 'hyperliquid' && provided.privateKey !== undefined && !/^(0x)?[0-9a-fA-F]{64}$/.test(provided.privateKey)) {
    await client.close?.();
    throw new ExchangeAdapterError('EXCHANGE_CREDENTIALS_REJECTED', `${id} privateKey must be 32 bytes of hex`);
  }
  try {
    await client.fetchBalance();
  } catch (error) {
    await client.close?.().catch(() => undefined);
    const detail = describeCcxtError(error, redactor(Object.values(provided)));
    if (isTransientCcxtError(error)) {
      throw new ExchangeAdapterError('EXCHANGE_UNAVAILABLE', `${id} could not be reached to verify the credentials: ${detail}`, true);
    }
    const refused = ccxtErrorKinds(error).includes('AuthenticationError');
    throw new ExchangeAdapterError('EXCHANGE_CREDENTIALS_REJECTED', `${id} ${refused ? 'refused' : 'did not accept'} the credentials: ${detail}`);
  }
  return client;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
