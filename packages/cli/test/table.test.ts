import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { tableLines } from '../src/table.js';

// Columns of `eql remote list` and `eql keys list`, aligned as a terminal shows them: by display width.

describe('tableLines', () => {
  it('aligns wide characters and combining marks by the columns a terminal gives them', () => {
    const lines = tableLines([
      ['ID', 'STATUS', 'TITLE'],
      ['q-1', 'active', 'BTC above 100k'],
      ['q-2', '进行中', 'ETH 突破'],
      ['q-3', 'cafe\u0301', 'emoji 🚀'],
    ]);
    expect(lines).toEqual(['ID   STATUS  TITLE', 'q-1  active  BTC above 100k', 'q-2  进行中  ETH 突破', 'q-3  cafe\u0301    emoji 🚀']);
    // The third column starts at the same terminal column on every line.
    const starts = lines.map((line) => stringWidth(line.slice(0, line.lastIndexOf(line.split('  ').at(-1) as string))));
    expect(new Set(starts).size).toBe(1);
  });

  it('escapes control characters before measuring (a title cannot move the cursor) and drops trailing spaces', () => {
    expect(tableLines([['a', 'x\u001b[2Jy'], ['bb', '']])).toEqual(['a   x\\u001b[2Jy', 'bb']);
  });

  it('starts every column at one display column on every line (property)', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'Z', '9', '中', '日', 'é', '-', '🚀'), maxLength: 8 });
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell, cell), { minLength: 1, maxLength: 6 }), (rows) => {
        const lines = tableLines(rows.map(([a, b, c]) => [a, b, `${c}!`]));
        const widths = [0, 1].map((column) => Math.max(...rows.map((row) => stringWidth(row[column] as string))));
        lines.forEach((line, index) => {
          const row = rows[index] as [string, string, string];
          const prefix = `${row[0]}${' '.repeat((widths[0] as number) - stringWidth(row[0]))}  ${row[1]}${' '.repeat((widths[1] as number) - stringWidth(row[1]))}  `;
          expect(line).toBe(`${prefix}${row[2]}!`);
        });
      }),
    );
  });
});
