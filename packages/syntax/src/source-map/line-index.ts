import type { Position, SourceRange } from './types.js';

/** Offsets to lines and columns for one text; line breaks are `\n`, `\r\n` or a lone `\r`. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    if (!text.includes('\r')) {
      for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) this.starts.push(at + 1);
      return;
    }
    for (let i = 0; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      if (code === 10) this.starts.push(i + 1);
      else if (code === 13) {
        if (text.charCodeAt(i + 1) === 10) i += 1;
        this.starts.push(i + 1);
      }
    }
  }

  /** The position of `offset`, clamped into the text. */
  position(offset: number): Position {
    const at = Math.max(0, Math.min(Number.isFinite(offset) ? offset : 0, this.text.length));
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] ?? 0) <= at) low = middle;
      else high = middle - 1;
    }
    return { offset: at, line: low + 1, column: at - (this.starts[low] ?? 0) + 1 };
  }

  /** The range from `start` (inclusive) to `end` (exclusive). */
  range(start: number, end: number): SourceRange {
    return { start: this.position(start), end: this.position(Math.max(start, end)) };
  }
}
