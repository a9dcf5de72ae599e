import { TA_METHODS } from '@eql/core';
import { nearestWord } from '../recover/spelling.js';

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
  return nearestWord(word, MEASURES.keys());
}
