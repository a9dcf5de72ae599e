import { createServer } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PgHostStore, SecretBox } from '../src/index.js';
import { killChildren, type RefusedChild, serveChildRefused } from './support/child-host.js';
import { freePort, removeDir } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { adminQuery, describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';

/**
 * Issue 45: `eql serve` must not hang when its start fails after it opened something (the store's pool,
 * the cluster's timers, the bus): it closes what it opened and exits non-zero with one line saying what
 * to fix, no stack trace. Every case is a configuration a user can write; each runs the built CLI as a
 * child and waits for its exit event (the test's timeout only bounds a hang).
 */

const dirs: string[] = [];
const schemas: TestSchema[] = [];
const servers: Array<ReturnType<typeof createServer>> = [];
afterAll(async () => {
  killChildren();
  for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const dir of dirs) await removeDir(dir);
  for (const schema of schemas) await schema.drop();
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eql-start-failure-'));
  dirs.push(dir);
  return join(dir, 'data');
}

async function schema(label: string): Promise<TestSchema> {
  const made = await freshSchema(label);
  schemas.push(made);
  return made;
}

const env = async (extra: Record<string, string>) => ({ EQL_PORT: '0', EQL_HOST: '127.0.0.1', EQL_DATA_DIR: await dataDir(), EQL_MARKET_SEED: 'false', EQL_LOG_LEVEL: 'warn', ...extra });

/**
 * A refusal as a user sees it: the process ended by itself, non-zero, with one line saying why (`eql: `
 * matching `says`), last on stderr (after what the host said while it started, when it got that far), no stack trace.
 */
function expectRefusal(refused: RefusedChild, says: RegExp): void {
  expect(refused.code, refused.stderr).not.toBeNull();
  expect(refused.code, refused.stderr).not.toBe(0);
  const lines = refused.stderr.trim().split('\n');
  expect(lines.filter((line) => line.startsWith('eql: ')), refused.stderr).toHaveLength(1);
  expect(lines.at(-1)).toMatch(/^eql: /);
  expect(lines.at(-1)).toMatch(says);
  expect(refused.stderr).not.toMatch(/^\s+at /m);
}

/** A port something else listens on, for as long as the test runs. */
async function takenPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return (server.address() as { port: number }).port;
}

/** An address of no interface of this machine (TEST-NET-1, RFC 5737): listening on it fails with EADDRNOTAVAIL. */
const FOREIGN_ADDRESS = '192.0.2.1';

describe('eql serve on SQLite refuses a configuration it cannot start with, in one line', () => {
  it('an EQL_API_KEY that is not a key, an EQL_HMAC_SECRET too short to sign with', { timeout: 120_000 }, async () => {
    expectRefusal(await serveChildRefused(await env({ EQL_API_KEY: 'short' })), /EQL_API_KEY/);
    expectRefusal(await serveChildRefused(await env({ EQL_API_KEY: 'a-long-enough-api-key-0123456789', EQL_HMAC_SECRET: 'short' })), /EQL_HMAC_SECRET/);
  });

  it('a port in use, an address of no interface of this machine, a host name that does not resolve', { timeout: 120_000 }, async () => {
    const port = await takenPort();
    expectRefusal(await serveChildRefused(await env({ EQL_PORT: String(port) })), new RegExp(`127\\.0\\.0\\.1:${port}.*in use.*EQL_PORT`));
    expectRefusal(await serveChildRefused(await env({ EQL_HOST: FOREIGN_ADDRESS })), /192\.0\.2\.1.*EQL_HOST/);
    expectRefusal(await serveChildRefused(await env({ EQL_HOST: 'no-such-host.invalid' })), /no-such-host\.invalid.*EQL_HOST/);
  });

  it('a data directory it cannot make, EQL_NATS_URL without EQL_DATABASE_URL', { timeout: 120_000 }, async () => {
    const file = join(await dataDir(), '..', 'a-file');
    await writeFile(file, 'not a directory');
    expectRefusal(await serveChildRefused(await env({ EQL_DATA_DIR: join(file, 'data') })), /ENOTDIR/);
    expectRefusal(await serveChildRefused(await env({ EQL_NATS_URL: 'nats://127.0.0.1:4222' })), /EQL_NATS_URL needs EQL_DATABASE_URL/);
  });
});

await describeWithPostgres('eql serve on PostgreSQL closes what it opened when its start fails, and exits', () => {
  it('a port in use, or an address of no interface: after the store, the cluster and the engine were up', { timeout: 120_000 }, async () => {
    const { url } = await schema('start_listen');
    const port = await takenPort();
    expectRefusal(await serveChildRefused(await env({ EQL_DATABASE_URL: url, EQL_SECRET_KEY: SECRET_KEY_HEX, EQL_PORT: String(port) })), /in use/);
    expectRefusal(await serveChildRefused(await env({ EQL_DATABASE_URL: url, EQL_SECRET_KEY: SECRET_KEY_HEX, EQL_HOST: FOREIGN_ADDRESS })), /EADDRNOTAVAIL/);
  });

  it('an EQL_API_KEY that is not a key', { timeout: 120_000 }, async () => {
    const { url } = await schema('start_key');
    expectRefusal(await serveChildRefused(await env({ EQL_DATABASE_URL: url, EQL_SECRET_KEY: SECRET_KEY_HEX, EQL_API_KEY: 'short' })), /EQL_API_KEY/);
  });

  it('EQL_PARTITIONS other than the cluster’s, a market bus that cannot be reached', { timeout: 120_000 }, async () => {
    const made = await schema('start_cluster');
    const store = await PgHostStore.open(made.url, { box: SecretBox.fromKey(SECRET_KEY_HEX) });
    await store.close();
    await adminQuery(`INSERT INTO ${made.name}.cluster_settings (name, value) VALUES ('partitions', '8')`);
    expectRefusal(await serveChildRefused(await env({ EQL_DATABASE_URL: made.url, EQL_SECRET_KEY: SECRET_KEY_HEX, EQL_PARTITIONS: '16' })), /EQL_PARTITIONS is 16 but the hosts of this database use 8/);
    const closedPort = await freePort();
    expectRefusal(
      await serveChildRefused(await env({ EQL_DATABASE_URL: made.url, EQL_SECRET_KEY: SECRET_KEY_HEX, EQL_NATS_URL: `nats://127.0.0.1:${closedPort}` })),
      new RegExp(`cannot connect to the market bus at nats://127\\.0\\.0\\.1:${closedPort}`),
    );
  });

  it('a database that cannot be reached, named without its password', { timeout: 120_000 }, async () => {
    const closedPort = await freePort();
    const refused = await serveChildRefused(await env({ EQL_DATABASE_URL: `postgres://eql:hunter2@127.0.0.1:${closedPort}/eql`, EQL_SECRET_KEY: SECRET_KEY_HEX }));
    expectRefusal(refused, new RegExp(`PostgreSQL.*127\\.0\\.0\\.1:${closedPort}`));
    expect(refused.stderr + refused.stdout).not.toContain('hunter2');
  });
});
