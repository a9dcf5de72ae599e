import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { killChildren, serveChild } from '../../server/test/support/child-host.js';
import { call, freePort } from '../../server/test/support/harness.js';
import { describeWithPostgres, freshSchema, type TestSchema } from '../../server/test/support/postgres.js';

// `eql admin backup` taken while a real `eql serve` takes a load of creates, restored with `eql admin
// restore` into a new data directory, where a new host serves every query acknowledged before the backup
// began; and `eql migrate status|up` on SQLite and on PostgreSQL. Real child processes throughout.

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../bin/eql.js', import.meta.url));
const API_KEY = 'eql_backup_test_key_0123456789abcdef';
const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EQL_') && name !== 'NODE_OPTIONS'));
const dir = mkdtempSync(join(tmpdir(), 'eql-backup-'));
const schemas: TestSchema[] = [];
afterAll(async () => {
  killChildren();
  for (const schema of schemas) await schema.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function eql(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env: { ...clean, NO_COLOR: '1', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const query = (index: number) => ({ title: `q${index}`, query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1e9 + index }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: `q${index}` } }], expiresIn: '7d' } });

describe('eql admin backup and restore', () => {
  it('a backup taken during a load of creates restores with every query acknowledged before it began', { timeout: 180_000 }, async () => {
    const dataDir = join(dir, 'live');
    const port = await freePort();
    // A plan without the pro plan's 120 requests a minute: the load runs as fast as the host answers.
    const plans = join(dir, 'plans.json');
    writeFileSync(plans, JSON.stringify({ load: { requestsPerMinute: 1e9, dailyRequestLimit: 1e9, monthlyRequestLimit: 1e9, maxActiveQueries: 1e6 } }));
    const env = { EQL_PORT: String(port), EQL_HOST: '127.0.0.1', EQL_DATA_DIR: dataDir, EQL_API_KEY: API_KEY, EQL_API_PLAN: 'load', EQL_PLANS_FILE: plans, EQL_MARKET_SEED: 'none', EQL_LOG_LEVEL: 'warn' };
    const host = await serveChild(env);
    const base = `http://127.0.0.1:${port}`;
    expect((await call(base, 'POST', '/v2/auto/queries/validate', API_KEY, query(0))).status).toBe(200);
    const acknowledged: Array<{ id: string; at: number }> = [];
    let stop = false;
    // Four writers creating queries (the body validated above) as fast as the host acknowledges them, until told to stop.
    let failure: Error | undefined;
    const writers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const created = await call(base, 'POST', '/v2/auto/queries', API_KEY, query(0));
        if (created.status !== 201) {
          failure = new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
          stop = true;
          return;
        }
        acknowledged.push({ id: (created.body as { queryId: string }).queryId, at: performance.now() });
      }
    });
    const enough = async (count: number) => {
      while (acknowledged.length < count && failure === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      if (failure !== undefined) throw failure;
    };
    await enough(40);
    const backupFile = join(dir, 'live-backup.sqlite');
    const began = performance.now();
    const backup = await eql(env, 'admin', 'backup', '--to', backupFile, '--json');
    await enough(acknowledged.length + 20);
    stop = true;
    await Promise.all(writers);
    host.process.kill('SIGTERM');
    expect(await host.exit).toBe(0);
    expect(backup.code, backup.stderr).toBe(0);
    const result = JSON.parse(backup.stdout) as { store: string; secretKey?: string; market?: string; queries: number; keys: number };
    expect(result.store).toBe(backupFile);
    expect(result.secretKey).toBe(`${backupFile}.secret.key`);
    expect(readFileSync(result.secretKey as string, 'utf8')).toBe(readFileSync(join(dataDir, 'secret.key'), 'utf8'));
    for (const file of [backupFile, result.secretKey as string]) expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = acknowledged.filter((entry) => entry.at < began).map((entry) => entry.id);
    expect(before.length).toBeGreaterThanOrEqual(40);
    expect(result.queries).toBeGreaterThanOrEqual(before.length);

    // Restored elsewhere, a new host serves them all (its key, its sealed secrets opened by the restored key).
    const restoredDir = join(dir, 'restored');
    const restored = await eql({ EQL_DATA_DIR: restoredDir }, 'admin', 'restore', '--from', backupFile);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(new RegExp(`^restored ${result.queries} queries and ${result.keys} keys into ${restoredDir}, with the backup's secret key\\n$`));
    const newPort = await freePort();
    const second = await serveChild({ ...env, EQL_PORT: String(newPort), EQL_DATA_DIR: restoredDir });
    const newBase = `http://127.0.0.1:${newPort}`;
    for (const id of before) expect((await call(newBase, 'GET', `/v2/auto/queries/${id}`, API_KEY)).status, id).toBe(200);
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);
  });

  it('refuses to restore over a store unless --force, then sets the old files aside; refuses a damaged backup', { timeout: 120_000 }, async () => {
    const dataDir = join(dir, 'small');
    const made = await eql({ EQL_DATA_DIR: dataDir }, 'keys', 'create', '--name', 'k', '--json');
    expect(made.code, made.stderr).toBe(0);
    const file = join(dir, 'small-backup.sqlite');
    expect((await eql({ EQL_DATA_DIR: dataDir }, 'admin', 'backup', '--to', file)).code).toBe(0);
    const again = await eql({ EQL_DATA_DIR: dataDir }, 'admin', 'backup', '--to', file);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exist.*--force to replace/);
    const refused = await eql({ EQL_DATA_DIR: dataDir }, 'admin', 'restore', '--from', file);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/already holds a host store: stop its host, then restore with --force/);
    const forced = await eql({ EQL_DATA_DIR: dataDir }, 'admin', 'restore', '--from', file, '--force', '--json');
    expect(forced.code, forced.stderr).toBe(0);
    const aside = (JSON.parse(forced.stdout) as { setAside: string[] }).setAside;
    expect(aside.some((path) => /eql\.sqlite\.before-restore-/.test(path))).toBe(true);
    for (const path of aside) expect(existsSync(path)).toBe(true);
    const damaged = join(dir, 'damaged.sqlite');
    writeFileSync(damaged, 'not a database at all, just text that is long enough to be read as a header....');
    const bad = await eql({ EQL_DATA_DIR: join(dir, 'elsewhere') }, 'admin', 'restore', '--from', damaged);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^eql: /);
  });
});

