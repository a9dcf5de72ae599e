import { ExchangeNotAvailable, InsufficientFunds, NetworkError, NoChange, OrderNotFound, RequestTimeout } from 'ccxt';
import { describe, expect, it } from 'vitest';
import { ActionError, type OrderRequest } from '@eql/core';
import { CcxtExchange, ExchangeAdapterError, hyperliquidCloid, orderStatusOf, venueClientOrderId } from '../src/index.js';
import { FakeVenue, market } from './support/fake-venue.js';

const KEY = 'q-7d1c2b9e-5a4f-4c1e-9b7a-3f0e2d1c0b9a:1:buy';

function order(overrides: Partial<OrderRequest> = {}): OrderRequest {
  return { clientOrderId: KEY, symbol: 'BTC', side: 'buy', type: 'market', amount: 0.5, ...overrides };
}

async function failureOf(promise: Promise<unknown>): Promise<ExchangeAdapterError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ExchangeAdapterError);
    expect(error).toBeInstanceOf(ActionError); // the engine's order executor keeps its code and retryable flag
    return error as ExchangeAdapterError;
  }
  throw new Error('expected a rejection');
}

describe('CcxtExchange reads (fake venue)', () => {
  it('knows the perpetual universe: swap && active; spot-only and unknown are not', async () => {
    const exchange = new CcxtExchange(new FakeVenue());
    expect(exchange.id).toBe('fakevenue');
    const answers = await Promise.all(['BTC', 'BTC-PERP', 'BTC/USDT:USDT', 'ETH', 'BTC/USDT', 'SOL', 'DOGE', 'NOPE', 'XRP_USDT'].map((s) => exchange.isPerpetual(s)));
    expect(answers).toEqual([true, true, true, true, false, false, false, false, true]);
  });

  it('gives the last price of the perpetual', async () => {
    const venue = new FakeVenue();
    venue.tickers = [{ last: 64_000.5 }];
    const exchange = new CcxtExchange(venue);
    await expect(exchange.lastPrice('BTC')).resolves.toBe(64_000.5);
    expect(venue.calls.find((call) => call.method === 'fetchTicker')?.args[0]).toBe('BTC/USDT:USDT');
    await expect(failureOf(exchange.lastPrice('SOL'))).resolves.toMatchObject({ code: 'SYMBOL_NOT_PERPETUAL' });
  });

  it('sums free USDT, USDC and USD', async () => {
    const venue = new FakeVenue();
    const exchange = new CcxtExchange(venue);
    await expect(exchange.availableBalanceUsd()).resolves.toBe(1250.5);
    venue.balance = { info: {}, free: { USD: 10, USDT: 2 }, total: {} };
    await expect(exchange.availableBalanceUsd()).resolves.toBe(12);
  });
});

