import Fastify from 'fastify';
import pg from 'pg';
import { afterAll, expect, it, vi } from 'vitest';
import type { DataSource, Recording } from '@eql/core';
import { BusPartitions, type PartitionEngineFactory } from '../src/scale-out/bus-partitions.js';
import type { BusObservation, MarketBus } from '../src/scale-out/market-bus.js';
import type { PartitionPosition, PgPartitionPositions } from '../src/scale-out/partition-positions.js';
import { PgLeases } from '../src/scale-out/leases.js';
import { type PartitionEngine, PartitionedRunner } from '../src/scale-out/partitioned-runner.js';
import { ownerOf } from '../src/scale-out/partitions.js';
import type { HostContext } from '../src/context.js';
import type { ProcessRunner } from '../src/host/process-runner.js';
import { PgHostStore, SecretBox } from '../src/index.js';
import { systemRoutes } from '../src/routes/system.js';
import type { HostStore } from '../src/store/store.js';
import type { QueryRecord } from '../src/store/records.js';
import { createApiKey } from '../src/auth/api-keys.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';
import { type TcpProxy, tcpProxy } from './support/tcp-proxy.js';
import { checkFence } from '../src/store/pg/pg-fence.js';
import { hostSessionTimeouts, openPgPool } from '../src/store/pg/pg-pool.js';

// A lease loop that never waits on data (issue 46, point 2; docs/scale-out.md, "Who runs which query"):
// the beat (heartbeat and renewal) runs on the leases' own connections and never awaits engine work, a
// partition whose lease is not surely this host's hands no message to its engine, and /ready says 503
// with the reason while the host has not renewed within the TTL. Hosts are PartitionedHosts on real
// leases in PostgreSQL with stand-in engines; every wait is for a state or an event.

const schemas: TestSchema[] = [];
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  for (const schema of schemas) await schema.drop();
});

async function database(label: string): Promise<{ schema: TestSchema; store: PgHostStore }> {
  const schema = await freshSchema(label);
  schemas.push(schema);
  const store = await PgHostStore.open(schema.url, { box: SecretBox.fromKey(SECRET_KEY_HEX) });
  closers.push(() => store.close());
  return { schema, store };
}

/** Leases on their own pool, as a host makes them. */
function ownLeases(pool: pg.Pool, nodeId: string, ttlMs: number): PgLeases {
  const leases = PgLeases.ownPool(pool, nodeId, ttlMs);
  closers.push(() => leases.close());
  return leases;
}

/** Resolves when `check` holds, polled every 5 ms (the test's timeout bounds it). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Counts the renewals that kept `count` partitions (the beat's, answered). */
function countRenewals(leases: PgLeases, count: number): () => number {
  let renewals = 0;
  const renew = leases.renew.bind(leases);
  vi.spyOn(leases, 'renew').mockImplementation(async (partitions) => {
    const kept = await renew(partitions);
    if (kept.length === count) renewals += 1;
    return kept;
  });
  return () => renewals;
}

/** A promise that never settles unless released. */
function gate(): { wait: Promise<void>; release: () => void } {
  let release!: () => void;
  return { wait: new Promise<void>((resolve) => (release = resolve)), release };
}

/** An engine that runs no query: it records the partitions opened and closed; opening, closing or starting can be made to hang. */
function standInEngine(hang: { open?: { partition: number; until: Promise<void> }; close?: Promise<void>; start?: Promise<void> } = {}): {
  engine: PartitionEngine;
  opened: number[];
  closed: number[];
  leased: Map<number, () => boolean>;
  log: string[];
  /** Stops a partition on its own, as an engine whose write failed does. */
  stop: (partition: number, epoch: number, reason: 'fenced' | 'failed') => void;
} {
  const opened: number[] = [];
  const closed: number[] = [];
  const leased = new Map<number, () => boolean>();
  // The queries added and removed, and the partitions closed, in the order the host asked.
  const log: string[] = [];
  const stoppedListeners = new Set<(partition: number, epoch: number, reason: 'fenced' | 'failed') => void>();
  const engine = {
    onPartitionStopped: (listener: (partition: number, epoch: number, reason: 'fenced' | 'failed') => void) => {
      stoppedListeners.add(listener);
      return () => stoppedListeners.delete(listener);
    },
    recording: { observations: [] } as unknown as Recording,
    start: () => Promise.resolve(0),
    add: (query: QueryRecord) => void log.push(`add:${query.id}`),
    remove: (queryId: string) => void log.push(`remove:${queryId}`),
    cancel: () => undefined,
    inspect: () => undefined,
    readiness: () => ({ queries: 0 }),
    dispose: () => undefined,
    openPartition: async (partition: number, epoch: number, isLeased: () => boolean) => {
      opened.push(partition);
      log.push(`open:${partition}@${epoch}`);
      leased.set(partition, isLeased);
      if (hang.open?.partition === partition) await hang.open.until;
    },
    closePartition: async (partition: number) => {
      closed.push(partition);
      log.push(`close:${partition}`);
      await hang.close;
    },
    startPartitions: () => hang.start ?? Promise.resolve(),
  } as unknown as PartitionEngine;
  return { engine, opened, closed, leased, log, stop: (partition, epoch, reason) => stoppedListeners.forEach((listener) => listener(partition, epoch, reason)) };
}

