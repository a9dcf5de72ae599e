import { createTokenInstance, type IToken, type TokenType } from 'chevrotain';
import { formatDuration, parseDuration } from '@eql/core';
import type { SyntaxIssue } from '../errors.js';
import * as T from '../lexer/tokens.js';
import type { LineIndex } from '../source-map/line-index.js';

/**
 * The forms the language does not have but people write (`=>`, `'text'`, `100k`, `2 days`, an
 * unquoted URL, ...), each read by the lexer as one mistake token (`MISTAKE_TOKENS`). Each is reported
 * once, with the form to write, and replaced by that form, so that the parser reads the rest of the
 * document as if it had been written right: no cascade of errors after it, and the request is still
 * built for the checks of the other layers.
 */

/** The tokens with every mistake replaced, and one issue per mistake. */
export interface Repaired {
  tokens: IToken[];
  issues: SyntaxIssue[];
}

const SPELLED_UNITS: ReadonlyArray<[RegExp, string]> = [
  [/^(?:seconds?|secs?)$/i, 's'],
  [/^(?:minutes?|mins?)$/i, 'm'],
  [/^(?:hours?|hrs?)$/i, 'h'],
  [/^days?$/i, 'd'],
  [/^(?:weeks?|wks?)$/i, 'w'],
];

const MAGNITUDE: Record<string, number> = { k: 1e3, K: 1e3, M: 1e6, b: 1e9, B: 1e9 };

const OPERATOR_FIX: Record<string, [TokenType, string]> = {
  '=>': [T.GreaterEqual, '>='],
  '≥': [T.GreaterEqual, '>='],
  '=<': [T.LessEqual, '<='],
  '≤': [T.LessEqual, '<='],
  '<>': [T.NotEqual, '!='],
  '≠': [T.NotEqual, '!='],
  '=': [T.Equal, '=='],
};

/** A token of `type` standing where `original` was (same offsets, so positions stay those of the text). */
function replacement(original: IToken, type: TokenType, image: string): IToken {
  const token = createTokenInstance(type, image, original.startOffset, original.endOffset ?? original.startOffset + original.image.length - 1, NaN, NaN, NaN, NaN);
  return token;
}

/** A number written plainly (no exponent for the magnitudes people write). */
function plainNumber(value: number): string {
  return Number.isInteger(value) ? value.toFixed(0) : String(value);
}

/** What to write for one mistake, and the token that takes its place (or tokens, for a split). */
function repairOne(token: IToken, insideParentheses: boolean): { message?: string; tokens: IToken[] } {
  const image = token.image;
  switch (token.tokenType) {
    case T.MistakeOperator: {
      const [type, written] = OPERATOR_FIX[image] ?? [T.Equal, '=='];
      const why = image === '=' ? `'=' is not an operator: write '==' to compare` : `'${image}' is not an operator of EQL: write '${written}'`;
      return { message: why, tokens: [replacement(token, type, written)] };
    }
    case T.MistakeSingleQuoted:
    case T.MistakeCurlyQuoted: {
      const inner = image.slice(1, -1).replace(/\\'/g, "'");
      const written = JSON.stringify(inner);
      const which = token.tokenType === T.MistakeSingleQuoted ? 'double quotes' : 'straight double quotes';
      return { message: `strings take ${which}: write ${written}`, tokens: [replacement(token, T.StringLiteral, written)] };
    }
    case T.MistakeBareUrl: {
      const written = JSON.stringify(image);
      return { message: `write the URL in double quotes: ${written}`, tokens: [replacement(token, T.StringLiteral, written)] };
    }
    case T.MistakeSpelledDuration: {
      const [, count = '1', word = ''] = /^(\d+)[ \t]*(.*)$/.exec(image) ?? [];
      const unit = SPELLED_UNITS.find(([pattern]) => pattern.test(word))?.[1] ?? 'h';
      const written = `${count}${unit}`;
      return { message: `a duration is one word: write ${written} for ${image}`, tokens: [replacement(token, T.Duration, written)] };
    }
    case T.MistakeDecimalDuration: {
      const unit = image.slice(-1);
      const ms = Number(image.slice(0, -1)) * (parseDuration(`1${unit}`) ?? 0);
      const whole = ms >= 1000 && ms % 1000 === 0 ? formatDuration(ms) : undefined;
      const message = whole
        ? `a duration is a whole number and a unit (s, m, h, d or w): write ${whole} for ${image}`
        : `a duration is a whole number and a unit (s, m, h, d or w): ${image} cannot be written, round it`;
      return { message, tokens: [replacement(token, T.Duration, whole ?? `${Math.max(1, Math.round(Number(image.slice(0, -1))))}${unit}`)] };
    }
    case T.MistakeNumberSuffix: {
      const dollars = image.startsWith('$');
      const body = dollars ? image.slice(1) : image;
      const value = Number(body.slice(0, -1)) * (MAGNITUDE[body.slice(-1)] ?? 1);
      const written = `${dollars ? '$' : ''}${plainNumber(value)}`;
      return { message: `numbers take no suffix: write ${written} for ${image}`, tokens: [replacement(token, dollars ? T.Dollars : T.NumberLiteral, written)] };
    }
    case T.MistakeThousands: {
      if (insideParentheses) return { tokens: splitAtCommas(token) };
      const dollars = image.startsWith('$');
      const written = image.replace(/,/g, '');
      return { message: `numbers take no thousands separators: write ${written} for ${image}`, tokens: [replacement(token, dollars ? T.Dollars : T.NumberLiteral, written)] };
    }
    default:
      return { tokens: [token] };
  }
}

/** `1,200` inside parentheses is two values: the number, a comma and the number again, as written. */
function splitAtCommas(token: IToken): IToken[] {
  const parts: IToken[] = [];
  let offset = token.startOffset;
  token.image.split(',').forEach((part, index) => {
    if (index > 0) {
      parts.push(createTokenInstance(T.Comma, ',', offset, offset, NaN, NaN, NaN, NaN));
      offset += 1;
    }
    const type = /^\d+$/.test(part) && (part === '0' || !part.startsWith('0')) ? T.NumberLiteral : T.Identifier;
    parts.push(createTokenInstance(type, part, offset, offset + part.length - 1, NaN, NaN, NaN, NaN));
    offset += part.length;
  });
  return parts;
}

const MISTAKES = new Set<TokenType>(T.MISTAKE_TOKENS);

/** Replaces every mistake token; see the file's comment. */
export function repairLexicalMistakes(tokens: readonly IToken[], lines: LineIndex): Repaired {
  const repaired: IToken[] = [];
  const issues: SyntaxIssue[] = [];
  let parentheses = 0;
  for (const token of tokens) {
    const type = token.tokenType;
    if (type === T.LParen) parentheses += 1;
    else if (type === T.RParen) parentheses = Math.max(0, parentheses - 1);
    if (!MISTAKES.has(type)) {
      repaired.push(token);
      continue;
    }
    const fix = repairOne(token, parentheses > 0);
    if (fix.message !== undefined) {
      const range = lines.range(token.startOffset, token.startOffset + token.image.length);
      const text = fix.tokens.map((replaced) => replaced.image).join('');
      issues.push({ message: fix.message, range, fix: { title: `Write ${text} for ${token.image}`, range, text } });
    }
    repaired.push(...fix.tokens);
  }
  return { tokens: repaired, issues };
}
