import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../vscode/scripts/build.mjs';
import { BAD_JSON, BAD_TEXT, URIS } from './support/documents.js';
import { connectToProcess, rangeOf, type TestClient } from './support/lsp-client.js';

// The server as editors run it: bundled by the extension's build (esbuild), started as a child
// process, spoken to over its stdio (any LSP client) and over node IPC (the VS Code extension).
let directory: string;
let server: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'eql-server-bundle-'));
  server = await buildServer({ outdir: directory });
}, 60_000);
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function codesAndRanges(params: PublishDiagnosticsParams): Array<[string, Diagnostic['range']]> {
  return params.diagnostics.map((diagnostic) => [String(diagnostic.code), diagnostic.range]);
}

async function exercise(child: ChildProcess, client: TestClient): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const initialized = await client.initialize();
  expect(initialized.serverInfo?.name).toBe('eql-language-server');
  await client.open(URIS.badText, 'eql', BAD_TEXT);
  await client.open(URIS.badJson, 'json', BAD_JSON);
  const text = await client.diagnostics(URIS.badText);
  const json = await client.diagnostics(URIS.badJson);
  expect(codesAndRanges(text)).toEqual([
    ['username-at', rangeOf(BAD_TEXT, '"@elonmusk"')],
    ['llm-period-too-short', rangeOf(BAD_TEXT, '30m')],
  ]);
  expect(codesAndRanges(json)).toEqual([
    ['username-at', rangeOf(BAD_JSON, '"@elonmusk"')],
    ['llm-period-too-short', rangeOf(BAD_JSON, '"30m"')],
  ]);
  await client.shutdown();
  await client.connection.sendNotification('exit');
  return exited;
}

describe('the bundled server (node dist/server.js)', () => {
  it('gives diagnostics for a bad .eql and a bad .eql.json over --stdio', async () => {
    const child = spawn(process.execPath, [server, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const client = connectToProcess(child, 'stdio');
    try {
      expect(await exercise(child, client)).toBe(0);
    } finally {
      client.dispose();
      child.kill();
    }
  });

  it('gives the same diagnostics over --node-ipc', async () => {
    const child = spawn(process.execPath, [server, '--node-ipc'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const client = connectToProcess(child, 'ipc');
    try {
      expect(await exercise(child, client)).toBe(0);
    } finally {
      client.dispose();
      child.kill();
    }
  });
});
