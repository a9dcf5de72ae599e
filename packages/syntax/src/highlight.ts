import type { IToken } from 'chevrotain';
import { tokenize } from './lexer/lexer.js';
import * as T from './lexer/tokens.js';
import { MEASURES } from './language/measures.js';
import { LineIndex } from './source-map/line-index.js';

/**
 * The words of the text form by kind, for editors' semantic highlighting: keywords, measures
 * (`rsi` in `rsi of SOL`), symbols and names, parameters (`period` in `(period 14)`), numbers and
 * amounts, strings, operators and comments. Read from the tokens alone (no parse), so a document
 * with errors is highlighted as far as it goes.
 */

/** The kinds of words, in the order of the LSP legend the language server announces. */
export const HIGHLIGHT_KINDS = ['keyword', 'function', 'variable', 'parameter', 'number', 'string', 'operator', 'comment'] as const;

/** One of {@link HIGHLIGHT_KINDS}. */
export type HighlightKind = (typeof HIGHLIGHT_KINDS)[number];

/** A highlighted word: where it starts, how long it is, what it is. */
export interface HighlightToken {
  offset: number;
  length: number;
  kind: HighlightKind;
}

const NUMBERS = new Set([T.NumberLiteral, T.Dollars, T.Percent, T.Duration, T.DateTime, T.MistakeNumberSuffix, T.MistakeThousands, T.MistakeDecimalDuration, T.MistakeSpelledDuration]);
const STRINGS = new Set([T.StringLiteral, T.MistakeSingleQuoted, T.MistakeCurlyQuoted, T.MistakeBareUrl]);
const OPERATORS = new Set([T.Greater, T.GreaterEqual, T.Less, T.LessEqual, T.Equal, T.NotEqual, T.MistakeOperator]);

function kindOf(token: IToken, previous: IToken | undefined, next: IToken | undefined, inParentheses: boolean): HighlightKind | undefined {
  const type = token.tokenType;
  if (type.name.startsWith('Kw_')) return inParentheses && (previous?.tokenType === T.LParen || previous?.tokenType === T.Comma) ? 'parameter' : 'keyword';
  if (NUMBERS.has(type)) return 'number';
  if (STRINGS.has(type)) return 'string';
  if (OPERATORS.has(type)) return 'operator';
  if (type === T.Handle) return 'variable';
  if (type === T.Identifier) {
    if (inParentheses && (previous?.tokenType === T.LParen || previous?.tokenType === T.Comma)) return 'parameter';
    if (next?.tokenType === T.Of && MEASURES.has(token.image)) return 'function';
    return 'variable';
  }
  return undefined;
}

/** The highlighted words of a text-form document, in document order, comments included. */
export function highlightTokens(text: string): HighlightToken[] {
  const { tokens, comments } = tokenize(text, new LineIndex(text), false);
  const out: HighlightToken[] = comments.map((comment) => ({ offset: comment.startOffset, length: comment.image.length, kind: 'comment' as const }));
  let parentheses = 0;
  tokens.forEach((token, index) => {
    if (token.tokenType === T.LParen) parentheses += 1;
    else if (token.tokenType === T.RParen) parentheses = Math.max(0, parentheses - 1);
    const kind = kindOf(token, tokens[index - 1], tokens[index + 1], parentheses > 0);
    if (kind !== undefined) out.push({ offset: token.startOffset, length: token.image.length, kind });
  });
  return out.sort((a, b) => a.offset - b.offset);
}
