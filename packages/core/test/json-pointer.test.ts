import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapePointerToken, parsePointer, readablePath } from '@eql/core';

/** readablePath as specified: each unescaped token as an index, an identifier or a quoted key. */
function readableByTokens(pointer: string): string {
  let out = '';
  for (const token of parsePointer(pointer)) {
    if (/^(0|[1-9][0-9]*)$/.test(token)) out += `[${token}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(token)) out += out === '' ? token : `.${token}`;
    else out += `[${JSON.stringify(token)}]`;
  }
  return out;
}

const token = fc.oneof(
  fc.string(),
  fc.constantFrom('', '~', '/', '~0', '~1', '~01', '~~1', '0', '00', '01', '7', '42', '$a', '_', 'AND', 'a b', '日本', 'a~b/c', '1e3'),
  fc.nat().map(String),
);

describe('readablePath', () => {
  it('reads the pointers of diagnostics', () => {
    expect(readablePath('')).toBe('');
    expect(readablePath('/query/conditions/AND/0/args')).toBe('query.conditions.AND[0].args');
    expect(readablePath('/0/a')).toBe('[0].a');
    expect(readablePath('/query/actions/10/params/a~1b')).toBe('query.actions[10].params["a/b"]');
    expect(readablePath('/query/x~0y/01/')).toBe('query["x~y"]["01"][""]');
    expect(readablePath('/')).toBe('[""]');
  });

  it('reads any pointer token by token, escaped or not', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 6 }), (tokens) => {
        const pointer = tokens.map((t) => `/${escapePointerToken(t)}`).join('');
        expect(readablePath(pointer)).toBe(readableByTokens(pointer));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads malformed pointers as parsePointer splits them', () => {
    fc.assert(
      fc.property(fc.string(), (pointer) => {
        expect(readablePath(pointer)).toBe(readableByTokens(pointer));
      }),
      { numRuns: 2000 },
    );
  });
});
