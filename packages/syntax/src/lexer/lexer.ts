import { type ILexerErrorMessageProvider, type IToken, Lexer } from 'chevrotain';
import type { SyntaxIssue } from '../errors.js';
import type { LineIndex } from '../source-map/line-index.js';
import { ALL_TOKENS } from './tokens.js';

const messages: ILexerErrorMessageProvider = {
  buildUnexpectedCharactersMessage(fullText, startOffset, length) {
    const text = fullText.slice(startOffset, startOffset + Math.min(length, 20));
    return `unexpected ${length === 1 ? 'character' : 'characters'} ${JSON.stringify(text)}${length > 20 ? '…' : ''}`;
  },
  buildUnableToPopLexerModeMessage() {
    return 'unexpected end of a lexer mode';
  },
};

/** One lexer for the process (Chevrotain analyses the token set once). */
const lexer = new Lexer([...ALL_TOKENS], {
  positionTracking: 'onlyOffset',
  ensureOptimizations: false,
  errorMessageProvider: messages,
});

export interface Lexed {
  tokens: IToken[];
  comments: IToken[];
  errors: SyntaxIssue[];
}

/** Splits the text into tokens; unknown characters are skipped and reported, never thrown. */
export function tokenize(text: string, lines: LineIndex): Lexed {
  const result = lexer.tokenize(text);
  // 'onlyOffset' tracking gives start offsets only; the parser's node locations need the ends too.
  for (const token of result.tokens) token.endOffset = token.startOffset + token.image.length - 1;
  const errors: SyntaxIssue[] = result.errors.map((error) => ({
    message: error.message,
    range: lines.range(error.offset, error.offset + Math.max(1, error.length)),
  }));
  return { tokens: result.tokens, comments: result.groups.comments ?? [], errors };
}
