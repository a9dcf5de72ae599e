import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_CODES, type ErrorCode } from '../src/http/errors.js';

// One catalogue of the host's error codes (http/error-codes.ts): ApiError takes its status from it, and
// docs/http-api.md's table of statuses and codes says the same, code for code.

/** The codes of each status row of the docs' table: backticked snake_case words outside parentheses. */
function documented(): Map<number, Set<string>> {
  const text = readFileSync(new URL('../../../docs/http-api.md', import.meta.url), 'utf8');
  const rows = new Map<number, Set<string>>();
  for (const line of text.split('\n')) {
    const row = /^\| (\d{3}) \| (.*) \|$/.exec(line);
    if (!row) continue;
    // Words in parentheses explain a code (`details.limit`, `paper`): only what is outside names codes.
    let outside = row[2] as string;
    for (let before = ''; before !== outside; ) {
      before = outside;
      outside = outside.replace(/\([^()]*\)/g, '');
    }
    const status = Number(row[1]);
    // The 402 row names the payment model's own codes inside its parentheses.
    const source = status === 402 ? (row[2] as string) : outside;
    rows.set(status, new Set([...source.matchAll(/`([a-z][a-z0-9_]*)`/g)].map((match) => match[1] as string)));
  }
  return rows;
}

describe('the catalogue of error codes', () => {
  it('agrees with docs/http-api.md: every code in the row of its status, every code of a row in the catalogue', () => {
    const rows = documented();
    expect([...rows.keys()].length).toBeGreaterThan(10);
    for (const [code, status] of Object.entries(ERROR_CODES)) expect(rows.get(status)?.has(code), `${code} (${status}) is not in the docs' ${status} row`).toBe(true);
    for (const [status, codes] of rows) {
      if (status === 402) continue;
      for (const code of codes) expect(ERROR_CODES[code as ErrorCode], `${code} of the docs' ${status} row`).toBe(status);
    }
  });

  it('gives every ApiError the status of its code', () => {
    for (const [code, status] of Object.entries(ERROR_CODES)) expect(new ApiError(code as ErrorCode, 'm').statusCode).toBe(status);
  });
});
