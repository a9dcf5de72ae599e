/**
 * The part of a ccxt exchange instance the adapters use, as minimal structural types: a real
 * `ccxt.Exchange` (REST or pro) satisfies them, and so can a small fake in tests.
 * ccxt leaves absent fields `undefined`, hence the optional properties everywhere.
 */

export type CcxtParams = Record<string, unknown>;

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

export interface CcxtTicker {
  symbol?: string | undefined;
  timestamp?: number | undefined;
  last?: number | undefined;
  close?: number | undefined;
  markPrice?: number | undefined;
  baseVolume?: number | undefined;
}

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

export interface CcxtClient {
  readonly id: string;
  has: CcxtCapabilities;
  /** Set once `loadMarkets` has run. */
  markets?: Record<string, CcxtMarket> | undefined;
  /** Fills `markets`; the result is not used. */
  loadMarkets(reload?: boolean): Promise<unknown>;
  fetchTicker(symbol: string, params?: CcxtParams): Promise<CcxtTicker>;
  /** Unified timeframes (`1m`, `1h`, `1d`, ...) the venue's `fetchOHLCV` accepts, to its own names. */
  timeframes?: Record<string, number | string> | undefined;
  /** What the venue supports per market type (`spot`, `swap.linear`, ...), e.g. `fetchOHLCV.limit`. */
  features?: Record<string, unknown> | undefined;
  /** Candles as `[start, open, high, low, close, volume]` rows; guarded by `has.fetchOHLCV`. */
  fetchOHLCV?(symbol: string, timeframe?: string, since?: number, limit?: number, params?: CcxtParams): Promise<ReadonlyArray<ReadonlyArray<number | undefined>>>;
  /** ccxt pro only; guarded by `has.watchTicker`. */
  watchTicker?(symbol: string, params?: CcxtParams): Promise<CcxtTicker>;
  unWatchTicker?(symbol: string, params?: CcxtParams): Promise<unknown>;
  createOrder(symbol: string, type: string, side: string, amount: number, price?: number, params?: CcxtParams): Promise<CcxtOrder>;
  fetchOrder?(id: string, symbol?: string, params?: CcxtParams): Promise<CcxtOrder>;
  fetchOpenOrders?(symbol?: string, since?: number, limit?: number, params?: CcxtParams): Promise<CcxtOrder[]>;
  fetchClosedOrders?(symbol?: string, since?: number, limit?: number, params?: CcxtParams): Promise<CcxtOrder[]>;
  fetchOrders?(symbol?: string, since?: number, limit?: number, params?: CcxtParams): Promise<CcxtOrder[]>;
  fetchBalance(params?: CcxtParams): Promise<Record<string, unknown>>;
  setLeverage?(leverage: number, symbol?: string, params?: CcxtParams): Promise<unknown>;
  /** Rounds a price to the market's tick, as a decimal string. */
  priceToPrecision?(symbol: string, price: number): string | undefined;
  /** Which credentials the venue needs (`apiKey`, `secret`, `walletAddress`, `privateKey`, ...). */
  requiredCredentials?: Record<string, boolean | undefined>;
  /** Closes websockets (pro) and releases the instance. */
  close?(): Promise<unknown>;
}
