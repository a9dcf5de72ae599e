import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { adminQuery, describeWithPostgres, freshSchema, type TestSchema } from '../../server/test/support/postgres.js';

// `eql keys` on the store of a cluster: with EQL_DATABASE_URL the key goes to PostgreSQL, where every
// host of the database finds it; the URL's password is never printed.

const BIN = fileURLToPath(new URL('../bin/eql.js', import.meta.url));
const SECRET_KEY = '11'.repeat(32);
const dir = mkdtempSync(join(tmpdir(), 'eql-cli-keys-pg-'));
const schemas: TestSchema[] = [];
afterAll(async () => {
  for (const schema of schemas) await schema.drop();
  rmSync(dir, { recursive: true, force: true });
});

function eql(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_OPTIONS' && !key.startsWith('EQL_')));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...base, EQL_DATA_DIR: join(dir, 'data'), ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

await describeWithPostgres('eql keys on PostgreSQL', () => {
  it('creates a key in the database of EQL_DATABASE_URL and rotates its webhook secret there, never printing the password', { timeout: 60_000 }, async () => {
    const schema = await freshSchema('cli_keys');
    schemas.push(schema);
    const url = new URL(schema.url);
    url.password = 'canary-cli-password';
    const env = { EQL_DATABASE_URL: url.toString(), EQL_SECRET_KEY: SECRET_KEY };
    const created = await eql(['keys', 'create', '--name', 'cluster-ops', '--plan', 'free'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/created key 1 "cluster-ops" \(plan free\) in PostgreSQL at postgres:\/\/postgres:\*\*\*@/);
    const rows = await adminQuery<{ id: string; name: string; plan: string }>(`SELECT id, name, plan FROM ${schema.name}.api_keys`);
    expect(rows).toEqual([{ id: '1', name: 'cluster-ops', plan: 'free' }]);
    const rotated = await eql(['keys', 'rotate-webhook-secret', '--id', '1', '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const rotatedJson = JSON.parse(rotated.stdout) as { id: number; webhookSecret: unknown };
    expect(rotatedJson.id).toBe(1);
    expect(typeof rotatedJson.webhookSecret).toBe('string');
    expect(created.stdout + created.stderr + rotated.stdout + rotated.stderr).not.toContain('canary-cli-password');
  });
});
