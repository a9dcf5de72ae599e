import { NetworkError, RateLimitExceeded, BadSymbol } from 'ccxt';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { type PriceObservation } from '@eql/core';
import { CcxtPriceSource, UnknownSymbolError, backoffDelay } from '../src/index.js';
import { FakeVenue } from './support/fake-venue.js';
import { record, sleep, until } from './support/streams.js';

const fast = { pollIntervalMs: 10, retryBaseMs: 5, retryMaxMs: 20 };

describe('CcxtPriceSource symbol mapping (fake venue)', () => {
  const cases: Array<[string, string]> = [
    ['BTC', 'BTC/USDT:USDT'],
    ['btc', 'BTC/USDT:USDT'],
    ['BTC-PERP', 'BTC/USDT:USDT'],
    ['BTC/USDT', 'BTC/USDT'],
    ['BTC/USDT:USDT', 'BTC/USDT:USDT'],
    ['BTC/USDC:USDC', 'BTC/USDC:USDC'],
    ['ETH', 'ETH/USDC:USDC'],
    ['ETH-PERP', 'ETH/USDC:USDC'],
    ['SOL', 'SOL/USDT'],
    ['XRP', 'XRP/USDT:USDT'],
    ['XRP_USDT', 'XRP/USDT:USDT'],
    ['BTCUSDC', 'BTC/USDC:USDC'],
  ];
  it.each(cases)('%s → %s', async (symbol, expected) => {
    const source = new CcxtPriceSource(new FakeVenue());
    await expect(source.marketSymbol(symbol)).resolves.toBe(expected);
  });

  it('refuses symbols the venue has no market for, and inactive perpetuals', async () => {
    const source = new CcxtPriceSource(new FakeVenue());
    await expect(source.marketSymbol('NOPE')).rejects.toBeInstanceOf(UnknownSymbolError);
    await expect(source.marketSymbol('DOGE')).rejects.toThrow(/no market for "DOGE"/);
    await expect(source.marketSymbol('ETH/USDT')).rejects.toBeInstanceOf(UnknownSymbolError);
  });

  it('supports price topics of its venue; after ready() only symbols it has', async () => {
    const source = new CcxtPriceSource(new FakeVenue());
    expect(source.name).toBe('ccxt:fakevenue');
    expect(source.supports({ source: 'price', symbol: 'NOPE' })).toBe(true);
    expect(source.supports({ source: 'news' })).toBe(false);
    expect(source.supports({ source: 'price', symbol: 'BTC', exchange: 'other' })).toBe(false);
    await source.ready();
    expect(source.supports({ source: 'price', symbol: 'BTC', exchange: 'FakeVenue' })).toBe(true);
    expect(source.supports({ source: 'price', symbol: 'NOPE' })).toBe(false);
  });
});

describe('CcxtPriceSource polling (fake venue, short real timers)', () => {
  it('polls fetchTicker on the mapped market and emits observations of the symbol as asked', async () => {
    const venue = new FakeVenue();
    venue.tickers = [
      { last: 100, timestamp: 1_000, baseVolume: 10 },
      { last: 101, timestamp: 2_000, baseVolume: 11.5 },
      { last: 101, timestamp: 2_000, baseVolume: 11.5 }, // the same ticker polled again: dropped
      { last: 99, timestamp: 1_500, baseVolume: 12 }, // older than the last one: dropped
      { last: 102, timestamp: 3_000, baseVolume: 11.5 }, // no growth
      { last: 103, timestamp: 4_000, baseVolume: 5 }, // the rolling window shrank: volume unknown
      { close: 104, timestamp: 5_000 }, // close when last is missing; no base volume
    ];
    const source = new CcxtPriceSource(venue, fast);
    const run = record(source.observe({ source: 'price', symbol: 'BTC' }));
    await until(() => run.values.length >= 5);
    run.subscription.unsubscribe();
    const observations = run.values as PriceObservation[];
    expect(observations.slice(0, 5)).toEqual([
      { at: 1_000, source: 'price', symbol: 'BTC', price: 100, exchange: 'fakevenue' },
      { at: 2_000, source: 'price', symbol: 'BTC', price: 101, volume: 1.5, exchange: 'fakevenue' },
      { at: 3_000, source: 'price', symbol: 'BTC', price: 102, volume: 0, exchange: 'fakevenue' },
      { at: 4_000, source: 'price', symbol: 'BTC', price: 103, exchange: 'fakevenue' },
      { at: 5_000, source: 'price', symbol: 'BTC', price: 104, exchange: 'fakevenue' },
    ]);
    expect(venue.calls.filter((call) => call.method === 'fetchTicker').every((call) => call.args[0] === 'BTC/USDT:USDT')).toBe(true);
    expect(run.errors).toEqual([]);
  });

  it('times observations without a venue timestamp on the scheduler', async () => {
    const venue = new FakeVenue();
    venue.tickers = [{ last: 5 }];
    const scheduler: SchedulerLike = { now: () => 42_000, schedule: asyncScheduler.schedule.bind(asyncScheduler) };
    const run = record(new CcxtPriceSource(venue, { ...fast, scheduler }).observe({ source: 'price', symbol: 'ETH' }));
    await until(() => run.values.length >= 1);
    run.subscription.unsubscribe();
    expect(run.values[0]).toEqual({ at: 42_000, source: 'price', symbol: 'ETH', price: 5, exchange: 'fakevenue' });
  });

  it('retries transient errors with backoff without completing the stream', async () => {
    const venue = new FakeVenue();
    venue.tickers = [(symbol) => ({ symbol, last: 7, timestamp: Date.now() })];
    venue.failNext('loadMarkets', new NetworkError('socket hang up'));
    venue.failNext('fetchTicker', new RateLimitExceeded('429'), new NetworkError('ECONNRESET'), new Error('venue glitch'));
    const run = record(new CcxtPriceSource(venue, fast).observe({ source: 'price', symbol: 'BTC' }));
    await until(() => run.values.length >= 2);
    run.subscription.unsubscribe();
    expect(run.errors).toEqual([]);
    expect(run.completed()).toBe(false);
    expect(venue.count('loadMarkets')).toBe(2);
    expect(venue.count('fetchTicker')).toBeGreaterThanOrEqual(5);
  });

  it('errors the stream with a clear message on an unknown symbol', async () => {
    const venue = new FakeVenue();
    const run = record(new CcxtPriceSource(venue, fast).observe({ source: 'price', symbol: 'NOPE' }));
    await until(() => run.errors.length === 1);
    expect(String(run.errors[0])).toMatch(/fakevenue has no market for "NOPE"/);
    expect(venue.count('fetchTicker')).toBe(0);
  });

  it('errors the stream when the venue calls the symbol bad', async () => {
    const venue = new FakeVenue();
    venue.failNext('fetchTicker', new BadSymbol('fakevenue does not have market symbol BTC/USDT:USDT'));
    const run = record(new CcxtPriceSource(venue, fast).observe({ source: 'price', symbol: 'BTC' }));
    await until(() => run.errors.length === 1);
    expect(run.errors[0]).toBeInstanceOf(BadSymbol);
  });

  it('stops polling when unsubscribed', async () => {
    const venue = new FakeVenue();
    venue.tickers = [(symbol) => ({ symbol, last: 1, timestamp: Date.now() })];
    const run = record(new CcxtPriceSource(venue, fast).observe({ source: 'price', symbol: 'BTC' }));
    await until(() => venue.count('fetchTicker') >= 3);
    run.subscription.unsubscribe();
    await sleep(20);
    const calls = venue.count('fetchTicker');
    await sleep(120);
    expect(venue.count('fetchTicker')).toBe(calls);
  });

  it('stops a backoff in progress when unsubscribed', async () => {
    const venue = new FakeVenue();
    venue.failNext('fetchTicker', ...Array.from({ length: 50 }, () => new NetworkError('down')));
    const run = record(new CcxtPriceSource(venue, { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 10 }).observe({ source: 'price', symbol: 'BTC' }));
    await until(() => venue.count('fetchTicker') >= 3);
    run.subscription.unsubscribe();
    await sleep(15);
    const calls = venue.count('fetchTicker');
    await sleep(100);
    expect(venue.count('fetchTicker')).toBe(calls);
    expect(run.errors).toEqual([]);
  });
});

