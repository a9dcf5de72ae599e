import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { buildServer } from '../src/build-server.js';
import { removeDir } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { configFromEnv } from '../src/config.js';
import { withClient, inTransaction } from '../src/store/pg/checked-out.js';
import { openPgPool } from '../src/store/pg/pg-pool.js';
import { PgHostStore } from '../src/store/pg/pg-store.js';
import { describeWithPostgres, freshSchema, TEST_DATABASE_URL, type TestSchema } from './support/postgres.js';
import { tcpProxy, type TcpProxy } from './support/tcp-proxy.js';

/**
 * The host's PostgreSQL sessions: each carries the statement, lock and idle-in-transaction timeouts, and
 * a client broken while it is checked out (the server restarted, the network cut, the server ended an
 * idle transaction) fails its caller and is dropped by the pool instead of ending the process.
 */

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.().catch(() => undefined);
});

async function schema(): Promise<TestSchema> {
  const created = await freshSchema('sessions');
  cleanups.push(() => created.drop());
  return created;
}

async function proxied(): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(TEST_DATABASE_URL);
  const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  cleanups.push(() => proxy.close());
  target.port = String(proxy.port);
  return { proxy, url: target.toString() };
}

it('reads EQL_PG_STATEMENT_TIMEOUT_MS, EQL_PG_LOCK_TIMEOUT_MS and EQL_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS (0: none), refusing what is no whole number', () => {
  expect(configFromEnv({}).pgTimeouts).toBeUndefined();
  expect(configFromEnv({ EQL_PG_LOCK_TIMEOUT_MS: '250' }).pgTimeouts).toEqual({ lockMs: 250 });
  expect(configFromEnv({ EQL_PG_STATEMENT_TIMEOUT_MS: '0', EQL_PG_LOCK_TIMEOUT_MS: '1', EQL_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: '5000' }).pgTimeouts).toEqual({ statementMs: 0, lockMs: 1, idleInTransactionMs: 5_000 });
  expect(() => configFromEnv({ EQL_PG_STATEMENT_TIMEOUT_MS: '30s' })).toThrow(/EQL_PG_STATEMENT_TIMEOUT_MS must be a whole number/);
});

await describeWithPostgres('PostgreSQL sessions of the host', () => {
  it('gives every session of the store the default timeouts, the migration\'s session included', async () => {
    const { url } = await schema();
    // One connection: the one that ran the migrations (which lifts the timeouts for itself) is the one asked.
    const store = await PgHostStore.open(url, { maxConnections: 1 });
    cleanups.push(() => store.close());
    const { rows } = await store.pool.query<Record<string, string>>('SELECT current_setting($1) AS statement, current_setting($2) AS lock, current_setting($3) AS idle', ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout']);
    expect(rows[0]).toEqual({ statement: '30s', lock: '10s', idle: '1min' });
  });

  it("a host's sessions idle in a transaction at most its lease TTL (5 s at least), unless EQL_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS says: a host paused inside a fenced write, its lease row share-locked, holds a take-over only that long", async () => {
    const idleOf = async (config: Record<string, unknown>) => {
      const { url } = await schema();
      const dir = await mkdtemp(join(tmpdir(), 'eql-pg-sessions-'));
      const host = await buildServer({ config: { dataDir: dir, databaseUrl: url, secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId: 'idle-host', ...config }, logger: false });
      try {
        const { rows } = await (host.context.store as PgHostStore).pool.query<{ idle: string }>("SELECT current_setting('idle_in_transaction_session_timeout') AS idle");
        return rows[0]!.idle;
      } finally {
        await host.close();
        await removeDir(dir);
      }
    };
    expect(await idleOf({ leaseTtlMs: 9_000 })).toBe('9s');
    expect(await idleOf({ leaseTtlMs: 1_500 })).toBe('5s');
    expect(await idleOf({ leaseTtlMs: 9_000, pgTimeouts: { idleInTransactionMs: 60_000 } })).toBe('1min');
  });

  it('takes the timeouts it is given', async () => {
    const { url } = await schema();
    const store = await PgHostStore.open(url, { maxConnections: 1, timeouts: { statementMs: 1_500, lockMs: 250, idleInTransactionMs: 0 } });
    cleanups.push(() => store.close());
    const { rows } = await store.pool.query<Record<string, string>>('SELECT current_setting($1) AS statement, current_setting($2) AS lock, current_setting($3) AS idle', ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout']);
    expect(rows[0]).toEqual({ statement: '1500ms', lock: '250ms', idle: '0' });
  });

  it('cuts a wait for a lock another session holds at the lock timeout', async () => {
    const pool = openPgPool(TEST_DATABASE_URL, { timeouts: { lockMs: 200 } });
    cleanups.push(() => pool.end());
    const lock = 0x45514cff;
    await inTransaction(pool, async (holder) => {
      await holder.query('SELECT pg_advisory_xact_lock($1, 1)', [lock]);
      await expect(inTransaction(pool, (waiter) => waiter.query('SELECT pg_advisory_xact_lock($1, 1)', [lock]))).rejects.toMatchObject({ code: '55P03' });
    });
    // The waiter's client was given back broken (closed), the holder's whole: both free, none leaked.
    expect(pool.waitingCount).toBe(0);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('survives a session the server ends while it idles in a transaction, and drops it', async () => {
    const pool = openPgPool(TEST_DATABASE_URL, { maxConnections: 1, timeouts: { idleInTransactionMs: 100 } });
    cleanups.push(() => pool.end());
    const pid = async () => (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const before = await pid();
    // Checked out and idle in a transaction, no statement running: the server's FATAL arrives as an
    // 'error' event of the client, with pg-pool's listener off it. Unheard, it would end the process.
    await expect(
      withClient(pool, async (client) => {
        await client.query('BEGIN');
        await new Promise((resolve) => setTimeout(resolve, 600));
        await client.query('SELECT 1');
      }),
    ).rejects.toThrow();
    expect(pool.totalCount).toBe(0);
    const after = await pid();
    expect(after).not.toBe(before);
  });

  it('survives a connection cut in the middle of a transaction: the caller gets the error, the pool a new connection', async () => {
    const { proxy, url } = await proxied();
    const pool = openPgPool(url, { maxConnections: 2 });
    cleanups.push(() => pool.end());
    await expect(
      inTransaction(pool, async (client) => {
        await client.query('SELECT 1');
        proxy.cut();
        // Nothing in flight when the socket goes: the client hears it as an 'error' event, then this fails.
        await new Promise((resolve) => setTimeout(resolve, 100));
        await client.query('SELECT 1');
      }),
    ).rejects.toThrow();
    expect(pool.totalCount).toBe(0);
    proxy.restore();
    expect((await pool.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
  });
});
