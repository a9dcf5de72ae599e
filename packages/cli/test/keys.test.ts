import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '@eql/server';
import { main, type CliIo } from '../src/index.js';

// `eql keys list | revoke | rotate` on a host's data directory, checked by a host opened on it afterwards:
// a revoked key is refused, a rotated key answers under its new value only, with the same id.

const dir = mkdtempSync(join(tmpdir(), 'eql-cli-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function eql(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), readStdin: () => Promise.resolve(''), readFile: () => Promise.reject(new Error('none')), color: false };
  const code = await main([...argv, '--data-dir', dir], io);
  return { code, stdout, stderr };
}

describe('eql keys', () => {
  it('lists the keys without their values or secrets, revokes one, rotates another (same id, new value, optionally a new HMAC secret)', { timeout: 60_000 }, async () => {
    const alpha = JSON.parse((await eql(['keys', 'create', '--name', 'alpha', '--plan', 'pro', '--json'])).stdout) as { id: number; apiKey: string; hmacSecret: string };
    const beta = JSON.parse((await eql(['keys', 'create', '--name', 'beta', '--json'])).stdout) as { id: number; apiKey: string; hmacSecret: string };
    const listed = await eql(['keys', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+KEY\s+PLAN\s+STATUS\s+SCOPES\s+CREATED$/);
    expect(listed.stdout).toContain(`${alpha.apiKey.slice(0, 8)}…`);
    for (const secret of [alpha.apiKey, alpha.hmacSecret, beta.apiKey, beta.hmacSecret]) expect(listed.stdout).not.toContain(secret);
    const asJson = JSON.parse((await eql(['keys', 'list', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(asJson.map((key) => [key.id, key.name, key.plan, key.status])).toEqual([
      [alpha.id, 'alpha', 'pro', 'active'],
      [beta.id, 'beta', 'free', 'active'],
    ]);

    expect((await eql(['keys', 'revoke', '--id', String(beta.id)])).code).toBe(0);
    const rotated = JSON.parse((await eql(['keys', 'rotate', '--id', String(alpha.id), '--hmac-secret', '--json'])).stdout) as { id: number; apiKey: string; hmacSecret: string };
    expect(rotated.id).toBe(alpha.id);
    expect(rotated.apiKey).not.toBe(alpha.apiKey);
    expect(rotated.hmacSecret).not.toBe(alpha.hmacSecret);
    expect((await eql(['keys', 'revoke', '--id', '99'])).stderr).toContain('there is no key 99');

    // A host on that data directory.
    const host = await buildServer({ config: { dataDir: dir, marketSeed: false }, logger: false });
    try {
      const status = (key: string) => host.app.inject({ method: 'GET', url: '/v2/key-status', headers: { 'x-svc-api-key': key } });
      expect((await status(beta.apiKey)).statusCode).toBe(401);
      expect((await status(alpha.apiKey)).statusCode).toBe(401);
      const fresh = await status(rotated.apiKey);
      expect(fresh.statusCode).toBe(200);
      expect(fresh.json<{ data: { id: number } }>().data.id).toBe(alpha.id);
    } finally {
      await host.close();
    }
  });

  it('refuses another secret key than the one that sealed the keys of the data directory, in one line', async () => {
    const before = await eql(['keys', 'create', '--name', 'sealed', '--json']);
    expect(before.code).toBe(0);
    const previous = process.env.EQL_SECRET_KEY;
    process.env.EQL_SECRET_KEY = randomBytes(32).toString('hex');
    try {
      const refused = await eql(['keys', 'create', '--name', 'other']);
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^eql: EQL_SECRET_KEY does not open the secrets stored in this database/) as string]);
    } finally {
      if (previous === undefined) delete process.env.EQL_SECRET_KEY;
      else process.env.EQL_SECRET_KEY = previous;
    }
    const listed = JSON.parse((await eql(['keys', 'list', '--json'])).stdout) as Array<{ name: string }>;
    expect(listed.map((key) => key.name)).not.toContain('other');
  });
});

