import { MEASURES } from '@eql/syntax';
import type { ScanToken } from './text-scanner.js';

/**
 * Where the cursor is in the text form, read from the pieces before it: the open brackets, the
 * section (`when` or `then`), the construct an option list belongs to, and the words that decide
 * what may come next.
 */

/** What the options in `( … )` belong to. */
export type Head =
  | { kind: 'measure'; source: string; method: string; windowed: boolean }
  | { kind: 'condition'; source: 'tweet' | 'news' | 'llm' }
  | { kind: 'cron'; method: 'once' | 'every' }
  | { kind: 'action'; type: string; callback: boolean }
  | { kind: 'repeat' };

/** Words that can only be followed by one thing. */
export const NEXT_WORD: Readonly<Record<string, readonly string[]>> = {
  tweet: ['by'],
  news: ['about'],
  with: ['confidence'],
  expires: ['in'],
  repeat: ['after'],
  all: ['of'],
  any: ['of'],
};

export function durationContext(p1: string, p2: string | undefined, section: string): string | undefined {
  if (p1 === 'every') return section === 'when' && p2 === '<string>' ? 'llm' : 'every';
  if (p1 === 'over') return 'over';
  if (p1 === 'for') return 'for';
  if (p1 === 'in' && p2 === 'expires') return 'expires';
  if (p1 === 'after' && p2 === 'repeat') return 'repeat';
  return undefined;
}

/** Open brackets at the cursor, the section (`when` or `then`) and the matching `(` of each `)`. */
export function structure(tokens: ScanToken[]): { open: Array<{ char: string; index: number }>; section: string; matches: Map<number, number> } {
  const open: Array<{ char: string; index: number }> = [];
  const matches = new Map<number, number>();
  let section = '';
  tokens.forEach((token, index) => {
    if (token.kind !== 'punct' && token.kind !== 'word') return;
    const char = token.text;
    if (char === '(' || char === '[' || char === '{') open.push({ char, index });
    else if (char === ')' || char === ']' || char === '}') {
      const opened = open.pop();
      if (opened !== undefined && char === ')') matches.set(index, opened.index);
    } else if ((char === 'when' || char === 'then') && !open.some((entry) => entry.char === '(' || entry.char === '{')) section = char;
  });
  return { open, section, matches };
}

/** The construct an option list at `paren` belongs to, found by walking back over balanced brackets. */
export function headOf(tokens: ScanToken[], paren: number, section: string): Head | undefined {
  let depth = 0;
  for (let i = paren - 1; i >= 0; i -= 1) {
    const token = tokens[i];
    if (token === undefined) break;
    const text = token.text;
    if (text === ')' || text === ']' || text === '}') depth += 1;
    else if (text === '(' || text === '[' || text === '{') {
      if (depth === 0) return undefined;
      depth -= 1;
    }
    if (depth > 0 || token.kind !== 'word') continue;
    const series = MEASURES.get(text);
    if (series !== undefined && tokens[i + 1]?.text === 'of') return { kind: 'measure', source: series.source, method: series.method, windowed: windowed(text) };
    const callback = tokens[i - 1]?.text === 'callback';
    switch (text) {
      case 'tweet':
      case 'news':
        return { kind: 'condition', source: text };
      case 'llm':
        return section === 'then' ? { kind: 'action', type: 'llm', callback: false } : { kind: 'condition', source: 'llm' };
      case 'every':
        if (section === 'when' && isLlmEvery(tokens, i)) return { kind: 'condition', source: 'llm' };
        return { kind: 'cron', method: 'every' };
      case 'at':
        if (section === 'when') return { kind: 'cron', method: 'once' };
        continue;
      case 'notify':
      case 'webhook':
        return { kind: 'action', type: text, callback };
      case 'bot':
        return { kind: 'action', type: 'messenger_bot', callback };
      case 'market':
      case 'limit':
        return { kind: 'action', type: `${text}_order`, callback };
      case 'repeat':
        return { kind: 'repeat' };
      case 'when':
      case 'then':
      case 'as':
        return undefined;
    }
  }
  return undefined;
}

/** `llm [method] "…" every`: the `every` of an llm condition. */
function isLlmEvery(tokens: ScanToken[], every: number): boolean {
  const before = tokens[every - 1];
  if (before?.kind !== 'string') return false;
  return tokens[every - 2]?.text === 'llm' || tokens[every - 3]?.text === 'llm';
}

/** The index of the measure of a subject whose options open at `open`, or -1. */
export function subjectStart(tokens: ScanToken[], open: number): number {
  for (let i = open - 1; i >= Math.max(0, open - 4); i -= 1) {
    const token = tokens[i];
    if (token !== undefined && MEASURES.has(token.text) && tokens[i + 1]?.text === 'of') return i;
  }
  return -1;
}

export function lastMeasure(tokens: ScanToken[]): string | undefined {
  for (let i = tokens.length - 1; i >= Math.max(0, tokens.length - 8); i -= 1) {
    const token = tokens[i];
    if (token !== undefined && MEASURES.has(token.text) && tokens[i + 1]?.text === 'of') return token.text;
  }
  return undefined;
}

export function windowed(measure: string): boolean {
  const series = MEASURES.get(measure);
  return series !== undefined && series.source === 'price' && series.method !== 'current';
}

export function isOperator(text: string): boolean {
  return text === '>' || text === '>=' || text === '<' || text === '<=' || text === '==' || text === '!=';
}
