import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.js';
import { PgHostStore, SecretBox, SecretKeyMismatchError, SqliteStore } from '../src/index.js';
import { killChildren, type RefusedChild, serveChild, serveChildRefused } from './support/child-host.js';
import { freePort, removeDir } from './support/harness.js';
import { adminQuery, describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';

/**
 * Hosts sharing a database share its secrets (API keys' HMAC and webhook secrets, exchange credentials,
 * secrets inside stored queries), sealed with the host's secret key. A host given another key checks,
 * at start, a value sealed once and stored in the database, and refuses with one line naming
 * EQL_SECRET_KEY, never a stack trace. A database from before the check value gets it from the first
 * host whose key opens a stored secret (any key when none is stored).
 */

const newKeyHex = () => randomBytes(32).toString('hex');
const dirs: string[] = [];
const schemas: TestSchema[] = [];
afterAll(async () => {
  killChildren();
  for (const dir of dirs) await removeDir(dir);
  for (const schema of schemas) await schema.drop();
});

async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `eql-${label}-`));
  dirs.push(dir);
  return dir;
}

/** The refusal as a user sees it: a non-zero exit, one line on stderr naming EQL_SECRET_KEY, no stack trace. */
function expectRefusal(refused: RefusedChild): void {
  expect(refused.code, refused.stderr).not.toBe(0);
  expect(refused.code).not.toBeNull();
  expect(refused.stderr).toMatch(/EQL_SECRET_KEY/);
  expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  expect(refused.stderr).not.toMatch(/^\s+at /m);
  expect(refused.stderr).not.toMatch(/Unsupported state|unable to authenticate/);
}

describe('SQLite: a data directory and another key', () => {
  it('refuses to start with another EQL_SECRET_KEY, or another secret.key file, and starts again with its own', { timeout: 120_000 }, async () => {
    const dir = await tempDir('secret-check');
    const data = join(dir, 'data');
    const env = (extra: Record<string, string> = {}) => ({ EQL_PORT: '0', EQL_HOST: '127.0.0.1', EQL_DATA_DIR: data, EQL_LOG_LEVEL: 'warn', ...extra });
    // The first start makes the data directory's secret.key, the database and a demo key sealed with it.
    const first = await serveChild(env());
    await first.kill9();

    expectRefusal(await serveChildRefused(env({ EQL_SECRET_KEY: newKeyHex() })));
    const ownKey = await readFile(join(data, 'secret.key'), 'utf8');
    await writeFile(join(data, 'secret.key'), newKeyHex(), { mode: 0o600 });
    expectRefusal(await serveChildRefused(env()));

    // Its own key opens the database.
    const again = await serveChild(env({ EQL_SECRET_KEY: ownKey.trim() }));
    await again.kill9();
  });

  it('a database from before the check value gets it from the first key that opens its secrets', async () => {
    const path = join(await tempDir('secret-check-legacy'), 'eql.sqlite');
    const own = SecretBox.fromKey(newKeyHex());
    const other = SecretBox.fromKey(newKeyHex());
    const store = new SqliteStore(path, { box: own });
    await createApiKey(store, own, { name: 'old', plan: 'pro' });
    // As a database migrated before the check value existed: secrets, and no check value.
    store.db.prepare('DELETE FROM secret_key_check').run();
    store.db.close();

    expect(() => new SqliteStore(path, { box: other })).toThrow(SecretKeyMismatchError);
    new SqliteStore(path, { box: own }).db.close();
    // Written now: the other key is refused by the check value itself.
    expect(() => new SqliteStore(path, { box: other })).toThrow(/EQL_SECRET_KEY/);
  });

  it('a database without any secret takes any key, then only that one', () => {
    const dir = join(tmpdir(), `eql-secret-check-empty-${randomBytes(4).toString('hex')}`);
    dirs.push(dir);
    const path = join(dir, 'eql.sqlite');
    const first = SecretBox.fromKey(newKeyHex());
    new SqliteStore(path, { box: first }).db.close();
    expect(() => new SqliteStore(path, { box: SecretBox.fromKey(newKeyHex()) })).toThrow(SecretKeyMismatchError);
    new SqliteStore(path, { box: first }).db.close();
  });
});

await describeWithPostgres('PostgreSQL: two hosts of one database', () => {
  it('the second host, given another EQL_SECRET_KEY, refuses to start; one with the same key starts', { timeout: 120_000 }, async () => {
    const schema = await freshSchema('secret_check');
    schemas.push(schema);
    const apiKey = `eql_${randomBytes(20).toString('hex')}`;
    const env = async (secretKey: string) => ({
      EQL_PORT: String(await freePort()),
      EQL_HOST: '127.0.0.1',
      EQL_DATA_DIR: join(await tempDir('secret-check-pg'), 'data'),
      EQL_DATABASE_URL: schema.url,
      EQL_SECRET_KEY: secretKey,
      // The seeded key's HMAC secret is opened at start: without the check, another key crashes there.
      EQL_API_KEY: apiKey,
      EQL_HMAC_SECRET: 'secret-check-test-hmac-secret-0123456789',
      EQL_LOG_LEVEL: 'warn',
    });
    const secretKey = newKeyHex();
    const first = await serveChild(await env(secretKey));
    expectRefusal(await serveChildRefused(await env(newKeyHex())));
    const second = await serveChild(await env(secretKey));
    await second.kill9();
    await first.kill9();
  });

  it('a database from before the check value gets it from the first key that opens its secrets', async () => {
    const schema = await freshSchema('secret_check_legacy');
    schemas.push(schema);
    const own = SecretBox.fromKey(newKeyHex());
    const other = SecretBox.fromKey(newKeyHex());
    const store = await PgHostStore.open(schema.url, { box: own });
    await createApiKey(store, own, { name: 'old', plan: 'pro' });
    await store.close();
    await adminQuery(`DELETE FROM ${schema.name}.secret_key_check`);

    await expect(PgHostStore.open(schema.url, { box: other })).rejects.toThrow(SecretKeyMismatchError);
    await (await PgHostStore.open(schema.url, { box: own })).close();
    expect(await adminQuery(`SELECT count(*)::int AS n FROM ${schema.name}.secret_key_check`)).toEqual([{ n: 1 }]);
    await expect(PgHostStore.open(schema.url, { box: other })).rejects.toThrow(/EQL_SECRET_KEY/);
  });

  it('hosts starting at once on an empty database with two keys: one key wins, the other is refused', async () => {
    const schema = await freshSchema('secret_check_race');
    schemas.push(schema);
    const boxes = [SecretBox.fromKey(newKeyHex()), SecretBox.fromKey(newKeyHex())];
    const opened = await Promise.allSettled(boxes.map((box) => PgHostStore.open(schema.url, { box })));
    expect(opened.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refusals = opened.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    expect(refusals).toEqual([expect.any(SecretKeyMismatchError)]);
    for (const result of opened) if (result.status === 'fulfilled') await result.value.close();
  });
});
