import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { Deque } from '../../src/engine/series/deque.js';
import { PriceWindow } from '../../src/engine/series/index.js';

interface TestTick {
  at: number;
  price: number;
  volume: number;
}

/** Recomputes every statistic from the whole list of accepted ticks (the window's definition). */
function bruteForce(ticks: readonly TestTick[], duration: number) {
  const last = ticks.at(-1);
  if (last === undefined) return { change: undefined, high: undefined, low: undefined, volume: undefined, covered: false };
  const cutoff = last.at - duration;
  const inside = ticks.filter((t) => t.at > cutoff);
  const reference = ticks.filter((t) => t.at <= cutoff).at(-1);
  return {
    change:
      reference === undefined || reference.price === 0
        ? undefined
        : ((last.price - reference.price) / reference.price) * 100,
    high: Math.max(...inside.map((t) => t.price)),
    low: Math.min(...inside.map((t) => t.price)),
    volume: inside.reduce((sum, t) => sum + t.volume, 0),
    covered: reference !== undefined,
  };
}

describe('PriceWindow', () => {
  it('is empty before the first tick', () => {
    const window = new PriceWindow(60_000);
    expect(window.change()).toBeUndefined();
    expect(window.high()).toBeUndefined();
    expect(window.low()).toBeUndefined();
    expect(window.volume()).toBeUndefined();
    expect(window.covered()).toBe(false);
    expect(window.last()).toBeUndefined();
  });

  it('reports change only once a tick is at least the duration old', () => {
    const window = new PriceWindow(60_000);
    window.add(0, 100, 1);
    window.add(30_000, 110, 2);
    expect(window.change()).toBeUndefined();
    expect(window.high()).toBe(110);
    expect(window.low()).toBe(100);
    expect(window.volume()).toBe(3);
    window.add(60_000, 120, 4);
    // The tick at 0 is exactly `duration` old: it is the reference and leaves the window.
    expect(window.covered()).toBe(true);
    expect(window.change()).toBeCloseTo(20, 12);
    expect(window.high()).toBe(120);
    expect(window.low()).toBe(110);
    expect(window.volume()).toBe(6);
    window.add(100_000, 99, 1);
    // Reference is now the tick at 30 000 (the last at or before 40 000).
    expect(window.change()).toBeCloseTo(-10, 12);
    expect(window.high()).toBe(120);
    expect(window.low()).toBe(99);
    expect(window.volume()).toBe(5);
    window.add(500_000, 50);
    // After a long gap the window holds only the last tick; the reference is the tick before it.
    expect(window.change()).toBeCloseTo(((50 - 99) / 99) * 100, 12);
    expect(window.high()).toBe(50);
    expect(window.low()).toBe(50);
    expect(window.volume()).toBe(0);
    expect(window.last()).toEqual({ at: 500_000, price: 50, volume: 0 });
  });

  it('ignores out-of-order and non-finite ticks', () => {
    const window = new PriceWindow(60_000);
    window.add(10_000, 100, 1);
    window.add(5_000, 1, 100);
    window.add(20_000, Number.NaN, 100);
    window.add(Number.NaN, 7, 100);
    window.add(20_000, 101, -3);
    expect(window.low()).toBe(100);
    expect(window.high()).toBe(101);
    expect(window.volume()).toBe(1);
  });

  it('has no change against a reference price of 0', () => {
    const window = new PriceWindow(10);
    window.add(0, 0);
    window.add(10, 5);
    expect(window.covered()).toBe(true);
    expect(window.change()).toBeUndefined();
  });

  it('refuses a non-positive duration', () => {
    for (const duration of [0, -1, Number.NaN, Infinity]) expect(() => new PriceWindow(duration)).toThrow(RangeError);
  });

  it('does amortized O(1) queue work per tick on long streams', () => {
    // Counts the queue operations (and the ticks walked when the volume is re-summed) instead of timing.
    let work = 0;
    const proto = Deque.prototype as unknown as Record<string | symbol, (...args: unknown[]) => unknown>;
    const spies = (['push', 'pop', 'shift'] as const).map((name) => {
      const original = proto[name] as (...args: unknown[]) => unknown;
      return vi.spyOn(proto, name).mockImplementation(function (this: unknown, ...args: unknown[]) {
        work += 1;
        return original.apply(this, args);
      });
    });
    const iterate = proto[Symbol.iterator] as () => Iterator<unknown>;
    spies.push(
      vi.spyOn(proto, Symbol.iterator).mockImplementation(function* (this: unknown) {
        const iterator = iterate.call(this);
        for (let next = iterator.next(); next.done !== true; next = iterator.next()) {
          work += 1;
          yield next.value;
        }
      }),
    );
    const window = new PriceWindow(3_600_000);
    const n = 300_000;
    try {
      for (let i = 0; i < n; i += 1) window.add(i * 100, 100 + Math.sin(i / 1000) * 10 + (i % 7), i % 5);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(work).toBeGreaterThan(n);
    expect(work).toBeLessThan(10 * n);
    // 36 000 ticks in the last hour: volume of ticks (264 000, 299 999].
    let expected = 0;
    for (let i = 264_001; i < 300_000; i += 1) expected += i % 5;
    expect(window.volume()).toBe(expected);
  });
});

describe('PriceWindow properties', () => {
  const tick = fc.record({
    step: fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 2_000 }) },
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 20_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: -3_000, max: -1 }) },
    ),
    price: fc.oneof(
      fc.integer({ min: 1, max: 50 }),
      fc.double({ min: 0.001, max: 1e6, noNaN: true, noDefaultInfinity: true }),
    ),
    volume: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1e4, noNaN: true, noDefaultInfinity: true })),
  });

  it('matches a brute-force recomputation after every tick', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.array(tick, { maxLength: 150 }), (duration, steps) => {
        const window = new PriceWindow(duration);
        const accepted: TestTick[] = [];
        let at = 1_700_000_000_000;
        for (const { step, price, volume } of steps) {
          at += step;
          window.add(at, price, volume);
          const last = accepted.at(-1);
          if (last === undefined || at >= last.at) accepted.push({ at, price, volume });
          const expected = bruteForce(accepted, duration);
          expect(window.covered()).toBe(expected.covered);
          expect(window.change()).toBe(expected.change);
          expect(window.high()).toBe(expected.high);
          expect(window.low()).toBe(expected.low);
          const sum = window.volume() ?? Number.NaN;
          const expectedSum = expected.volume ?? Number.NaN;
          expect(Math.abs(sum - expectedSum)).toBeLessThanOrEqual(1e-9 * Math.max(1, expectedSum));
        }
      }),
      { numRuns: 400 },
    );
  });
});
