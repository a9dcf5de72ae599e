/**
 * The part of a ccxt exchange instance the adapters use, as minimal structural types: a real
 * `ccxt.Exchange` (REST or pro) satisfies them, and so can a small fake in tests.
 * ccxt leaves absent fields `undefined`, hence the optional properties everywhere.
 */

/** Venue-specific extra parameters, passed as the last argument of a ccxt call and on to the venue's API. */
export type CcxtParams = Record<string, unknown>;

/**
 * A market of the venue as ccxt's `markets` lists it: its unified `symbol` (`BTC/USDT:USDT`), the venue's
 * own `id`, base/quote/settle currencies, and flags for its type (spot, swap, ...) and whether it trades.
 */
export interface CcxtMarket {
  id?: string | undefined;
  symbol: string;
  base: string;
  quote: string;
  settle?: string | undefined;
  spot?: boolean | undefined;
  swap?: boolean | undefined;
  future?: boolean | undefined;
  option?: boolean | undefined;
  active?: boolean | undefined;
  linear?: boolean | undefined;
  inverse?: boolean | undefined;
}

/** A ccxt ticker: the last trade price (`last`, or `close`), mark price and volume of a market at `timestamp`. */
export interface CcxtTicker {
  symbol?: string | undefined;
  timestamp?: number | undefined;
  last?: number | undefined;
  close?: number | undefined;
  markPrice?: number | undefined;
  baseVolume?: number | undefined;
}

/**
 * An order as ccxt reports it: the venue's `id` and our `clientOrderId`, its `status` (`open`, `closed`,
 * `canceled`, ...), and the amounts ordered, filled and remaining with the average fill price.
 */
export interface CcxtOrder {
  id?: string | undefined;
  clientOrderId?: string | undefined;
  status?: string | undefined;
  symbol?: string | undefined;
  amount?: number | undefined;
  filled?: number | undefined;
  remaining?: number | undefined;
  average?: number | undefined;
  price?: number | undefined;
}

/** One currency of a balance: amounts free for trading, in use, and in total. */
export interface CcxtBalanceEntry {
  free?: number | undefined;
  used?: number | undefined;
  total?: number | undefined;
}

/** ccxt's `has` map: a capability is `true`, `'emulated'`, `false` or absent. */
export type CcxtCapabilities = Record<string, boolean | 'emulated' | undefined>;

/**
 * The methods and fields of a ccxt exchange instance that the price source, price history and exchange
 * adapters call; optional members are checked (often against `has`) before use.
 */
export interface CcxtClient {
  readonly id: string;
  has: CcxtCapabilities;
  /** Set once `loadMarkets` has run. */
  markets?: Record<string, CcxtMarket> | undefined;
  /** Fills `markets`; the result is not used. */
  loadMarkets(reload?: boolean): Promise<unknown>;
  /** The current ticker of a market, by its unified symbol. */
  fetchTicker(symbol: string, params?: CcxtParams): Promise<CcxtTicker>;
  /** Unified timeframes (`1m`, `1h`, `1d`, ...) the venue's `fetchOHLCV` accepts, to its own names. */
  timeframes?: Record<string, number | string> | undefined;
  /** What the venue supports per market type (`spot`, `swap.linear`, ...), e.g. `fetchOHLCV.limit`. */
  features?: Record<string, unknown> | undefined;
  /** Candles as `[start, open, high, low, close, volume]` rows; guarded by `has.fetchOHLCV`. */
  fetchOHLCV?(symbol: string, timeframe?: string, since?: number, limit?: number, params?: CcxtParams): Promise<ReadonlyArray<ReadonlyArray<number | undefined>>>;
  /** ccxt pro only; guarded by `has.watchTicker`. */
  watchTicker?(symbol: string, params?: CcxtParams): Promise<CcxtTicker>;
  /** ccxt pro only: stops the ticker subscription `watchTicker` opened for the symbol. */
  unWatchTicker?(symbol: string, params?: CcxtParams): Promise<unknown>;
  /**
   * Places an order: `type` `market` or `limit`, `side` `buy` or `sell`, `amount` in base currency, `price`
   * for limit orders; `params` carry the client order id, reduce-only, time in force and attached take-profit/stop-loss.
   */
  createOrder(symbol: string, type: string, side: string, amount: number, price?: number, params?: CcxtParams): Promise<CcxtOrder>;
  /** One order by the venue's id (or, on some venues, by `params.clientOrderId`); guarded by `has.fetchOrder`. */
  fetchOrder?(id: string, symbol?: string, params?: CcxtParams): Promise<CcxtOrder>;
  /** Orders still open, of one market or all, placed since `since` (epoch ms), at most `limit`. */
  fetchOpenOrders?(symbol?: string, since?: number, limit?: number, params?: CcxtParams): Promise<CcxtOrder[]>;
  /** Orders filled or canceled, of one market or all, placed since `since` (epoch ms), at most `limit`. */
  fetchClosedOrders?(symbol?: string, since?: number, limit?: number, params?: CcxtParams): Promise<CcxtOrder[]>;
  /** Orders in any state, for venues that list them together instead of open and closed apart. */
  fetchOrders?(symbol?: string, since?: number, limit?: number, params?: CcxtParams): Promise<CcxtOrder[]>;
  /** Open positions of some markets (ccxt's unified position: `symbol`, `side` long/short, `contracts`); guarded by `has.fetchPositions`. */
  fetchPositions?(symbols?: string[], params?: CcxtParams): Promise<Array<{ symbol?: string; side?: string; contracts?: number; entryPrice?: number }>>;
  /** The account's balance: per currency a {@link CcxtBalanceEntry}, beside ccxt's `free`/`used`/`total` maps. */
  fetchBalance(params?: CcxtParams): Promise<Record<string, unknown>>;
  /** Sets the account's leverage for a market before an order; guarded by `has.setLeverage`. */
  setLeverage?(leverage: number, symbol?: string, params?: CcxtParams): Promise<unknown>;
  /** Rounds a price to the market's tick, as a decimal string. */
  priceToPrecision?(symbol: string, price: number): string | undefined;
  /** Which credentials the venue needs (`apiKey`, `secret`, `walletAddress`, `privateKey`, ...). */
  requiredCredentials?: Record<string, boolean | undefined>;
  /** Closes websockets (pro) and releases the instance. */
  close?(): Promise<unknown>;
}
