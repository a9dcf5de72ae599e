import { mkdtemp, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type QueryInspection, parseRecording, PushSource } from '@eql/core';
import { buildServer, configFromEnv, createApiKey, type Host } from '../src/index.js';
import { ownerOf, partitionOf, partitionsOf } from '../src/scale-out/partitions.js';
import { killChildren, serveChild } from './support/child-host.js';
import { call, createQuery, freePort, notifyQuery, pushPrice, RawStream, removeDir, until } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { adminQuery, describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';

// Several hosts on one PostgreSQL database share the queries out by partition, with leases (issue 14,
// point 3): each query runs on one host; a host that leaves hands its partitions over, one killed with
// SIGKILL loses them when its leases expire, and the others start their queries from the stored state.
// Waits are for states (polled through the API or the engines), never fixed sleeps.

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
  const dir = await mkdtemp(join(tmpdir(), 'eql-pg-cluster-'));
  dirs.push(dir);
  return dir;
}

interface Member {
  host: Host;
  base: string;
  nodeId: string;
  inspect(queryId: string): QueryInspection | undefined;
}

/** A host of the cluster on 127.0.0.1, on the shared feed `push`, with short leases. */
async function member(databaseUrl: string, nodeId: string, push: PushSource): Promise<Member> {
  const host = await buildServer({
    config: { dataDir: await dataDir(), databaseUrl, secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId, partitions: 8, leaseTtlMs: 900 },
    logger: false,
    engine: { sources: [push], recording: TINY_RECORDING },
    sse: { retryMs: 200 },
  });
  await host.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
  return { host, base, nodeId, inspect: (queryId) => host.context.runner.inspect(queryId) as QueryInspection | undefined };
}

interface Readiness {
  status: string;
  nodeId: string;
  queries: number;
  partitions: { owned: number[]; count: number };
}

async function ready(base: string): Promise<Readiness> {
  const response = await fetch(`${base}/ready`);
  return (await response.json()) as Readiness;
}

