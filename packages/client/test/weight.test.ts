import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The client's weight for a caller of the API-key routes: bundled (esbuild, minified, code split as a web
// app's bundler does), its entry holds neither the x402 client nor zod; they come in a chunk of their own,
// loaded on the first paid request. The built dist is bundled (`npx tsc -b` first); @eql/core is the
// caller's either way, so it stays outside.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'eql-client-weight-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the client bundled for a browser', () => {
  it('keeps x402 and zod out of its entry: under 35 KB minified', { timeout: 60_000 }, () => {
    execFileSync(
      join(ROOT, 'node_modules', '.bin', 'esbuild'),
      [join(ROOT, 'packages/client/dist/index.js'), '--bundle', '--minify', '--format=esm', '--platform=neutral', '--main-fields=module,main', '--conditions=import', `--outdir=${out}`, '--splitting', '--external:@eql/core', '--log-level=error'],
      { stdio: 'pipe' },
    );
    const entry = readFileSync(join(out, 'index.js'), 'utf8');
    const size = statSync(join(out, 'index.js')).size;
    console.log(`@eql/client entry: ${(size / 1024).toFixed(1)} KB minified; chunks: ${readdirSync(out).filter((name) => name !== 'index.js').map((name) => `${name} ${(statSync(join(out, name)).size / 1024).toFixed(1)} KB`).join(', ')}`);
    expect(size).toBeLessThan(35 * 1024);
    // zod is in the chunk the entry imports on the first paid request, not in the entry.
    expect(entry.includes('ZodError'), 'zod is in the entry').toBe(false);
    const chunks = readdirSync(out).filter((name) => name !== 'index.js').map((name) => readFileSync(join(out, name), 'utf8')).join('\n');
    expect(chunks.includes('ZodError'), 'zod is in no chunk: is x402 bundled at all?').toBe(true);
  });
});
