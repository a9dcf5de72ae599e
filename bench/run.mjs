// `npm run bench [name...] [-- --rounds N --other options]`: runs the benchmarks of bench/ one after another (all when no name is given).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const all = readdirSync(dir).filter((name) => name.endsWith('.mjs') && name !== 'run.mjs').map((name) => name.replace(/\.mjs$/, ''));
// Names first; every option from the first `--name` on (`--rounds N`, a benchmark's own `--n 1000`) goes to
// each benchmark run.
const args = process.argv.slice(2);
const firstOption = args.findIndex((arg) => arg.startsWith('--'));
const forwarded = firstOption >= 0 ? args.splice(firstOption) : [];
const wanted = args;
const unknown = wanted.filter((name) => !all.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${all.join(', ')}`);
  process.exit(2);
}
let failed = false;
for (const name of wanted.length > 0 ? wanted : all) {
  console.log(`\n=== bench/${name}`);
  const run = spawnSync(process.execPath, [`${dir}${name}.mjs`, ...forwarded], { stdio: 'inherit' });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
