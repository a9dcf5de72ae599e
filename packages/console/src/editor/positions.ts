// LSP positions (line, UTF-16 character) and CodeMirror offsets: both count UTF-16 code units.
import type { Text } from '@codemirror/state';
import type { Position, Range } from 'vscode-languageserver-protocol/browser';

export function offsetOf(doc: Text, position: Position): number {
  const lineNumber = Math.min(Math.max(position.line + 1, 1), doc.lines);
  const line = doc.line(lineNumber);
  return Math.min(line.from + position.character, line.to);
}

export function positionOf(doc: Text, offset: number): Position {
  const line = doc.lineAt(Math.min(Math.max(offset, 0), doc.length));
  return { line: line.number - 1, character: offset - line.from };
}

export function rangeOf(doc: Text, from: number, to: number): Range {
  return { start: positionOf(doc, from), end: positionOf(doc, to) };
}
