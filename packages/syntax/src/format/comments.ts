import type { IToken } from 'chevrotain';
import type { LineItem } from '../build/context.js';
import type { AttachedComments } from '../print/out.js';
import type { LineIndex } from '../source-map/line-index.js';

/** Where comments with no line after them go: printed at the end. */
export const END_OF_TEXT = '#end';

/**
 * Gives each comment to a line of the canonical layout: a comment at the end of a line belongs to
 * the innermost construct on that line (condition, group, action, clause) and stays at the end of
 * its first line; a comment on a line of its own belongs to the construct that starts after it and
 * is printed above it.
 */
export function attachComments(comments: readonly IToken[], tokens: readonly IToken[], items: readonly LineItem[], lines: LineIndex): Map<string, AttachedComments> {
  const attached = new Map<string, AttachedComments>();
  const add = (pointer: string, where: keyof AttachedComments, text: string) => {
    let entry = attached.get(pointer);
    if (entry === undefined) {
      entry = { leading: [], trailing: [] };
      attached.set(pointer, entry);
    }
    entry[where].push(text);
  };
  for (const comment of comments) {
    const text = comment.image.trimEnd();
    const offset = comment.startOffset;
    const previous = lastTokenBefore(tokens, offset);
    if (previous !== undefined && lines.position(previous.startOffset + previous.image.length).line === lines.position(offset).line) {
      const owner = innermost(items, previous.startOffset);
      if (owner !== undefined) {
        add(owner.pointer, 'trailing', text);
        continue;
      }
    }
    const next = items.filter((item) => item.start >= offset).sort((a, b) => a.start - b.start || b.end - a.end)[0];
    add(next?.pointer ?? END_OF_TEXT, 'leading', text);
  }
  return attached;
}

function lastTokenBefore(tokens: readonly IToken[], offset: number): IToken | undefined {
  let low = 0;
  let high = tokens.length - 1;
  let found: IToken | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const token = tokens[middle];
    if (token !== undefined && token.startOffset < offset) {
      found = token;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

function innermost(items: readonly LineItem[], offset: number): LineItem | undefined {
  let best: LineItem | undefined;
  for (const item of items) {
    if (offset < item.start || offset >= item.end) continue;
    if (best === undefined || item.end - item.start < best.end - best.start) best = item;
  }
  return best;
}
