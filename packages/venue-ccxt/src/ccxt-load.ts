import { type CcxtClient } from './ccxt-types.js';

/** Constructor options of a ccxt exchange: credentials, `options`, `urls`, `timeout`, ... (deep-merged by ccxt). */
export type CcxtConfig = Record<string, unknown>;

/** ccxt has no exchange by that id; retrying cannot help. */
export class UnknownExchangeError extends Error {
  constructor(readonly exchangeId: string) {
    super(`ccxt has no exchange "${exchangeId}"`);
    this.name = 'UnknownExchangeError';
  }
}

type CcxtConstructor = new (config?: CcxtConfig) => CcxtClient;

/**
 * Builds a ccxt exchange by id (`binance`, `hyperliquid`, ...). With `pro`, the ccxt pro class is used
 * when the venue has one (it adds websocket `watch*` methods to the REST ones). ccxt is imported on
 * first use, so loading this package does not load ccxt. Only ids listed in `ccxt.exchanges` are
 * accepted, never an arbitrary export of the library.
 */
export async function createCcxtClient(exchangeId: string, config: CcxtConfig = {}, options: { pro?: boolean } = {}): Promise<CcxtClient> {
  const library = (await import('ccxt')).default as unknown as Record<string, unknown>;
  const exchanges = library.exchanges;
  if (!Array.isArray(exchanges) || !exchanges.includes(exchangeId)) {
    throw new UnknownExchangeError(exchangeId);
  }
  const pro = library.pro as Record<string, unknown> | undefined;
  const candidate = (options.pro ? pro?.[exchangeId] : undefined) ?? library[exchangeId];
  if (typeof candidate !== 'function') throw new UnknownExchangeError(exchangeId);
  const Exchange = candidate as CcxtConstructor;
  return new Exchange(config);
}
