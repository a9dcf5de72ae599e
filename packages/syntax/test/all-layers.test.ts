import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkDocument, loadDocument } from '../src/index.js';

/**
 * Every layer at once: with a syntax mistake in one line, the validator's findings elsewhere are still
 * reported (`checkDocument` on the request read around the mistake). The law: fixing the mistake never
 * reveals an error on a line that was reported clean.
 */

/** Lines of a query, each clean or with a finding of the validator (not a syntax error). */
const CONDITIONS = [
  '  price of BTC > 100000',
  '  price of ETH crosses above 4000',
  '  llm athena_condition "Is the market bullish?" every 30m',
  '  rsi of SOL (period 14) < 30',
  '  news about "ETF approval"',
  '  change of BTC over 24h < -5',
];
const ACTIONS = ['  notify "BTC is up" as tell', '  notify "again" as tell', '  webhook "http://127.0.0.1/hook" as hook', '  notify "ok" as other'];
const EXPIRES = ['expires in 24h', 'expires in 400d'];

/** Ways to break a line with one syntax mistake; undefined when the mistake does not apply to it. */
const MISTAKES: Array<(line: string) => string | undefined> = [
  (line) => (line.includes(' of ') ? line.replace(' of ', ' off ') : undefined),
  (line) => (line.includes(' > ') ? line.replace(' > ', ' => ') : undefined),
  (line) => (line.includes('100000') ? line.replace('100000', '100k') : undefined),
  (line) => (line.trimStart().startsWith('notify') ? line.replace('notify', 'notfy') : undefined),
  (line) => (line.includes('"') && line.trimStart().startsWith('notify') ? line.replace(/"([^"]*)"/, "'$1'") : undefined),
  (line) => (line.startsWith('expires in 24h') ? 'expires in 24 hours' : undefined),
  (line) => (line.trimStart().startsWith('price') ? `${line} and price of ETH > 1` : undefined),
  (line) => (line.includes('every 30m') ? line.replace('every 30m', 'evry 30m') : undefined),
];

/** Lines (1-based) that have something reported: a syntax error or a finding of the validator. */
function reportedLines(text: string): { lines: Set<number>; findings: Array<{ line: number; code: string }> } {
  const document = loadDocument(text, 'text');
  const lines = new Set<number>();
  for (const error of document.errors) for (let line = error.range.start.line; line <= error.range.end.line; line += 1) lines.add(line);
  const findings = checkDocument(document, { now: Date.UTC(2026, 0, 1) }).diagnostics.flatMap(({ diagnostic, range }) => (range ? [{ line: range.start.line, code: diagnostic.code }] : []));
  for (const { line } of findings) lines.add(line);
  return { lines, findings };
}

const documents = fc.record({
  conditions: fc.uniqueArray(fc.constantFrom(...CONDITIONS), { minLength: 1, maxLength: 4 }),
  actions: fc.uniqueArray(fc.constantFrom(...ACTIONS), { minLength: 1, maxLength: 3 }),
  expires: fc.constantFrom(...EXPIRES),
  mistake: fc.nat(),
  where: fc.nat(),
});

describe('every layer at once', () => {
  it('reports the findings of other lines beside a syntax error', () => {
    const text = 'title "t"\nwhen all of\n  price off BTC > 100000\n  llm athena_condition "x?" every 30m\nthen\n  notify "a" as n\n  notify "b" as n\nexpires in 24h\n';
    const { findings } = reportedLines(text);
    expect(loadDocument(text, 'text').errors.map((error) => error.range.start.line)).toEqual([3]);
    expect(findings).toEqual(expect.arrayContaining([{ line: 4, code: 'llm-period-too-short' }, { line: 7, code: 'duplicate-step-id' }]));
  });

  it('never reveals, once a syntax mistake is fixed, an error on a line reported clean', () => {
    fc.assert(
      fc.property(documents, ({ conditions, actions, expires, mistake, where }) => {
        const lines = ['title "BTC watch"', 'when all of', ...conditions, 'then', ...actions, expires];
        const candidates = lines.flatMap((line, index) => MISTAKES.flatMap((breaks) => (breaks(line) === undefined ? [] : [{ index, broken: breaks(line) as string }])));
        fc.pre(candidates.length > 0);
        const chosen = candidates[(mistake + where) % candidates.length]!;
        const fixed = `${lines.join('\n')}\n`;
        const brokenLines = [...lines];
        brokenLines[chosen.index] = chosen.broken;
        const broken = `${brokenLines.join('\n')}\n`;
        expect(loadDocument(fixed, 'text').errors).toEqual([]);
        expect(loadDocument(broken, 'text').errors.length).toBeGreaterThan(0);
        const before = reportedLines(broken);
        const after = reportedLines(fixed);
        const revealed = after.findings.filter(({ line }) => !before.lines.has(line));
        expect(revealed, broken).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
