import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SYNTAX_ERROR_TEXT, URIS } from './support/documents.js';
import { connectToProcess } from './support/lsp-client.js';

// The package's bin, as `npm test` builds it (tsc -b): `eql-language-server --stdio`.
const bin = fileURLToPath(new URL('../bin/eql-language-server.js', import.meta.url));

describe('eql-language-server', () => {
  it('prints its usage with --help and refuses to start without a transport', () => {
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: eql-language-server --stdio | --node-ipc');
    const none = spawnSync(process.execPath, [bin], { encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('usage:');
  });

  it('serves LSP over --stdio', async () => {
    const child = spawn(process.execPath, [bin, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const client = connectToProcess(child, 'stdio');
    try {
      await client.initialize();
      await client.open(URIS.syntax, 'eql', SYNTAX_ERROR_TEXT);
      const { diagnostics } = await client.diagnostics(URIS.syntax);
      expect(diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.range.start])).toEqual([['syntax', { line: 0, character: 14 }]]);
      await client.shutdown();
    } finally {
      client.dispose();
      child.kill();
    }
  });
});
