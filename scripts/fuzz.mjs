// `npm run fuzz`: the no-500 properties of the host at volume, and the market bus under random messages.
// Every property of packages/server/test/no-500*.test.ts (each a family of routes: Auto API POST bodies,
// text bodies, content types, GET parameters, DELETEs, arbitrary paths, malformed escapes, data routes,
// payment routes) tries EQL_FUZZ_RUNS generated requests (default here 10,000; `npm test` runs a few
// hundred). Any response >= 500 fails with the request that caused it (fast-check shrinks it and prints
// its seed). The bus family (packages/server/test/bus-fuzz.test.ts, needing PostgreSQL and NATS
// JetStream) publishes EQL_FUZZ_RUNS random observations, valid and malformed, to two `eql serve`
// processes: none may exit, every valid one must be judged and every malformed one counted (a failure
// prints its EQL_FUZZ_SEED). Run one family alone by naming its file: `npm run fuzz -- bus-fuzz`.
import { spawnSync } from 'node:child_process';

const runs = process.env.EQL_FUZZ_RUNS ?? '10000';
const families = ['packages/server/test/no-500.test.ts', 'packages/server/test/no-500-market.test.ts', 'packages/server/test/bus-fuzz.test.ts'];
const chosen = process.argv.slice(2);
const files = chosen.length === 0 ? families : families.filter((file) => chosen.some((name) => file.includes(name)));
if (files.length === 0) {
  console.error(`no fuzz family matches ${chosen.join(', ')} (${families.join(', ')})`);
  process.exit(2);
}
console.log(`fuzzing the host: ${runs} requests per route family, ${runs} messages on the bus`);
const result = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...files, '--testTimeout', '0', '--hookTimeout', '0'], {
  stdio: 'inherit',
  env: { ...process.env, EQL_FUZZ_RUNS: runs },
});
process.exit(result.status ?? 1);
