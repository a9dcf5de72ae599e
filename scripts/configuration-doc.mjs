// Writes docs/configuration.md from the host's table of settings (packages/server/src/settings/host-settings.ts).
// Run after `tsc -b` (it reads the built package): npm run docs:configuration. A test fails when the file differs.
import { writeFileSync } from 'node:fs';
import { configurationMarkdown } from '@eql/server';

const path = new URL('../docs/configuration.md', import.meta.url);
writeFileSync(path, configurationMarkdown());
console.log(`wrote ${path.pathname}`);
