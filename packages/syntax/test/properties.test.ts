import { validate } from '@eql/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatText, parseText, printText, rangeOfPointer } from '../src/index.js';
import { queryRequest, VALIDATION_NOW } from '../../../test/support/arbitraries.js';
import { leafPointers, sliceDenotes, stressRequest, textMutation } from './support/helpers.js';

describe('text form laws', () => {
  it('parse(print(q)) equals q for every generated valid request', () => {
    fc.assert(
      fc.property(queryRequest, (request) => {
        expect(validate(request, { now: VALIDATION_NOW }).valid).toBe(true);
        const text = printText(request);
        const parsed = parseText(text);
        expect(parsed.errors).toEqual([]);
        expect(parsed.value).toEqual(request);
      }),
      { numRuns: 400 },
    );
  });

  it('parse(print(q)) equals q with arbitrary strings, numbers, payloads and explicit defaults', () => {
    fc.assert(
      fc.property(stressRequest, (request) => {
        const parsed = parseText(printText(request));
        expect(parsed.errors).toEqual([]);
        expect(parsed.value).toEqual(request);
      }),
      { numRuns: 400 },
    );
  });

  it('printed text is already formatted, and formatting is idempotent', () => {
    fc.assert(
      fc.property(queryRequest, (request) => {
        const text = printText(request);
        expect(formatText(text)).toEqual({ text, errors: [] });
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ unit: fc.constantFrom(...'when then all of any [ ] ( ) { } , : " # @ $ % 1 h > = < ! \n price rsi BTC notify as for'.split(' ')), maxLength: 80 })), (text) => {
        const result = parseText(text);
        expect(Array.isArray(result.errors)).toBe(true);
        expect(result.errors.some((error) => error.message.includes('unexpectedly'))).toBe(false);
        for (const error of result.errors) {
          expect(error.range.start.offset).toBeGreaterThanOrEqual(0);
          expect(error.range.end.offset).toBeLessThanOrEqual(text.length);
        }
        if (result.value === undefined) expect(result.errors.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on mutated valid texts, and reports every broken one with a range', () => {
    fc.assert(
      fc.property(queryRequest, textMutation, (request, mutate) => {
        const text = mutate(printText(request));
        const result = parseText(text);
        expect(result.errors.some((error) => error.message.includes('unexpectedly'))).toBe(false);
        for (const error of result.errors) {
          expect(error.range.start.offset).toBeLessThanOrEqual(error.range.end.offset);
          expect(error.range.end.offset).toBeLessThanOrEqual(text.length);
        }
        formatText(text);
      }),
      { numRuns: 400 },
    );
  });

  it('maps every pointer of a parsed request to a range inside the text whose slice is the value', () => {
    fc.assert(
      fc.property(queryRequest, (request) => {
        const text = printText(request);
        const { value, map } = parseText(text);
        for (const [pointer, leaf] of leafPointers(value)) {
          const entry = map.entries.get(pointer);
          expect(entry, pointer).toBeDefined();
          const range = rangeOfPointer(map, pointer);
          if (range === undefined) throw new Error(`no range for ${pointer}`);
          expect(range.start.offset).toBeGreaterThanOrEqual(0);
          expect(range.end.offset).toBeLessThanOrEqual(text.length);
          expect(sliceDenotes(text.slice(range.start.offset, range.end.offset), leaf, pointer), `${pointer} -> ${text.slice(range.start.offset, range.end.offset)}`).toBe(true);
        }
        // Every range lies inside the range of its parent.
        for (const [pointer, entry] of map.entries) {
          if (pointer === '') continue;
          const parent = rangeOfPointer(map, pointer.slice(0, pointer.lastIndexOf('/')));
          expect(parent, pointer).toBeDefined();
          expect(entry.value.start.offset, pointer).toBeGreaterThanOrEqual(parent?.start.offset ?? Infinity);
          expect(entry.value.end.offset, pointer).toBeLessThanOrEqual(parent?.end.offset ?? -Infinity);
        }
      }),
      { numRuns: 300 },
    );
  });
});
