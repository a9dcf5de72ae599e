import ccxt from 'ccxt';
import { startServer, type LocalServer } from './local-server.js';

/** A Binance API double: spot and USDⓈ-M exchangeInfo, 24 h tickers, and private calls refused. */
export interface BinanceMock {
  server: LocalServer;
  /** ccxt constructor options pointing every Binance API at the mock. */
  config: Record<string, unknown>;
  /** Answers of the next ticker requests, before the normal one: an HTTP status with a body. */
  tickerFailures: Array<{ status: number; body: string }>;
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

export async function startBinanceMock(): Promise<BinanceMock> {
  const volumes = new Map<string, number>();
  const tickerFailures: BinanceMock['tickerFailures'] = [];
  const server = await startServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://mock');
    const reply = (status: number, value: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(typeof value === 'string' ? value : JSON.stringify(value));
    };
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
    requests: () => server.requests.map((entry) => entry.replace(/^\S+ /, '')),
    close: () => server.close(),
  };
}
