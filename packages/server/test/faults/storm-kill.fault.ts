import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createApiKey, PgHostStore, SecretBox } from '../../src/index.js';
import { MarketBus } from '../../src/scale-out/market-bus.js';
import type { QueryRecord } from '../../src/store/records.js';
import { type ChildHost, killChildren, serveChild } from '../support/child-host.js';
import { removeDir } from '../support/harness.js';
import { SECRET_KEY_HEX } from '../support/host.js';
import { describeWithBus, freshStream, TEST_NATS_URL } from '../support/nats.js';
import { freshSchema } from '../support/postgres.js';

// A storm cut by kill -9 (issue 47: group commit keeps exactly-once). One tick fires 1,500 notify
// queries on two real `eql serve` hosts (4 partitions); both are killed with SIGKILL as soon as the first
// notifications are stored, in the middle of the storm's batches, and started again. Once every query has
// fired: one notification each, one succeeded execution each, every outbox entry succeeded, none twice.
// Every wait is for a state of the database.

const COUNT = 1_500;
const PARTITIONS = 4;

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  killChildren();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** The storm's queries: `price BTC < 1000 + i/N` with a notify step (the storm tick is 500). */
function records(keyId: number): QueryRecord[] {
  const createdAt = new Date();
  return Array.from({ length: COUNT }, (_, index) => ({
    id: `storm-${index}`,
    keyId,
    request: {
      title: `storm ${index}`,
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '<', value: 1000 + index / COUNT }] },
        actions: [{ stepId: 'tell', type: 'notify', params: { message: 'BTC fell' } }],
        expiresIn: '7d',
      },
    },
    status: 'active',
    tradeFlavoured: false,
    estimatedCredits: 1,
    credits: 1,
    createdAt: createdAt.toISOString(),
    expiresAt: new Date(createdAt.getTime() + 7 * 86_400_000).toISOString(),
    cancelledAt: null,
    deletedAt: null,
    runtime: null,
    fromDraft: null,
  }));
}

await describeWithBus('a storm cut by kill -9', () => {
  it('kill -9 of every host in the middle of a 1,500-query storm, restart: every query notified once, each execution and outbox entry once and succeeded', { timeout: 300_000 }, async () => {
    const schema = await freshSchema('storm_kill');
    cleanups.push(() => schema.drop());
    const stream = freshStream('storm_kill');
    cleanups.push(() => stream.drop());
    const box = SecretBox.fromKey(SECRET_KEY_HEX);
    const store = await PgHostStore.open(schema.url, { box });
    cleanups.push(() => store.close());
    const { record: key } = await createApiKey(store, box, { name: 'storm', plan: 'pro' });
    const queries = records(key.id);
    for (let from = 0; from < queries.length; from += 100) await Promise.all(queries.slice(from, from + 100).map((query) => store.insertQuery(query)));
    const count = async (sql: string) => Number((await store.pool.query<{ n: string }>(sql)).rows[0]?.n);

    const dir = await mkdtemp(join(tmpdir(), 'eql-storm-kill-'));
    cleanups.push(() => removeDir(dir));
    const start = (index: number): Promise<ChildHost> =>
      serveChild({
        EQL_DATABASE_URL: schema.url,
        EQL_NATS_URL: TEST_NATS_URL,
        EQL_NATS_STREAM: stream.name,
        EQL_FEED: 'bus',
        EQL_SECRET_KEY: SECRET_KEY_HEX,
        EQL_NODE_ID: `storm-${index}`,
        EQL_PARTITIONS: String(PARTITIONS),
        EQL_LEASE_TTL_MS: '3000',
        EQL_PORT: '0',
        EQL_HOST: '127.0.0.1',
        EQL_DATA_DIR: join(dir, `host-${index}`),
        EQL_MARKET_SEED: 'none',
        EQL_LOG_LEVEL: 'warn',
      });
    const hosts = [await start(1), await start(2)];
    const bases = () => hosts.map((host) => /listening on (http:\/\/\S+)/.exec(host.output())![1]!);
    /** Polls every 20 ms until `check` holds (the test's timeout bounds it). */
    const until = async (check: () => Promise<boolean>) => {
      while (!(await check().catch(() => false))) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const running = async () => {
      const states = await Promise.all(bases().map(async (base) => (await (await fetch(`${base}/ready`)).json()) as { status: string; queries: number; partitions?: { owned: number[] } }));
      const owned = states.flatMap((state) => state.partitions?.owned ?? []);
      return states.every((state) => state.status === 'ready') && new Set(owned).size === PARTITIONS && states.reduce((sum, state) => sum + state.queries, 0) === COUNT;
    };
    await until(running);

    const publisher = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name, name: 'storm-publisher' });
    cleanups.push(() => publisher.close());
    await publisher.publish({ at: Date.now(), source: 'price', symbol: 'BTC', price: 500 }, 'storm-fall');
    // The first notifications are stored: the storm's batches are under way. Kill every host there.
    await until(async () => (await count('SELECT count(*) AS n FROM notifications')) > 0);
    await Promise.all(hosts.map((host) => host.kill9()));
    const atKill = await count('SELECT count(*) AS n FROM notifications');
    hosts.splice(0, hosts.length, await start(1), await start(2));
    await until(async () => (await count("SELECT count(*) AS n FROM queries WHERE status = 'triggered'")) === COUNT && (await count('SELECT count(*) AS n FROM notifications')) >= COUNT);
    // Whatever was still running settles: no pending outbox entry, no running execution.
    await until(async () => (await count("SELECT count(*) AS n FROM action_outbox WHERE status <> 'succeeded'")) === 0 && (await count("SELECT count(*) AS n FROM executions WHERE status = 'running'")) === 0);

    expect(atKill).toBeLessThan(COUNT);
    expect(await count('SELECT count(*) AS n FROM notifications')).toBe(COUNT);
    expect(await count('SELECT count(DISTINCT query_id) AS n FROM notifications')).toBe(COUNT);
    expect(await count("SELECT count(*) AS n FROM notifications WHERE trigger_index <> 1 OR step_id <> 'tell'")).toBe(0);
    expect(await count('SELECT count(*) AS n FROM action_outbox')).toBe(COUNT);
    expect(await count("SELECT count(*) AS n FROM (SELECT query_id FROM executions WHERE status = 'succeeded' GROUP BY query_id HAVING count(*) = 1) AS once")).toBe(COUNT);
    // An execution a kill interrupted is marked failed at the restart (HOST_RESTARTED), its step run again under the same outbox entry.
    expect(await count("SELECT count(*) AS n FROM executions WHERE status = 'failed' AND error_code <> 'HOST_RESTARTED'")).toBe(0);
    console.log(`storm cut by kill -9: ${atKill} of ${COUNT} notifications stored at the kill; after the restart ${COUNT}, each once`);
  });
});