/** The partitions each live lease's holder has, per node (expired leases left out). */
async function holders(leases: PgLeases): Promise<Map<number, string>> {
  return new Map((await leases.all()).filter((lease) => !lease.expired && lease.partition >= 0).map((lease) => [lease.partition, lease.nodeId]));
}

const tick = (seq: number): BusObservation => ({ seq, observation: { at: 1_700_000_000_000 + seq, source: 'price', symbol: 'BTC', price: 100 + seq } });

/** A bus the test publishes to: readings hand its messages over in order from where they start, the next waiting for what `deliver` returns. */
function liveBus(): { bus: MarketBus; publish: (seq: number) => void } {
  const messages: BusObservation[] = [];
  const wakers = new Set<() => void>();
  const bus = {
    stream: 'STUB',
    connected: true,
    last: () => Promise.resolve(messages.at(-1)),
    read: (fromSeq: number, deliver: (message: BusObservation) => Promise<void> | undefined) => {
      let stopped = false;
      let wake: (() => void) | undefined;
      const done = (async () => {
        let next = Math.max(1, fromSeq);
        while (!stopped) {
          const message = messages.find((candidate) => candidate.seq === next);
          if (!message) {
            await new Promise<void>((resolve) => {
              wake = resolve;
              wakers.add(resolve);
            });
            continue;
          }
          const settled = deliver(message);
          if (settled) await settled;
          next += 1;
        }
      })();
      return Promise.resolve({
        done,
        stop: async () => {
          stopped = true;
          wake?.();
          await done;
        },
      });
    },
    close: () => Promise.resolve(),
  } as unknown as MarketBus;
  return {
    bus,
    publish: (seq) => {
      messages.push(tick(seq));
      for (const wake of [...wakers]) wake();
      wakers.clear();
    },
  };
}

/** Engines that record the sequence of each observation handed to them (one list per engine made). */
function recordingEngines(): { engineFor: PartitionEngineFactory; seen: number[][] } {
  const seen: number[][] = [];
  const engineFor: PartitionEngineFactory = ({ sources }) => {
    const mine: number[] = [];
    seen.push(mine);
    const subscription = (sources[0] as DataSource).observe({ source: 'price', symbol: 'BTC' }).subscribe((observation) => mine.push((observation as { price: number }).price - 100));
    const off = () => () => undefined;
    return { onNotification: off, onConditionStates: off, onStatusChange: off, onProblem: off, onActivity: off, readiness: () => ({ queries: 0 }), stats: () => ({ activeQueries: 0, intake: new Map() }), dispose: () => subscription.unsubscribe() } as unknown as ProcessRunner;
  };
  return { engineFor, seen };
}

/** Positions in memory. */
function memoryPositions(saved: Map<number, PartitionPosition>): PgPartitionPositions {
  return {
    get: (partition: number) => Promise.resolve(saved.get(partition)),
    save: (partition: number, _epoch: number, position: PartitionPosition) => {
      saved.set(partition, position);
      return Promise.resolve(true);
    },
  } as unknown as PgPartitionPositions;
}

