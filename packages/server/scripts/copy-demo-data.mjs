// Run by `npm pack` (prepack): copies the demo data the host runs on by default (the recorded market it
// replays, the seeded mentions dataset) from the repository's fixtures into the package's data/ folder,
// so an installed host finds them beside its code (src/config.ts looks there first). Each file is
// written in a folder the package leaves out (.data-partial/) and renamed into its place, so a pack
// running at the same time (two tests packing @eql/server at once) never reads a half-written file.
import { copyFileSync, mkdirSync, renameSync } from 'node:fs';

const fixtures = new URL('../../../fixtures/', import.meta.url);
const data = new URL('../data/', import.meta.url);
const partials = new URL('../.data-partial/', import.meta.url);
mkdirSync(data, { recursive: true });
mkdirSync(partials, { recursive: true });
for (const [from, to] of [
  ['recordings/market-3d.jsonl', 'market-3d.jsonl'],
  ['mentions/demo.jsonl', 'demo-mentions.jsonl'],
]) {
  const partial = new URL(`${to}.${process.pid}`, partials);
  copyFileSync(new URL(from, fixtures), partial);
  renameSync(partial, new URL(to, data));
}
