// `npm run fuzz`: the no-500 properties of the host at volume. Every property of
// packages/server/test/no-500*.test.ts (each a family of routes: Auto API POST bodies, text bodies,
// content types, GET parameters, DELETEs, arbitrary paths, malformed escapes, data routes, payment
// routes) tries EQL_FUZZ_RUNS generated requests (default here 10,000; `npm test` runs a few hundred).
// Any response >= 500 fails with the request that caused it (fast-check shrinks it and prints its seed).
import { spawnSync } from 'node:child_process';

const runs = process.env.EQL_FUZZ_RUNS ?? '10000';
const files = ['packages/server/test/no-500.test.ts', 'packages/server/test/no-500-market.test.ts'];
console.log(`fuzzing the host: ${runs} requests per route family`);
const result = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...files, '--testTimeout', '0', '--hookTimeout', '0'], {
  stdio: 'inherit',
  env: { ...process.env, EQL_FUZZ_RUNS: runs },
});
process.exit(result.status ?? 1);
