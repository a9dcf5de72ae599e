import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRequestSchema, compiledRequestSchema, conformsToSchema } from '../src/validation/schema-check.js';

// The fast build of the schema (the first check of every document) measures strings in UTF-16 units,
// not in code points as JSON Schema does: a string of astral characters (emoji) is longer that way, so
// the fast build may refuse it at a maxLength, and then the detailed build, which counts code points,
// decides. These properties hold the pair to the schema as ajv compiles it at run time.

const astral = '😀';
const unit = fc.oneof(fc.constant(astral), fc.constant('a'), fc.constant('é'), fc.constant('\uD83D'), fc.constant('\uDE00'));

/** A request whose title (at most 120), notify message (at most 2000 here) and symbol carry the given strings. */
function request(title: string, message: string, symbol = 'BTC'): unknown {
  return {
    title,
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol }, operator: '>', value: 100 }] },
      actions: [{ stepId: 'tell', type: 'notify', params: { message } }],
    },
  };
}

const schema = compiledRequestSchema();

describe('the schema check', () => {
  it('counts string lengths in code points at every maxLength boundary (astral characters around 120)', () => {
    for (let length = 100; length <= 140; length += 1) {
      for (const text of [astral.repeat(length), `${'a'.repeat(length - 1)}${astral}`, 'a'.repeat(length)]) {
        const document = request(text, 'hi');
        expect(checkRequestSchema(document).length === 0).toBe(schema(document));
        expect(schema(document)).toBe(length <= 120);
      }
    }
  });

  it('agrees with the schema on strings of any code points, lone surrogates included (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit, minLength: 0, maxLength: 140 }), fc.string({ unit, minLength: 0, maxLength: 80 }), (title, message) => {
        const document = request(title, message);
        const conforms = schema(document);
        expect(checkRequestSchema(document).length === 0).toBe(conforms);
        // The fast build never accepts what the schema refuses.
        if (conformsToSchema(document)) expect(conforms).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
