import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadDocument } from '@eql/syntax';
import { memoEntryBytes, VALIDATION_MEMO_MAX_BYTES, ValidationMemo } from '../src/host/validation-memo.js';
import { json, notifyQuery, testHost, type TestHost } from './support/host.js';

/**
 * The validate route remembers what each key validated lately, so that the same request validated again
 * and again is written to the store once per 10 minutes. It remembers a digest of the request's
 * canonical JSON, not the body as sent, in a memo bounded in bytes: one key within its rate limit used to
 * fill it with every valid body it sent, whitespace included (about 2 GB).
 */

let host: TestHost;
beforeAll(async () => {
  host = await testHost();
});
afterAll(async () => host.close());
afterEach(() => vi.restoreAllMocks());

const validate = (key: string, payload: string, contentType = 'application/json') =>
  host.app.inject({ method: 'POST', url: '/v2/auto/queries/validate', headers: { 'content-type': contentType, 'x-svc-api-key': key }, payload });

/** The JSON text of `value` with its keys in reverse order at every level. */
function reversedKeys(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reversedKeys).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).reverse().map(([name, item]) => `${JSON.stringify(name)}:${reversedKeys(item)}`).join(',')}}`;
  return JSON.stringify(value);
}

describe('the validation memo of the validate route', () => {
  it('writes a request once, whatever its whitespace, key order or form', async () => {
    const { key } = await host.newKey();
    const writes = vi.spyOn(host.store, 'rememberValidation');
    const request = notifyQuery(7);
    const text = 'title "BTC above 7"\nwhen price of BTC > 7\nthen notify "BTC moved" as notify-1\nexpires in 24h\n';
    expect(loadDocument(text, 'text').value).toEqual(request);
    const variants = [JSON.stringify(request), JSON.stringify(request, null, 2), `\n\n${JSON.stringify(request)}   \n`, reversedKeys(request)];
    for (const payload of variants) expect(json(await validate(key, payload))).toMatchObject({ valid: true });
    expect(json(await validate(key, text, 'text/x-eql'))).toMatchObject({ valid: true });
    expect(writes).toHaveBeenCalledTimes(1);
  });

  it('keeps an entry of one size for a large body: many large distinct bodies stay far under the bound', async () => {
    const { key } = await host.newKey();
    const remember = vi.spyOn(ValidationMemo.prototype, 'remember');
    const padding = ' '.repeat(200_000);
    const bodies = 100;
    for (let i = 0; i < bodies; i += 1) {
      const response = await validate(key, `${JSON.stringify(notifyQuery(1_000 + i))}${padding}`);
      expect(json(response)).toMatchObject({ valid: true });
    }
    expect(remember).toHaveBeenCalledTimes(bodies);
    const memo = remember.mock.contexts[0] as ValidationMemo;
    expect(remember.mock.contexts.every((context) => context === memo)).toBe(true);
    // 20 MB of bodies: each entry is a key id and a SHA-256 digest.
    const names = remember.mock.calls.map(([name]) => name);
    expect(names.every((name) => /^\d+:[0-9a-f]{64}$/.test(name))).toBe(true);
    expect(memo.bytes).toBeLessThanOrEqual(memo.size * memoEntryBytes(`${'9'.repeat(10)}:${'f'.repeat(64)}`));
    expect(memo.bytes).toBeLessThanOrEqual(VALIDATION_MEMO_MAX_BYTES);
  });
});

describe('ValidationMemo', () => {
  const NAME = (i: number) => `7:${i.toString(16).padStart(64, '0')}`;

  it(`holds at most its bound (${VALIDATION_MEMO_MAX_BYTES} bytes by default), forgetting the oldest first`, () => {
    const memo = new ValidationMemo({ windowMs: 600_000 });
    const many = Math.ceil((3 * VALIDATION_MEMO_MAX_BYTES) / memoEntryBytes(NAME(0)));
    for (let i = 0; i < many; i += 1) {
      memo.remember(NAME(i), 1_000 + i);
      expect(memo.bytes).toBeLessThanOrEqual(VALIDATION_MEMO_MAX_BYTES);
    }
    expect(memo.bytes).toBeGreaterThan(VALIDATION_MEMO_MAX_BYTES - memoEntryBytes(NAME(0)));
    expect(memo.isFresh(NAME(many - 1), 1_000 + many)).toBe(true);
    expect(memo.isFresh(NAME(0), 1_000 + many)).toBe(false);
  });

  it('keeps a name fresh for its window, and remembering it again moves it last', () => {
    const memo = new ValidationMemo({ windowMs: 100, maxBytes: 2 * memoEntryBytes(NAME(0)) });
    memo.remember(NAME(1), 0);
    memo.remember(NAME(2), 10);
    expect(memo.isFresh(NAME(1), 99)).toBe(true);
    expect(memo.isFresh(NAME(1), 100)).toBe(false);
    memo.remember(NAME(1), 20);
    memo.remember(NAME(3), 30);
    // NAME(2) was the oldest: forgotten for NAME(3).
    expect([1, 2, 3].map((i) => memo.isFresh(NAME(i), 40))).toEqual([true, false, true]);
    // Names whose window is over are forgotten when another is remembered.
    memo.remember(NAME(4), 131);
    expect(memo.size).toBe(1);
    expect(memo.bytes).toBe(memoEntryBytes(NAME(4)));
  });

  it('agrees with a list kept oldest first, and never holds more than its bound (property)', () => {
    const step = fc.record({ name: fc.string({ minLength: 1, maxLength: 40 }), advance: fc.nat(50) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), fc.integer({ min: 1, max: 4_000 }), fc.integer({ min: 1, max: 300 }), (steps, maxBytes, windowMs) => {
        const memo = new ValidationMemo({ windowMs, maxBytes });
        let model: Array<{ name: string; at: number }> = [];
        let now = 0;
        for (const { name, advance } of steps) {
          now += advance;
          memo.remember(name, now);
          model = [...model.filter((entry) => entry.name !== name), { name, at: now }];
          let used = model.reduce((sum, entry) => sum + memoEntryBytes(entry.name), 0);
          while (model.length > 0 && (used > maxBytes || (model[0]?.at ?? now) <= now - windowMs)) {
            used -= memoEntryBytes(model[0]?.name ?? '');
            model = model.slice(1);
          }
          expect(memo.bytes).toBe(used);
          expect(memo.bytes).toBeLessThanOrEqual(maxBytes);
          expect(memo.size).toBe(model.length);
          for (const entry of model) expect(memo.isFresh(entry.name, now)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
