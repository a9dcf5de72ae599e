import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedJson, storedText } from '../src/store/stored-text.js';

// The stores' text contract (store/stored-text.ts): what a store keeps of a JSON value reads back as the
// value with every U+0000 of a string or a property name replaced by U+FFFD, and nothing else changed.

/** The contract spelled out the slow way: a walk of the value. */
function replacedDeep(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '\uFFFD');
  if (Array.isArray(value)) return value.map(replacedDeep);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, child]) => [replacedDeep(name), replacedDeep(child)]));
  return value;
}

/** Text rich in what the escaping could confuse: NULs, backslashes before `u0000`, quotes, other control characters. */
const tricky = fc
  .array(fc.constantFrom('\u0000', '\\', 'u0000', '\\u0000', 'u', '0', '"', 'a', '\uFFFD', '\u0001', '__proto__'), { maxLength: 10 })
  .map((parts) => parts.join(''));

const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, tricky, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
})).value;

describe('text as the stores keep it', () => {
  it('writes every JSON value as the JSON of the value with U+0000 as U+FFFD in its strings and names, nothing else changed', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(storedJson(value)).toBe(JSON.stringify(replacedDeep(value)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps one name, with the later value, where a NUL name and a U+FFFD name meet (as JSON.parse reads the two)', () => {
    expect(storedJson({ '\u0000': [], '\uFFFD': null })).toBe('{"\uFFFD":null}');
    expect(storedJson({ '\uFFFD': 1, a: '\u0000', '\u0000': 2 })).toBe('{"\uFFFD":2,"a":"\uFFFD"}');
    expect(JSON.parse(storedJson(JSON.parse('{"__proto__":{"x":"\\u0000"}}')))).toEqual(JSON.parse('{"__proto__":{"x":"\uFFFD"}}'));
  });

  it('keeps a backslash followed by "u0000" (text, not a NUL), however many backslashes precede it', () => {
    for (const text of ['\\u0000', '\\\\u0000', '\\\\\\u0000', 'a\\\u0000u0000']) {
      expect(JSON.parse(storedJson({ [text]: text }))).toEqual({ [storedText(text)]: storedText(text) });
    }
    expect(storedJson('\\u0000')).toBe(JSON.stringify('\\u0000'));
  });

  it('replaces a NUL in text, and leaves text without one as it is (the same string)', () => {
    fc.assert(
      fc.property(tricky, (text) => {
        const kept = storedText(text);
        expect(kept).toBe(text.replaceAll('\u0000', '\uFFFD'));
        expect(kept.includes('\u0000')).toBe(false);
      }),
    );
  });
});
