// Two builds of @eql/core, each in fresh processes of the engine benchmark's own worker, in alternating
// pairs: for a change whose effect lies in the collector. compare-builds.mjs runs both builds in one heap,
// where each build's collections copy the other's objects too, so a change in what a query or a fire
// leaves alive shows on both sides there; here each build has its heap to itself, as in `npm run bench`.
//
//   cp -r packages/core/dist packages/core/dist-base     # before the change (git-ignored)
//   ... change, npx tsc -b ...
//   node bench/support/compare-processes.mjs idle|firing [--size 100000] [--pairs 8]
//
// A pair runs `node --expose-gc bench/engine.mjs --worker eql SIZE WORKLOAD` once on each build (the base
// through `--import ./bench/support/base-build.mjs`), the order alternating from pair to pair; the verdict is
// the median of the pairs' ratios of ticks/s (and of ticks per CPU-second), with its quartiles. Processes
// differ by about ±10 % from one another here, so a verdict needs several pairs (a build against itself:
// see docs/performance.md, "Seventeenth round").
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WORKLOADS = ['idle', 'firing'];
const workload = process.argv[2];
if (!WORKLOADS.includes(workload)) {
  console.error(`usage: node bench/support/compare-processes.mjs ${WORKLOADS.join('|')} [--size N] [--pairs P]`);
  process.exit(2);
}
const option = (name, fallback) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const SIZE = option('--size', 100_000);
const PAIRS = option('--pairs', 8);
if (!Number.isInteger(SIZE) || SIZE < 1 || !Number.isInteger(PAIRS) || PAIRS < 1) throw new Error('--size and --pairs take whole numbers of at least 1');
if (!existsSync(fileURLToPath(new URL('../../packages/core/dist-base/index.js', import.meta.url)))) {
  console.error('no packages/core/dist-base: copy packages/core/dist there before the change');
  process.exit(2);
}
const ENGINE_BENCH = fileURLToPath(new URL('../engine.mjs', import.meta.url));
const BASE_BUILD = fileURLToPath(new URL('./base-build.mjs', import.meta.url));

/** One run of the engine benchmark's worker on a build: its measured window. */
function runWorker(build) {
  const args = ['--expose-gc', ...(build === 'base' ? ['--import', BASE_BUILD] : []), ENGINE_BENCH, '--worker', 'eql', String(SIZE), workload];
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (child.status !== 0) throw new Error(`the ${build} worker exited with ${child.status}`);
  const result = JSON.parse(child.stdout.trim().split('\n').pop());
  return { ticksPerSecond: result.ticksPerSecond, ticksPerCpuSecond: result.ticksPerCpuSecond, gcShare: result.measured.gcMs / result.measured.ms, fires: result.measured.fires };
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const fmt = (value, digits = 3) => value.toFixed(digits);

console.log(`${workload} ${SIZE} queries, ${PAIRS} pairs of fresh processes (current / base)`);
const pairs = [];
for (let pair = 0; pair < PAIRS; pair += 1) {
  const runs = {};
  for (const build of pair % 2 === 0 ? ['base', 'current'] : ['current', 'base']) runs[build] = runWorker(build);
  // Both builds must fire the same queries: the same workload, the same semantics.
  if (runs.base.fires !== runs.current.fires) throw new Error(`the builds fired ${runs.base.fires} and ${runs.current.fires} queries in the window: not the same work`);
  const ratio = runs.current.ticksPerSecond / runs.base.ticksPerSecond;
  const cpuRatio = runs.current.ticksPerCpuSecond / runs.base.ticksPerCpuSecond;
  pairs.push({ ratio, cpuRatio, ...runs });
  console.log(
    `  pair ${String(pair + 1).padStart(2)}: base ${Math.round(runs.base.ticksPerSecond)} ticks/s (GC ${fmt(100 * runs.base.gcShare, 1)} %), current ${Math.round(runs.current.ticksPerSecond)} (GC ${fmt(100 * runs.current.gcShare, 1)} %): ${fmt(ratio)}`,
  );
}
const ratios = pairs.map((pair) => pair.ratio);
const cpuRatios = pairs.map((pair) => pair.cpuRatio);
console.log(`speed current / base: ${fmt(quantile(ratios, 0.5))} (quartiles ${fmt(quantile(ratios, 0.25))} to ${fmt(quantile(ratios, 0.75))}); per CPU-second ${fmt(quantile(cpuRatios, 0.5))}`);
console.log(`GC share of the window, medians: base ${fmt(100 * quantile(pairs.map((pair) => pair.base.gcShare), 0.5), 1)} %, current ${fmt(100 * quantile(pairs.map((pair) => pair.current.gcShare), 0.5), 1)} %`);
