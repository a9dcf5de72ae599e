import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every package has a README with one runnable example (a ```js example block): each example runs
 * here with `node`, as a user would run it, against the built packages (`npx tsc -b` first), so the
 * docs cannot rot. The examples are written inside the repository (bare `@eql/*` imports resolve from
 * the file's location) to a gitignored folder that is removed afterwards.
 */

const ROOT = new URL('..', import.meta.url).pathname;
const EXAMPLES_DIR = join(ROOT, 'test', '.readme-examples');
const MAX_EXAMPLE_LINES = 30;
/** Packages without a runnable example: the VS Code extension runs only inside the editor. */
const WITHOUT_EXAMPLE = new Set(['vscode']);
const EXAMPLE_BLOCK = /^```js example\n([\s\S]*?)^```[ \t]*$/gm;

const packages = readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'packages', entry.name, 'package.json')))
  .map((entry) => entry.name)
  .sort();

function readmeOf(name: string): string | undefined {
  const path = join(ROOT, 'packages', name, 'README.md');
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** The bodies of the ```js example blocks of a README. */
function examplesOf(readme: string): string[] {
  return [...readme.matchAll(EXAMPLE_BLOCK)].map((match) => match[1] ?? '');
}

function lineCount(body: string): number {
  return body.replace(/\n$/, '').split('\n').length;
}

interface Run {
  code: number | string | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Runs a file with this Node from the repository root; never rejects. */
function runNode(file: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd: ROOT, timeout: 90_000, maxBuffer: 4 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const failure = error as (Error & { code?: number | string; signal?: string | null }) | null;
      resolve({ code: failure ? (failure.code ?? 1) : 0, signal: failure?.signal ?? null, stdout, stderr: failure && !stderr ? failure.message : stderr });
    });
  });
}

const examples = packages.flatMap((name) => examplesOf(readmeOf(name) ?? '').map((body, index) => ({ name, index, body })));

describe('package READMEs', () => {
  it('lists the packages', () => {
    expect(packages.length).toBeGreaterThan(0);
    expect(packages).toContain('core');
  });

  for (const name of packages) {
    it(`packages/${name} has a README`, () => {
      expect(readmeOf(name), `packages/${name}/README.md is missing`).toBeDefined();
    });
  }

  for (const name of packages.filter((candidate) => !WITHOUT_EXAMPLE.has(candidate))) {
    it(`packages/${name}/README.md has exactly one js example block of at most ${MAX_EXAMPLE_LINES} lines`, () => {
      const blocks = examplesOf(readmeOf(name) ?? '');
      expect(blocks, 'one ```js example block').toHaveLength(1);
      const lines = lineCount(blocks[0] ?? '');
      expect(lines, `the example has ${lines} lines`).toBeLessThanOrEqual(MAX_EXAMPLE_LINES);
      expect(blocks[0], 'the example imports its package by name').toContain(`from '@eql/${name}'`);
    });
  }
});

describe('README examples run', () => {
  beforeAll(() => {
    mkdirSync(EXAMPLES_DIR, { recursive: true });
  });
  afterAll(() => {
    rmSync(EXAMPLES_DIR, { recursive: true, force: true });
  });

  for (const { name, index, body } of examples) {
    it(`the example of packages/${name}/README.md${index === 0 ? '' : ` (block ${index + 1})`} exits 0 and prints`, { timeout: 120_000 }, async () => {
      const built = join(ROOT, 'packages', name, 'dist');
      expect(existsSync(built), `packages/${name}/dist is missing: run npx tsc -b first`).toBe(true);
      const file = join(EXAMPLES_DIR, `${name}${index === 0 ? '' : `-${index}`}.mjs`);
      writeFileSync(file, body);
      try {
        const run = await runNode(file);
        expect(run.code, `node ${file} failed (signal ${run.signal ?? 'none'}):\n${run.stderr}`).toBe(0);
        expect(run.stdout.trim(), 'the example prints something').not.toBe('');
      } finally {
        rmSync(file, { force: true });
      }
    });
  }
});
