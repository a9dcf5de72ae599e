/**
 * Tokens of a normalized message. Each keeps its place in the text so the builder can quote the
 * words it did not understand, and free text (a post's topic, a news event) is cut from the message
 * as written.
 */

export type TokenKind =
  /** Letters (and digits after the first letter): `above`, `rsi14`, `don't`. */
  | 'word'
  /** A number with what is glued to it: `70k`, `$65,000`, `5%`, `24h`, `5x`, `-1001234567890`. */
  | 'number'
  /** `@name`: an account or a Telegram channel. */
  | 'handle'
  /** `$BTC`. */
  | 'cashtag'
  /** A market pair or contract: `BTC/USDT`, `BTC/USDT:USDT`, `ETH-PERP`, `BTC_USDT`. */
  | 'pair'
  | 'url'
  /** Text in double quotes, or in single quotes that open and close a phrase. */
  | 'string'
  /** A clock time: `9:00`, `14:30`, `9am`, `9:30pm`. */
  | 'time'
  /** `2026-01-01` or an ISO date-time. */
  | 'date'
  /** A Telegram bot token `<digits>:<secret>`, or the `<BOT_TOKEN>` placeholder. */
  | 'bottoken'
  /** Any other single character or operator sign: `,` `.` `(` `>=` `%`. */
  | 'punct';

/** One token and where it is in the normalized message. */
export interface Token {
  kind: TokenKind;
  /** As written (after normalization); the content of a string, without its quotes. */
  text: string;
  /** Lower case of `text`; for a word, without a trailing possessive `'s`. */
  lower: string;
  /** Offsets in the normalized message. */
  start: number;
  end: number;
  /** number: the value (sign and thousands separators applied, multiplier letters not). */
  value?: number;
  /** number: letters glued after the digits, lower case (`k`, `m`, `h`, `x`, `min`). */
  unit?: string;
  /** number: written with `$`. */
  dollar?: boolean;
  /** number: written with `%`. */
  percent?: boolean;
  /** time: hours and minutes of the day (24-hour clock). */
  hour?: number;
  minute?: number;
}

/** Quote currencies of a pair (`BTC/USDT`); anything else with a slash is two words (`and/or`). */
const QUOTES = '(?:USDT|USDC|USD|BTC|ETH|EUR|BUSD|FDUSD|DAI)';

interface Lexeme {
  kind: TokenKind;
  pattern: RegExp;
}

/** Tried in order at each position; every pattern is sticky. */
const LEXEMES: Lexeme[] = [
  { kind: 'url', pattern: /https?:\/\/[^\s<>"]+/iy },
  { kind: 'date', pattern: /\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w:])/y },
  { kind: 'bottoken', pattern: /(?:\d{5,12}:[A-Za-z0-9_-]{30,}|<BOT_TOKEN>)/y },
  { kind: 'time', pattern: /\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\d{1,2}:\d{2}(?!\d)/iy },
  { kind: 'pair', pattern: new RegExp(`[A-Za-z][A-Za-z0-9]{0,14}(?:/${QUOTES}(?::${QUOTES})?|-(?:PERP|USDT?|USDC)|_(?:USDT?|USDC|PERP))\\b`, 'iy') },
  { kind: 'cashtag', pattern: /\$[A-Za-z][A-Za-z0-9]{0,14}\b/y },
  { kind: 'number', pattern: /[-+]?\$?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[a-zA-Z]{1,4}\b)?%?\$?/y },
  { kind: 'handle', pattern: /@[A-Za-z0-9_]{1,30}/y },
  { kind: 'word', pattern: /[\p{L}_][\p{L}\p{N}_]*(?:'[\p{L}]+)*/uy },
  { kind: 'string', pattern: /"[^"]*"/y },
  { kind: 'punct', pattern: />=|<=|==|!=|=>|<>|./suy },
];

/** The text each token list was read from, so free text is cut from the message as written. */
const SOURCES = new WeakMap<readonly Token[], string>();

/** The message a token list was read from ('' for a list not made by `tokenize`). */
export function sourceOf(tokens: readonly Token[]): string {
  return SOURCES.get(tokens) ?? '';
}

/** The message text from the start of token `from` to the end of token `to - 1`. */
export function textBetween(tokens: readonly Token[], from: number, to: number): string {
  const first = tokens[from];
  const last = tokens[to - 1];
  if (first === undefined || last === undefined || to <= from) return '';
  return sourceOf(tokens).slice(first.start, last.end).trim();
}

/** Splits a normalized message into tokens. Never throws; unknown characters become `punct`. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  SOURCES.set(tokens, text);
  const closing = closingQuotes(text);
  let at = 0;
  while (at < text.length) {
    if (text[at] === ' ') {
      at += 1;
      continue;
    }
    const quoted = singleQuoted(text, at, closing);
    if (quoted) {
      tokens.push(quoted);
      at = quoted.end;
      continue;
    }
    const token = lexemeAt(text, at, tokens[tokens.length - 1]);
    tokens.push(token);
    at = token.end;
  }
  return joinHyphenated(tokens);
}

/**
 * Drops the hyphen of `stop-loss`, `take-profit`, `reduce-only` (a hyphen glued between two words).
 * In place, in one pass (a splice per hyphen would move the rest of the list each time).
 */
function joinHyphenated(tokens: Token[]): Token[] {
  let kept = 0;
  for (let index = 0; index < tokens.length; index += 1) {
    const current = tokens[index] as Token;
    const before = tokens[index - 1];
    const after = tokens[index + 1];
    const glued = current.text === '-' && before?.kind === 'word' && after?.kind === 'word' && before.end === current.start && current.end === after.start;
    if (!glued) tokens[kept++] = current;
  }
  tokens.length = kept;
  return tokens;
}

function lexemeAt(text: string, at: number, previous: Token | undefined): Token {
  for (const { kind, pattern } of LEXEMES) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match || match[0].length === 0) continue;
    // A sign glued after a word or number is an operator or a hyphen, not the sign of the number.
    if (kind === 'number' && /^[-+]/.test(match[0]) && previous !== undefined && previous.end === at) continue;
    return build(kind, match[0], at);
  }
  return build('punct', text.slice(at, at + 1), at);
}

