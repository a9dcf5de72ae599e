import { joinPointer } from '@eql/core';
import type { TokenType } from 'chevrotain';
import { tokenize } from '../lexer/lexer.js';
import * as T from '../lexer/tokens.js';
import { LineIndex } from '../source-map/line-index.js';

/**
 * How values are spelled: bare when the text lexes back as exactly the token that reads as the
 * same value, quoted (JSON string syntax) otherwise. The lexer itself decides, so printer and
 * parser cannot disagree.
 */

/** Thrown by {@link printText} for a request the text form cannot say; `pointer` names the value. */
export class PrintError extends Error {
  constructor(
    message: string,
    /** JSON pointer of the value that has no text form. */
    readonly pointer: string,
  ) {
    super(message);
    this.name = 'PrintError';
  }
}

const lexedAs = new Map<string, TokenType | null>();

/** The one token type `text` lexes to on its own, or undefined. */
function soleTokenType(text: string): TokenType | undefined {
  const cached = lexedAs.get(text);
  if (cached !== undefined) return cached ?? undefined;
  let type: TokenType | undefined;
  if (text !== '' && text.length <= 200) {
    const lexed = tokenize(text, new LineIndex(text));
    const only = lexed.tokens[0];
    if (lexed.errors.length === 0 && lexed.comments.length === 0 && lexed.tokens.length === 1 && only?.image === text) type = only.tokenType;
  }
  if (lexedAs.size > 10_000) lexedAs.clear();
  lexedAs.set(text, type ?? null);
  return type;
}

export function quoted(text: string): string {
  return JSON.stringify(text);
}

/** JSON numbers as JavaScript prints them (shortest exact form); -0 keeps its sign. */
export function numberText(value: number, pointer: string): string {
  if (!Number.isFinite(value)) throw new PrintError(`${String(value)} is not a JSON number`, pointer);
  return Object.is(value, -0) ? '-0' : String(value);
}

/** Symbols, exchanges: a bare identifier such as BTC/USDT:USDT, or a quoted string. */
export function nameText(text: string): string {
  return soleTokenType(text) === T.Identifier ? text : quoted(text);
}

/** Step ids: also keywords that cannot start an action or a clause (`as buy`). */
export function stepText(text: string): string {
  const type = soleTokenType(text);
  return type !== undefined && type !== T.StringLiteral && type.CATEGORIES?.includes(T.StepName) === true ? text : quoted(text);
}

/** Option keys: any word (keywords included) or a quoted string. */
export function keyText(text: string): string {
  const type = soleTokenType(text);
  return type !== undefined && type !== T.StringLiteral && type.CATEGORIES?.includes(T.OptionKey) === true ? text : quoted(text);
}

export function durationText(value: string | number, pointer: string): string {
  if (typeof value === 'number') return numberText(value, pointer);
  return soleTokenType(value) === T.Duration ? value : quoted(value);
}

export function instantText(text: string): string {
  return soleTokenType(text) === T.DateTime ? text : quoted(text);
}

/** A tweet account: `@name` for a plain account name, otherwise as a name. */
export function accountText(text: string): string {
  return soleTokenType(`@${text}`) === T.Handle ? `@${text}` : nameText(text);
}

/** A bot chat: a number, an `@channel`, a bare word or a quoted string. */
export function chatText(value: string | number, pointer: string): string {
  if (typeof value === 'number') return numberText(value, pointer);
  const type = soleTokenType(value);
  return type === T.Handle || type === T.Identifier ? value : quoted(value);
}

const BARE_SCALARS: ReadonlySet<TokenType> = new Set([T.Identifier, T.Duration, T.DateTime, T.Handle]);

/** A value inside `( … )`: strings bare when they read back as the same string, JSON for the rest. */
export function valueText(value: unknown, pointer: string): string {
  if (typeof value === 'string') {
    const type = soleTokenType(value);
    return type !== undefined && BARE_SCALARS.has(type) ? value : quoted(value);
  }
  return jsonText(value, pointer);
}

/** Deeper JSON has no text form (the parser refuses such nesting too). */
const MAX_JSON_DEPTH = 64;

/** JSON with a space after `:` and `,`, numbers exact. */
export function jsonText(value: unknown, pointer: string, depth = 0): string {
  if (depth > MAX_JSON_DEPTH) throw new PrintError(`JSON nested deeper than ${MAX_JSON_DEPTH} has no text form`, pointer);
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return numberText(value, pointer);
  if (typeof value === 'string') return quoted(value);
  if (Array.isArray(value)) return `[${value.map((item, index) => jsonText(item, joinPointer(pointer, index), depth + 1)).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([key, item]) => `${quoted(key)}: ${jsonText(item, joinPointer(pointer, key), depth + 1)}`).join(', ')}}`;
  }
  throw new PrintError(`a ${typeof value} is not a JSON value`, pointer);
}
