import stringWidth from 'string-width';
import { terminalText } from './terminal-text.js';

/**
 * Rows as aligned lines: each cell escaped for the terminal, then padded to its column's width as a
 * terminal shows it (a wide character takes two columns, a combining mark none), two spaces between
 * columns, no trailing space.
 */
export function tableLines(rows: ReadonlyArray<readonly string[]>): string[] {
  const cells = rows.map((row) => row.map((cell) => terminalText(cell)));
  const widths: number[] = [];
  for (const row of cells) row.forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 0, stringWidth(cell))));
  return cells.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell + ' '.repeat((widths[column] ?? 0) - stringWidth(cell)))).join('  ').trimEnd());
}
