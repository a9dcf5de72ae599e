// Run by `npm pack` (prepack): copies the demo data the host runs on by default (the recorded market it
// replays, the seeded mentions dataset) from the repository's fixtures into the package's data/ folder,
// so an installed host finds them beside its code (src/config.ts looks there first).
import { copyFileSync, mkdirSync } from 'node:fs';

const fixtures = new URL('../../../fixtures/', import.meta.url);
const data = new URL('../data/', import.meta.url);
mkdirSync(data, { recursive: true });
for (const [from, to] of [
  ['recordings/market-3d.jsonl', 'market-3d.jsonl'],
  ['mentions/demo.jsonl', 'demo-mentions.jsonl'],
]) {
  copyFileSync(new URL(from, fixtures), new URL(to, data));
}
