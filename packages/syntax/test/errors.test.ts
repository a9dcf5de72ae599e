import { describe, expect, it } from 'vitest';
import { parseText } from '../src/index.js';

function errorsOf(text: string) {
  return parseText(text).errors.map((error) => ({
    at: `${error.range.start.line}:${error.range.start.column}`,
    text: text.slice(error.range.start.offset, error.range.end.offset),
    message: error.message,
  }));
}

describe('syntax errors', () => {
  it('reports several errors in one document, each at its token', () => {
    const errors = errorsOf('when all of\n  price of > 5\n  rsj of BTC > 1\n  news about 42\nthen\n  notify "x" as x\n');
    expect(errors.map(({ at, text }) => [at, text])).toEqual([
      ['2:12', '>'],
      ['3:3', 'rsj'],
      ['4:14', '42'],
    ]);
    expect(errors[1]?.message).toContain("did you mean 'rsi'");
    expect(errors[2]?.message).toContain('expected a quoted string');
  });

  it('places an error at the end on the last token', () => {
    expect(errorsOf('when price of BTC > 1\nthen\n  notify "x" as')).toEqual([
      { at: '3:14', text: 'as', message: "expected a step id after 'as', found the end of the text" },
    ]);
    expect(errorsOf('')).toEqual([{ at: '1:1', text: '', message: "expected 'when', found the end of the text" }]);
  });

  it('keeps going after characters it does not know', () => {
    const errors = errorsOf('when price of BTC > 1 ; then ~ notify "x" as x');
    expect(errors.map(({ text }) => text)).toEqual([';', '~']);
    expect(parseText('when price of BTC > 1 ; then notify "x" as x').partial).toMatchObject({ query: { actions: [{ stepId: 'x' }] } });
  });

  it('gives a partial request for editors', () => {
    const result = parseText('when all of\n  price of BTC > 1\n  price of > 2\nthen\n  notify "x" as x\n');
    expect(result.value).toBeUndefined();
    // Recovery inserted the missing symbol: the second condition is there, without it.
    expect(result.partial).toMatchObject({ query: { conditions: { AND: [{ args: { symbol: 'BTC' } }, { args: {}, value: 2 }] }, actions: [{ stepId: 'x' }] } });
  });

  it('names a reserved word used as a name', () => {
    expect(errorsOf('when price of on > 1 then notify "x" as x')[0]?.message).toContain('write "on" in quotes');
    expect(errorsOf('when price of\nthen notify "x" as x')[0]?.message).toBe("expected a name after 'of', found the keyword 'then'");
  });

  it('refuses nesting too deep to parse, without throwing', () => {
    const deep = `when all of ${'all of ['.repeat(5000)}`;
    expect(errorsOf(deep)[0]?.message).toContain('brackets nested deeper than');
    const callbacks = `when price of BTC > 1 then llm ${'callback llm '.repeat(5000)}as x`;
    expect(errorsOf(callbacks)[0]?.message).toContain('callbacks nested deeper than');
  });

  it('reports a string with a raw control character', () => {
    expect(errorsOf('when news about "a\tb" then notify "x" as x')[0]?.message).toContain('control character');
  });
});
