#!/usr/bin/env node
// Writes schemas/openapi.json: the OpenAPI 3.1 document of the HTTP host, as `GET /openapi.json`
// serves it (the route schemas through @fastify/swagger, with the EQL schema of schemas/eql.schema.json
// in components; see packages/server/src/openapi.ts). Builds the host from packages/server/dist, so
// run `tsc -b` first (`npm run openapi` does not build).
// `node scripts/openapi.mjs --check` exits 1 when the committed file differs from what it would write.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const target = `${root}schemas/openapi.json`;

/**
 * The document's text: 2-space JSON and a final newline. The key order is the document's own, fixed by
 * `openApiDocument` (paths, methods, statuses and components sorted).
 * @param {unknown} doc
 * @returns {string}
 */
export function render(doc) {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * Builds a host with nothing running (a throwaway data directory, no feed) and reads `GET /openapi.json`.
 * @param {(options: Record<string, unknown>) => Promise<{ app: { inject: (request: { method: 'GET'; url: string }) => Promise<{ statusCode: number; body: string }> }; close: () => Promise<void> }>} buildServer
 *   `buildServer` of @eql/server (dist for the script, src for the drift test)
 * @returns {Promise<string>}
 */
export async function generate(buildServer) {
  const dataDir = await mkdtemp(join(tmpdir(), 'eql-openapi-'));
  try {
    const host = await buildServer({ config: { dataDir, secretKey: '0'.repeat(64), marketSeed: false, x402: { payTo: '0x0000000000000000000000000000000000000001', agentSecrets: [] } }, logger: false, engine: { sources: [] } });
    try {
      const response = await host.app.inject({ method: 'GET', url: '/openapi.json' });
      if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
      return render(JSON.parse(response.body));
    } finally {
      await host.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const check = process.argv.includes('--check');
  const { buildServer } = await import('../packages/server/dist/index.js');
  const text = await generate(buildServer);
  if (check) {
    const current = await readFile(target, 'utf8').catch(() => '');
    if (current !== text) {
      console.error(`drift: ${target} is out of date; run \`npm run build && npm run openapi\``);
      process.exitCode = 1;
      return;
    }
    console.log(`${target} is up to date`);
    return;
  }
  await writeFile(target, text);
  console.log(`wrote ${target}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
