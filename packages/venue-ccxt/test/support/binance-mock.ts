import ccxt from 'ccxt';
import { startServer, type LocalServer } from '../../../adapters/test/support/local-server.js';

/** One candle as the mock serves it (epoch-ms open time). */
export interface KlineRow {
  start: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/**
 * A Binance API double: spot and USDⓈ-M exchangeInfo, 24 h tickers, klines (candles), and private calls
 * refused.
 */
export interface BinanceMock {
  server: LocalServer;
  /** ccxt constructor options pointing every Binance API at the mock. */
  config: Record<string, unknown>;
  /** Answers of the next ticker requests, before the normal one: an HTTP status with a body. */
  tickerFailures: Array<{ status: number; body: string }>;
  /** Answers of the next exchangeInfo requests (spot or USDⓈ-M), before the normal one. */
  exchangeInfoFailures: Array<{ status: number; body: string }>;
  /** Answers of the next klines requests, before the normal one: an HTTP status with a body. */
  klineFailures: Array<{ status: number; body: string }>;
  /**
   * Candles served by `GET /api/v3/klines` (spot) or `/fapi/v1/klines` (USDⓈ-M) for a venue symbol
   * (`BTCUSDT`) and interval (`1m`, `4h`, `1d`), answered as Binance does: rows with
   * `startTime <= openTime <= endTime`, the first `limit` of them (default 500, at most 1500), each
   * `[openTime, "open", "high", "low", "close", "volume", closeTime, "quoteVolume", trades, ...]`.
   * A symbol without candles answers HTTP 400 `{"code":-1121,"msg":"Invalid symbol."}`.
   */
  setKlines(api: 'spot' | 'linear', symbol: string, interval: string, rows: readonly KlineRow[]): void;
  /** Paths and query strings of every request. */
  requests(): string[];
  close(): Promise<void>;
}

const spotSymbol = (base: string, quote: string): Record<string, unknown> => ({
  symbol: `${base}${quote}`,
  status: 'TRADING',
  baseAsset: base,
  quoteAsset: quote,
  baseAssetPrecision: 8,
  quotePrecision: 8,
  quoteAssetPrecision: 8,
  orderTypes: ['LIMIT', 'MARKET'],
  isSpotTradingAllowed: true,
  isMarginTradingAllowed: false,
  permissions: ['SPOT'],
  filters: [],
});

const perpSymbol = (base: string, quote: string, status = 'TRADING'): Record<string, unknown> => ({
  symbol: `${base}${quote}`,
  pair: `${base}${quote}`,
  contractType: 'PERPETUAL',
  deliveryDate: 4133404800000,
  onboardDate: 1569398400000,
  status,
  baseAsset: base,
  quoteAsset: quote,
  marginAsset: quote,
  pricePrecision: 2,
  quantityPrecision: 3,
  baseAssetPrecision: 8,
  quotePrecision: 8,
  underlyingType: 'COIN',
  filters: [],
  orderTypes: ['LIMIT', 'MARKET'],
  timeInForce: ['GTC', 'IOC'],
});

const INTERVAL_MS: Record<string, number> = {
  '1m': 60_000,
  '3m': 180_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '2h': 7_200_000,
  '4h': 14_400_000,
  '6h': 21_600_000,
  '8h': 28_800_000,
  '12h': 43_200_000,
  '1d': 86_400_000,
  '3d': 259_200_000,
  '1w': 604_800_000,
};

export async function startBinanceMock(): Promise<BinanceMock> {
  const volumes = new Map<string, number>();
  const tickerFailures: BinanceMock['tickerFailures'] = [];
  const klineFailures: BinanceMock['klineFailures'] = [];
  const exchangeInfoFailures: BinanceMock['exchangeInfoFailures'] = [];
  const klines = new Map<string, Map<string, readonly KlineRow[]>>();
  const server = await startServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://mock');
    const reply = (status: number, value: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(typeof value === 'string' ? value : JSON.stringify(value));
    };
    if (url.pathname.endsWith('/exchangeInfo')) {
      const failure = exchangeInfoFailures.shift();
      if (failure !== undefined) return reply(failure.status, failure.body);
    }
    if (url.pathname === '/api/v3/exchangeInfo') {
      return reply(200, { timezone: 'UTC', serverTime: Date.now(), symbols: [spotSymbol('BTC', 'USDT'), spotSymbol('SOL', 'USDT')] });
    }
    if (url.pathname === '/fapi/v1/exchangeInfo') {
      return reply(200, {
        timezone: 'UTC',
        serverTime: Date.now(),
        assets: [],
        symbols: [perpSymbol('BTC', 'USDT'), perpSymbol('BTC', 'USDC'), perpSymbol('ETH', 'USDC'), perpSymbol('LUNA', 'USDT', 'SETTLING')],
      });
    }
    if (url.pathname === '/api/v3/klines' || url.pathname === '/fapi/v1/klines') {
      const failure = klineFailures.shift();
      if (failure !== undefined) return reply(failure.status, failure.body);
      const api = url.pathname.startsWith('/fapi') ? 'linear' : 'spot';
      const intervals = klines.get(`${api}:${url.searchParams.get('symbol') ?? ''}`);
      if (intervals === undefined) return reply(400, { code: -1121, msg: 'Invalid symbol.' });
      const interval = url.searchParams.get('interval') ?? '';
      const startTime = Number(url.searchParams.get('startTime') ?? -Infinity);
      const endTime = Number(url.searchParams.get('endTime') ?? Infinity);
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 500), 1500);
      const rows = (intervals.get(interval) ?? []).filter((row) => row.start >= startTime && row.start <= endTime);
      const chosen = url.searchParams.has('startTime') ? rows.slice(0, limit) : rows.slice(-limit);
      const length = INTERVAL_MS[interval] ?? 60_000;
      return reply(
        200,
        chosen.map((row) => [
          row.start,
          row.open.toFixed(2),
          row.high.toFixed(2),
          row.low.toFixed(2),
          row.close.toFixed(2),
          row.volume.toFixed(3),
          row.start + length - 1,
          (row.volume * row.close).toFixed(4),
          100,
          (row.volume / 2).toFixed(3),
          ((row.volume / 2) * row.close).toFixed(4),
          '0',
        ]),
      );
    }
    if (url.pathname.endsWith('/ticker/24hr')) {
      const failure = tickerFailures.shift();
      if (failure !== undefined) return reply(failure.status, failure.body);
      const key = `${url.pathname.split('/')[1] ?? ''}:${url.searchParams.get('symbol') ?? ''}`;
      const volume = (volumes.get(key) ?? 1000) + 2.5;
      volumes.set(key, volume);
      const now = Date.now();
      return reply(200, {
        symbol: url.searchParams.get('symbol'),
        lastPrice: url.pathname.startsWith('/fapi') ? '65000.10' : '64990.00',
        volume: String(volume),
        quoteVolume: '1000000',
        openPrice: '64000',
        highPrice: '66000',
        lowPrice: '63000',
        openTime: now - 86_400_000,
        closeTime: now,
      });
    }
    // Everything else is private here: refuse the key the way Binance does.
    return reply(401, { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' });
  });
  const template = new ccxt.binance();
  const api: Record<string, string> = {};
  for (const [name, address] of Object.entries(template.urls.api)) {
    if (typeof address === 'string') api[name] = address.replace(/^https:\/\/[^/]+/, server.url);
  }
  return {
    server,
    config: { urls: { api }, enableRateLimit: false, options: { fetchMarkets: { types: ['spot', 'linear'] }, fetchCurrencies: false } },
    tickerFailures,
    klineFailures,
    exchangeInfoFailures,
    setKlines: (api, symbol, interval, rows) => {
      const key = `${api}:${symbol}`;
      const intervals = klines.get(key) ?? new Map<string, readonly KlineRow[]>();
      intervals.set(interval, [...rows].sort((a, b) => a.start - b.start));
      klines.set(key, intervals);
    },
    requests: () => server.requests.map((entry) => entry.replace(/^\S+ /, '')),
    close: () => server.close(),
  };
}