describe('CcxtExchange.placeOrder (fake venue)', () => {
  it('maps the order to createOrder on the perpetual with the unified params', async () => {
    const venue = new FakeVenue();
    const exchange = new CcxtExchange(venue);
    const result = await exchange.placeOrder(
      order({ type: 'limit', price: 100, side: 'sell', reduceOnly: true, timeInForce: 'IOC', leverage: 3, takeProfit: { percent: 10 }, stopLoss: { price: 105.04 } }),
    );
    const create = venue.calls.find((call) => call.method === 'createOrder');
    const venueId = venueClientOrderId('fakevenue', KEY);
    expect(create?.args).toEqual([
      'BTC/USDT:USDT',
      'limit',
      'sell',
      0.5,
      100,
      { clientOrderId: venueId, reduceOnly: true, timeInForce: 'IOC', takeProfit: { triggerPrice: 90 }, stopLoss: { triggerPrice: 105 } },
    ]);
    expect(venue.calls.find((call) => call.method === 'setLeverage')?.args).toEqual([3, 'BTC/USDT:USDT']);
    expect(venue.calls.map((call) => call.method).indexOf('setLeverage')).toBeLessThan(venue.calls.map((call) => call.method).indexOf('createOrder'));
    expect(result).toEqual({ orderId: 'o1', clientOrderId: KEY, status: 'filled', filled: 0.5, averagePrice: 101 });
  });

  it('sends post-only as postOnly and a market order without price; percent exits from the last price', async () => {
    const venue = new FakeVenue();
    venue.tickers = [{ last: 200 }];
    const exchange = new CcxtExchange(venue);
    await exchange.placeOrder(order({ clientOrderId: 'a1', takeProfit: { percent: 5 }, stopLoss: { percent: 2.5 } }));
    await exchange.placeOrder(order({ clientOrderId: 'a2', type: 'limit', price: 10, timeInForce: 'PO' }));
    const creates = venue.calls.filter((call) => call.method === 'createOrder').map((call) => call.args);
    expect(creates[0]).toEqual(['BTC/USDT:USDT', 'market', 'buy', 0.5, undefined, { clientOrderId: 'a1', takeProfit: { triggerPrice: 210 }, stopLoss: { triggerPrice: 195 } }]);
    expect(creates[1]?.[5]).toEqual({ clientOrderId: 'a2', postOnly: true });
  });

  it('returns the order already placed under the same client order id instead of placing again', async () => {
    const venue = new FakeVenue();
    venue.fill = (placed) => ({ ...placed, status: 'open', filled: 0 });
    const exchange = new CcxtExchange(venue, { lookupByClientOrderId: true });
    const first = await exchange.placeOrder(order({ type: 'limit', price: 90 }));
    const second = await exchange.placeOrder(order({ type: 'limit', price: 90 }));
    expect(second).toEqual(first);
    expect(first).toEqual({ orderId: 'o1', clientOrderId: KEY, status: 'open', filled: 0, averagePrice: undefined });
    expect(venue.count('createOrder')).toBe(1);
    expect(venue.count('fetchOrder')).toBe(2);
  });

  it('findOrderByClientId: the order placed under an EQL client order id, or undefined (what a restart asks)', async () => {
    const venue = new FakeVenue();
    const exchange = new CcxtExchange(venue, { lookupByClientOrderId: true });
    await expect(exchange.findOrderByClientId(KEY, 'BTC')).resolves.toBeUndefined();
    const placed = await exchange.placeOrder(order());
    await expect(exchange.findOrderByClientId(KEY, 'BTC')).resolves.toEqual(placed);
    expect(venue.count('createOrder')).toBe(1);
  });

  it('finds an earlier order in open and closed orders on venues without lookup by client id', async () => {
    const venue = new FakeVenue();
    const exchange = new CcxtExchange(venue);
    const first = await exchange.placeOrder(order());
    const second = await exchange.placeOrder(order());
    expect(second).toEqual(first);
    expect(venue.count('createOrder')).toBe(1);
    expect(venue.count('fetchOrder')).toBe(0);
    expect(venue.count('fetchClosedOrders')).toBe(2);
  });

  it('on a duplicate-id refusal, fetches and returns the existing order', async () => {
    const venue = new FakeVenue();
    const exchange = new CcxtExchange(venue, { lookupByClientOrderId: true });
    // An order the venue already has under this id, which its first lookup does not show yet.
    venue.orders.push({ id: 'o9', clientOrderId: exchange.venueClientOrderId(KEY), symbol: 'BTC/USDT:USDT', amount: 0.5, status: 'open', filled: 0.2 });
    venue.failNext('fetchOrder', new OrderNotFound('not yet visible'));
    const result = await exchange.placeOrder(order());
    expect(venue.count('createOrder')).toBe(1); // tried, refused as duplicate
    expect(venue.count('fetchOrder')).toBe(2);
    expect(result).toEqual({ orderId: 'o9', clientOrderId: KEY, status: 'partially_filled', filled: 0.2, averagePrice: undefined });
  });

  it('after a timeout while placing, returns the order if the venue has it', async () => {
    const venue = new FakeVenue();
    const exchange = new CcxtExchange(venue, { lookupByClientOrderId: true });
    const realCreate = venue.createOrder.bind(venue);
    venue.createOrder = async (...args) => {
      await realCreate(...args); // the venue placed it, but the answer was lost
      throw new RequestTimeout('fakevenue POST /order timed out');
    };
    await expect(exchange.placeOrder(order())).resolves.toMatchObject({ orderId: 'o1', status: 'filled' });
  });

  it('does not place when the lookup itself fails transiently (retryable error instead)', async () => {
    const venue = new FakeVenue();
    venue.failNext('fetchOrder', new ExchangeNotAvailable('503'));
    const exchange = new CcxtExchange(venue, { lookupByClientOrderId: true });
    const error = await failureOf(exchange.placeOrder(order()));
    expect(error).toMatchObject({ code: 'EXCHANGE_UNAVAILABLE', retryable: true });
    expect(venue.count('createOrder')).toBe(0);
  });

  it('maps venue refusals to stable codes', async () => {
    const venue = new FakeVenue();
    venue.failNext('createOrder', new InsufficientFunds('fakevenue margin is insufficient'));
    const exchange = new CcxtExchange(venue);
    await expect(failureOf(exchange.placeOrder(order()))).resolves.toMatchObject({ code: 'INSUFFICIENT_BALANCE', retryable: false });
    venue.failNext('createOrder', new NetworkError('reset'));
    await expect(failureOf(exchange.placeOrder(order({ clientOrderId: 'other' })))).resolves.toMatchObject({ code: 'EXCHANGE_UNAVAILABLE', retryable: true });
  });

  it('refuses non-perpetual symbols, bad amounts and unsupported exits before placing anything', async () => {
    const venue = new FakeVenue();
    const exchange = new CcxtExchange(venue);
    await expect(failureOf(exchange.placeOrder(order({ symbol: 'BTC/USDT' })))).resolves.toMatchObject({ code: 'SYMBOL_NOT_PERPETUAL' });
    await expect(failureOf(exchange.placeOrder(order({ symbol: 'SOL' })))).resolves.toMatchObject({ code: 'SYMBOL_NOT_PERPETUAL' });
    await expect(failureOf(exchange.placeOrder(order({ amount: 0 })))).resolves.toMatchObject({ code: 'ORDER_INVALID' });
    await expect(failureOf(exchange.placeOrder(order({ type: 'limit' })))).resolves.toMatchObject({ code: 'ORDER_INVALID' });
    venue.has.createOrderWithTakeProfitAndStopLoss = false;
    await expect(failureOf(exchange.placeOrder(order({ takeProfit: { price: 1e6 } })))).resolves.toMatchObject({ code: 'ORDER_EXITS_UNSUPPORTED' });
    expect(venue.count('createOrder')).toBe(0);
  });

  it('refuses a trailing stop where ccxt places none, before placing anything', async () => {
    const venue = new FakeVenue();
    const exchange = new CcxtExchange(venue);
    await expect(failureOf(exchange.placeOrder(order({ trailingStop: { percent: 3 } })))).resolves.toMatchObject({ code: 'ORDER_TRAILING_UNSUPPORTED' });
    expect(venue.count('createOrder')).toBe(0);
  });

  it('places a trailing stop as a reduce-only order with the unified trailingPercent once the entry fills, once', async () => {
    const venue = new FakeVenue();
    venue.has.createTrailingPercentOrder = true;
    const exchange = new CcxtExchange(venue);
    await expect(exchange.placeOrder(order({ trailingStop: { percent: 3 } }))).resolves.toMatchObject({ status: 'filled', filled: 0.5 });
    const creates = venue.calls.filter((call) => call.method === 'createOrder');
    expect(creates).toHaveLength(2);
    expect(creates[1]?.args).toEqual([
      'BTC/USDT:USDT',
      'market',
      'sell',
      0.5,
      undefined,
      { clientOrderId: venueClientOrderId('fakevenue', `${KEY}:trailing_stop`), reduceOnly: true, trailingPercent: 3 },
    ]);
    // A retry of the step (same client order id) finds both orders and places nothing.
    await exchange.placeOrder(order({ trailingStop: { percent: 3 } }));
    expect(venue.count('createOrder')).toBe(2);
  });

  it('places the trailing stop a retry finds missing: the entry was placed, the stop failed', async () => {
    const venue = new FakeVenue();
    venue.has.createTrailingPercentOrder = true;
    const exchange = new CcxtExchange(venue);
    let calls = 0;
    const create = venue.createOrder.bind(venue);
    venue.createOrder = async (...args: Parameters<FakeVenue['createOrder']>) => {
      calls += 1;
      if (calls === 2) throw new ExchangeNotAvailable('down for a moment');
      return create(...args);
    };
    await expect(failureOf(exchange.placeOrder(order({ trailingStop: { percent: 3 } })))).resolves.toMatchObject({ code: 'EXCHANGE_UNAVAILABLE', retryable: true });
    await expect(exchange.placeOrder(order({ trailingStop: { percent: 3 } }))).resolves.toMatchObject({ status: 'filled' });
    expect(venue.orders.map((placed) => placed.clientOrderId)).toEqual([venueClientOrderId('fakevenue', KEY), venueClientOrderId('fakevenue', `${KEY}:trailing_stop`)]);
  });

  it('reads the open position for close_position: contracts signed by side; flat is undefined; a venue without fetchPositions refuses', async () => {
    const venue = new FakeVenue();
    const exchange = new CcxtExchange(venue);
    await expect(failureOf(exchange.position('BTC'))).resolves.toMatchObject({ code: 'ORDER_CLOSE_UNSUPPORTED' });
    venue.has.fetchPositions = true;
    let answer: Array<{ symbol?: string; side?: string; contracts?: number; entryPrice?: number }> = [];
    const asked: unknown[] = [];
    venue.fetchPositions = (symbols?: string[]) => {
      asked.push(symbols);
      return Promise.resolve(answer);
    };
    await expect(exchange.position('BTC')).resolves.toBeUndefined();
    answer = [{ symbol: 'BTC/USDT:USDT', side: 'short', contracts: 0.25, entryPrice: 64_000 }];
    await expect(exchange.position('BTC')).resolves.toEqual({ size: -0.25, entry: 64_000 });
    answer = [{ symbol: 'BTC/USDT:USDT', side: 'long', contracts: 0 }];
    await expect(exchange.position('BTC')).resolves.toBeUndefined();
    expect(asked[0]).toEqual(['BTC/USDT:USDT']);
  });

  it('ignores a "no change" answer to setLeverage, and skips leverage where unsupported', async () => {
    const venue = new FakeVenue();
    venue.failNext('setLeverage', new NoChange('leverage not modified'));
    const exchange = new CcxtExchange(venue);
    await expect(exchange.placeOrder(order({ leverage: 5 }))).resolves.toMatchObject({ status: 'filled' });
    venue.has.setLeverage = false;
    await exchange.placeOrder(order({ clientOrderId: 'b', leverage: 5 }));
    expect(venue.count('setLeverage')).toBe(1);
  });

  it('derives a deterministic 128-bit hex cloid on hyperliquid', async () => {
    const venue = new FakeVenue('hyperliquid', [market('BTC/USDC:USDC', { id: '0' })]);
    venue.tickers = [{ last: 100_000 }];
    const exchange = new CcxtExchange(venue);
    const cloid = hyperliquidCloid(KEY);
    expect(cloid).toMatch(/^0x[0-9a-f]{32}$/);
    expect(hyperliquidCloid(KEY)).toBe(cloid);
    expect(hyperliquidCloid('0xABCDEF0123456789ABCDEF0123456789')).toBe('0xabcdef0123456789abcdef0123456789');
    await exchange.placeOrder(order());
    const create = venue.calls.find((call) => call.method === 'createOrder');
    // Hyperliquid market orders carry a price (the venue bounds slippage around it).
    expect(create?.args).toEqual(['BTC/USDC:USDC', 'market', 'buy', 0.5, 100_000, { clientOrderId: cloid }]);
    expect(venue.calls.find((call) => call.method === 'fetchOrder')?.args).toEqual([cloid, 'BTC/USDC:USDC', { clientOrderId: cloid }]);
  });
});

