import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine, EpochVirtualScheduler, parseRecording, type QueryRequest, RecordingHistory, ReplaySource, TA_METHODS, type TaMethod, validate } from '@eql/core';
import { smallIndicatorArgs } from './support/indicator-args.js';

const NOW = Date.parse('2026-01-05T00:00:00Z');
const request = (condition: Record<string, unknown>, expiresIn = '24h'): QueryRequest =>
  ({ query: { conditions: { AND: [condition] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn } }) as unknown as QueryRequest;
const codes = (result: ReturnType<typeof validate>) => result.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.path, d.message]);

describe('validation against what a host serves', () => {
  const served = { symbols: ['BTC', 'ETH', 'SOL'], history: true };

  it('refuses a symbol no feed serves, with the served list, on the condition and on a live operand', () => {
    const doge = validate(request({ source: 'price', method: 'current', args: { symbol: 'DOGE' }, operator: '>', value: 1 }), { now: NOW, served });
    expect(doge.valid).toBe(false);
    expect(codes(doge)).toEqual([['unserved-symbol', '/query/conditions/AND/0/args/symbol', 'no feed of this host serves prices of DOGE; served: BTC, ETH, SOL']]);
    const operand = validate(request({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: { source: 'ta', method: 'ema', args: { symbol: 'PEPE' } } }), { now: NOW, served });
    expect(codes(operand).map(([code, path]) => [code, path])).toEqual([['unserved-symbol', '/query/conditions/AND/0/value/args/symbol']]);
  });

  it('serves a symbol by its asset: BTC/USDT and BTC-PERP are BTC; without served data nothing is checked', () => {
    for (const symbol of ['BTC/USDT', 'BTC-PERP', 'btc']) expect(validate(request({ source: 'ta', method: 'rsi', args: { symbol }, operator: '<', value: 30 }), { now: NOW, served }).valid).toBe(true);
    expect(validate(request({ source: 'price', method: 'current', args: { symbol: 'DOGE' }, operator: '>', value: 1 }), { now: NOW }).valid).toBe(true);
  });

  it('refuses a timeframe the host does not compute', () => {
    const result = validate(request({ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '3d' }, operator: '<', value: 30 }), { now: NOW, served: { timeframes: ['1m', '1h', '1d'] } });
    expect(codes(result).map(([code, path]) => [code, path])).toEqual([['unserved-timeframe', '/query/conditions/AND/0/args/timeframe']]);
  });

  it('without history, a look-back longer than the lifetime is an error; with history it is not', () => {
    const ema = request({ source: 'ta', method: 'ema', args: { symbol: 'BTC', timeframe: '4h', period: 50 }, operator: '>', value: 1 }, '7d');
    const cold = validate(ema, { now: NOW, served: { history: false } });
    expect(codes(cold)).toEqual([
      ['lookback-exceeds-lifetime', '/query/conditions/AND/0', 'ema on 4h candles needs 200h of prices before its value is defined, longer than the query lives (7d), and this host has no history to start from'],
    ]);
    expect(validate(ema, { now: NOW, served: { history: true } }).valid).toBe(true);
    const change = request({ source: 'price', method: 'change', args: { symbol: 'BTC', period: '24h' }, operator: '>', value: 5 }, '12h');
    expect(codes(validate(change, { now: NOW, served: { history: false } })).map(([code]) => code)).toEqual(['lookback-exceeds-lifetime']);
    expect(validate(request({ source: 'ta', method: 'rsi', args: { symbol: 'BTC' }, operator: '<', value: 30 }), { now: NOW, served: { history: false } }).valid).toBe(true);
  });

  it('with a history that starts at a known instant, a series that cannot be defined before the query expires is an error', () => {
    const DAY = 86_400_000;
    // A host's replay history: nine days and a few hours of the past (its earlier laps).
    const served = { history: true, historySince: NOW - 9 * DAY - 3 * 3_600_000 };
    const rsi = (expiresIn: string) => request({ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '1d' }, operator: '<', value: 30 }, expiresIn);
    // Its first whole day starts 9 days ago; the 15th such candle closes 6 days from now, after 72h.
    expect(codes(validate(rsi('72h'), { now: NOW, served }))).toEqual([
      [
        'lookback-exceeds-lifetime',
        '/query/conditions/AND/0',
        'rsi on 1d candles needs 15d of prices before its value is defined; this host\'s history starts at 2025-12-26T21:00:00.000Z, so its value is defined from 2026-01-11T00:00:00.000Z, after the query expires (72h, at 2026-01-08T00:00:00.000Z)',
      ],
    ]);
    expect(validate(rsi('6d'), { now: NOW, served }).valid).toBe(true);
    expect(validate(rsi('5d'), { now: NOW, served }).valid).toBe(false);
    // A price window needs its period after the first price of the history.
    const change = request({ source: 'price', method: 'change', args: { symbol: 'BTC', period: '7d' }, operator: '>', value: 5 }, '1h');
    expect(codes(validate(change, { now: NOW, served: { history: true, historySince: NOW - 6 * DAY } })).map(([code]) => code)).toEqual(['lookback-exceeds-lifetime']);
    expect(validate(change, { now: NOW, served: { history: true, historySince: NOW - 7 * DAY } }).valid).toBe(true);
    // A live operand is a series too.
    const operand = request({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: { source: 'ta', method: 'sma', args: { symbol: 'BTC', timeframe: '1d', period: 30 } } }, '7d');
    expect(codes(validate(operand, { now: NOW, served })).map(([code, path]) => [code, path])).toEqual([['lookback-exceeds-lifetime', '/query/conditions/AND/0/value']]);
    // Without a start, history reaches as far back as any series needs (a venue's candles).
    expect(validate(rsi('72h'), { now: NOW, served: { history: true } }).valid).toBe(true);
  });

  it('agrees with the engine: refused exactly when the engine, warmed from that history, would be ready only after expiry', () => {
    const MINUTE = 60_000;
    fc.assert(
      fc.property(
        fc.record({
          method: fc.constantFrom(...TA_METHODS, 'change', 'high', 'low', 'volume'),
          timeframe: fc.constantFrom('1m', '5m', '15m', '1h'),
          period: fc.integer({ min: 2, max: 12 }),
          // The history starts at any minute, not only at a candle's start.
          sinceMinute: fc.integer({ min: 0, max: 240 }),
          // At least a minute old, so the history has a first price (the engine says when it is ready only then).
          ageMinutes: fc.integer({ min: 1, max: 600 }),
          lifetimeMinutes: fc.integer({ min: 1, max: 900 }),
        }),
        ({ method, timeframe, period, sinceMinute, ageMinutes, lifetimeMinutes }) => {
          const since = NOW + sinceMinute * MINUTE;
          const at = since + ageMinutes * MINUTE;
          const taArgs: Record<string, unknown> = { symbol: 'SOL', timeframe };
          if (TA_METHODS.includes(method as never)) Object.assign(taArgs, smallIndicatorArgs(method as TaMethod, { period, fast: period, slow: period + 3, signal: 3 }));
          const series = TA_METHODS.includes(method as never) ? { source: 'ta', method, args: taArgs } : { source: 'price', method, args: { symbol: 'SOL', period: `${period * 10}m` } };
          const body = request({ ...series, operator: '>', value: -1e12 }, `${lifetimeMinutes}m`);
          const minutes = sinceMinute + ageMinutes + lifetimeMinutes + 1;
          const market = parseRecording(
            Array.from({ length: minutes }, (_, minute) => JSON.stringify({ at: new Date(since + minute * MINUTE).toISOString(), source: 'price', symbol: 'SOL', price: 100 + 10 * Math.sin(minute / 9), volume: 1 })).join('\n'),
          );
          const scheduler = new EpochVirtualScheduler(at);
          const engine = new Engine({ scheduler, sources: [new ReplaySource(market.observations, { scheduler, latestOnSubscribe: false })], history: [new RecordingHistory(market.observations)] });
          engine.add({ queryId: 'q', request: body, createdAt: at });
          const state = engine.inspect('q')?.conditionStates[0];
          const readyInTime = state?.status === 'ready' || (state?.readyAt !== undefined && state.readyAt <= at + lifetimeMinutes * MINUTE);
          engine.dispose();
          const result = validate(body, { now: at, served: { history: true, historySince: since } });
          expect(result.valid, JSON.stringify({ state, diagnostics: result.diagnostics })).toBe(readyInTime);
        },
      ),
      { numRuns: 150 },
    );
  });
});