/** Waits until the hosts hold every partition between them, each the ones rendezvous hashing gives it. */
async function balanced(members: Member[]): Promise<void> {
  const nodes = members.map((m) => m.nodeId).sort();
  let states: Readiness[] = [];
  const settled = async (): Promise<boolean> => {
    states = await Promise.all(members.map((m) => ready(m.base)));
    return states.every((state, index) => JSON.stringify(state.partitions.owned) === JSON.stringify(partitionsOf(members[index]!.nodeId, nodes, 8)));
  };
  const deadline = Date.now() + 30_000;
  while (!(await settled())) {
    if (Date.now() > deadline) throw new Error(`partitions not balanced: ${JSON.stringify(states)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('partitions', () => {
  it('a query id falls in one partition, the same on every host (how partitions are spread: partition-spread.test.ts)', () => {
    const ids = Array.from({ length: 200 }, (_, index) => `q-${index}`);
    for (const id of ids) expect(partitionOf(id, 8)).toBe(partitionOf(id, 8));
    expect(new Set(ids.map((id) => partitionOf(id, 8))).size).toBe(8);
  });

  it('reads EQL_NODE_ID, EQL_PARTITIONS and EQL_LEASE_TTL_MS, refusing malformed values', () => {
    const config = configFromEnv({ EQL_NODE_ID: 'host-a', EQL_PARTITIONS: '16', EQL_LEASE_TTL_MS: '3000' });
    expect(config).toMatchObject({ nodeId: 'host-a', partitions: 16, leaseTtlMs: 3000 });
    expect(configFromEnv({}).nodeId).toMatch(/-\d+-[0-9a-f]{6}$/);
    expect(configFromEnv({}).partitions).toBeUndefined();
    expect(() => configFromEnv({ EQL_NODE_ID: 'a b' })).toThrow(/EQL_NODE_ID/);
    expect(() => configFromEnv({ EQL_PARTITIONS: '0' })).toThrow(/EQL_PARTITIONS/);
    expect(() => configFromEnv({ EQL_LEASE_TTL_MS: '10' })).toThrow(/EQL_LEASE_TTL_MS/);
  });
});

await describeWithPostgres('hosts sharing one PostgreSQL database', () => {
  it('share the partitions, run each query on one host whichever took the create, and hand all over when one leaves', { timeout: 90_000 }, async () => {
    const { url } = await schema('share');
    const push = new PushSource();
    const a = await member(url, 'host-a', push);
    const b = await member(url, 'host-b', push);
    let aOpen = true;
    try {
      await balanced([a, b]);
      const key = (await createApiKey(a.host.context.store, a.host.context.box, { name: 'cluster', plan: 'pro' })).key;
      const ids: string[] = [];
      for (let index = 0; index < 24; index += 1) ids.push(await createQuery(index % 2 === 0 ? a.base : b.base, key, notifyQuery('BTC', 1_000_000, { title: `never ${index}` })));
      const runsOn = (id: string): string[] => [a, b].filter((m) => m.inspect(id)?.status === 'active').map((m) => m.nodeId);
      await until(() => ids.every((id) => runsOn(id).length === 1), 'every query to run on one host', 30_000);
      for (const id of ids) expect(runsOn(id)).toEqual([ownerOf(partitionOf(id, 8), ['host-a', 'host-b'], 8)]);
      const states = await Promise.all([ready(a.base), ready(b.base)]);
      expect(states.map((state) => state.status)).toEqual(['ready', 'ready']);
      expect(states[0].queries + states[1].queries).toBe(24);
      // Either host answers a poll of any query.
      for (const id of ids.slice(0, 4)) for (const m of [a, b]) expect((await call(m.base, 'GET', `/v2/auto/queries/${id}`, key)).body).toMatchObject({ queryId: id, status: 'active' });

      // Host a leaves: it gives its leases back; b takes every partition and runs every query.
      await a.host.close();
      aOpen = false;
      await until(() => ids.every((id) => b.inspect(id)?.status === 'active'), 'host b to run every query', 30_000);
      expect((await ready(b.base)).partitions.owned).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    } finally {
      if (aOpen) await a.host.close();
      await b.host.close();
    }
  });

  it('the retention job runs on the host holding partition 0 only, and prunes for the whole database', { timeout: 90_000 }, async () => {
    const { url } = await schema('retention');
    const push = new PushSource();
    const a = await member(url, 'host-a', push);
    const b = await member(url, 'host-b', push);
    try {
      await balanced([a, b]);
      const nodes = ['host-a', 'host-b'];
      const leader = partitionsOf('host-a', nodes, 8).includes(0) ? a : b;
      const other = leader === a ? b : a;
      const store = a.host.context.store;
      const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
      for (let index = 0; index < 3; index += 1) await store.addNotification(1, { type: 'athena_query_notify_only', category: 'alerts', title: 't', body: 'b', data: { queryId: `q-${index}` }, priority: 'high', createdAt: old });
      // Whether a host runs the job is read from its leases as the run starts: compared with its readiness around the run.
      const owns0 = async (m: Member) => (await ready(m.base)).partitions.owned.includes(0);
      const ran = async (m: Member) => {
        const before = await owns0(m);
        const report = await m.host.retention.runOnce();
        return before === (await owns0(m)) ? { stable: true, before, report } : { stable: false, before, report };
      };
      const follower = await ran(other);
      if (follower.stable) expect(follower.report).toBeUndefined();
      const led = await ran(leader);
      if (led.stable) {
        expect(led.before).toBe(true);
        expect(led.report?.pruned).toMatchObject({ notifications: 3 });
      }
      // The follower's store sees the leader's pruning: one database.
      if (led.stable) expect(await other.host.context.store.countNotificationsAfter(1, 0)).toBe(0);
    } finally {
      await a.host.close();
      await b.host.close();
    }
  });

  it('a query created through one host and run by another fires once; a stream on the first host gets its notification once; a cancel through either host stops it', { timeout: 90_000 }, async () => {
    const { url } = await schema('cross');
    const push = new PushSource();
    const a = await member(url, 'host-a', push);
    const b = await member(url, 'host-b', push);
    try {
      await balanced([a, b]);
      const key = (await createApiKey(a.host.context.store, a.host.context.box, { name: 'cluster', plan: 'pro' })).key;
      // Queries created through b until one falls in a partition of a.
      let firing: string | undefined;
      let cancelled: string | undefined;
      while (firing === undefined || cancelled === undefined) {
        const id = await createQuery(b.base, key, notifyQuery(firing === undefined ? 'BTC' : 'ETH', 100));
        if (ownerOf(partitionOf(id, 8), ['host-a', 'host-b'], 8) !== 'host-a') {
          // One of b's: cancelled at once (it must not fire below).
          expect((await call(b.base, 'POST', `/v2/auto/queries/${id}/cancel`, key)).status).toBe(200);
          continue;
        }
        if (firing === undefined) firing = id;
        else cancelled = id;
      }
      await until(() => a.inspect(firing)?.status === 'active' && a.inspect(cancelled)?.status === 'active', 'host a to run both queries', 30_000);
      const stream = await RawStream.open(`${b.base}/v2/auto/queries/stream`, { 'x-svc-api-key': key, 'last-event-id': '0' });
      expect(stream.status).toBe(200);
      pushPrice(push, 'BTC', 150);
      await stream.waitFor(() => stream.named('notification:new').length > 0, 'the notification, stored by host a, on a stream of host b');
      const polled = await call(b.base, 'GET', `/v2/auto/queries/${firing}`, key);
      expect(polled.body).toMatchObject({ status: 'triggered', executions: [{ status: 'succeeded', stepId: 'notify-1' }] });

      // Cancelled through b, which does not run it: a stops it at its next beat.
      const cancel = await call(b.base, 'POST', `/v2/auto/queries/${cancelled}/cancel`, key);
      expect(cancel.status).toBe(200);
      await until(() => a.inspect(cancelled)?.status === 'cancelled', 'host a to stop the cancelled query', 30_000);
      pushPrice(push, 'ETH', 150);
      pushPrice(push, 'BTC', 160);
      // Another beat of both hosts and the stream's poll: still one notification, of the query that fired.
      await (a.host.context.runner as unknown as { beat(): Promise<void> }).beat();
      await (b.host.context.runner as unknown as { beat(): Promise<void> }).beat();
      const last = (await call(b.base, 'GET', `/v2/auto/queries/${firing}`, key)).body as { executions: unknown[] };
      expect(last.executions).toHaveLength(1);
      const frames = stream.named('notification:new').map((frame) => (JSON.parse(frame.data!) as { data: { queryId: string } }).data.queryId);
      expect(frames).toEqual([firing]);
      stream.close();
    } finally {
      await a.host.close();
      await b.host.close();
    }
  });

  it('a host whose heartbeat hangs (PostgreSQL does not answer) stops its queries before its leases can expire, and takes them back when it answers', { timeout: 90_000 }, async () => {
    const { url } = await schema('fence');
    const push = new PushSource();
    const a = await member(url, 'host-a', push);
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    try {
      await balanced([a]);
      const key = (await createApiKey(a.host.context.store, a.host.context.box, { name: 'cluster', plan: 'pro' })).key;
      const id = await createQuery(a.base, key, notifyQuery('BTC', 1_000_000));
      await until(() => a.inspect(id)?.status === 'active', 'host a to run the query');
      // Every heartbeat now waits on the lock: the host must stop running before its leases (900 ms) could expire.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE cluster_nodes IN ACCESS EXCLUSIVE MODE');
      await until(() => a.inspect(id) === undefined, 'host a to stop its queries', 30_000);
      await blocker.query('COMMIT');
      await until(() => a.inspect(id)?.status === 'active', 'host a to run the query again', 30_000);
    } finally {
      await blocker.end();
      await a.host.close();
    }
  });

  it('a host killed with SIGKILL: its partitions run on the other host once their leases expire, and its queries fire there once', { timeout: 120_000 }, async () => {
    const { url, name } = await schema('failover');
    const dir = await dataDir();
    const recording = join(dir, 'flat.jsonl');
    const lines = Array.from({ length: 13 }, (_, minute) => JSON.stringify({ at: new Date(Date.UTC(2026, 0, 5, 0, minute)).toISOString(), source: 'price', symbol: 'BTC', price: 100 }));
    await writeFile(recording, `${lines.join('\n')}\n`);
    const apiKey = 'eql_pg_cluster_test_key_0123456789abcdef';
    const common = {
      EQL_HOST: '127.0.0.1',
      EQL_DATABASE_URL: url,
      EQL_SECRET_KEY: SECRET_KEY_HEX,
      EQL_API_KEY: apiKey,
      EQL_HMAC_SECRET: 'pg-cluster-test-hmac-secret-0123456789',
      EQL_RECORDING: recording,
      EQL_REPLAY_SPEED: '60',
      EQL_LOG_LEVEL: 'warn',
      EQL_PARTITIONS: '8',
      EQL_LEASE_TTL_MS: '1500',
      EQL_MARKET_SEED: 'none',
    };
    const ports = [await freePort(), await freePort()];
    const a = await serveChild({ ...common, EQL_PORT: String(ports[0]), EQL_DATA_DIR: join(dir, 'a'), EQL_NODE_ID: 'child-a' });
    const b = await serveChild({ ...common, EQL_PORT: String(ports[1]), EQL_DATA_DIR: join(dir, 'b'), EQL_NODE_ID: 'child-b' });
    const [baseA, baseB] = ports.map((port) => `http://127.0.0.1:${port}`) as [string, string];
    const nodes = ['child-a', 'child-b'];
    const owned = async (base: string) => (await ready(base)).partitions.owned;
    const deadline = Date.now() + 30_000;
    while (JSON.stringify(await owned(baseA)) !== JSON.stringify(partitionsOf('child-a', nodes, 8)) || JSON.stringify(await owned(baseB)) !== JSON.stringify(partitionsOf('child-b', nodes, 8))) {
      if (Date.now() > deadline) throw new Error('the two hosts did not share the partitions');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Queries that never fire, and one per partition of a that fires only above 150 (never on this flat feed): all on a.
    const created: string[] = [];
    for (let index = 0; index < 16; index += 1) {
      const body = notifyQuery('BTC', 1_000_000, { title: `never ${index}` });
      expect((await call(baseB, 'POST', '/v2/auto/queries/validate', apiKey, body)).status).toBe(200);
      const response = await call(baseB, 'POST', '/v2/auto/queries', apiKey, body);
      expect(response.status).toBe(201);
      created.push((response.body as { queryId: string }).queryId);
    }
    const onA = created.filter((id) => ownerOf(partitionOf(id, 8), nodes, 8) === 'child-a');
    expect(onA.length).toBeGreaterThan(0);
    const total = async (): Promise<number> => (await ready(baseA)).queries + (await ready(baseB)).queries;
    const until16 = Date.now() + 30_000;
    while ((await total()) < 16) {
      if (Date.now() > until16) throw new Error('the hosts did not start the 16 queries');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A query of a's partitions that fires at once: it must fire once, on a or on b.
    let firing: string | undefined;
    while (firing === undefined) {
      const body = notifyQuery('BTC', 1, { title: 'fires' });
      await call(baseB, 'POST', '/v2/auto/queries/validate', apiKey, body);
      const response = await call(baseB, 'POST', '/v2/auto/queries', apiKey, body);
      const id = (response.body as { queryId: string }).queryId;
      if (ownerOf(partitionOf(id, 8), nodes, 8) === 'child-a') firing = id;
    }

    a.process.kill('SIGKILL');
    expect(await a.exit).toBeNull();
    const killedAt = Date.now();
    const untilTaken = Date.now() + 30_000;
    while (JSON.stringify(await owned(baseB)) !== JSON.stringify([0, 1, 2, 3, 4, 5, 6, 7])) {
      if (Date.now() > untilTaken) throw new Error('host b did not take the partitions of the killed host');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const untilRun = Date.now() + 30_000;
    while ((await ready(baseB)).queries < 17) {
      if (Date.now() > untilRun) throw new Error('host b did not start the queries of the killed host');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(`fail-over: host b runs the killed host's queries ${Date.now() - killedAt} ms after SIGKILL (lease TTL 1500 ms)`);
    for (const id of onA) expect((await call(baseB, 'GET', `/v2/auto/queries/${id}`, apiKey)).body).toMatchObject({ status: 'active', latestEvaluation: { conditionStates: [{ status: 'ready' }] } });
    const polled = async () => (await call(baseB, 'GET', `/v2/auto/queries/${firing}`, apiKey)).body as { status: string };
    const untilFired = Date.now() + 30_000;
    while ((await polled()).status !== 'triggered') {
      if (Date.now() > untilFired) throw new Error('the query that fires at once did not fire');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    b.process.kill('SIGTERM');
    expect(await b.exit).toBe(0);
    const notes = await adminQuery<{ n: string }>(`SELECT COUNT(*) AS n FROM ${name}.notifications WHERE query_id = $1`, [firing]);
    expect(Number(notes[0]?.n)).toBe(1);
    // A host that stops gracefully gives its leases back and leaves.
    expect(await adminQuery(`SELECT node_id FROM ${name}.cluster_nodes WHERE node_id = 'child-b'`)).toEqual([]);
  });
});
