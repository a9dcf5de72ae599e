import { type ILexerErrorMessageProvider, type IToken, Lexer } from 'chevrotain';
import type { SyntaxIssue } from '../errors.js';
import type { LineIndex } from '../source-map/line-index.js';
import { ALL_TOKENS, JsonLiteral } from './tokens.js';

const messages: ILexerErrorMessageProvider = {
  buildUnexpectedCharactersMessage(fullText, startOffset, length) {
    const text = fullText.slice(startOffset, startOffset + Math.min(length, 20));
    return `unexpected ${length === 1 ? 'character' : 'characters'} ${JSON.stringify(text)}${length > 20 ? '…' : ''}`;
  },
  buildUnableToPopLexerModeMessage() {
    return 'unexpected end of a lexer mode';
  },
};

const options = { positionTracking: 'onlyOffset', ensureOptimizations: true, errorMessageProvider: messages } as const;
/** The lexer of the parser (Chevrotain analyses a token set once, so there is one per process). */
const lexer = new Lexer([...ALL_TOKENS], options);
/** Every bracket, string and number a token of its own, also inside JSON: for highlighting. */
const tokenByTokenLexer = new Lexer(
  ALL_TOKENS.filter((type) => type !== JsonLiteral),
  options,
);

export interface Lexed {
  tokens: IToken[];
  comments: IToken[];
  errors: SyntaxIssue[];
}

/**
 * Splits the text into tokens; unknown characters are skipped and reported, never thrown. A well-formed
 * JSON parameter value is one {@link JsonLiteral} token unless `jsonLiterals` is false.
 */
export function tokenize(text: string, lines: LineIndex, jsonLiterals = true): Lexed {
  const result = (jsonLiterals ? lexer : tokenByTokenLexer).tokenize(text);
  // 'onlyOffset' tracking gives start offsets only; the parser's node locations need the ends too.
  for (const token of result.tokens) token.endOffset = token.startOffset + token.image.length - 1;
  const errors: SyntaxIssue[] = result.errors.map((error) => ({
    message: error.message,
    range: lines.range(error.offset, error.offset + Math.max(1, error.length)),
  }));
  return { tokens: result.tokens, comments: result.groups.comments ?? [], errors };
}
