import { TA_METHODS } from '@eql/core';

/**
 * The measures of the text form: the word before `of` names the source and method of a price or
 * ta condition (`price of BTC` is price.current, `rsi of SOL` is ta.rsi).
 */
export interface Series {
  source: 'price' | 'ta';
  method: string;
}

/**
 * Every measure word of the text form, with the source and method it stands for (`rsi` is ta.rsi, `price` is
 * price.current).
 */
export const MEASURES: ReadonlyMap<string, Series> = new Map<string, Series>([
  ['price', { source: 'price', method: 'current' }],
  ['change', { source: 'price', method: 'change' }],
  ['high', { source: 'price', method: 'high' }],
  ['low', { source: 'price', method: 'low' }],
  ['volume', { source: 'price', method: 'volume' }],
  ...TA_METHODS.map((method): [string, Series] => [method, { source: 'ta', method }]),
]);

/** The measure word of a series, or undefined when the text form has none. */
export function measureOf(source: unknown, method: unknown): string | undefined {
  for (const [word, series] of MEASURES) if (series.source === source && series.method === method) return word;
  return undefined;
}

/** Price statistics over a window: their `period` is written `over 24h`. */
export function takesWindow(series: Series): boolean {
  return series.source === 'price' && series.method !== 'current';
}

/** The nearest measure word to a misspelled one, for "did you mean". */
export function nearestMeasure(word: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of MEASURES.keys()) {
    const d = editDistance(word.toLowerCase(), candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
