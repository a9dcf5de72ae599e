import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../src/parse.js';
import { tokenize } from '../src/lexer/lexer.js';
import { JsonLiteral } from '../src/lexer/tokens.js';
import { LineIndex } from '../src/source-map/line-index.js';

/**
 * The lexer reads a well-formed JSON parameter value as one token (the fast path of long payloads). It
 * must change nothing but the speed: the value, every source-map entry (in order) and every message are
 * those of the grammar reading the same text token by token, for good JSON and for broken JSON alike.
 */

/** Everything a parse gives that a user can see, with the map as an ordered list. */
function observable(text: string, jsonLiterals: boolean) {
  const document = parseDocument(text, jsonLiterals);
  return { value: document.value, partial: document.partial, errors: document.errors, map: [...document.map.entries] };
}

function expectSameParse(text: string): void {
  expect(observable(text, true)).toEqual(observable(text, false));
}

/** Whether the payload of `documentWith(literal)` is read as one token. */
const usesFastPath = (text: string) => tokenize(text, new LineIndex(text)).tokens.some((token) => token.tokenType === JsonLiteral && token.image !== '{"X-Desk": "a"}');

/** Keys that stress the pointers and objects: escapes, `~` and `/`, `__proto__`, numbers, empty. */
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'a/b', '~0', '~1', '0', '10', '', 'é', '\\"', '\n'));
const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 1e21, 1e-7, 5e-324, 0.1));
const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 4 }), number, fc.boolean(), fc.constant(null));
/** A JSON tree whose objects are member lists, so a key may repeat (the grammar reports that). */
type Tree = { members: Array<[string, Tree]> } | { items: Tree[] } | string | number | boolean | null;
const { node } = fc.letrec<{ node: Tree; container: Tree }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('container')),
  container: fc.oneof(
    fc.array(fc.tuple(key, tie('node')), { maxLength: 5 }).map((members) => ({ members })),
    fc.array(tie('node'), { maxLength: 5 }).map((items) => ({ items })),
  ),
}));
const objectOrArray = fc.oneof(
  fc.array(fc.tuple(key, node), { maxLength: 6 }).map((members): Tree => ({ members })),
  fc.array(node, { maxLength: 6 }).map((items): Tree => ({ items })),
);

/** JSON text of a tree in a layout: on one line, or indented with `\n` or `\r\n`. */
function write(tree: Tree, layout: { indent: string; newline: string }, depth = 0): string {
  const pad = (level: number) => (layout.indent === '' ? '' : layout.newline + layout.indent.repeat(level));
  if (tree !== null && typeof tree === 'object' && 'members' in tree) {
    if (tree.members.length === 0) return '{}';
    return `{${tree.members.map(([name, item]) => `${pad(depth + 1)}${JSON.stringify(name)}: ${write(item, layout, depth + 1)}`).join(',')}${pad(depth)}}`;
  }
  if (tree !== null && typeof tree === 'object') {
    if (tree.items.length === 0) return '[]';
    return `[${tree.items.map((item) => `${pad(depth + 1)}${write(item, layout, depth + 1)}`).join(',')}${pad(depth)}]`;
  }
  return Object.is(tree, -0) ? '-0' : JSON.stringify(tree);
}

const layout = fc.record({ indent: fc.constantFrom('', '  ', '\t'), newline: fc.constantFrom('\n', '\r\n') });

function documentWith(literal: string, newline = '\n'): string {
  return `when price of BTC > 100000${newline}then webhook "https://hooks.example.com/x" (headers {"X-Desk": "a"}, payload ${literal}) as hook${newline}`;
}