describe('CcxtPriceSource watching (fake ccxt pro venue)', () => {
  it('loops on watchTicker instead of polling, and stops (with unWatchTicker) when unsubscribed', async () => {
    const venue = new FakeVenue();
    venue.has.watchTicker = true;
    venue.has.unWatchTicker = true;
    let n = 0;
    venue.tickers = [(symbol) => ({ symbol, last: 50 + n, timestamp: 1_000 + n++ })];
    const run = record(new CcxtPriceSource(venue, fast).observe({ source: 'price', symbol: 'ETH' }));
    await until(() => run.values.length >= 3);
    run.subscription.unsubscribe();
    await sleep(20);
    const watches = venue.count('watchTicker');
    await sleep(60);
    expect(venue.count('watchTicker')).toBe(watches);
    expect(venue.count('fetchTicker')).toBe(0);
    expect(venue.count('unWatchTicker')).toBe(1);
    expect(run.values.slice(0, 2)).toEqual([
      { at: 1_000, source: 'price', symbol: 'ETH', price: 50, exchange: 'fakevenue' },
      { at: 1_001, source: 'price', symbol: 'ETH', price: 51, exchange: 'fakevenue' },
    ]);
  });

  it('keeps the venue watch while another topic on the same market still listens', async () => {
    const venue = new FakeVenue();
    venue.has.watchTicker = true;
    venue.has.unWatchTicker = true;
    venue.tickers = [(symbol) => ({ symbol, last: 1, timestamp: Date.now() })];
    const source = new CcxtPriceSource(venue, fast);
    const a = record(source.observe({ source: 'price', symbol: 'BTC' }));
    const b = record(source.observe({ source: 'price', symbol: 'BTC-PERP' }));
    await until(() => a.values.length >= 1 && b.values.length >= 1);
    a.subscription.unsubscribe();
    expect(venue.count('unWatchTicker')).toBe(0);
    b.subscription.unsubscribe();
    expect(venue.count('unWatchTicker')).toBe(1);
  });

  it('retries a transient watch failure', async () => {
    const venue = new FakeVenue();
    venue.has.watchTicker = true;
    venue.tickers = [(symbol) => ({ symbol, last: 1, timestamp: Date.now() })];
    venue.failNext('watchTicker', new NetworkError('connection closed'));
    const run = record(new CcxtPriceSource(venue, fast).observe({ source: 'price', symbol: 'BTC' }));
    await until(() => run.values.length >= 2);
    run.subscription.unsubscribe();
    expect(run.errors).toEqual([]);
  });
});

describe('backoffDelay', () => {
  it('doubles from the base up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 100].map((attempt) => backoffDelay(attempt, 500, 5_000))).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });
});

describe('CcxtPriceSource built from an id', () => {
  it('errors the stream (once, no retries) when ccxt has no such exchange', async () => {
    const run = record(new CcxtPriceSource('nosuchvenue', fast).observe({ source: 'price', symbol: 'BTC' }));
    await until(() => run.errors.length === 1);
    expect(String(run.errors[0])).toMatch(/ccxt has no exchange "nosuchvenue"/);
  });
});
