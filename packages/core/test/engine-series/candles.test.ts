import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CandleBuilder, firstBucketStartFrom, TIMEFRAME_MS, timeframeMs, type Candle } from '../../src/engine/series/index.js';

const MIN = 60_000;

describe('timeframeMs', () => {
  it('knows every timeframe of the language', () => {
    expect(timeframeMs('1m')).toBe(60_000);
    expect(timeframeMs('3m')).toBe(180_000);
    expect(timeframeMs('5m')).toBe(300_000);
    expect(timeframeMs('15m')).toBe(900_000);
    expect(timeframeMs('30m')).toBe(1_800_000);
    expect(timeframeMs('1h')).toBe(3_600_000);
    expect(timeframeMs('2h')).toBe(7_200_000);
    expect(timeframeMs('4h')).toBe(14_400_000);
    expect(timeframeMs('6h')).toBe(21_600_000);
    expect(timeframeMs('8h')).toBe(28_800_000);
    expect(timeframeMs('12h')).toBe(43_200_000);
    expect(timeframeMs('1d')).toBe(86_400_000);
    expect(timeframeMs('3d')).toBe(259_200_000);
    expect(timeframeMs('1w')).toBe(604_800_000);
    expect(Object.keys(TIMEFRAME_MS)).toHaveLength(14);
  });

  it('refuses anything else', () => {
    for (const tf of ['1M', '2m', '1y', '60s', '', 'toString', '__proto__']) {
      expect(() => timeframeMs(tf), tf).toThrow(RangeError);
    }
  });
});

describe('CandleBuilder', () => {
  it('aligns buckets to the epoch', () => {
    const builder = new CandleBuilder(timeframeMs('1h'));
    expect(builder.bucketStart(Date.UTC(2025, 0, 1, 13, 59, 59, 999))).toBe(Date.UTC(2025, 0, 1, 13));
    expect(builder.bucketStart(Date.UTC(2025, 0, 1, 14))).toBe(Date.UTC(2025, 0, 1, 14));
    const daily = new CandleBuilder(timeframeMs('1d'));
    expect(daily.bucketStart(Date.UTC(2025, 5, 3, 23, 59))).toBe(Date.UTC(2025, 5, 3));
    // Weekly buckets start on Mondays 00:00 UTC, as charts draw them (2025-06-03 is a Tuesday).
    const weekly = new CandleBuilder(timeframeMs('1w'));
    expect(new Date(weekly.bucketStart(Date.UTC(2025, 5, 3))).getUTCDay()).toBe(1);
    expect(weekly.bucketStart(Date.UTC(2025, 5, 3))).toBe(Date.UTC(2025, 5, 2));
    expect(weekly.bucketStart(Date.UTC(2025, 5, 2))).toBe(Date.UTC(2025, 5, 2));
    expect(weekly.bucketStart(Date.UTC(2025, 5, 1, 23, 59, 59, 999))).toBe(Date.UTC(2025, 4, 26));
  });

  it('starts every week on the Monday 00:00 UTC the calendar gives, before and after the epoch', () => {
    const weekly = new CandleBuilder(timeframeMs('1w'));
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1960, 0, 1), max: Date.UTC(2100, 0, 1) }), (at) => {
        const day = new Date(at);
        const monday = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
        expect(weekly.bucketStart(at)).toBe(monday);
        expect(firstBucketStartFrom(at, timeframeMs('1w'))).toBe(monday === at ? at : monday + timeframeMs('1w'));
      }),
    );
  });

  it('builds the forming candle from the ticks of its bucket', () => {
    const builder = new CandleBuilder(MIN);
    expect(builder.current()).toBeUndefined();
    expect(builder.add(60_000, 10, 1)).toEqual([]);
    expect(builder.add(70_000, 12, 2)).toEqual([]);
    expect(builder.add(80_000, 9)).toEqual([]);
    expect(builder.add(119_999, 11, 0.5)).toEqual([]);
    expect(builder.current()).toEqual({ start: 60_000, open: 10, high: 12, low: 9, close: 11, volume: 3.5 });
  });

  it('closes the open candle with the first tick of a later bucket', () => {
    const builder = new CandleBuilder(MIN);
    builder.add(60_000, 10, 1);
    builder.add(90_000, 12, 1);
    const closed = builder.add(120_000, 13, 4);
    expect(closed).toEqual([{ start: 60_000, open: 10, high: 12, low: 10, close: 12, volume: 2 }]);
    expect(builder.current()).toEqual({ start: 120_000, open: 13, high: 13, low: 13, close: 13, volume: 4 });
  });

  it('produces no candles for empty buckets: a gap closes only the open candle', () => {
    const builder = new CandleBuilder(MIN);
    builder.add(0, 10);
    const closed = builder.add(5 * MIN + 1, 20, 3);
    expect(closed).toEqual([{ start: 0, open: 10, high: 10, low: 10, close: 10, volume: 0 }]);
    expect(builder.current()?.start).toBe(5 * MIN);
    expect(builder.add(6 * MIN, 21)).toEqual([{ start: 5 * MIN, open: 20, high: 20, low: 20, close: 20, volume: 3 }]);
  });

  it('ignores ticks before the open bucket, and takes late ticks inside it by their time', () => {
    const builder = new CandleBuilder(MIN);
    builder.add(2 * MIN + 30_000, 10, 1);
    expect(builder.add(MIN + 59_999, 1, 100)).toEqual([]);
    expect(builder.current()).toEqual({ start: 2 * MIN, open: 10, high: 10, low: 10, close: 10, volume: 1 });
    // Same bucket, earlier time: it is the candle's open, not its close.
    builder.add(2 * MIN + 10_000, 8, 1);
    expect(builder.current()).toEqual({ start: 2 * MIN, open: 8, high: 10, low: 8, close: 10, volume: 2 });
    // After a later bucket opened, the previous one is final.
    builder.add(3 * MIN, 11);
    expect(builder.add(2 * MIN + 50_000, 99)).toEqual([]);
    expect(builder.current()).toEqual({ start: 3 * MIN, open: 11, high: 11, low: 11, close: 11, volume: 0 });
  });

  it('ignores non-finite ticks and counts a bad volume as 0', () => {
    const builder = new CandleBuilder(MIN);
    builder.add(0, 10, 1);
    builder.add(1, Number.NaN, 5);
    builder.add(Number.NaN, 50, 5);
    builder.add(2, Infinity, 5);
    builder.add(3, 11, -4);
    builder.add(4, 12, Number.NaN);
    expect(builder.current()).toEqual({ start: 0, open: 10, high: 12, low: 10, close: 12, volume: 1 });
  });

  it('advance closes the open candle once the clock passes its end', () => {
    const builder = new CandleBuilder(MIN);
    builder.add(10_000, 10, 1);
    expect(builder.advance(59_999)).toEqual([]);
    expect(builder.advance(60_000)).toEqual([{ start: 0, open: 10, high: 10, low: 10, close: 10, volume: 1 }]);
    expect(builder.current()).toBeUndefined();
    expect(builder.advance(120_000)).toEqual([]);
    // A late tick for the closed bucket is ignored; the next bucket starts fresh.
    expect(builder.add(59_000, 3)).toEqual([]);
    expect(builder.current()).toBeUndefined();
    expect(builder.add(61_000, 4)).toEqual([]);
    expect(builder.current()).toEqual({ start: 60_000, open: 4, high: 4, low: 4, close: 4, volume: 0 });
  });

  it('returns copies: callers cannot change its state', () => {
    const builder = new CandleBuilder(MIN);
    builder.add(0, 10);
    const forming = builder.current() as { close: number };
    forming.close = 0;
    expect(builder.current()?.close).toBe(10);
  });

  it('refuses a timeframe that is not a positive whole number', () => {
    for (const tf of [0, -1, 1.5, Number.NaN, Infinity]) expect(() => new CandleBuilder(tf)).toThrow(RangeError);
  });
});

