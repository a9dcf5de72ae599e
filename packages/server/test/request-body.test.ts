import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH, requestBody } from '../src/host/query-service.js';

/** A body whose deepest container sits at `depth` (the body itself is depth 1), through objects or arrays by turns. */
function nestedBody(depth: number): Record<string, unknown> {
  let inner: unknown = { leaf: 1 };
  for (let level = depth - 1; level >= 2; level -= 1) inner = level % 2 === 0 ? [0, inner, 'x'] : { before: null, inner };
  return { query: {}, title: inner };
}

/** Nesting depth of a JSON value, counted independently (containers only, the body itself is 1). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

describe('requestBody', () => {
  it(`takes a body nesting ${MAX_BODY_DEPTH} deep, and refuses one level more (400)`, () => {
    expect(depthOf(nestedBody(MAX_BODY_DEPTH))).toBe(MAX_BODY_DEPTH);
    expect(requestBody(nestedBody(MAX_BODY_DEPTH))).toBeDefined();
    expect(() => requestBody(nestedBody(MAX_BODY_DEPTH + 1))).toThrow(/nests more than 256 levels deep/);
  });

  it('refuses exactly the bodies deeper than the limit, whatever their shape', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 8 })), (limit, body) => {
        // Judged against the host's limit, on bodies built around a chain that puts them on either side of it.
        const deep = { ...body, chain: nestedBody(MAX_BODY_DEPTH - 2 + limit) };
        const refused = (() => {
          try {
            requestBody(deep);
            return false;
          } catch {
            return true;
          }
        })();
        expect(refused).toBe(depthOf(deep) > MAX_BODY_DEPTH);
      }),
      { numRuns: 200 },
    );
  });

  it('ignores what a body inherits, and refuses what is not an object', () => {
    const inherited = Object.create({ deep: nestedBody(MAX_BODY_DEPTH + 5) }) as Record<string, unknown>;
    inherited.query = {};
    expect(requestBody(inherited)).toBe(inherited);
    for (const body of [null, [], 'text', 3]) expect(() => requestBody(body)).toThrow(/must be a JSON object/);
  });
});
