import { mkdtemp, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRecording, PushSource } from '@eql/core';
import { buildServer, configFromEnv, createApiKey, type Host, PgHostStore, type QueryRunner } from '../src/index.js';
import { killChildren, serveChild } from './support/child-host.js';
import { call, createQuery, freePort, notifyQuery, pushPrice, RawStream, removeDir, until } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { adminQuery, describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';

// The host on PostgreSQL (issue 14, point 1): built with a database URL, it serves the Auto routes as on
// SQLite, and a host killed with SIGKILL loses no acknowledged write. Each test has a schema of its own.
// Every wait is for an event (a status change, an SSE frame, a line the child prints), never a sleep.

const TINY_RECORDING = parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');

const schemas: TestSchema[] = [];
const dirs: string[] = [];
afterAll(async () => {
  killChildren();
  for (const schema of schemas) await schema.drop();
  for (const dir of dirs) await removeDir(dir);
});

async function schema(label: string): Promise<TestSchema> {
  const made = await freshSchema(label);
  schemas.push(made);
  return made;
}

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eql-pg-host-'));
  dirs.push(dir);
  return dir;
}

/** A host on PostgreSQL listening on 127.0.0.1, fed by a PushSource. */
async function pgHost(databaseUrl: string, push = new PushSource()): Promise<{ host: Host; base: string; push: PushSource }> {
  const host = await buildServer({
    config: { dataDir: await dataDir(), databaseUrl, secretKey: SECRET_KEY_HEX, marketSeed: false },
    logger: false,
    engine: { sources: [push], recording: TINY_RECORDING },
    sse: { retryMs: 200 },
  });
  await host.app.listen({ host: '127.0.0.1', port: 0 });
  return { host, base: `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`, push };
}

/** Resolves when the engine has the query at `status` (now, or at its status-changed event). */
function statusReached(host: QueryRunner, queryId: string, status: string): Promise<unknown> {
  return new Promise<void>((resolve) => {
    const stop = host.onStatusChange((change) => {
      if (change.queryId !== queryId || change.status !== status) return;
      stop();
      resolve();
    });
    void Promise.resolve(host.inspect(queryId)).then((inspection) => {
      if (inspection?.status !== status) return;
      stop();
      resolve();
    });
  });
}