interface TestTick {
  at: number;
  price: number;
  volume: number;
}

/** Brute force: accept ticks whose bucket is not before the latest accepted bucket, then group. */
function bruteForce(ticks: readonly TestTick[], tf: number): { closed: Candle[]; forming: Candle | undefined } {
  const accepted: TestTick[] = [];
  let latestBucket = -Infinity;
  for (const tick of ticks) {
    const bucket = Math.floor(tick.at / tf) * tf;
    if (bucket < latestBucket) continue;
    latestBucket = bucket;
    accepted.push(tick);
  }
  const groups = new Map<number, TestTick[]>();
  for (const tick of accepted) {
    const bucket = Math.floor(tick.at / tf) * tf;
    groups.set(bucket, [...(groups.get(bucket) ?? []), tick]);
  }
  const candles = [...groups.entries()].map(([start, group]): Candle => {
    const earliest = Math.min(...group.map((t) => t.at));
    const latest = Math.max(...group.map((t) => t.at));
    return {
      start,
      open: group.find((t) => t.at === earliest)?.price ?? Number.NaN,
      high: Math.max(...group.map((t) => t.price)),
      low: Math.min(...group.map((t) => t.price)),
      close: group.findLast((t) => t.at === latest)?.price ?? Number.NaN,
      volume: group.reduce((sum, t) => sum + t.volume, 0),
    };
  });
  return { closed: candles.slice(0, -1), forming: candles.at(-1) };
}

describe('CandleBuilder properties', () => {
  const tick = fc.record({
    step: fc.oneof(fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: -90_000, max: 400_000 })),
    price: fc.integer({ min: 1, max: 1_000_000 }).map((n) => n / 100),
    volume: fc.integer({ min: 0, max: 10_000 }).map((n) => n / 8),
  });

  it('the closed candles equal a brute-force grouping of the ticks', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(MIN, 5 * MIN, 3_600_000),
        fc.integer({ min: -5_000_000, max: 5_000_000 }),
        fc.array(tick, { maxLength: 200 }),
        (tf, origin, steps) => {
          let at = origin;
          const ticks = steps.map(({ step, price, volume }) => {
            at += step;
            return { at, price, volume };
          });
          const builder = new CandleBuilder(tf);
          const closed: Candle[] = [];
          for (const t of ticks) closed.push(...builder.add(t.at, t.price, t.volume));
          const expected = bruteForce(ticks, tf);
          expect(closed).toEqual(expected.closed);
          expect(builder.current()).toEqual(expected.forming);
          for (let i = 1; i < closed.length; i += 1) {
            expect((closed[i]?.start ?? 0) > (closed[i - 1]?.start ?? 0)).toBe(true);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
