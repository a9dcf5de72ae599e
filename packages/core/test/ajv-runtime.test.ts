import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ucs2length } from '../src/generated/ajv-runtime.js';

// The validators compiled ahead of time carry their own copy of ajv's one runtime helper: it must count
// string lengths exactly as ajv does (code points, a surrogate pair once, a lone surrogate once).
const ajvUcs2length = (createRequire(import.meta.url)('ajv/dist/runtime/ucs2length') as { default: (text: string) => number }).default;

describe('ucs2length of the ahead-of-time validators', () => {
  it('counts like ajv for any string, lone surrogates included (property)', () => {
    fc.assert(fc.property(fc.string({ unit: fc.oneof(fc.constant('\uD83D'), fc.constant('\uDE00'), fc.constant('😀'), fc.constant('a'), fc.constant('é')) }), (text) => {
      expect(ucs2length(text)).toBe(ajvUcs2length(text));
    }), { numRuns: 500 });
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => {
      expect(ucs2length(text)).toBe(ajvUcs2length(text));
    }), { numRuns: 500 });
  });
});
