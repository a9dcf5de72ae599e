import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Candle, CONVERGENCE_TOLERANCE, convergenceCandles, createIndicator, TA_METHODS, type TaMethod, warmupCandles } from '@eql/core';
import { smallIndicatorArgs } from '../support/indicator-args.js';

/**
 * docs/semantics.md, "History and warm-up": after `convergenceCandles` candles of its own history, an
 * indicator agrees within 1e-9 (relative; for MACD relative to the price level) with the same indicator computed on a longer history; before
 * `warmupCandles` it has no value. Checked on random walks for all methods and random parameters,
 * against a history that starts up to 300 candles earlier.
 */

// Every candle moves (no step of 0): on an exactly flat run RSI's average loss is a decayed residue in a
// long history (RSI 0) but exactly 0 in a short one (RSI 100 by convention), a difference no look-back
// removes (a known limit of the law, docs/semantics.md, "History and warm-up").
const stepArb = fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 300 })).map(([down, size]) => (down ? -size : size));
const candlesArb = fc.array(fc.record({ step: stepArb, range: fc.integer({ min: 0, max: 200 }) }), { minLength: 900, maxLength: 900 }).map((steps) => {
  let close = 100;
  return steps.map(({ step, range }, index): Candle => {
    const open = close;
    close = Math.max(1, close * (1 + step / 10_000));
    const spread = (close * range) / 10_000;
    return { start: index * 3_600_000, open, high: Math.max(open, close) + spread, low: Math.max(0.01, Math.min(open, close) - spread), close, volume: 1 };
  });
});

const paramsArb = fc.record({
  period: fc.integer({ min: 2, max: 30 }),
  fast: fc.integer({ min: 2, max: 12 }),
  slow: fc.integer({ min: 13, max: 30 }),
  signal: fc.integer({ min: 2, max: 12 }),
  multiplier: fc.double({ min: 0.5, max: 5, noNaN: true }),
  acceleration: fc.double({ min: 0.005, max: 0.05, noNaN: true }),
  maxAcceleration: fc.double({ min: 0.1, max: 0.4, noNaN: true }),
});
type Params = typeof paramsArb extends fc.Arbitrary<infer P> ? P : never;

/** Random parameters for a method's family (candles are hourly: the default timeframe). */
function argsOf(method: TaMethod, p: Params): Record<string, unknown> {
  return smallIndicatorArgs(method, p);
}

function series(method: TaMethod, args: Record<string, unknown>, candles: readonly Candle[]): Array<number | undefined> {
  const indicator = createIndicator(method, args);
  return candles.map((candle) => indicator.update(candle));
}

describe('indicator look-back', () => {
  it.each(TA_METHODS)('%s: defined after warmupCandles, and independent of an earlier start after convergenceCandles', (method) => {
    fc.assert(
      fc.property(candlesArb, paramsArb, fc.integer({ min: 1, max: 300 }), (candles, params, offset) => {
        const args = argsOf(method, params);
        const needed = convergenceCandles(method, args);
        fc.pre(offset + needed < candles.length);
        const long = series(method, args, candles);
        const short = series(method, args, candles.slice(offset));
        const warmup = warmupCandles(method, args);
        expect(short[warmup - 2]).toBeUndefined();
        expect(short[warmup - 1]).toBeTypeOf('number');
        for (let index = needed - 1; index < short.length; index += 1) {
          const a = long[index + offset] as number;
          const b = short[index] as number;
          // MACD is a difference of two EMAs of the price: what it inherits from their seeds is a
          // fraction of the price, so it agrees relative to the price level, not to its own (near 0) size.
          const scale = method.startsWith('macd') ? Math.max(1, Math.abs(a), candles[index + offset]?.close ?? 0) : Math.max(1, Math.abs(a));
          expect(Math.abs(a - b)).toBeLessThanOrEqual(CONVERGENCE_TOLERANCE * scale);
        }
      }),
      { numRuns: 25 },
    );
  });
});
