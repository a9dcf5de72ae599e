import type { Position as SourcePosition, SourceRange } from '@eql/syntax';

import type { Position, Range } from 'vscode-languageserver-types';

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
