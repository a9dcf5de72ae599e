import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY, DURATION_PATTERN, formatDuration, HOUR, MINUTE, parseDuration, SECOND, WEEK } from '@eql/core';

describe('durations', () => {
  it.each([
    ['30s', 30 * SECOND],
    ['30m', 30 * MINUTE],
    ['1h', HOUR],
    ['24h', 24 * HOUR],
    ['7d', 7 * DAY],
    ['2w', 2 * WEEK],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '0h', '01h', '1.5h', '-1h', '1H', '1M', '1h30m', ' 1h', '1 h', 'h', '1', '12345678h'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('refuses non-strings', () => {
    for (const value of [1, null, undefined, {}, ['1h']]) expect(parseDuration(value)).toBeUndefined();
  });

  it('formats the largest whole unit and round-trips', () => {
    expect(formatDuration(90 * MINUTE)).toBe('90m');
    expect(formatDuration(120 * MINUTE)).toBe('2h');
    expect(formatDuration(14 * DAY)).toBe('2w');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999 }), fc.constantFrom('s', 'm', 'h', 'd', 'w'), (n, unit) => {
        const ms = parseDuration(`${n}${unit}`) as number;
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });

  it('accepts exactly what DURATION_PATTERN accepts, with the value of its digits and unit', () => {
    const unitMs: Record<string, number> = { s: SECOND, m: MINUTE, h: HOUR, d: DAY, w: WEEK };
    const byPattern = (text: string): number | undefined =>
      DURATION_PATTERN.test(text) ? Number(text.slice(0, -1)) * (unitMs[text.slice(-1)] as number) : undefined;
    // Strings near the form (digits, units, look-alikes), and any string at all.
    const near = fc.stringMatching(/^[0-9 .+\-e]{0,9}[smhdwSMHDW0-9x\u0660]?$/);
    fc.assert(
      fc.property(fc.oneof(near, fc.string({ maxLength: 10 }), fc.string({ unit: 'grapheme', maxLength: 4 })), (text) => {
        expect(parseDuration(text)).toBe(byPattern(text));
      }),
      { numRuns: 3000 },
    );
  });
});