describe('venue client order ids and statuses', () => {
  it('keeps ids a venue accepts and hashes the others deterministically', () => {
    expect(venueClientOrderId('binance', 'abc-123')).toBe('abc-123');
    expect(venueClientOrderId('binance', KEY)).toMatch(/^eql-[0-9a-f]{32}$/);
    expect(venueClientOrderId('okx', 'abc-123')).toMatch(/^eql[0-9a-f]{29}$/);
    expect(venueClientOrderId('okx', 'abc123')).toBe('abc123');
    expect(venueClientOrderId('gate', KEY).length).toBeLessThanOrEqual(28);
    expect(venueClientOrderId('somevenue', KEY)).toBe(venueClientOrderId('somevenue', KEY));
    expect(venueClientOrderId('somevenue', KEY)).not.toBe(venueClientOrderId('somevenue', `${KEY}x`));
  });

  it('maps ccxt statuses', () => {
    expect(orderStatusOf({ status: 'open', filled: 0, amount: 1 })).toBe('open');
    expect(orderStatusOf({ status: 'open', filled: 0.4, amount: 1 })).toBe('partially_filled');
    expect(orderStatusOf({ status: 'closed', filled: 1, amount: 1 })).toBe('filled');
    expect(orderStatusOf({ status: 'canceled', filled: 0, amount: 1 })).toBe('rejected');
    expect(orderStatusOf({ status: 'canceled', filled: 0.2, amount: 1 })).toBe('partially_filled');
    expect(orderStatusOf({ status: 'expired' })).toBe('rejected');
    expect(orderStatusOf({ status: 'rejected' })).toBe('rejected');
    expect(orderStatusOf({ filled: 1, amount: 1 })).toBe('filled');
    expect(orderStatusOf({})).toBe('open');
  });
});
