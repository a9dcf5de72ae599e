import type { IToken } from 'chevrotain';
import { buildRequest } from './build/request.js';
import type { JsonObject, LineItem } from './build/context.js';
import type { SyntaxIssue } from './errors.js';
import { tokenize } from './lexer/lexer.js';
import * as T from './lexer/tokens.js';
import { repairLexicalMistakes } from './recover/lexical-mistakes.js';
import { parseWithRecovery } from './recover/parse-recovery.js';
import { LineIndex } from './source-map/line-index.js';
import type { SourceMap } from './source-map/types.js';

/**
 * What {@link parseText} gives: the request when the text parses, as much of it as could be read, the syntax
 * errors and the source map.
 */
export interface ParseResult {
  /** The query request the text stands for; present only when there are no errors. */
  value?: JsonObject;
  /** As much of the request as could be read, also when there are errors (for editors). */
  partial?: JsonObject;
  /** Problems of the text, in document order; empty when the text parses. */
  errors: SyntaxIssue[];
  /** JSON pointer → range of the tokens that produced each value. */
  map: SourceMap;
}

/** What the formatter needs beyond the parse result: the comments and the lines they attach to. */
export interface ParsedDocument extends ParseResult {
  tokens: IToken[];
  comments: IToken[];
  lineItems: LineItem[];
}

/** Brackets nested deeper than this are refused before parsing (the grammar is recursive). */
const MAX_NESTING = 100;

/** Parses the text form. Never throws: every problem is an error with a range. */
export function parseText(text: string): ParseResult {
  const { value, partial, errors, map } = parseDocument(text);
  return value === undefined ? { partial, errors, map } : { value, partial, errors, map };
}

/**
 * {@link parseText} with what the formatter needs. With `jsonLiterals` false, JSON values are read token
 * by token by the grammar instead of by the lexer's fast path: the reference the fast path is tested
 * against (both must give the same value, map and messages).
 */
export function parseDocument(text: string, jsonLiterals = true): ParsedDocument {
  const lines = new LineIndex(text);
  const empty: SourceMap = { format: 'text', entries: new Map() };
  try {
    const lexed = tokenize(text, lines, jsonLiterals);
    const tooDeep = nestingProblem(lexed.tokens, lines);
    if (tooDeep !== undefined) return { errors: [...lexed.errors, tooDeep], map: empty, tokens: lexed.tokens, comments: lexed.comments, lineItems: [] };
    const lexical = repairLexicalMistakes(lexed.tokens, lines);
    const parsed = parseWithRecovery(lexical.tokens, lines);
    const built = buildRequest(parsed.cst, lines);
    // What the builder finds on a line the parser recovered by itself is the same mistake seen again.
    const builtErrors = built.context.errors.filter((issue) => !parsed.unsureLines.has(issue.range.start.line));
    const errors = sortIssues([...lexed.errors, ...lexical.issues, ...parsed.issues, ...builtErrors]);
    const map: SourceMap = { format: 'text', entries: built.context.entries };
    const document: ParsedDocument = {
      partial: built.value,
      errors,
      map,
      tokens: parsed.tokens,
      comments: lexed.comments,
      lineItems: built.context.lineItems,
    };
    if (errors.length === 0) document.value = built.value;
    return document;
  } catch (cause) {
    const message = `the parser failed unexpectedly: ${cause instanceof Error ? cause.message : String(cause)}`;
    return { errors: [{ message, range: lines.range(0, 0) }], map: empty, tokens: [], comments: [], lineItems: [] };
  }
}

/** Brackets, and llm callbacks (which nest without brackets), deeper than MAX_NESTING. */
function nestingProblem(tokens: readonly IToken[], lines: LineIndex): SyntaxIssue | undefined {
  let depth = 0;
  let callbacks = 0;
  for (const token of tokens) {
    const type = token.tokenType;
    if (type === T.LBracket || type === T.LBrace || type === T.LParen) depth += 1;
    else if (type === T.RBracket || type === T.RBrace || type === T.RParen) depth = Math.max(0, depth - 1);
    else if (type === T.Callback) callbacks += 1;
    if (depth > MAX_NESTING || callbacks > MAX_NESTING) {
      const what = depth > MAX_NESTING ? 'brackets nested' : 'callbacks nested';
      return { message: `${what} deeper than ${MAX_NESTING}`, range: lines.range(token.startOffset, token.startOffset + token.image.length) };
    }
  }
  return undefined;
}

function sortIssues(issues: SyntaxIssue[]): SyntaxIssue[] {
  const seen = new Set<string>();
  return issues
    .filter((issue) => {
      const key = `${issue.range.start.offset}:${issue.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.range.start.offset - b.range.start.offset);
}
