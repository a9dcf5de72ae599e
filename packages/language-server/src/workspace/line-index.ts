import type { Position as SourcePosition, SourceRange } from '@eql/syntax';
import type { Position, Range } from 'vscode-languageserver-types';

/** Offsets to 1-based lines and columns (line breaks `\n`, `\r\n` or `\r`, as in `@eql/syntax`). */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      if (code === 10) this.starts.push(i + 1);
      else if (code === 13) {
        if (text.charCodeAt(i + 1) === 10) i += 1;
        this.starts.push(i + 1);
      }
    }
  }

  position(offset: number): SourcePosition {
    const at = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] ?? 0) <= at) low = middle;
      else high = middle - 1;
    }
    return { offset: at, line: low + 1, column: at - (this.starts[low] ?? 0) + 1 };
  }

  range(start: number, end: number): SourceRange {
    return { start: this.position(start), end: this.position(Math.max(start, end)) };
  }
}

/** A source range (1-based lines and columns) as an LSP range (0-based; both count UTF-16 units). */
export function lspRange(range: SourceRange): Range {
  return { start: lspPosition(range.start), end: lspPosition(range.end) };
}

export function lspPosition(position: SourcePosition): Position {
  return { line: position.line - 1, character: position.column - 1 };
}

/** Whether two LSP ranges share a position (touching counts). */
export function rangesTouch(a: Range, b: Range): boolean {
  return comparePositions(a.start, b.end) <= 0 && comparePositions(b.start, a.end) <= 0;
}

export function comparePositions(a: Position, b: Position): number {
  return a.line !== b.line ? a.line - b.line : a.character - b.character;
}
