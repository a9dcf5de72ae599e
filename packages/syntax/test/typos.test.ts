import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkDocument, loadDocument, parseText } from '../src/index.js';

/**
 * fixtures/typos/typos.json: one mistake per document (a misspelled keyword, an operator of another
 * language, a unit the language writes otherwise, ...), each with the one message, range and token
 * the parser must report: no cascade after it, and the rest of the document still read.
 */

interface Row {
  name: string;
  text: string;
  errors: Array<{ message: string; range: string; token: string }>;
}

/** A misspelled placeholder in a text: the text parses, the validator says it with a did-you-mean, and its quick fix gives `fixed`. */
interface PlaceholderRow {
  name: string;
  text: string;
  placeholder: { message: string; fixed: string };
}

const rows = JSON.parse(readFileSync(new URL('../../../fixtures/typos/typos.json', import.meta.url), 'utf8')) as Array<Row | PlaceholderRow>;
const table = rows.filter((row): row is Row => 'errors' in row);
const placeholderRows = rows.filter((row): row is PlaceholderRow => 'placeholder' in row);

const reported = (text: string) =>
  parseText(text).errors.map((error) => ({
    message: error.message,
    range: `${error.range.start.line}:${error.range.start.column}-${error.range.end.line}:${error.range.end.column}`,
    token: text.slice(error.range.start.offset, error.range.end.offset),
  }));

describe('fixtures/typos', () => {
  it('has at least 40 mistakes, each reported once', () => {
    expect(table.length).toBeGreaterThanOrEqual(40);
    for (const row of table) expect(row.errors, row.name).toHaveLength(1);
  });

  it.each(table.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    expect(reported(row.text)).toEqual(row.errors);
    // The rest of the document is read: the conditions and the action are in the partial request.
    const partial = parseText(row.text).partial as { query?: { conditions?: unknown; actions?: unknown[] }; expiresIn?: unknown } | undefined;
    expect(partial?.query?.conditions, row.name).toBeDefined();
    expect(partial?.query?.actions?.length ?? 0, row.name).toBeGreaterThan(0);
  });

  it('fixes each mistake its message can name the repair of: the fix applied, the document parses', () => {
    let fixed = 0;
    for (const row of table) {
      const [issue] = parseText(row.text).errors;
      if (issue?.fix === undefined) continue;
      const repaired = row.text.slice(0, issue.fix.range.start.offset) + issue.fix.text + row.text.slice(issue.fix.range.end.offset);
      expect(parseText(repaired).errors, `${row.name}: ${repaired}`).toEqual([]);
      fixed += 1;
    }
    expect(fixed).toBeGreaterThanOrEqual(40);
  });

  it('suggests only near words: a symbol or a name is never taken for a keyword', () => {
    const text = 'when price of BTC > 100000\nthen\n  notify "x" as a\n  notify "y" as on_time\n';
    expect(parseText(text).errors).toEqual([]);
    expect(reported('when price of BTC > 1\nthen\n  notify "x" as tell zzzz\n')[0]?.message).toBe("unexpected 'zzzz': expected another action, a clause (title, description, expires in, repeat after) or the end of the text");
  });

  it.each(placeholderRows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const document = loadDocument(row.text, 'text');
    expect(document.errors).toEqual([]);
    const [placed, ...more] = checkDocument(document, { now: Date.parse('2026-01-05T00:00:00Z') }).diagnostics;
    expect(more).toEqual([]);
    expect(placed?.diagnostic).toMatchObject({ code: 'unknown-placeholder', message: row.placeholder.message });
    // Placed on the string that holds it, and fixed by its quick fix.
    expect(row.text.slice(placed!.range!.start.offset, placed!.range!.end.offset)).toContain('{{');
    const [edit] = placed!.diagnostic.fix!.edits;
    const fixed = structuredClone(document.value) as Record<string, unknown>;
    const path = edit!.path.split('/').slice(1);
    const parent = path.slice(0, -1).reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, fixed);
    parent[path.at(-1)!] = (edit as { value: unknown }).value;
    expect(fixed).toEqual(parseText(row.placeholder.fixed).value);
  });

  it('keeps commas between numbers inside parentheses as separators', () => {
    const text = 'when price of BTC > 1\nthen\n  market buy $100 of BTC-PERP on paper (takeProfit {"levels": [1,200]}) as b\n';
    expect(reported(text).filter((error) => error.message.includes('separators'))).toEqual([]);
  });
});
