import { validate } from '@eql/core';
import { describe, expect, it } from 'vitest';
import { parseText, rangeOfPointer } from '../src/index.js';

/** Validates the request a text stands for; each diagnostic with the text its range covers. */
function diagnose(text: string) {
  const parsed = parseText(text);
  expect(parsed.errors).toEqual([]);
  const result = validate(parsed.value, { now: Date.parse('2026-01-01T00:00:00Z') });
  return result.diagnostics.map((diagnostic) => {
    const range = rangeOfPointer(parsed.map, diagnostic.path);
    const keyRange = rangeOfPointer(parsed.map, diagnostic.path, { key: true });
    return {
      code: diagnostic.code,
      text: range && text.slice(range.start.offset, range.end.offset),
      key: keyRange && text.slice(keyRange.start.offset, keyRange.end.offset),
      line: range?.start.line,
      column: range?.start.column,
    };
  });
}

describe('validator diagnostics land on the token of the text form', () => {
  it('an llm period too short: the duration', () => {
    expect(diagnose('when llm "Is sentiment bullish?" every 30m\nthen\n  notify "x" as x\n')).toEqual([
      expect.objectContaining({ code: 'llm-period-too-short', text: '30m', line: 1, column: 40 }),
    ]);
  });

  it('a username with @: the quoted account', () => {
    expect(diagnose('when tweet by "@elonmusk" about "dogecoin"\nthen\n  notify "x" as x\n')).toContainEqual(
      expect.objectContaining({ code: 'username-at', text: '"@elonmusk"' }),
    );
  });

  it('an unknown parameter: its value, and its key with { key: true }', () => {
    expect(diagnose('when rsi of BTC (perod 14) > 70\nthen\n  notify "x" as x\n')).toContainEqual(
      expect.objectContaining({ code: 'unknown-property', text: '14', key: 'perod' }),
    );
  });

  it('a missing parameter: the action that misses it', () => {
    expect(diagnose('when price of BTC > 1\nthen\n  notify (title "Alert") as x\n')).toContainEqual(
      expect.objectContaining({ code: 'missing-property', text: 'notify (title "Alert")' }),
    );
  });

  it('a threshold out of range and a wrong duration', () => {
    const found = diagnose('when all of\n  rsi of BTC > 120\n  price of ETH > 1 for "1.5h"\nthen\n  notify "x" as x\n');
    expect(found).toContainEqual(expect.objectContaining({ code: 'value-out-of-range', text: '120', line: 2, column: 16 }));
    expect(found).toContainEqual(expect.objectContaining({ code: 'invalid-duration', text: '"1.5h"', line: 3 }));
  });

  it('a spot symbol in an order and a private webhook host', () => {
    const found = diagnose('when price of BTC > 1\nthen\n  market buy $100 of BTC/USDT on paper as buy\n  webhook "http://127.0.0.1/x" as hook\n');
    expect(found).toContainEqual(expect.objectContaining({ code: 'not-perpetual-symbol', text: 'BTC/USDT' }));
    expect(found).toContainEqual(expect.objectContaining({ code: 'webhook-private-host', text: '"http://127.0.0.1/x"' }));
  });

  it('a repeated step id: the second id', () => {
    expect(diagnose('when price of BTC > 1\nthen\n  notify "a" as x\n  notify "b" as x\n')).toContainEqual(
      expect.objectContaining({ code: 'duplicate-step-id', text: 'x', line: 4 }),
    );
  });
});
