import type { SourceMap, SourceRange } from './types.js';

function parentOf(pointer: string): string {
  return pointer.slice(0, pointer.lastIndexOf('/'));
}

/**
 * The range of the value at `pointer`, or of its nearest ancestor that has one (a missing property
 * points at the object that misses it). With `key`, the range of the property's name when it has
 * one (`period` in `(period 14)`, `"period"` in JSON). Undefined only for an empty map.
 */
export function rangeOfPointer(map: SourceMap, pointer: string, options: { key?: boolean } = {}): SourceRange | undefined {
  let at = pointer;
  for (;;) {
    const entry = map.entries.get(at);
    if (entry !== undefined) return options.key === true && entry.key !== undefined ? entry.key : entry.value;
    if (at === '') return undefined;
    at = parentOf(at);
  }
}

/** The innermost pointer whose value range contains `offset` (for hover and navigation). */
export function pointerAt(map: SourceMap, offset: number): string | undefined {
  let best: string | undefined;
  let bestLength = Infinity;
  for (const [pointer, entry] of map.entries) {
    const { start, end } = entry.value;
    if (offset < start.offset || offset > end.offset) continue;
    const length = end.offset - start.offset;
    if (length < bestLength || (length === bestLength && best !== undefined && pointer.length > best.length)) {
      best = pointer;
      bestLength = length;
    }
  }
  return best;
}