await describeWithPostgres('a lease loop that never waits on data', () => {
  it("a full data pool (every connection waiting on a lock another session holds) and a partition that never opens do not stop the renewals: the host keeps its leases and no other host takes them", { timeout: 60_000 }, async () => {
    const { schema, store } = await database('loop_blocked');
    const ttlMs = 900;
    const leases = ownLeases(store.pool, 'blocked-host', ttlMs);
    // Partition 4 never opens: it is given back after the TTL, its opening abandoned a TTL later.
    const openHangs = gate();
    const warn = vi.fn();
    const { engine, opened, closed } = standInEngine({ open: { partition: 4, until: openHangs.wait } });
    const host = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions: 5, warn });
    closers.push(() => host.dispose());
    await host.start();
    expect(host.readiness().partitions?.owned).toEqual([0, 1, 2, 3]);
    // Another session holds an advisory lock; the data path's every connection waits on it (the pool is full).
    const blocker = new pg.Client({ connectionString: schema.url });
    await blocker.connect();
    closers.push(() => blocker.end());
    await blocker.query('SELECT pg_advisory_lock(46)');
    const waiting = Array.from({ length: store.pool.options.max + 2 }, () => store.pool.query('SELECT pg_advisory_xact_lock(46)').catch(() => undefined));
    await until(() => store.pool.waitingCount > 0);
    // Another host would take the leases the moment they expired: they are renewed throughout.
    const renewals = countRenewals(leases, 4);
    const other = ownLeases(store.pool, 'other-host', ttlMs);
    const start = renewals();
    await until(() => renewals() >= start + 4);
    for (const lease of await other.all()) expect(lease).toMatchObject({ nodeId: 'blocked-host', expired: false });
    expect(await other.acquire([0, 1, 2, 3])).toEqual([]);
    expect(closed).toEqual([]);
    expect(host.readiness().unready).toBeUndefined();
    expect(warn.mock.calls.map(([message]) => String(message)).filter((message) => /lease|not renewed/.test(message))).toEqual([]);
    // Partition 4 is tried again only once its opening was abandoned (a TTL after it was given back).
    expect(opened.filter((partition) => partition !== 4)).toEqual([0, 1, 2, 3]);
    expect(opened).toContain(4);
    await blocker.query('SELECT pg_advisory_unlock(46)');
    await Promise.all(waiting);
    openHangs.release();
    vi.restoreAllMocks();
  });

  it('an engine whose partitions never start and never close fences only itself: another host keeps its partitions, a host that leaves has its partitions taken, and one that joins gets its own', { timeout: 120_000 }, async () => {
    const { store } = await database('loop_stuck');
    const ttlMs = 900;
    const partitions = 6;
    const stuck = gate();
    const hosts = new Map<string, { host: PartitionedRunner; leases: PgLeases; leased: Map<number, () => boolean> }>();
    const join = async (nodeId: string, hang: Parameters<typeof standInEngine>[0] = {}) => {
      const leases = ownLeases(store.pool, nodeId, ttlMs);
      const { engine, leased } = standInEngine(hang);
      const host = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions, warn: () => undefined });
      closers.push(() => host.dispose());
      hosts.set(nodeId, { host, leases, leased });
      await host.start();
    };
    /** Every partition held (unexpired) by the host rendezvous hashing gives it among `nodes`, and each host says it owns its own. */
    const settled = (nodes: string[]) => async () => {
      const held = await holders(hosts.get(nodes[0]!)!.leases);
      for (let partition = 0; partition < partitions; partition += 1) if (held.get(partition) !== ownerOf(partition, nodes, partitions)) return false;
      return nodes.every((nodeId) => {
        const owned = hosts.get(nodeId)!.host.readiness().partitions?.owned ?? [];
        return owned.length === [...held.values()].filter((holder) => holder === nodeId).length;
      });
    };
    // Host a's engine never finishes starting its partitions nor closing one (its data path is stuck).
    await join('host-a', { start: stuck.wait, close: stuck.wait });
    await join('host-b');
    await join('host-c');
    await until(settled(['host-a', 'host-b', 'host-c']));
    // b keeps its partitions, each surely its own, across renewals.
    const b = hosts.get('host-b')!;
    const bOwned = b.host.readiness().partitions?.owned ?? [];
    const renewals = countRenewals(b.leases, bOwned.length);
    await until(() => renewals() >= 3);
    expect(b.host.readiness().partitions?.owned).toEqual(bOwned);
    for (const partition of bOwned) expect(b.leased.get(partition)?.()).toBe(true);
    vi.restoreAllMocks();
    // c leaves: its partitions are taken by a and b (a's stuck start holds back no take-over).
    await hosts.get('host-c')!.host.dispose();
    hosts.delete('host-c');
    await until(settled(['host-a', 'host-b']));
    // d joins: a hands over what d is given, though its engine never closes a partition (abandoned after the TTL).
    await join('host-d');
    await until(settled(['host-a', 'host-b', 'host-d']));
    stuck.release();
  });

  it('a partition dropped is closed before its queries leave: they never leave an engine still reading (a query removed mid-trigger would stop its trigger there)', { timeout: 60_000 }, async () => {
    const { store } = await database('loop_order');
    const { record: key } = await createApiKey(store, SecretBox.fromKey(SECRET_KEY_HEX), { name: 'order', plan: 'pro' });
    const ids = ['order-q1', 'order-q2'];
    const request = { title: 'o', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'm' } }], expiresIn: '1h' } };
    const now = new Date();
    for (const id of ids) await store.insertQuery({ id, keyId: key.id, request: request as never, status: 'active', tradeFlavoured: false, estimatedCredits: 1, credits: 1, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + 3_600_000).toISOString(), cancelledAt: null, deletedAt: null, runtime: null, fromDraft: null });
    const leases = ownLeases(store.pool, 'order-host', 900);
    const { engine, log } = standInEngine();
    const host = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions: 1, warn: () => undefined });
    await host.start();
    await until(() => ids.every((id) => log.includes(`add:${id}`)));
    // Leaving drops the partition (a hand-over and a lease not renewed in time drop it the same way).
    await host.dispose();
    const closedAt = log.indexOf('close:0');
    expect(closedAt).toBeGreaterThanOrEqual(0);
    for (const id of ids) expect(log.indexOf(`remove:${id}`)).toBeGreaterThan(closedAt);
  });

  it("each round brings the partitions' queries in line with the store, many to a read: one started elsewhere is added, one deleted is removed, one ended is let go", { timeout: 60_000 }, async () => {
    const { store } = await database('loop_reconcile');
    const { record: key } = await createApiKey(store, SecretBox.fromKey(SECRET_KEY_HEX), { name: 'reconcile', plan: 'pro' });
    const request = { title: 'r', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'm' } }], expiresIn: '1h' } };
    const now = new Date();
    const insert = (id: string) => store.insertQuery({ id, keyId: key.id, request: request as never, status: 'active', tradeFlavoured: false, estimatedCredits: 1, credits: 1, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + 3_600_000).toISOString(), cancelledAt: null, deletedAt: null, runtime: null, fromDraft: null });
    const first = Array.from({ length: 1_200 }, (_, index) => `rec-${index}`);
    for (let from = 0; from < first.length; from += 100) await Promise.all(first.slice(from, from + 100).map(insert));
    const leases = ownLeases(store.pool, 'reconcile-host', 60_000);
    const { engine, log } = standInEngine();
    const host = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions: 1, warn: () => undefined });
    closers.push(() => host.dispose());
    await host.start();
    await until(() => first.every((id) => log.includes(`add:${id}`)));
    // Changed behind the host's back (no signal): a query created, one deleted, one ended.
    await insert('rec-new');
    await store.softDeleteQuery('rec-1', now.toISOString());
    await store.setQueryStatus('rec-2', 'expired');
    const reads = vi.spyOn(store, 'queriesByIds');
    await host.beat();
    await until(() => log.includes('add:rec-new') && log.includes('remove:rec-1'));
    expect(log.filter((entry) => entry.startsWith('remove:'))).toEqual(['remove:rec-1']);
    expect(log.filter((entry) => entry === 'add:rec-new')).toHaveLength(1);
    // The query that ended is no longer the host's to run: deleted afterwards, it is not removed again.
    await store.softDeleteQuery('rec-2', now.toISOString());
    await host.beat();
    expect(log.filter((entry) => entry.startsWith('remove:'))).toEqual(['remove:rec-1']);
    expect(reads.mock.calls.every(([ids]) => ids.length <= 500)).toBe(true);
    vi.restoreAllMocks();
  });

  it('says when its beats are late: a renewal answered after a third of the TTL is logged, one line a minute', { timeout: 60_000 }, async () => {
    const { store } = await database('loop_late');
    const ttlMs = 1_500;
    const leases = ownLeases(store.pool, 'late-host', ttlMs);
    const { engine } = standInEngine();
    const warn = vi.fn();
    const host = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions: 2, warn });
    closers.push(() => host.dispose());
    await host.start();
    // The database answers the first and the third renewal from now on slowly, past a third of the TTL (a
    // renewal in flight holds back the next beat's: two slow ones in a row would let the leases' validity pass).
    const renew = leases.renew.bind(leases);
    let calls = 0;
    vi.spyOn(leases, 'renew').mockImplementation(async (partitions) => {
      calls += 1;
      if (calls === 1 || calls === 3) await new Promise((resolve) => setTimeout(resolve, ttlMs / 3 + 50));
      return renew(partitions);
    });
    const lateLines = () => warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('lease renewal was answered after'));
    await until(() => lateLines().length > 0 && calls >= 4);
    expect(lateLines()).toHaveLength(1);
    expect(lateLines()[0]).toMatch(/^cluster: a lease renewal was answered after \d+ ms; leases last 1500 ms and are renewed every 500 ms$/);
    vi.restoreAllMocks();
  });

  it('a partition that stops on its own (a write failed) is dropped and opened again by the same host at a new epoch; one fenced is left to its new holder', { timeout: 60_000 }, async () => {
    const { store } = await database('loop_stopped');
    const leases = ownLeases(store.pool, 'stop-host', 900);
    const { engine, log, stop } = standInEngine();
    const host = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions: 2, warn: () => undefined });
    closers.push(() => host.dispose());
    await host.start();
    const epochOf = async (partition: number) => (await leases.all()).find((lease) => lease.partition === partition)!.epoch;
    const first = await epochOf(0);
    expect(log).toContain(`open:0@${first}`);
    stop(0, first, 'failed');
    await until(() => log.includes('close:0') && log.some((entry) => entry.startsWith('open:0@') && entry !== `open:0@${first}`));
    const second = await epochOf(0);
    expect(second).toBeGreaterThan(first);
    expect(log.filter((entry) => /^(open|close):0/.test(entry))).toEqual([`open:0@${first}`, 'close:0', `open:0@${second}`]);
    expect(host.readiness().partitions?.owned).toEqual([0, 1]);
    // A stop of an epoch no longer held changes nothing.
    stop(0, first, 'fenced');
    await host.beat();
    expect(log.filter((entry) => /^(open|close):0/.test(entry))).toHaveLength(3);
    // Fenced: another host holds the lease now; this one drops the partition and does not take it while that lease lives.
    const other = ownLeases(store.pool, 'other-host', 60_000);
    await store.pool.query("UPDATE partition_leases SET node_id = 'other-host', epoch = epoch + 1000, expires_at = now() + interval '1 minute' WHERE partition = 1");
    const otherEpoch = await epochOf(1);
    stop(1, (await leases.all()).find((lease) => lease.partition === 1)!.epoch - 1000, 'fenced');
    await until(() => !(host.readiness().partitions?.owned ?? []).includes(1));
    await host.beat();
    expect(await epochOf(1)).toBe(otherEpoch);
    expect((await other.all()).find((lease) => lease.partition === 1)).toMatchObject({ nodeId: 'other-host' });
  });

  it("a host paused inside a fenced write (its session idle in the transaction, its lease row share-locked) holds back the take-over of that one partition, only until the server ends the session: the others are taken at once and the taker keeps its own", { timeout: 60_000 }, async () => {
    const { schema, store } = await database('loop_paused');
    // Long enough that a loaded machine renews the taker's own leases in time (the point is the row lock, not the clock).
    const ttlMs = 1_500;
    const partitions = 4;
    // The paused host: it took every partition, then stopped between a fenced write's checkFence and its
    // COMMIT (SIGSTOP). Its leases are never renewed again; its data session has the timeouts a host gives its sessions.
    const pausedLeases = ownLeases(store.pool, 'paused-host', ttlMs);
    const taken = await pausedLeases.acquire([0, 1, 2, 3]);
    const paused = openPgPool(schema.url, { maxConnections: 1, timeouts: hostSessionTimeouts(ttlMs, undefined) });
    const session = await paused.connect();
    closers.push(async () => {
      session.release(true);
      await paused.end();
    });
    let ended: (Error & { code?: string }) | undefined;
    session.on('error', (error) => (ended ??= error));
    await session.query('BEGIN');
    await checkFence(session, { partition: 0, epoch: taken.find((lease) => lease.partition === 0)!.epoch, nodeId: 'paused-host' }, 'a paused write');

    const leases = ownLeases(store.pool, 'taker', ttlMs);
    const { engine } = standInEngine();
    const warn = vi.fn();
    const taker = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions, warn });
    closers.push(() => taker.dispose());
    await taker.start();
    // Partitions 1-3 are the taker's as soon as their leases expire, while the paused session still holds row 0.
    let held = new Map<number, string>();
    await until(async () => {
      held = await holders(leases);
      return [1, 2, 3].every((partition) => held.get(partition) === 'taker');
    });
    expect(ended).toBeUndefined();
    expect(held.get(0)).not.toBe('taker');
    // The server ends the paused session for idling in its transaction (25P03), the row lock goes, and 0 is taken.
    await until(async () => (await holders(leases)).get(0) === 'taker');
    expect(ended?.message).toMatch(/idle-in-transaction timeout/);
    // The lease is the taker's in the database a moment before the partition opens in it.
    await until(() => (taker.readiness().partitions?.owned ?? []).length === 4);
    expect(taker.readiness().partitions?.owned).toEqual([0, 1, 2, 3]);
    // The take-over of 0 waiting on that row cost the taker nothing: no lease of its own went unrenewed meanwhile.
    expect(warn.mock.calls.map(([message]) => String(message)).filter((message) => /not renewed|no longer this host/.test(message))).toEqual([]);
    vi.restoreAllMocks();
  });

  it('a host whose renewals stop hands no message to its engines once their validity has passed, says 503 with the reason on /ready, and is ready again once it renews', { timeout: 60_000 }, async () => {
    const { schema, store } = await database('loop_cut');
    const ttlMs = 2_000;
    const target = new URL(schema.url);
    const proxy: TcpProxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    closers.push(() => proxy.close());
    const viaProxy = new URL(schema.url);
    viaProxy.port = String(proxy.port);
    const proxied = new pg.Pool({ connectionString: viaProxy.toString(), max: 1 });
    proxied.on('error', () => undefined);
    closers.push(() => proxied.end());
    const leases = ownLeases(proxied, 'cut-host', ttlMs);
    const { bus, publish } = liveBus();
    const { engineFor, seen } = recordingEngines();
    const base = { recording: { observations: [] } as unknown as Recording, start: () => Promise.resolve(0), stats: () => ({ activeQueries: 0, intake: new Map() }), dispose: () => undefined } as unknown as ProcessRunner;
    const engine = new BusPartitions({ bus, positions: memoryPositions(new Map([[0, { seq: 0, at: 0 }]])), store: {} as HostStore, history: {} as never, partitions: 1, base, engineFor, historyWaitMs: 0, saveEveryMs: 5 });
    let leased: (() => boolean) | undefined;
    const openPartition = engine.openPartition.bind(engine);
    vi.spyOn(engine, 'openPartition').mockImplementation((partition, epoch, isLeased) => {
      leased = isLeased;
      return openPartition(partition, epoch, isLeased);
    });
    const host = new PartitionedRunner({ engine: engine, store, pool: store.pool, leases, partitions: 1, warn: () => undefined });
    closers.push(() => host.dispose());
    await host.start();
    const app = Fastify();
    systemRoutes(app, { runner: host, store, config: { readyMaxFeedAgeMs: 0 }, lifecycle: { startedAt: Date.now(), draining: false }, now: Date.now } as unknown as HostContext);
    closers.push(() => app.close());
    const ready = async () => {
      const response = await app.inject({ method: 'GET', url: '/ready' });
      return { code: response.statusCode, body: response.json<{ status: string; reason?: string }>() };
    };
    // Ready once a renewal was answered within the TTL (on a loaded machine the first may be slow).
    await until(async () => (await ready()).code === 200);
    expect((await ready()).body).toMatchObject({ status: 'ready' });
    // Every observation judged, whichever engine of the partition judged it (a loaded machine may see it taken again).
    const judged = () => seen.flat();
    publish(1);
    await until(() => judged().length === 1);

    // The leases' connection is cut: no renewal is answered from now on.
    proxy.cut();
    await until(() => leased?.() === false);
    publish(2);
    // The message waits: by the time the partition is dropped (its lease surely expired), its engine never saw it.
    await until(() => (host.readiness().partitions?.owned ?? []).length === 0);
    expect(judged()).toEqual([1]);
    // A TTL after the last renewal answered, the host says it is not ready, and why.
    await until(async () => (await ready()).code === 503);
    expect(judged()).toEqual([1]);
    expect(await ready()).toEqual({ code: 503, body: expect.objectContaining({ status: 'unavailable', reason: `leases not renewed within ${ttlMs} ms`, store: { kind: 'postgresql', ok: true } }) as unknown });

    // Renewed again: ready, the partition taken back, and the message judged there once.
    proxy.restore();
    await until(async () => (await ready()).code === 200);
    await until(() => judged().length === 2);
    expect(judged()).toEqual([1, 2]);
    vi.restoreAllMocks();
  });
});
