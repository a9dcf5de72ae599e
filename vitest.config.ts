import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const include = ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'];
/** The repository's root (the test paths are relative to it, wherever vitest is started from). */
const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * The test files that replace a module (`vi.mock`, `vi.doMock`): each of them needs a module registry of
 * its own, so they run isolated, a fresh worker each. Found by reading the files, so a new one is never
 * forgotten in a list.
 */
function filesThatMockModules(): string[] {
  const roots = ['test', ...readdirSync(join(ROOT, 'packages')).map((name) => join('packages', name, 'test'))];
  const found: string[] = [];
  for (const root of roots) {
    let entries: string[];
    try {
      entries = readdirSync(join(ROOT, root), { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(root, entry);
      if (path.endsWith('.test.ts') && /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(join(ROOT, path), 'utf8'))) found.push(path);
    }
  }
  return found;
}

const mocking = filesThatMockModules();

export default defineConfig({
  resolve: {
    // Workspace packages resolve to their TypeScript sources in tests (see "@eql/source" in their exports).
    conditions: ['@eql/source'],
  },
  ssr: {
    resolve: {
      conditions: ['@eql/source'],
    },
  },
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Bounds, not budgets: a test waits for events; these only stop one that hangs (generous, for a loaded machine).
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Most suites wait on
    // sockets, child processes, npm and databases rather than on the CPU, so three workers keep two
    // cores busy (npm test: 16 min with one worker, 10 with two).
    maxWorkers: 3,
    projects: [
      {
        // A worker runs its test files one after another in one module registry: the packages' sources are
        // loaded and compiled once a worker, not once a file (a fresh worker a file spent 430 s of worker
        // time importing them, about a third of the run). A file must leave no global state behind: spies
        // restored, timers real, process.env as it found it (the setup file checks what it can after each file).
        extends: true,
        test: { name: 'shared', isolate: false, include, exclude: [...configDefaults.exclude, ...mocking], setupFiles: ['./test/support/no-state-left-behind.ts'] },
      },
      ...(mocking.length === 0 ? [] : [{ extends: true as const, test: { name: 'isolated', isolate: true, include: mocking } }]),
    ],
  },
});
