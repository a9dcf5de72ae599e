import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIsoTime, parseIsoTime } from '@eql/core';

const MAX_TIME = 8.64e15;
const YEAR_0 = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const YEAR_10000 = 253_402_300_800_000; // 10000-01-01T00:00:00.000Z

describe('formatIsoTime', () => {
  it('writes what Date#toISOString writes, for every instant a Date holds', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -MAX_TIME, max: MAX_TIME }), fc.integer({ min: YEAR_0 - 1e11, max: YEAR_10000 + 1e11 }), fc.integer({ min: 0, max: 4_102_444_800_000 })), (ms) => {
        expect(formatIsoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('writes the right text for runs of nearby instants (the same instant again, the same second, the next second, the day before)', () => {
    const step = fc.oneof(fc.constant(0), fc.integer({ min: -2, max: 2 }), fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(-86_400_000, 86_400_000, 1000, -1000, 999, -999));
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: YEAR_0, max: YEAR_10000 - 1 }), fc.integer({ min: -1e11, max: 4_102_444_800_000 })), fc.array(step, { maxLength: 40 }), (start, steps) => {
        let ms = start;
        expect(formatIsoTime(ms)).toBe(new Date(ms).toISOString());
        for (const delta of steps) {
          ms += delta;
          expect(formatIsoTime(ms), String(ms)).toBe(new Date(ms).toISOString());
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it('agrees at the edges: the years it writes itself, leap days, the epoch, fractions and invalid instants', () => {
    const edges = [YEAR_0, YEAR_0 - 1, YEAR_10000, YEAR_10000 - 1, 0, -1, 1, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(1900, 2, 1), Date.UTC(2100, 1, 28, 12), 951_782_400_000, 1.5, -0.5, MAX_TIME, -MAX_TIME];
    for (const ms of edges) expect(formatIsoTime(ms), String(ms)).toBe(new Date(ms).toISOString());
    for (const ms of [Number.NaN, Infinity, -Infinity, MAX_TIME + 1]) expect(() => formatIsoTime(ms)).toThrow(RangeError);
    expect(YEAR_0).toBe(Date.parse('0000-01-01T00:00:00.000Z'));
  });

  it('reads back as the same instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_TIME, max: MAX_TIME }), (ms) => {
        expect(parseIsoTime(formatIsoTime(ms))).toBe(ms);
      }),
      { numRuns: 5_000 },
    );
  });
});
