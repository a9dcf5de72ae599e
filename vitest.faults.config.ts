import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults` (issue 46): the fault scenarios of `packages/server/test/faults/`, real hosts on a
 * PostgreSQL and a nats-server of their own, killed, paused and cut. Their files end in `.fault.ts`, so
 * the main suite (`*.test.ts`) never runs them; one file at a time, each scenario bounded by its waits.
 */
export default defineConfig({
  resolve: { conditions: ['@eql/source'] },
  ssr: { resolve: { conditions: ['@eql/source'] } },
  test: {
    include: ['packages/server/test/faults/**/*.fault.ts'],
    // The same summary lines as `npm test` (`.ci/run` adds the two runs' counts).
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 600_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