await describeWithPostgres('the host on PostgreSQL', () => {
  it('reads EQL_DATABASE_URL (a postgres:// URL), and never repeats its password in an error', () => {
    expect(configFromEnv({ EQL_DATABASE_URL: ' postgres://eql:pw@db:5432/eql ' }).databaseUrl).toBe('postgres://eql:pw@db:5432/eql');
    expect(configFromEnv({}).databaseUrl).toBeUndefined();
    expect(() => configFromEnv({ EQL_DATABASE_URL: 'mysql://eql:hunter2@db/eql' })).toThrow(/EQL_DATABASE_URL must be a postgres:\/\/ URL/);
    expect(() => configFromEnv({ EQL_DATABASE_URL: 'mysql://eql:hunter2@db/eql' })).not.toThrow(/hunter2/);
  });

  it('creates a key and a query, fires it, polls it and streams its notification; a second host on the database serves it too', { timeout: 60_000 }, async () => {
    const { url } = await schema('host');
    const first = await pgHost(url);
    // One feed for both: the query runs on the host holding its partition.
    const second = await pgHost(url, first.push);
    try {
      expect(first.host.context.store).toBeInstanceOf(PgHostStore);
      const key = (await createApiKey(first.host.context.store, first.host.context.box, { name: 'pg', plan: 'pro' })).key;
      const queryId = await createQuery(first.base, key, notifyQuery('BTC', 100));
      const stream = await RawStream.open(`${first.base}/v2/auto/queries/stream`, { 'x-svc-api-key': key, 'last-event-id': '0' });
      expect(stream.status).toBe(200);
      // Whichever host runs it (the partitions may be changing hands as the second host joins) fires it once.
      const triggered = Promise.race([statusReached(first.host.context.runner, queryId, 'triggered'), statusReached(second.host.context.runner, queryId, 'triggered')]);
      await until(() => first.host.context.runner.inspect(queryId) !== undefined || second.host.context.runner.inspect(queryId) !== undefined, 'a host to run the query', 30_000);
      pushPrice(first.push, 'BTC', 150);
      await triggered;
      await stream.waitFor(() => stream.named('notification:new').length > 0, 'the notification');
      const frame = stream.named('notification:new')[0]!;
      expect(JSON.parse(frame.data!)).toMatchObject({ id: Number(frame.id), data: { queryId, stepId: 'notify-1', triggerIndex: 1 } });
      stream.close();

      const polled = await call(first.base, 'GET', `/v2/auto/queries/${queryId}`, key);
      expect(polled.status).toBe(200);
      expect(polled.body).toMatchObject({ status: 'triggered', executions: [{ status: 'succeeded', stepId: 'notify-1' }] });
      // The other host reads the same database: the key, the query and its executions.
      const elsewhere = await call(second.base, 'GET', `/v2/auto/queries/${queryId}`, key);
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.body).toMatchObject({ status: 'triggered', executions: [{ status: 'succeeded' }] });
      const replay = await RawStream.open(`${second.base}/v2/auto/queries/stream`, { 'x-svc-api-key': key, 'last-event-id': '0' });
      await replay.waitFor(() => replay.named('notification:new').length > 0, 'the notification replayed by the other host');
      expect(replay.named('notification:new')[0]?.id).toBe(frame.id);
      replay.close();
      const status = await call(second.base, 'GET', '/v2/key-status', key);
      expect(status.status).toBe(200);
    } finally {
      await first.host.close();
      await second.host.close();
    }
  });

  it('after SIGKILL under a load of creates, every acknowledged query is there and the ones that must fire fire once', { timeout: 120_000 }, async () => {
    const { url, name } = await schema('kill9');
    // Trust authentication ignores the password; it is there to show that the host never prints it.
    const withPassword = new URL(url);
    withPassword.password = 'canary-db-password';
    const dir = await dataDir();
    const recording = join(dir, 'flat.jsonl');
    const lines = Array.from({ length: 13 }, (_, minute) => JSON.stringify({ at: new Date(Date.UTC(2026, 0, 5, 0, minute)).toISOString(), source: 'price', symbol: 'BTC', price: 100 }));
    await writeFile(recording, `${lines.join('\n')}\n`);
    const port = await freePort();
    const apiKey = 'eql_pg_restart_test_key_0123456789abcdef';
    const env = {
      EQL_PORT: String(port),
      EQL_HOST: '127.0.0.1',
      EQL_DATA_DIR: join(dir, 'data'),
      EQL_DATABASE_URL: withPassword.toString(),
      EQL_SECRET_KEY: SECRET_KEY_HEX,
      EQL_API_KEY: apiKey,
      EQL_HMAC_SECRET: 'pg-restart-test-hmac-secret-0123456789',
      EQL_RECORDING: recording,
      EQL_REPLAY_SPEED: '60',
      EQL_LOG_LEVEL: 'warn',
      // The restarted host comes back under its id: it takes its partitions back at once, without waiting for their leases to expire.
      EQL_NODE_ID: 'kill9-host',
    };
    const base = `http://127.0.0.1:${port}`;

    const first = await serveChild(env);
    expect(first.output()).toContain(`store: PostgreSQL at postgres://postgres:***@`);
    // Queries on BTC above 1 fire at once (the feed is at 100); above 1,000,000 never.
    const kinds = Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? 'now' : 'never'));
    const acknowledged = new Map<string, string>();
    let answered = 0;
    let killed = false;
    await Promise.all(
      kinds.map(async (kind, index) => {
        const body = notifyQuery('BTC', kind === 'now' ? 1 : 1_000_000, { title: `${kind} ${index}` });
        try {
          const validated = await call(base, 'POST', '/v2/auto/queries/validate', apiKey, body);
          if (validated.status !== 200) throw new Error(`validate answered ${validated.status}`);
          const created = await call(base, 'POST', '/v2/auto/queries', apiKey, body);
          if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
          acknowledged.set((created.body as { queryId: string }).queryId, kind);
          answered += 1;
          if (answered === 20) {
            killed = true;
            first.process.kill('SIGKILL');
          }
        } catch (error) {
          // Only a killed host may fail a request.
          if (!killed) throw error;
        }
      }),
    );
    expect(await first.exit).toBeNull();
    // The kill comes at the 20th answer; the creates still in flight may or may not have been answered by
    // then (a fast host answers all 40 first). What must hold is below: every acknowledged one is stored.
    expect(acknowledged.size).toBeGreaterThanOrEqual(20);

    // Every acknowledged create is in the database, before any host runs again.
    const stored = await adminQuery<{ id: string }>(`SELECT id FROM ${name}.queries`);
    for (const queryId of acknowledged.keys()) expect(stored.some((row) => row.id === queryId), `acknowledged query ${queryId} stored`).toBe(true);

    const second = await serveChild(env);
    for (const queryId of acknowledged.keys()) {
      const polled = await call(base, 'GET', `/v2/auto/queries/${queryId}`, apiKey);
      expect(polled.status, `acknowledged query ${queryId}`).toBe(200);
    }
    const stream = await RawStream.open(`${base}/v2/auto/queries/stream`, { 'x-svc-api-key': apiKey, 'last-event-id': '0' });
    const notified = () => stream.named('notification:new').map((frame) => (JSON.parse(frame.data!) as { data: { queryId: string } }).data.queryId);
    const mustFire = [...acknowledged].filter(([, kind]) => kind === 'now').map(([queryId]) => queryId);
    await stream.waitFor(() => mustFire.every((queryId) => notified().includes(queryId)), 'every acknowledged "now" query notified');
    stream.close();
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    const notes = await adminQuery<{ query_id: string; n: string }>(`SELECT query_id, COUNT(*) AS n FROM ${name}.notifications GROUP BY query_id`);
    for (const [queryId, kind] of acknowledged) {
      const count = Number(notes.find((row) => row.query_id === queryId)?.n ?? 0);
      expect(count, `notifications of ${kind} query ${queryId}`).toBe(kind === 'now' ? 1 : 0);
    }
    const output = first.output() + second.output();
    expect(output).not.toContain('canary-db-password');
  });

  it('one Idempotency-Key sent to two hosts at once: one query, one 201, the other copies replay it (no 500)', { timeout: 60_000 }, async () => {
    const { url } = await schema('idempotency');
    const first = await pgHost(url);
    const second = await pgHost(url);
    try {
      const key = (await createApiKey(first.host.context.store, first.host.context.box, { name: 'pg-idem', plan: 'pro' })).key;
      const body = notifyQuery('BTC', 1_000_000);
      expect((await call(first.base, 'POST', '/v2/auto/queries/validate', key, body)).status).toBe(200);
      const headers = { 'idempotency-key': 'retry-at-once' };
      const copies = await Promise.all(Array.from({ length: 8 }, (_, index) => call(index % 2 === 0 ? first.base : second.base, 'POST', '/v2/auto/queries', key, body, headers)));
      expect(copies.map((copy) => copy.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      expect(new Set(copies.map((copy) => (copy.body as { queryId: string }).queryId)).size).toBe(1);
      const list = await call(first.base, 'GET', '/v2/auto/queries', key);
      expect((list.body as { queries: unknown[] }).queries).toHaveLength(1);
    } finally {
      await first.host.close();
      await second.host.close();
    }
  });
});

describe('the host without EQL_DATABASE_URL', () => {
  it('stays on SQLite', () => {
    expect(configFromEnv({}).databaseUrl).toBeUndefined();
  });
});
