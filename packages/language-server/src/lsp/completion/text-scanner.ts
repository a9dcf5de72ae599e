/**
 * A light scanner of the text form for completion: the words, strings, numbers and punctuation before
 * the cursor. It only splits text into pieces (the language's rules are the parser's, in `@eql/syntax`);
 * completion reads the pieces just before the cursor, which the parser cannot give for unfinished text.
 */
export type ScanKind = 'word' | 'string' | 'number' | 'duration' | 'size' | 'instant' | 'handle' | 'operator' | 'punct';

export interface ScanToken {
  kind: ScanKind;
  text: string;
  start: number;
  end: number;
}

export interface Scan {
  tokens: ScanToken[];
  /** The cursor is inside a string or a comment: nothing to complete. */
  inLiteral: boolean;
}

const WORD = /[A-Za-z_][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.-]*)?(?::[A-Za-z0-9_.-]*)?/y;
const NUMBERISH = /-?[0-9][0-9A-Za-z.:+-]*%?/y;
const HANDLE = /@[A-Za-z0-9_]*/y;
const DOLLARS = /\$[0-9.]*/y;
const OPERATOR = /[<>=!]=|[<>]/y;

/** The pieces of `text` that end at or before `cursor`. */
export function scanText(text: string, cursor: number): Scan {
  const tokens: ScanToken[] = [];
  let at = 0;
  while (at < cursor) {
    const char = text.charAt(at);
    if (/\s/.test(char)) {
      at += 1;
      continue;
    }
    if (char === '#') {
      const end = lineEnd(text, at);
      if (end >= cursor) return { tokens, inLiteral: true };
      at = end;
      continue;
    }
    if (char === '"') {
      const end = stringEnd(text, at);
      if (end === undefined || end > cursor) return { tokens, inLiteral: true };
      tokens.push({ kind: 'string', text: text.slice(at, end), start: at, end });
      at = end;
      continue;
    }
    const match = matchAt(WORD, text, at, 'word') ?? matchAt(HANDLE, text, at, 'handle') ?? matchAt(DOLLARS, text, at, 'size') ?? numberAt(text, at) ?? matchAt(OPERATOR, text, at, 'operator');
    const token = match ?? { kind: 'punct' as const, text: char, start: at, end: at + 1 };
    tokens.push(token);
    at = token.end;
  }
  return { tokens, inLiteral: false };
}

function matchAt(pattern: RegExp, text: string, at: number, kind: ScanKind): ScanToken | undefined {
  pattern.lastIndex = at;
  const match = pattern.exec(text);
  if (match === null || match[0] === '') return undefined;
  return { kind, text: match[0], start: at, end: at + match[0].length };
}

function numberAt(text: string, at: number): ScanToken | undefined {
  const token = matchAt(NUMBERISH, text, at, 'number');
  if (token === undefined) return undefined;
  if (/^\d+[A-Za-z]+$/.test(token.text)) token.kind = 'duration';
  else if (token.text.endsWith('%')) token.kind = 'size';
  else if (/^\d{4}-\d\d-\d\dT/.test(token.text)) token.kind = 'instant';
  return token;
}

function lineEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length && text.charAt(end) !== '\n' && text.charAt(end) !== '\r') end += 1;
  return end;
}

/** The offset after the closing quote, or undefined when the string runs to the end of its line. */
function stringEnd(text: string, at: number): number | undefined {
  for (let i = at + 1; i < text.length; i += 1) {
    const char = text.charAt(i);
    if (char === '\\') i += 1;
    else if (char === '"') return i + 1;
    else if (char === '\n' || char === '\r') return undefined;
  }
  return undefined;
}
