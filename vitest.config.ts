import { defineConfig } from 'vitest/config';

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
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Bounds, not budgets: a test waits for events; these only stop one that hangs (generous, for a loaded machine).
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Most suites wait on
    // sockets, child processes, npm and databases rather than on the CPU, so three workers keep two
    // cores busy (npm test: 16 min with one worker, 10 with two).
    maxWorkers: 3,
  },
});
