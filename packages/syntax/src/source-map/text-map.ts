import { parseText } from '../parse.js';
import type { SourceMap } from './types.js';

/** JSON pointer → range of the tokens that produced each value of the request the text stands for. */
export function textSourceMap(text: string): SourceMap {
  return parseText(text).map;
}
