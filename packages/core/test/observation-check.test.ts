import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkObservation, parseRecording, RecordingError } from '../src/index.js';

// checkObservation: the rule of a recording line for an observation in memory (`at` in integer epoch
// ms), what the market bus checks every message with (issue 45). One rule: on the same fields it
// accepts what parseRecording accepts, and refuses with the same reason.

const AT = Date.UTC(2026, 0, 5);

describe('checkObservation', () => {
  it('gives back an observation with its known fields only', () => {
    expect(checkObservation({ at: AT, source: 'price', symbol: 'BTC', price: 1, volume: null, extra: { deep: true } })).toEqual({ observation: { at: AT, source: 'price', symbol: 'BTC', price: 1 } });
    expect(checkObservation({ at: AT, source: 'tweet', username: 'a', text: '', tweetId: '1', url: 'https://x.com/a/status/1' })).toEqual({
      observation: { at: AT, source: 'tweet', username: 'a', text: '', tweetId: '1', url: 'https://x.com/a/status/1' },
    });
  });

  it('names the field at fault and why', () => {
    const cases: Array<[unknown, string, string]> = [
      [null, '', 'an observation must be a JSON object, not null'],
      [42, '', 'an observation must be a JSON object, not a number'],
      [[], '', 'an observation must be a JSON object, not an array'],
      [{ source: 'price', symbol: 'BTC', price: 1 }, 'at', 'at is missing (an integer epoch ms time)'],
      [{ at: '2026-01-05T00:00:00Z', source: 'price', symbol: 'BTC', price: 1 }, 'at', 'at must be an integer epoch ms time, not "2026-01-05T00:00:00Z"'],
      [{ at: AT + 0.5, source: 'price', symbol: 'BTC', price: 1 }, 'at', `at must be an integer epoch ms time, not ${AT + 0.5}`],
      [{ at: 9e15, source: 'price', symbol: 'BTC', price: 1 }, 'at', 'at must be an integer epoch ms time, not 9000000000000000'],
      [{ at: AT, source: 'price', price: 1 }, 'symbol', 'symbol is missing'],
      [{ at: AT, source: 'price', symbol: 7, price: 1 }, 'symbol', 'symbol must be a string, not 7'],
      [{ at: AT, source: 'price', symbol: 'BTC', price: 0 }, 'price', 'price must be a positive number, not 0'],
      [{ at: AT, source: 'tweet', text: 'x', tweetId: '1' }, 'username', 'username is missing'],
      [{ at: AT, source: 'tweet', username: `@${'y'.repeat(10_000)}`, text: 'x', tweetId: '1' }, 'username', `username must be given without @ ("@${'y'.repeat(39)}…")`],
      [{ at: AT, source: 'wire' }, 'source', 'source must be one of price, tweet, news, llm, not "wire"'],
    ];
    for (const [value, field, reason] of cases) expect(checkObservation(value), JSON.stringify(value)?.slice(0, 80)).toEqual({ problem: { field, reason } });
  });

  it('never throws, whatever the value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.jsonValue()), (value) => {
        const checked = checkObservation(value);
        expect(checked.observation === undefined).toBe(checked.problem !== undefined);
      }),
      { numRuns: 1_000 },
    );
  });

  it('accepts what a recording line with the same fields accepts, and refuses it for the same reason', () => {
    const near = fc.record(
      {
        source: fc.constantFrom('price', 'tweet', 'news', 'llm', 'other'),
        symbol: fc.oneof(fc.constantFrom('BTC', ' ', ''), fc.jsonValue({ maxDepth: 1 })),
        price: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(1, 0, -1), fc.jsonValue({ maxDepth: 1 })),
        volume: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null), fc.jsonValue({ maxDepth: 1 })),
        exchange: fc.oneof(fc.constantFrom('binance', ''), fc.jsonValue({ maxDepth: 1 })),
        username: fc.oneof(fc.constantFrom('elon', '@elon'), fc.jsonValue({ maxDepth: 1 })),
        text: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
        tweetId: fc.oneof(fc.constantFrom('1'), fc.jsonValue({ maxDepth: 1 })),
        url: fc.oneof(fc.constantFrom('https://example.com', null), fc.jsonValue({ maxDepth: 1 })),
        query: fc.oneof(fc.constantFrom('q'), fc.jsonValue({ maxDepth: 1 })),
        confidence: fc.oneof(fc.integer({ min: -5, max: 105 }), fc.jsonValue({ maxDepth: 1 })),
      },
      { requiredKeys: ['source'] },
    );
    // Years 1 to 9999: the range a recording's ISO text writes with four digits.
    const time = fc.integer({ min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59.999Z') });
    let accepted = 0;
    fc.assert(
      fc.property(near, time, (fields, at) => {
        const inMemory = checkObservation({ ...fields, at });
        let recorded: { observation?: unknown; reason?: string };
        try {
          recorded = { observation: parseRecording(JSON.stringify({ ...fields, at: new Date(at).toISOString() })).observations[0] };
        } catch (error) {
          if (!(error instanceof RecordingError)) throw error;
          recorded = { reason: error.reason };
        }
        if (recorded.reason === undefined) {
          accepted += 1;
          expect(inMemory).toEqual({ observation: recorded.observation });
        } else expect(inMemory.problem?.reason).toBe(recorded.reason);
      }),
      { numRuns: 2_000 },
    );
    // Both sides of the rule are exercised.
    expect(accepted).toBeGreaterThan(50);
    expect(accepted).toBeLessThan(1_950);
  });
});
