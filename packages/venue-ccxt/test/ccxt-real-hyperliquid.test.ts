import ccxt from 'ccxt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CcxtExchange, CcxtPriceSource, ExchangeAdapterError, hyperliquidCloid } from '../src/index.js';
import { defaultClearinghouse, startHyperliquidMock, type HyperliquidMock } from './support/hyperliquid-mock.js';
import { record, until } from './support/streams.js';

// A well-known development key (Hardhat account #0): never funded on any real venue.
const WALLET = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const KEY = 'q-hl-1:1:open-long';

/** Real ccxt (hyperliquid class, signing included) against a local mock of the Hyperliquid API. */
describe('real ccxt hyperliquid against a local mock', () => {
  let mock: HyperliquidMock;
  let config: Record<string, unknown>;
  beforeAll(async () => {
    mock = await startHyperliquidMock();
    config = { urls: { api: { public: mock.url, private: mock.url } }, enableRateLimit: false };
  });
  beforeEach(() => {
    mock.posts.length = 0;
  });
  afterAll(async () => {
    await mock.close();
  });

  const connect = (): Promise<CcxtExchange> => CcxtExchange.connect('hyperliquid', { walletAddress: WALLET, privateKey: PRIVATE_KEY }, { config });
  const actions = (): Array<Record<string, unknown>> =>
    mock.posts.filter((post) => post.path === '/exchange').map((post) => post.body.action as Record<string, unknown>);

  it('connect() verifies the wallet with fetchBalance, without a referrer or a builder fee', async () => {
    const exchange = await connect();
    expect(exchange.id).toBe('hyperliquid');
    expect(mock.posts.some((post) => post.body.type === 'clearinghouseState' && post.body.user === WALLET)).toBe(true);
    expect(actions().some((action) => action.type === 'setReferrer')).toBe(false);
    for (const action of actions().filter((entry) => entry.type === 'approveBuilderFee')) expect(action.maxFeeRate).toBe('0%');
  });

  it('reads the perpetual universe (USDC-settled), last price and free USDC', async () => {
    const exchange = await connect();
    expect(await exchange.isPerpetual('BTC')).toBe(true);
    expect(await exchange.isPerpetual('ETH-PERP')).toBe(true);
    expect(await exchange.isPerpetual('BTC/USDC:USDC')).toBe(true);
    expect(await exchange.isPerpetual('PURR/USDC')).toBe(false);
    expect(await exchange.isPerpetual('DOGE')).toBe(false);
    expect(await exchange.lastPrice('BTC')).toBe(100001);
    expect(await exchange.availableBalanceUsd()).toBe(1400.5);
  });

  it('places a market order with a deterministic cloid, sets leverage first, and never places it twice', async () => {
    const exchange = await connect();
    const request = { clientOrderId: KEY, symbol: 'BTC', side: 'buy' as const, type: 'market' as const, amount: 0.01, leverage: 5 };
    const first = await exchange.placeOrder(request);
    const cloid = hyperliquidCloid(KEY);
    const sent = actions();
    const leverageAt = sent.findIndex((action) => action.type === 'updateLeverage');
    const orderAt = sent.findIndex((action) => action.type === 'order');
    expect(leverageAt).toBeGreaterThanOrEqual(0);
    expect(sent[leverageAt]).toMatchObject({ asset: 0, leverage: 5 });
    expect(orderAt).toBeGreaterThan(leverageAt);
    const wire = (sent[orderAt]?.orders as Array<Record<string, unknown>>)[0];
    expect(wire).toMatchObject({ a: 0, b: true, s: '0.01', r: false, c: cloid });
    expect(Number(wire?.p)).toBeGreaterThan(100001); // market buy: a slippage bound above the last price
    expect(first).toEqual({ orderId: '1000', clientOrderId: KEY, status: 'filled', filled: 0.01, averagePrice: 100010 });

    const again = await exchange.placeOrder(request);
    expect(again.orderId).toBe('1000');
    expect(again.clientOrderId).toBe(KEY);
    expect(actions().filter((action) => action.type === 'order')).toHaveLength(1);
    const lookups = mock.posts.filter((post) => post.body.type === 'orderStatus');
    expect(lookups.map((post) => post.body.oid)).toEqual([cloid, cloid]);
  });

  it('a second connection (a restart) also finds the order by its cloid', async () => {
    const exchange = await connect();
    await exchange.placeOrder({ clientOrderId: 'q-hl-2:1:x', symbol: 'ETH', side: 'sell', type: 'limit', price: 3100, amount: 1 });
    const restarted = await connect();
    const result = await restarted.placeOrder({ clientOrderId: 'q-hl-2:1:x', symbol: 'ETH', side: 'sell', type: 'limit', price: 3100, amount: 1 });
    expect(result.clientOrderId).toBe('q-hl-2:1:x');
    expect(actions().filter((action) => action.type === 'order')).toHaveLength(1);
  });

  it('on a duplicate-cloid refusal (order not visible to the first lookup), returns the existing order', async () => {
    const exchange = await connect();
    const request = { clientOrderId: 'q-hl-3:1:y', symbol: 'BTC', side: 'buy' as const, type: 'market' as const, amount: 0.02 };
    const first = await exchange.placeOrder(request);
    mock.lookupLag = 1;
    const second = await exchange.placeOrder(request);
    const orders = actions().filter((action) => action.type === 'order');
    expect(orders).toHaveLength(2); // the second was sent and refused as a duplicate
    expect(second.orderId).toBe(first.orderId);
    expect(second.clientOrderId).toBe('q-hl-3:1:y');
  });

  it('connect() rejects a malformed private key and a failing balance call without showing the key', async () => {
    const bad = 'not-a-key-but-still-secret-0123456789';
    const malformed = await CcxtExchange.connect('hyperliquid', { walletAddress: WALLET, privateKey: bad }, { config }).catch((error: unknown) => error);
    expect(malformed).toBeInstanceOf(ExchangeAdapterError);
    expect(String((malformed as Error).message)).not.toContain(bad);

    mock.clearinghouse = { status: 422, body: `Failed to deserialize the JSON body: user ${WALLET} key ${PRIVATE_KEY}` };
    try {
      const refused = await connect().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ExchangeAdapterError);
      const message = (refused as ExchangeAdapterError).message;
      expect(message).toMatch(/^hyperliquid (refused|did not accept) the credentials/);
      expect(message).not.toContain(PRIVATE_KEY);
      expect(message).not.toContain(PRIVATE_KEY.slice(2));
      expect(message).toContain('[redacted]');
    } finally {
      mock.clearinghouse.status = 200;
      mock.clearinghouse.body = defaultClearinghouse();
    }
  });

  it('streams prices by polling (hyperliquid has no base volume in tickers: volume omitted)', async () => {
    const source = new CcxtPriceSource(new ccxt.hyperliquid(config), { pollIntervalMs: 20 });
    const run = record(source.observe({ source: 'price', symbol: 'BTC' }));
    await until(() => run.values.length >= 2);
    run.subscription.unsubscribe();
    expect(run.values[0]).toMatchObject({ source: 'price', symbol: 'BTC', price: 100001, exchange: 'hyperliquid' });
    expect(run.values[0]).not.toHaveProperty('volume');
  });
});
