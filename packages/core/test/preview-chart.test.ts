import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chartTimeframe, preview, TIMEFRAME_MS, type Candle, type Observation, type Recording, type Timeframe } from '@eql/core';

/**
 * What a preview gives a chart besides the prices: candles at a timeframe that fits, and the values each
 * `ta` condition read with its threshold (docs/semantics.md, "Preview"). The recording's ticks make known
 * hourly candles; an SMA of the closes is checked against a plain computation of it.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.parse('2026-01-05T00:00:00Z');
const COUNT = 60;

const CANDLES: Candle[] = Array.from({ length: COUNT }, (_, i) => {
  const cents = (x: number) => Math.round(x * 100) / 100;
  const close = cents(100 + 6 * Math.sin(i / 5) + 0.1 * i);
  const open = cents(100 + 6 * Math.sin((i - 1) / 5) + 0.1 * (i - 1));
  return { start: START + i * HOUR, open, high: cents(Math.max(open, close) + 0.7), low: cents(Math.min(open, close) - 0.4), close, volume: 10 };
});

/** Four ticks an hour: open at :02, high at :17, low at :31, close at :58. */
const OBSERVATIONS: Observation[] = CANDLES.flatMap((c) =>
  (
    [
      [2, c.open],
      [17, c.high],
      [31, c.low],
      [58, c.close],
    ] as const
  ).map(([minute, price]): Observation => ({ at: c.start + minute * MINUTE, source: 'price', symbol: 'BTC', price, volume: 2.5 })),
);
const RECORDING: Recording = { observations: OBSERVATIONS, start: START, end: START + COUNT * HOUR };

const sma = (n: number, args: Record<string, unknown> = {}) => ({ source: 'ta', method: 'sma', args: { symbol: 'BTC', timeframe: '1h', period: n, ...args } });

/** The SMA of `n` closes after candle k, for each k (undefined before n candles). */
function smaAfter(n: number): Array<number | undefined> {
  return CANDLES.map((_, k) => (k < n - 1 ? undefined : CANDLES.slice(k - n + 1, k + 1).reduce((sum, c) => sum + c.close, 0) / n));
}

