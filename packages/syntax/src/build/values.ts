import { type IToken, tokenMatcher } from 'chevrotain';
import * as T from '../lexer/tokens.js';
import type { BuildContext, JsonValue } from './context.js';
import { spanOf } from './cst.js';

const CLOSED_STRING = /^"(?:[^"\\\n\r]|\\[^\n\r])*"$/;

/** The string a quoted literal stands for (JSON escapes); a broken literal is reported and read as best it can. */
export function stringValue(context: BuildContext, token: IToken): string {
  const image = token.image;
  const closed = CLOSED_STRING.test(image);
  if (!closed) context.error('unterminated string: add the closing " on the same line', spanOf(token));
  const body = closed ? image : `${image.endsWith('\\') ? image.slice(0, -1) : image}"`;
  try {
    return JSON.parse(body) as string;
  } catch {
    if (closed) context.error(`invalid string: ${stringProblem(image)}`, spanOf(token));
    return image.slice(1, closed ? -1 : undefined);
  }
}

function stringProblem(image: string): string {
  for (let i = 1; i < image.length - 1; i += 1) {
    const code = image.charCodeAt(i);
    if (code < 0x20) return `write the control character U+${code.toString(16).toUpperCase().padStart(4, '0')} as an escape such as \\t, \\n or \\u00XX`;
    if (image[i] === '\\') {
      const next = image[i + 1] ?? '';
      if (next === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(image.slice(i + 2, i + 6))) return '\\u needs four hexadecimal digits';
        i += 5;
      } else if ('"\\/bfnrt'.includes(next) && next !== '') i += 1;
      else return `unknown escape \\${next}; use \\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX`;
    }
  }
  return 'it is not a valid JSON string';
}

/** A number literal, also inside `$500` and `10%`. */
export function numberValue(context: BuildContext, token: IToken): number {
  let image = token.image;
  if (image.startsWith('$')) image = image.slice(1);
  if (image.endsWith('%')) image = image.slice(0, -1);
  const value = Number(image);
  if (!Number.isFinite(value)) {
    context.error(`the number ${token.image} is too large`, spanOf(token));
    return 0;
  }
  return value;
}

/**
 * The value of a single-token value: quoted strings, numbers, durations, date-times, words,
 * `@handles` and true, false, null. A percentage is only a value where the caller says so.
 */
export function scalarValue(context: BuildContext, token: IToken): JsonValue {
  if (tokenMatcher(token, T.StringLiteral)) return stringValue(context, token);
  if (tokenMatcher(token, T.NumberLiteral) || tokenMatcher(token, T.Percent) || tokenMatcher(token, T.Dollars)) return numberValue(context, token);
  if (tokenMatcher(token, T.True)) return true;
  if (tokenMatcher(token, T.False)) return false;
  if (tokenMatcher(token, T.Null)) return null;
  return token.image;
}

/** A step id, symbol, exchange or method: a word as written, or a quoted string. */
export function nameValue(context: BuildContext, token: IToken): string {
  return tokenMatcher(token, T.StringLiteral) ? stringValue(context, token) : token.image;
}

/** A duration position accepts `1h`, a quoted string or a number (the validator judges them). */
export function durationValue(context: BuildContext, token: IToken): JsonValue {
  if (tokenMatcher(token, T.StringLiteral)) return stringValue(context, token);
  if (tokenMatcher(token, T.NumberLiteral)) return numberValue(context, token);
  return token.image;
}
