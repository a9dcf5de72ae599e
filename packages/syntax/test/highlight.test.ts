import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HIGHLIGHT_KINDS, highlightTokens } from '../src/index.js';

describe('highlightTokens', () => {
  it('never throws; its words lie inside the text, in order, without overlap, each of a known kind', () => {
    const words = fc.constantFrom('when', 'then', 'all of', '[', ']', '(', ')', ',', 'price of BTC', '> 1', '=> 100k', '"x"', "'y'", '# c\n', '\n', 'notify', 'as n', '2 days', '(period 14)', '@elon');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(words, { maxLength: 30 }).map((parts) => parts.join(' '))), (text) => {
        const tokens = highlightTokens(text);
        let end = 0;
        for (const token of tokens) {
          expect(token.offset).toBeGreaterThanOrEqual(end);
          expect(token.length).toBeGreaterThan(0);
          expect(token.offset + token.length).toBeLessThanOrEqual(text.length);
          expect(HIGHLIGHT_KINDS).toContain(token.kind);
          end = token.offset + token.length;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('names a word after ( or , in parentheses a parameter, even a keyword', () => {
    const text = 'notify "x" (title "T", priority high) as n';
    expect(highlightTokens(text).map((token) => `${text.slice(token.offset, token.offset + token.length)}:${token.kind}`)).toEqual(['notify:keyword', '"x":string', 'title:parameter', '"T":string', 'priority:parameter', 'high:variable', 'as:keyword', 'n:variable']);
  });
});
