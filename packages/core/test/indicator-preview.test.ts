import { describe, expect, it } from 'vitest';
import { preview, type Candle, type Observation, type QueryRequest, type Recording, type TaMethod } from '@eql/core';
import * as textbook from './support/textbook-indicators.js';
import { type Series } from './support/textbook-indicators.js';

/**
 * The 25 `ta` methods of the second batch (wma ... ichimoku) in the engine, end to end: a recording of
 * ticks that makes known hourly candles, a preview of a query crossing a level of one method, and the
 * trigger instants the independent implementations of test/support/textbook-indicators.ts predict from
 * those candles.
 *
 * The engine builds 1h candles from the ticks (buckets aligned to the epoch); a candle closes at the first
 * tick of a later bucket, and only then does the indicator's value change. So the value after candle k is
 * read from the first tick of candle k + 1 on, and a `crosses_above t` fires at that tick when the value
 * after candle k − 1 was <= t and the one after candle k is > t (`crosses_below`: >= t, then < t); the
 * first value is never a crossing, and the last candle (never closed) changes nothing. With
 * `repeat: {cooldown: '1m'}` every crossing fires (they are an hour apart at least).
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Monday 2026-01-05 00:00 UTC. */
const START = Date.parse('2026-01-05T00:00:00Z');
const COUNT = 260;

/** When in its hour each tick of a candle comes: open, high, low, close (the open is the first tick). */
const TICK_OFFSETS = { open: 2 * MINUTE, high: 17 * MINUTE, low: 31 * MINUTE, close: 58 * MINUTE } as const;

/**
 * The candles the recording makes: hourly, trending and oscillating, with ranges, gaps from one close to
 * the next open, whole volumes of 8 to 40, and a few hours without ticks (so no candle: the next one
 * starts 3 hours later). Prices in cents, so the ticks carry them exactly.
 */
function makeCandles(count: number): Candle[] {
  const cents = (x: number) => Math.round(x * 100) / 100;
  const candles: Candle[] = [];
  let previousClose = 100;
  let start = START + 5 * HOUR;
  for (let i = 0; i < count; i += 1) {
    const close = cents(100 + 8 * Math.sin(i / 6) + 3 * Math.cos(i / 2.7) + 0.05 * i);
    const open = cents(previousClose + 0.6 * Math.sin(i * 1.9));
    const high = cents(Math.max(open, close) + 0.3 + 1.5 * Math.abs(Math.sin(i * 0.8)));
    const low = cents(Math.min(open, close) - 0.3 - 1.5 * Math.abs(Math.cos(i * 1.1)));
    const volume = 8 + ((i * 5) % 17) + 2 * (i % 3) + (i % 11 === 0 ? 15 : 0);
    candles.push({ start, open, high, low, close, volume });
    previousClose = close;
    start += i % 41 === 40 ? 3 * HOUR : HOUR;
  }
  return candles;
}

/** Four ticks a candle (open, high, low, close), its volume split over them in whole numbers. */
function ticksOf(candles: readonly Candle[]): Observation[] {
  return candles.flatMap((c) => {
    const quarter = Math.floor(c.volume / 4);
    const tick = (offset: number, price: number, volume: number): Observation => ({ at: c.start + offset, source: 'price', symbol: 'BTC', price, volume });
    return [
      tick(TICK_OFFSETS.open, c.open, quarter),
      tick(TICK_OFFSETS.high, c.high, quarter),
      tick(TICK_OFFSETS.low, c.low, quarter),
      tick(TICK_OFFSETS.close, c.close, c.volume - 3 * quarter),
    ];
  });
}

const CANDLES = makeCandles(COUNT);
const OBSERVATIONS = ticksOf(CANDLES);
const RECORDING: Recording = { observations: OBSERVATIONS, start: (OBSERVATIONS[0] as Observation).at, end: (OBSERVATIONS.at(-1) as Observation).at + MINUTE };

type Args = Record<string, number>;

