import ccxt from 'ccxt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CcxtExchange, CcxtPriceSource, ExchangeAdapterError } from '../src/index.js';
import { startBinanceMock, type BinanceMock } from './support/binance-mock.js';
import { record, until } from './support/streams.js';

/** Real ccxt (binance class) against a local mock of the Binance REST API: no internet needed. */
describe('real ccxt binance against a local mock', () => {
  let mock: BinanceMock;
  beforeAll(async () => {
    mock = await startBinanceMock();
  });
  afterAll(async () => {
    await mock.close();
  });

  const client = (): InstanceType<typeof ccxt.binance> => new ccxt.binance(mock.config);

  it('maps EQL symbols onto the loaded markets', async () => {
    const source = new CcxtPriceSource(client());
    await expect(source.marketSymbol('BTC')).resolves.toBe('BTC/USDT:USDT');
    await expect(source.marketSymbol('BTC-PERP')).resolves.toBe('BTC/USDT:USDT');
    await expect(source.marketSymbol('BTC/USDT')).resolves.toBe('BTC/USDT');
    await expect(source.marketSymbol('ETH')).resolves.toBe('ETH/USDC:USDC');
    await expect(source.marketSymbol('SOL')).resolves.toBe('SOL/USDT');
    await expect(source.marketSymbol('LUNA')).rejects.toThrow(/binance has no market for "LUNA"/);
    expect(mock.requests()).toContain('/fapi/v1/exchangeInfo');
  });

  it('polls fetchTicker and emits prices with volume from base-volume growth', async () => {
    const source = new CcxtPriceSource(client(), { pollIntervalMs: 20 });
    const run = record(source.observe({ source: 'price', symbol: 'BTC' }));
    await until(() => run.values.length >= 3);
    run.subscription.unsubscribe();
    const [first, second] = run.values;
    expect(first).toMatchObject({ source: 'price', symbol: 'BTC', price: 65000.1, exchange: 'binance' });
    expect(first).not.toHaveProperty('volume');
    expect(second).toMatchObject({ symbol: 'BTC', price: 65000.1, volume: 2.5 });
    expect(typeof first?.at).toBe('number');
    expect(mock.requests()).toContain('/fapi/v1/ticker/24hr?symbol=BTCUSDT');
  });

  it('keeps a spot pair on the spot market', async () => {
    const run = record(new CcxtPriceSource(client(), { pollIntervalMs: 20 }).observe({ source: 'price', symbol: 'BTC/USDT' }));
    await until(() => run.values.length >= 1);
    run.subscription.unsubscribe();
    expect(run.values[0]).toMatchObject({ symbol: 'BTC/USDT', price: 64990 });
  });

  it('rides out venue errors (HTTP 503 and 429) and keeps streaming', async () => {
    mock.tickerFailures.push({ status: 503, body: 'Service Unavailable' }, { status: 429, body: '{"code":-1003,"msg":"Too many requests"}' });
    const run = record(new CcxtPriceSource(client(), { pollIntervalMs: 20, retryBaseMs: 10 }).observe({ source: 'price', symbol: 'ETH' }));
    await until(() => run.values.length >= 2);
    run.subscription.unsubscribe();
    expect(mock.tickerFailures).toEqual([]);
    expect(run.errors).toEqual([]);
    expect(run.values[0]).toMatchObject({ symbol: 'ETH', price: 65000.1 });
  });

  it('errors the stream on an unknown symbol', async () => {
    const run = record(new CcxtPriceSource(client(), { pollIntervalMs: 20 }).observe({ source: 'price', symbol: 'DOESNOTEXIST' }));
    await until(() => run.errors.length === 1);
    expect(String(run.errors[0])).toMatch(/binance has no market for "DOESNOTEXIST"/);
  });

  it('builds the exchange from an id (REST polling when websockets are off)', async () => {
    const source = new CcxtPriceSource('binance', { config: mock.config, useWebsocket: false, pollIntervalMs: 20 });
    const run = record(source.observe({ source: 'price', symbol: 'BTC' }));
    await until(() => run.values.length >= 1);
    run.subscription.unsubscribe();
    expect(source.name).toBe('ccxt:binance');
    expect(run.values[0]).toMatchObject({ symbol: 'BTC', price: 65000.1, exchange: 'binance' });
    await source.close();
  });

  it('knows the perpetual universe and last prices through the Exchange adapter', async () => {
    const exchange = new CcxtExchange(client());
    expect(await exchange.isPerpetual('BTC')).toBe(true);
    expect(await exchange.isPerpetual('BTC/USDT')).toBe(false);
    expect(await exchange.isPerpetual('SOL')).toBe(false);
    expect(await exchange.isPerpetual('LUNA')).toBe(false);
    expect(await exchange.lastPrice('BTC-PERP')).toBe(65000.1);
  });

  it('connect() refuses rejected credentials without revealing them', async () => {
    const apiKey = 'vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A';
    const secret = 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j';
    let caught: unknown;
    try {
      await CcxtExchange.connect('binance', { apiKey, secret }, { config: mock.config });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ExchangeAdapterError);
    const error = caught as ExchangeAdapterError;
    expect(error.code).toBe('EXCHANGE_CREDENTIALS_REJECTED');
    expect(error.message).toMatch(/^binance refused the credentials: AuthenticationError/);
    const everything = `${error.message} ${error.stack ?? ''} ${JSON.stringify(error)}`;
    expect(everything).not.toContain(apiKey);
    expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/signature=/);
    expect(mock.requests().some((path) => path.includes('signature='))).toBe(true); // a signed call was made
  });

  it('connect() names missing credentials, not values', async () => {
    await expect(CcxtExchange.connect('binance', { apiKey: 'only-the-key-1234' }, { config: mock.config })).rejects.toMatchObject({
      code: 'EXCHANGE_CREDENTIALS_MISSING',
      message: 'binance needs secret',
    });
    await expect(CcxtExchange.connect('nosuchvenue', {})).rejects.toMatchObject({ code: 'EXCHANGE_UNKNOWN' });
  });
});