function build(kind: TokenKind, raw: string, start: number): Token {
  const end = start + raw.length;
  if (kind === 'url') {
    const url = raw.replace(/[.,;:!?)\]'"]+$/, '');
    return { kind, text: url, lower: url.toLowerCase(), start, end: start + url.length };
  }
  if (kind === 'string') return { kind, text: raw.slice(1, -1), lower: raw.slice(1, -1).toLowerCase(), start, end };
  if (kind === 'number') return numberToken(raw, start, end);
  if (kind === 'time') return timeToken(raw, start, end);
  if (kind === 'word') {
    const lower = raw.toLowerCase().replace(/'s$/, '');
    return { kind, text: raw, lower, start, end };
  }
  return { kind, text: raw, lower: raw.toLowerCase(), start, end };
}

function numberToken(raw: string, start: number, end: number): Token {
  const dollar = raw.includes('$');
  const percent = raw.endsWith('%');
  const body = raw.replace(/[$%]/g, '');
  const unitMatch = /[a-zA-Z]+$/.exec(body);
  const digits = (unitMatch ? body.slice(0, unitMatch.index) : body).replace(/,/g, '');
  const token: Token = { kind: 'number', text: raw, lower: raw.toLowerCase(), start, end, value: Number(digits) };
  if (unitMatch) token.unit = unitMatch[0].toLowerCase();
  if (dollar) token.dollar = true;
  if (percent) token.percent = true;
  return token;
}

function timeToken(raw: string, start: number, end: number): Token {
  const match = /^(\d{1,2})(?::(\d{2}))?\s?(am|pm)?$/i.exec(raw);
  let hour = Number(match?.[1] ?? 0);
  const minute = Number(match?.[2] ?? 0);
  const half = match?.[3]?.toLowerCase();
  if (half === 'pm' && hour < 12) hour += 12;
  if (half === 'am' && hour === 12) hour = 0;
  return { kind: 'time', text: raw, lower: raw.toLowerCase(), start, end, hour, minute };
}

/**
 * Where each quote that may close a single-quoted phrase (one followed by the end, a space or a
 * stop) is: for each offset, the first such quote at or after it, or -1. One pass from the end, so
 * the tokenizer never searches the rest of the text again for each opening quote.
 */
export function closingQuotes(text: string): Int32Array {
  const next = new Int32Array(text.length + 1).fill(-1);
  for (let at = text.length - 1; at >= 0; at -= 1) {
    const closes = text[at] === "'" && (at + 1 === text.length || /[\s,.;:!?)]/.test(text[at + 1] as string));
    next[at] = closes ? at : (next[at + 1] as number);
  }
  return next;
}

/** `'dogecoin'` as a string, but not the apostrophe of `don't` or `BTC's`. */
function singleQuoted(text: string, at: number, closing: Int32Array): Token | undefined {
  if (text[at] !== "'" || (at > 0 && /[\p{L}\p{N}]/u.test(text[at - 1] ?? ''))) return undefined;
  const close = closing[at + 1] ?? -1;
  if (close === -1 || close === at + 1) return undefined;
  const inner = text.slice(at + 1, close);
  return { kind: 'string', text: inner, lower: inner.toLowerCase(), start: at, end: close + 1 };
}