/** The textbook series of a method with its (resolved) args: one value per candle, after it. */
function expectedSeries(method: TaMethod, args: Args): Series {
  const p = (name: string, fallback: number): number => args[name] ?? fallback;
  switch (method) {
    case 'wma':
      return textbook.wma(CANDLES, p('period', 20));
    case 'hma':
      return textbook.hma(CANDLES, p('period', 20));
    case 'dema':
      return textbook.dema(CANDLES, p('period', 20));
    case 'tema':
      return textbook.tema(CANDLES, p('period', 20));
    case 'vwap':
      return textbook.vwap(CANDLES);
    case 'supertrend':
      return textbook.supertrend(CANDLES, p('period', 10), p('multiplier', 3)).supertrend;
    case 'supertrend_direction':
      return textbook.supertrend(CANDLES, p('period', 10), p('multiplier', 3)).direction;
    case 'adx':
      return textbook.dmi(CANDLES, p('period', 14), p('smoothPeriod', 14)).adx;
    case 'plus_di':
      return textbook.dmi(CANDLES, p('period', 14), p('smoothPeriod', 14)).plusDi;
    case 'minus_di':
      return textbook.dmi(CANDLES, p('period', 14), p('smoothPeriod', 14)).minusDi;
    case 'psar':
      return textbook.psar(CANDLES, p('acceleration', 0.02), p('maxAcceleration', 0.2));
    case 'obv':
      return textbook.obv(CANDLES, p('period', 20));
    case 'mfi':
      return textbook.mfi(CANDLES, p('period', 14));
    case 'stochrsi_k':
      return textbook.stochRsi(CANDLES, p('period', 14), p('smoothPeriod', 3), p('signalPeriod', 3)).k;
    case 'stochrsi_d':
      return textbook.stochRsi(CANDLES, p('period', 14), p('smoothPeriod', 3), p('signalPeriod', 3)).d;
    case 'keltner_upper':
      return textbook.keltner(CANDLES, p('period', 20), p('atrPeriod', 10), p('multiplier', 2)).upper;
    case 'keltner_middle':
      return textbook.keltner(CANDLES, p('period', 20), p('atrPeriod', 10), p('multiplier', 2)).middle;
    case 'keltner_lower':
      return textbook.keltner(CANDLES, p('period', 20), p('atrPeriod', 10), p('multiplier', 2)).lower;
    case 'donchian_upper':
      return textbook.donchian(CANDLES, p('period', 20)).upper;
    case 'donchian_middle':
      return textbook.donchian(CANDLES, p('period', 20)).middle;
    case 'donchian_lower':
      return textbook.donchian(CANDLES, p('period', 20)).lower;
    case 'ichimoku_conversion':
      return textbook.ichimoku(CANDLES, p('conversionPeriod', 9), p('basePeriod', 26), p('spanPeriod', 52), p('displacement', 26)).conversion;
    case 'ichimoku_base':
      return textbook.ichimoku(CANDLES, p('conversionPeriod', 9), p('basePeriod', 26), p('spanPeriod', 52), p('displacement', 26)).base;
    case 'ichimoku_span_a':
      return textbook.ichimoku(CANDLES, p('conversionPeriod', 9), p('basePeriod', 26), p('spanPeriod', 52), p('displacement', 26)).spanA;
    case 'ichimoku_span_b':
      return textbook.ichimoku(CANDLES, p('conversionPeriod', 9), p('basePeriod', 26), p('spanPeriod', 52), p('displacement', 26)).spanB;
    default:
      throw new Error(`no textbook implementation of ${method}`);
  }
}

/**
 * The values the engine can read: those after the candles that close in the recording (all but the last),
 * each from the first tick of the next candle on.
 */
function readable(series: Series): Array<{ at: number; value: number | undefined }> {
  return series.slice(0, -1).map((value, k) => ({ at: (CANDLES[k + 1] as Candle).start + TICK_OFFSETS.open, value }));
}

/**
 * A level the series crosses often and stays clear of: among the middles of the gaps between neighbouring
 * distinct values (gaps wider than rounding, so no value is within rounding of the level), the one with
 * the most crossings, the widest gap between equals.
 */
function thresholdOf(series: Series, operator: 'crosses_above' | 'crosses_below'): number {
  const values = [...new Set(readable(series).flatMap(({ value }) => (value === undefined ? [] : [value])))].sort((a, b) => a - b);
  let best = { crossings: -1, gap: -1, level: Number.NaN };
  for (let i = 0; i + 1 < values.length; i += 1) {
    const low = values[i] as number;
    const high = values[i + 1] as number;
    const gap = high - low;
    if (gap <= 1e-6 * Math.max(1, Math.abs(high))) continue;
    const level = (low + high) / 2;
    const crossings = predictedTriggers(series, operator, level).length;
    if (crossings > best.crossings || (crossings === best.crossings && gap > best.gap)) best = { crossings, gap, level };
  }
  return best.level;
}

