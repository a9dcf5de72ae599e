import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeBlocks, ExampleFolder, lineCount, ROOT, runNode } from './support/doc-examples.js';

/**
 * docs/embedding.md walks through embedding the engine in a Node service. Every ```js block in it is
 * a complete program: each one runs here with `node`, as a reader would run it, against the built
 * packages (`npx tsc -b` first), so the guide cannot rot. The programs assert what they show
 * (node:assert/strict), use virtual time only, and import the packages by name, never deep paths.
 */

const GUIDE = 'docs/embedding.md';
const MAX_LINES = 40;
const RUNNABLE = new Set(['js', 'javascript', 'mjs']);
/** Code a reader might paste but this test could not run. */
const NOT_RUNNABLE = new Set(['ts', 'typescript', 'cjs', 'jsx', 'tsx']);
/** The packages the examples may use; they must be built. */
const PACKAGES = ['core', 'adapters'];

const guide = readFileSync(join(ROOT, GUIDE), 'utf8');
const blocks = codeBlocks(guide);
const programs = blocks.filter((block) => RUNNABLE.has(block.info.split(/\s+/)[0] ?? ''));
/** The numbered steps (`## 3. ...`): each must show at least one program. */
const steps = [...guide.matchAll(/^##\s+(\d+\.\s.*)$/gm)].map((match) => (match[1] ?? '').trim());

const where = (block: { line: number; heading: string }) => `${GUIDE}:${block.line} (${block.heading})`;

describe('docs/embedding.md', () => {
  it('has numbered steps, each with a program', () => {
    expect(steps.length).toBeGreaterThanOrEqual(9);
    for (const step of steps) expect(programs.some((block) => block.heading === step), `step "${step}" has no js block`).toBe(true);
  });

  it('has only code blocks that can run (js) or are not code (sh, json, text)', () => {
    const unrunnable = blocks.filter((block) => NOT_RUNNABLE.has(block.info.split(/\s+/)[0] ?? '')).map(where);
    expect(unrunnable, 'write these as ```js programs, or they are never checked').toEqual([]);
  });

  for (const block of programs) {
    it(`the program at ${where(block)} is short, asserts, uses the entry points and virtual time`, () => {
      expect(lineCount(block.body), `${lineCount(block.body)} lines`).toBeLessThanOrEqual(MAX_LINES);
      expect(block.body).toContain("from 'node:assert/strict'");
      expect(block.body).toMatch(/from '@eql\/core'/);
      expect(block.body, 'imports a deep path of a package').not.toMatch(/from '@eql\/[\w-]+\//);
      expect(block.body, 'waits for the wall clock').not.toMatch(/\bset(Timeout|Interval)\s*\(|timers\/promises/);
    });
  }
});

describe('docs/embedding.md programs run', () => {
  const folder = new ExampleFolder('embedding-guide');
  afterAll(() => folder.remove());

  for (const [index, block] of programs.entries()) {
    it.concurrent(`the program at ${where(block)} exits 0 and prints`, { timeout: 30_000 }, async () => {
      for (const name of PACKAGES) {
        expect(existsSync(join(ROOT, 'packages', name, 'dist')), `packages/${name}/dist is missing: run npx tsc -b first`).toBe(true);
      }
      const file = folder.write(`step-${String(index + 1).padStart(2, '0')}-line-${block.line}.mjs`, block.body);
      const run = await runNode(file, 25_000);
      expect(run.code, `node ${file} (${where(block)}) failed (signal ${run.signal ?? 'none'}):\n${run.stderr}`).toBe(0);
      expect(run.stdout.trim(), 'the program prints something').not.toBe('');
    });
  }
});