describe('JSON literals: the fast path reads as the grammar does', () => {
  it('takes a well-formed payload as one token', () => {
    expect(usesFastPath(documentWith('{"a": [1, 2, {"b": null}]}'))).toBe(true);
    expect(usesFastPath(documentWith('[1, 2, 3]'))).toBe(true);
  });

  it('leaves broken, commented or odd JSON to the grammar', () => {
    for (const literal of ['{"a": 1,}', '{"a": 1 # note\n}', '{"a": 1, "a": 2}', "{'a': 1}", '{"a": 1e400}', '{"a": 01}', '{"a": .5}', '{"a": tru}', '{"a": "x\ty"}', '{"a": 5%}']) {
      expect(usesFastPath(documentWith(literal)), literal).toBe(false);
    }
    // Deeper than the fast path goes: the grammar owns the nesting limit and its message.
    expect(usesFastPath(documentWith(`${'['.repeat(80)}${']'.repeat(80)}`))).toBe(false);
  });

  it('reads JSON after a `(` inside a broken JSON value token by token, as the grammar does', () => {
    // Found by the property below: a string that lost its opening quote leaves a `(` inside the payload's
    // array, and a parameter-like word after it must not start a literal of its own.
    const broken = '[\r\n  "\u{10000}  ",\r\n     (",\r\n  {\r\n    "\\\\\\"": "\u{10000} ",\r\n    "~1": null,\r\n    "": 1e+21\r\n  },\r\n  [\r\n    [],\r\n    [],\r\n    {\r\n      "a/b": "     "\r\n    },\r\n    ""\r\n  ],\r\n  null\r\n]';
    expectSameParse(documentWith(broken, '\r\n'));
    expect(observable(documentWith(broken, '\r\n'), true).errors.length).toBe(3);
  });

  it('gives the same value, map and messages for generated JSON in any layout', () => {
    fc.assert(
      fc.property(objectOrArray, layout, (tree, style) => {
        const text = documentWith(write(tree, style), style.newline);
        expectSameParse(text);
      }),
      { numRuns: 400 },
    );
  });

  it('gives the same messages and partial map when a character of the JSON is changed, removed or added', () => {
    fc.assert(
      fc.property(objectOrArray, layout, fc.nat(), fc.constantFrom('', ',', '"', '{', '}', '[', ']', ':', '#', 'x', '1', ' ', '\n', '%', "'"), (tree, style, at, replacement) => {
        const literal = write(tree, style);
        const position = at % (literal.length + 1);
        const mutated = literal.slice(0, position) + replacement + literal.slice(position + (replacement === ' ' ? 0 : 1));
        expectSameParse(documentWith(mutated, style.newline));
      }),
      { numRuns: 400 },
    );
  });

  // A mistake before a literal can leave the grammar's recovery reading the JSON as words after the
  // query: token by token that is one message per line of the payload, as one token it is one message.
  // So the fast path reports the first mistake as the grammar does, and no more messages than it. (The
  // later ones may differ: the grammar can spend its repairs on the lines of a payload and stop before
  // a real mistake further down, which the fast path then reports.)
  it('reports the same first mistake, and no more messages, for a mistake anywhere in a document with JSON literals', () => {
    const words = fc.constantFrom('', ',', '"', '(', ')', '{', '}', '[', ']', ':', '#', 'x', 'then', 'when', 'notify', 'payload', '1', ' ', '\n', '%', "'", '=>');
    fc.assert(
      fc.property(objectOrArray, layout, fc.nat(), words, fc.nat(), words, (tree, style, at, replacement, at2, replacement2) => {
        let text = documentWith(write(tree, style), style.newline) + `then webhook "https://hooks.example.com/y" (payload {"b": [1, 2]}, headers {"c": "d"})${style.newline}`;
        for (const [where, word] of [[at, replacement], [at2, replacement2]] as const) {
          const position = where % (text.length + 1);
          text = text.slice(0, position) + word + text.slice(position + (word === ' ' ? 0 : 1));
        }
        const fast = observable(text, true);
        const reference = observable(text, false);
        if (reference.errors.length === 0) {
          expect(fast).toEqual(reference);
          return;
        }
        expect(fast.errors[0]).toEqual(reference.errors[0]);
        expect(fast.errors.length).toBeLessThanOrEqual(reference.errors.length);
      }),
      { numRuns: 600 },
    );
  });

  it('keeps repeated keys, __proto__, -0 and escaped keys as the grammar does', () => {
    for (const literal of ['{"__proto__": {"x": 1}}', '{"a": -0, "b": [-0.0, 1E+2, 2e-3]}', '{"a/b": {"~c": 1}}', '{"\\u0041": "\\n\\t\\"", "": ""}', '{"a": 1, "a": 2}']) {
      expectSameParse(documentWith(literal));
    }
  });
});