/** The instants a crossing of `threshold` fires at, and the value read then, from the textbook series. */
function predictedTriggers(series: Series, operator: 'crosses_above' | 'crosses_below', threshold: number): Array<{ at: number; value: number }> {
  const points = readable(series);
  const triggers: Array<{ at: number; value: number }> = [];
  for (let k = 1; k < points.length; k += 1) {
    const before = (points[k - 1] as { value: number | undefined }).value;
    const { at, value } = points[k] as { at: number; value: number | undefined };
    if (before === undefined || value === undefined) continue;
    const crosses = operator === 'crosses_above' ? before <= threshold && value > threshold : before >= threshold && value < threshold;
    if (crosses) triggers.push({ at, value });
  }
  return triggers;
}

function query(method: TaMethod, args: Args, operator: string, value: number): QueryRequest {
  return {
    query: {
      conditions: { AND: [{ source: 'ta', method, args: { symbol: 'BTC', timeframe: '1h', ...args }, operator, value }] },
      actions: [{ stepId: 'n', type: 'notify', params: { message: 'crossed' } }],
      expiresIn: '30d',
      repeat: { cooldown: '1m' },
    },
  } as unknown as QueryRequest;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Every new method with its defaults, and some with other parameters; the operator alternates. */
const CASES: ReadonlyArray<{ method: TaMethod; args: Args }> = [
  ...(
    [
      'wma', 'hma', 'dema', 'tema', 'vwap', 'supertrend', 'supertrend_direction', 'adx', 'plus_di', 'minus_di', 'psar', 'obv', 'mfi', 'stochrsi_k', 'stochrsi_d',
      'keltner_upper', 'keltner_middle', 'keltner_lower', 'donchian_upper', 'donchian_middle', 'donchian_lower', 'ichimoku_conversion', 'ichimoku_base',
      'ichimoku_span_a', 'ichimoku_span_b',
    ] as const
  ).map((method) => ({ method, args: {} })),
  { method: 'hma', args: { period: 9 } },
  { method: 'tema', args: { period: 5 } },
  { method: 'supertrend_direction', args: { period: 7, multiplier: 1.5 } },
  { method: 'adx', args: { period: 7, smoothPeriod: 5 } },
  { method: 'psar', args: { acceleration: 0.04, maxAcceleration: 0.3 } },
  { method: 'stochrsi_k', args: { period: 7, smoothPeriod: 2, signalPeriod: 2 } },
  { method: 'keltner_lower', args: { period: 10, atrPeriod: 14, multiplier: 1.5 } },
  { method: 'ichimoku_span_b', args: { conversionPeriod: 5, basePeriod: 10, spanPeriod: 20, displacement: 8 } },
];

const RUNS = CASES.map(({ method, args }, i) => ({ method, args, operator: i % 2 === 0 ? ('crosses_above' as const) : ('crosses_below' as const), name: `${method} ${JSON.stringify(args)}` }));

describe('preview fires the new ta methods where the textbook predicts', () => {
  it('the recording makes the candles the predictions read', () => {
    expect(OBSERVATIONS).toHaveLength(4 * COUNT);
    // Hours without ticks: a few candles start 3 hours after the previous one, and the series crosses UTC days.
    expect(CANDLES.filter((c, i) => i > 0 && c.start - (CANDLES[i - 1] as Candle).start === 3 * HOUR).length).toBeGreaterThanOrEqual(4);
    expect(new Set(CANDLES.map((c) => Math.floor(c.start / 86_400_000))).size).toBeGreaterThanOrEqual(8);
    expect(new Set(RUNS.filter((run) => Object.keys(run.args).length === 0).map((run) => run.method)).size).toBe(25);
  });

  it.each(RUNS)('$name $operator', ({ method, args, operator }) => {
    const series = expectedSeries(method, args);
    const threshold = thresholdOf(series, operator);
    const predicted = predictedTriggers(series, operator, threshold);
    // A real test: the level is crossed more than once (from 3 to 11 times; twice for the slow default span B).
    expect(predicted.length).toBeGreaterThanOrEqual(2);

    const result = preview(query(method, args, operator, threshold), RECORDING);
    expect(result.problems).toEqual([]);
    expect(result.triggers.map((trigger) => trigger.at)).toEqual(predicted.map((trigger) => iso(trigger.at)));
    // At each trigger the condition read the value the textbook has after the candle that just closed.
    result.triggers.forEach((trigger, i) => {
      const state = trigger.conditionStates[0];
      const expected = (predicted[i] as { value: number }).value;
      expect(state?.threshold).toBe(threshold);
      expect(Math.abs((state?.value ?? Number.NaN) - expected), `trigger ${i}: ${state?.value} vs ${expected}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
    });
  });
});
