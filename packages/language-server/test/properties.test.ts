import { joinPointer } from '@eql/core';
import { jsonSourceMap, printText, rangeOfPointer } from '@eql/syntax';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryRequest } from '../../../test/support/arbitraries.js';
import { createEqlServices } from '../src/index.js';
import { locateJsonPointers } from '@eql/syntax';

/** Every JSON pointer of a value. */
function pointersOf(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return [at, ...value.flatMap((item, index) => pointersOf(item, joinPointer(at, index)))];
  if (typeof value === 'object' && value !== null) return [at, ...Object.entries(value).flatMap(([key, item]) => pointersOf(item, joinPointer(at, key)))];
  return [at];
}

const layouts = fc.constantFrom<[string, (value: unknown) => string]>(['compact', (value) => JSON.stringify(value)], ['pretty', (value) => JSON.stringify(value, null, 2)], ['tabs', (value) => `\uFEFF${JSON.stringify(value, null, '\t')}\r\n`]);

describe('properties', () => {
  it('the JSON locator finds every value and key where the full source map has it', () => {
    fc.assert(
      fc.property(queryRequest, layouts, fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }), (request, [, layout], extra) => {
        const value = { ...request, 'odd "keys"/~x': extra };
        const text = layout(value);
        const pointers = pointersOf(value);
        const found = locateJsonPointers(text, pointers);
        const map = jsonSourceMap(text);
        for (const pointer of pointers) {
          const located = found.get(pointer);
          const expected = rangeOfPointer(map, pointer);
          expect([pointer, located?.start, located?.end]).toEqual([pointer, expected?.start.offset, expected?.end.offset]);
          const key = map.entries.get(pointer)?.key;
          if (key !== undefined) expect([pointer, located?.keyStart, located?.keyEnd]).toEqual([pointer, key.start.offset, key.end.offset]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a request gives the same diagnostic codes in both forms, and no service throws on it', () => {
    const services = createEqlServices();
    let version = 0;
    fc.assert(
      fc.property(queryRequest, (request) => {
        version += 1;
        const json = `file:///p/${version}.eql.json`;
        const text = `file:///p/${version}.eql`;
        services.documents.open(json, 'eql-json', 1, JSON.stringify(request, null, 2));
        services.documents.open(text, 'eql', 1, printText(request));
        const fromJson = services.documents.get(json, 'validated');
        const fromText = services.documents.get(text, 'validated');
        if (fromJson === undefined || fromText === undefined) throw new Error('documents are open');
        const codes = (document: typeof fromJson) => services.diagnostics.diagnostics(document).map((diagnostic) => diagnostic.code);
        expect(codes(fromText)).toEqual(codes(fromJson));
        for (const document of [fromJson, fromText]) {
          services.hover.hover(document, { line: 1, character: 4 });
          services.symbols.symbols(document);
          services.codeLens.codeLenses(document);
          services.codeActions.codeActions(document, { range: { start: { line: 0, character: 0 }, end: { line: 9999, character: 0 } }, context: { diagnostics: [] } });
        }
        services.documents.close(json);
        services.documents.close(text);
      }),
      { numRuns: 40 },
    );
  });
});
