import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eqlSchema } from '../src/generated/eql-schema.js';
import { compiledRequestSchema } from '../src/ajv.js';
import { checkRequestSchema, conformsToSchema } from '../src/validation/schema-check.js';

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

// The fast build is ajv's code without what the schema does not use ($dynamicRef, unevaluated*) and
// without the error context of its nested calls (scripts/codegen.mjs): its verdict must still be the
// schema's, on every fixture (valid or not) and on any mutation of one.
const fixturesRoot = new URL('../../../fixtures/eql/', import.meta.url);
const fixtures: unknown[] = readdirSync(fixturesRoot).map((name) => JSON.parse(readFileSync(new URL(`${name}/input.json`, fixturesRoot), 'utf8')) as unknown);

type Path = Array<string | number>;
type Container = Record<string, unknown> | unknown[];
const isContainer = (value: unknown): value is Container => value !== null && typeof value === 'object';

/** Every path to a value of the document (objects' keys and arrays' indexes), the root included. */
function pathsOf(value: unknown, path: Path = [], into: Path[] = []): Path[] {
  into.push(path);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...path, index], into));
  else if (isContainer(value)) for (const [key, item] of Object.entries(value)) pathsOf(item, [...path, key], into);
  return into;
}

/** The value at `path` in `root`. */
const valueAt = (root: unknown, path: Path): unknown => path.reduce<unknown>((node, step) => (node as Record<string | number, unknown>)[step], root);

/** The schema's bounds (maxLength, maximum, minimum...), so that mutations put values on both sides of each. */
function boundsOf(node: unknown, lengths = new Set<number>(), numbers = new Set<number>()): { lengths: number[]; numbers: number[] } {
  if (Array.isArray(node)) for (const item of node) boundsOf(item, lengths, numbers);
  else if (isContainer(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === 'number' && (key === 'maxLength' || key === 'minLength')) [value - 1, value, value + 1].forEach((n) => lengths.add(Math.max(0, n)));
      else if (typeof value === 'number' && ['maximum', 'minimum', 'exclusiveMinimum', 'exclusiveMaximum'].includes(key)) [value - 1, value - 0.5, value, value + 0.5, value + 1].forEach((n) => numbers.add(n));
      else boundsOf(value, lengths, numbers);
    }
  }
  return { lengths: [...lengths], numbers: [...numbers] };
}
const bounds = boundsOf(eqlSchema);

const scalar = fc.oneof(
  fc.constantFrom(...bounds.lengths).map((length) => 'x'.repeat(length)),
  fc.constantFrom(...bounds.numbers),
  fc.constantFrom('', 'BTC', 'BTC/USDT', '$BTC', 'price', 'ta', 'tweet', 'news', 'llm', 'cron', 'current', 'rsi', '>', 'crosses_above', '1h', '0h', '30d', 'notify', 'webhook', 'n', 'binance', 'x'.repeat(130)),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(0, -1, 1, 14, 100, 101, 1e9, 0.5, -0.5),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const json = fc.oneof(scalar, fc.constant({}), fc.constant([]), fc.dictionary(fc.constantFrom('source', 'method', 'args', 'symbol', 'AND', 'OR', 'type', 'params', 'x'), scalar, { maxKeys: 3 }), fc.array(scalar, { maxLength: 3 }));

type Mutation = { kind: 'replace' | 'delete' | 'add'; at: number; key: string; value: unknown };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('replace' as const, 'delete' as const, 'add' as const),
  at: fc.nat(),
  key: fc.constantFrom('source', 'method', 'args', 'operator', 'value', 'holdFor', 'symbol', 'period', 'stepId', 'type', 'params', 'AND', 'OR', 'extra'),
  value: json,
});

function mutate(document: unknown, mutations: Mutation[]): unknown {
  let root = structuredClone(document);
  for (const { kind, at, key, value: drawn } of mutations) {
    const value = structuredClone(drawn);
    const paths = pathsOf(root);
    const path = paths[at % paths.length] as Path;
    if (path.length === 0) {
      if (kind === 'replace') root = value;
      continue;
    }
    const parent = valueAt(root, path.slice(0, -1)) as Container;
    const last = path[path.length - 1] as string | number;
    const target = (parent as Record<string | number, unknown>)[last];
    if (kind === 'replace') (parent as Record<string | number, unknown>)[last] = value;
    else if (kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last as string];
    } else if (Array.isArray(target)) target.push(value);
    else if (isContainer(target)) (target as Record<string, unknown>)[key] = value;
  }
  return root;
}

/** Whether some string of the document has a character outside the basic plane (the builds count those differently at a maxLength). */
const hasAstral = (document: unknown): boolean => /[\uD800-\uDFFF]/.test(JSON.stringify(document));

/** The fast build's verdict against the schema's; with `errors`, also the errors' route (fast, then detailed on a refusal). */
function expectSameVerdict(document: unknown, errors = true): void {
  const conforms = schema(document);
  if (errors) expect(checkRequestSchema(document).length === 0).toBe(conforms);
  const fast = conformsToSchema(document);
  if (fast) expect(conforms).toBe(true);
  else if (!hasAstral(document)) expect(conforms).toBe(false);
}

describe('the fast build', () => {
  it('gives the schema verdict on every fixture', () => {
    expect(fixtures.length).toBeGreaterThan(100);
    let valid = 0;
    for (const document of fixtures) {
      expectSameVerdict(document);
      if (schema(document)) valid += 1;
    }
    // Both kinds are there: the fixtures hold documents the schema refuses and documents it accepts.
    expect(valid).toBeGreaterThan(20);
    expect(valid).toBeLessThan(fixtures.length);
  });

  it('gives the schema verdict with every string and number of the valid fixtures set to each bound of the schema', () => {
    let checked = 0;
    for (const document of fixtures.filter((candidate) => schema(candidate))) {
      for (const [index, path] of pathsOf(document).entries()) {
        const original = valueAt(document, path);
        const values = typeof original === 'string' ? bounds.lengths.map((length) => 'x'.repeat(length)) : typeof original === 'number' ? bounds.numbers : [];
        for (const value of values) {
          expectSameVerdict(mutate(document, [{ kind: 'replace', at: index, key: '', value }]), false);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it('gives the schema verdict on mutations of the fixtures (property)', () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }), (pick, mutations) => {
        expectSameVerdict(mutate(fixtures[pick % fixtures.length], mutations));
      }),
      { numRuns: 1500 },
    );
  });
});