describe('eql migrate', () => {
  it('lists the pending migrations of a new SQLite store, applies them, and says it is up to date', { timeout: 60_000 }, async () => {
    const env = { EQL_DATA_DIR: join(dir, 'migrations') };
    const status = await eql(env, 'migrate', 'status', '--json');
    expect(status.code, status.stderr).toBe(0);
    const before = JSON.parse(status.stdout) as { migrations: Array<{ version: number; appliedAt?: string }> };
    expect(before.migrations.length).toBeGreaterThanOrEqual(9);
    expect(before.migrations.every((migration) => migration.appliedAt === undefined)).toBe(true);
    const up = await eql(env, 'migrate', 'up');
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/^applied #1, #2, .*#9/);
    expect(up.stdout).toMatch(/migrations applied, up to date/);
    const after = JSON.parse((await eql(env, 'migrate', 'status', '--json')).stdout) as { migrations: Array<{ appliedAt?: string }> };
    expect(after.migrations.every((migration) => migration.appliedAt !== undefined)).toBe(true);
  });
});

await describeWithPostgres('eql migrate on PostgreSQL', () => {
  it('migrates a new schema before a rollout; a backup of a PostgreSQL store is refused with the pg_dump way', { timeout: 60_000 }, async () => {
    const schema = await freshSchema('cli_migrate');
    schemas.push(schema);
    const env = { EQL_DATABASE_URL: schema.url, EQL_DATA_DIR: join(dir, 'pg') };
    const pending = JSON.parse((await eql(env, 'migrate', 'status', '--json')).stdout) as { migrations: Array<{ appliedAt?: string }> };
    expect(pending.migrations.length).toBeGreaterThanOrEqual(9);
    expect(pending.migrations.every((migration) => migration.appliedAt === undefined)).toBe(true);
    const up = await eql(env, 'migrate', 'up');
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/PostgreSQL store: \d+ of \d+ migrations applied, up to date/);
    const backup = await eql(env, 'admin', 'backup', '--to', join(dir, 'pg.sqlite'));
    expect(backup.code).toBe(2);
    expect(backup.stderr).toMatch(/pg_dump -Fc/);
    expect(backup.stderr).not.toContain(schema.url);
  });
});