/** A query that never fires (no SMA of these prices exceeds 1,000), so it reads to the end. */
const watching = (condition: Record<string, unknown>) => ({
  query: { conditions: { AND: [condition] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn: '7d' },
});

describe('preview for a chart', () => {
  it('traces what a ta condition read: the SMA after each closed candle, from the first tick of the next', () => {
    const result = preview(watching({ ...sma(5), operator: '>', value: 1_000 }) as never, RECORDING);
    expect(result.indicators).toHaveLength(1);
    const [indicator] = result.indicators;
    expect(indicator).toMatchObject({ path: '/AND/0', method: 'sma', symbol: 'BTC', timeframe: '1h', operator: '>', threshold: 1_000 });
    expect(indicator?.operand).toBeUndefined();
    // The value after candle k is read from candle k + 1's first tick; the last candle never closes.
    const expected = smaAfter(5)
      .map((value, k) => ({ value, at: k + 1 < COUNT ? new Date(START + (k + 1) * HOUR + 2 * MINUTE).toISOString() : undefined }))
      .filter((point): point is { value: number; at: string } => point.value !== undefined && point.at !== undefined);
    expect(indicator?.points.map((point) => point.at)).toEqual(expected.map((point) => point.at));
    indicator?.points.forEach((point, i) => expect(point.value).toBeCloseTo(expected[i]?.value ?? NaN, 9));
    // A constant threshold is said once, not at each point.
    expect(indicator?.points.filter((point) => 'threshold' in point)).toEqual([]);
  });

  it('carries a live operand’s value at each point, and names it', () => {
    const result = preview(watching({ ...sma(5), operator: '>', value: { ...sma(10), args: { symbol: 'BTC', timeframe: '1h', period: 10 } } }) as never, RECORDING);
    const [indicator] = result.indicators;
    expect(indicator?.operand).toBe('ta.sma');
    expect(indicator?.threshold).toBeUndefined();
    const fast = smaAfter(5);
    const slow = smaAfter(10);
    // Points start once both are ready: after candle 9, read at candle 10's first tick.
    expect(indicator?.points[0]?.at).toBe(new Date(START + 10 * HOUR + 2 * MINUTE).toISOString());
    for (const point of indicator?.points ?? []) {
      const k = Math.round((Date.parse(point.at) - START - 2 * MINUTE) / HOUR) - 1;
      expect(point.value).toBeCloseTo(fast[k] ?? NaN, 9);
      expect(point.threshold).toBeCloseTo(slow[k] ?? NaN, 9);
    }
  });

  it('draws candles at the query’s own timeframe when they fit: the recording’s candles, the last one partial', () => {
    const result = preview(watching({ ...sma(5), operator: '>', value: 1_000 }) as never, RECORDING);
    expect(result.candles).toHaveLength(1);
    expect(result.candles[0]?.symbol).toBe('BTC');
    expect(result.candles[0]?.timeframe).toBe('1h');
    expect(result.candles[0]?.candles).toEqual(CANDLES.map((c) => ({ at: new Date(c.start).toISOString(), open: c.open, high: c.high, low: c.low, close: c.close, volume: c.volume })));
  });

  it('keeps a long run drawable: coarser candles that still hold every extreme, and an indicator thinned to its extremes', () => {
    const full = preview(watching({ ...sma(3), operator: '>', value: 1_000 }) as never, RECORDING);
    const thin = preview(watching({ ...sma(3), operator: '>', value: 1_000 }) as never, RECORDING, { maxPricePoints: 10 });
    expect(thin.candles[0]?.timeframe).toBe('1d');
    const daily = thin.candles[0]?.candles ?? [];
    expect(daily.length).toBeLessThanOrEqual(10);
    expect(Math.max(...daily.map((c) => c.high))).toBe(Math.max(...CANDLES.map((c) => c.high)));
    expect(Math.min(...daily.map((c) => c.low))).toBe(Math.min(...CANDLES.map((c) => c.low)));
    expect(daily[0]?.open).toBe(CANDLES[0]?.open);
    expect(daily.at(-1)?.close).toBe(CANDLES.at(-1)?.close);
    const values = full.indicators[0]?.points.map((point) => point.value) ?? [];
    const kept = thin.indicators[0]?.points.map((point) => point.value) ?? [];
    expect(kept.length).toBeLessThanOrEqual(10);
    expect(Math.max(...kept)).toBe(Math.max(...values));
    expect(Math.min(...kept)).toBe(Math.min(...values));
  });

  it('reads no indicator and draws candles of each symbol a price condition reads', () => {
    const result = preview(watching({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1_000 }) as never, RECORDING);
    expect(result.indicators).toEqual([]);
    // 60 hours at most 1,000 candles: the finest chart timeframe that fits is 5 minutes.
    expect(result.candles[0]?.timeframe).toBe('5m');
    expect(result.candles[0]?.candles).toHaveLength(COUNT * 4);
  });
});

describe('chartTimeframe', () => {
  const CHART: Timeframe[] = ['1m', '5m', '15m', '30m', '1h', '4h', '1d', '1w'];
  const preferred = fc.option(fc.constantFrom(...(Object.keys(TIMEFRAME_MS) as Timeframe[])), { nil: undefined });

  it('is the query’s timeframe when it fits, else the finest chart timeframe no finer than it that fits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 * 86_400_000 }), fc.integer({ min: 2, max: 5_000 }), preferred, (span, max, tf) => {
        const chosen = chartTimeframe(0, span, max, tf);
        const fits = (candidate: Timeframe) => Math.ceil(span / TIMEFRAME_MS[candidate]) <= max;
        const floor = tf === undefined ? 0 : TIMEFRAME_MS[tf];
        const candidates = CHART.filter((candidate) => TIMEFRAME_MS[candidate] >= floor && fits(candidate));
        expect(chosen).toBe(tf !== undefined && fits(tf) ? tf : (candidates[0] ?? '1w'));
      }),
    );
  });
});

describe('preview times', () => {
  it('are ISO 8601 everywhere in the result: no time-named field holds epoch milliseconds', () => {
    const request = {
      query: {
        conditions: { AND: [{ ...sma(3), operator: '>', value: 90 }, { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 90 }] },
        actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC-PERP', side: 'buy', size: 1, stopLoss: { percent: 1 } } }],
        repeat: { cooldown: '1h' },
        expiresIn: '7d',
      },
    };
    const result = preview(request as never, RECORDING);
    expect(result.triggers.length).toBeGreaterThan(1);
    const numbersAtTimes: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${path}/${index}`));
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (/(^at$|At$|^since$|^from$|^to$)/.test(key) && typeof value === 'number') numbersAtTimes.push(`${path}/${key}`);
          if (/(^at$|At$|^since$|^from$|^to$)/.test(key) && typeof value === 'string') expect(value, `${path}/${key}`).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
          walk(value, `${path}/${key}`);
        }
      }
    };
    walk(JSON.parse(JSON.stringify(result)), '');
    expect(numbersAtTimes).toEqual([]);
    expect(result.trigger?.conditionStates[0]?.observedAt).toMatch(/^2026-01-0\dT/);
  });
});
