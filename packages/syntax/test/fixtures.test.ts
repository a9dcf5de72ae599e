import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatText, parseText, printText } from '../src/index.js';

const root = fileURLToPath(new URL('../../../fixtures/syntax/', import.meta.url));
const cases = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

interface ExpectedError {
  message?: string;
  line: number;
  column: number;
}

function load(name: string): { input: string; expected: unknown } {
  const input = readFileSync(`${root}${name}/input.eql`, 'utf8');
  const expected = JSON.parse(readFileSync(`${root}${name}/expected.json`, 'utf8')) as unknown;
  return { input, expected };
}

function isErrorCase(expected: unknown): expected is { errors: ExpectedError[] } {
  return typeof expected === 'object' && expected !== null && 'errors' in expected && !('query' in expected);
}

describe('fixtures/syntax', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s', (name) => {
    const { input, expected } = load(name);
    const result = parseText(input);
    if (isErrorCase(expected)) {
      expect(result.value).toBeUndefined();
      const actual = result.errors.map((error) => ({ message: error.message, line: error.range.start.line, column: error.range.start.column }));
      expect(actual).toHaveLength(expected.errors.length);
      expected.errors.forEach((error, index) => {
        const got = actual[index];
        expect(got, `error ${index}`).toMatchObject({ line: error.line, column: error.column });
        if (error.message !== undefined) expect(got?.message).toContain(error.message);
      });
      expect(formatText(input).text).toBeUndefined();
      return;
    }
    expect(result.errors).toEqual([]);
    expect(result.value).toEqual(expected);
    // The canonical text reads back to the same request, and formatting is a fixed point.
    const printed = printText(result.value);
    expect(parseText(printed).value).toEqual(expected);
    const formatted = formatText(input).text;
    if (formatted === undefined) throw new Error('did not format');
    expect(parseText(formatted).value).toEqual(expected);
    expect(formatText(formatted).text).toBe(formatted);
  });
});
