import pg from 'pg';
import { afterAll, expect, it, vi } from 'vitest';
import { type Recording } from '@eql/core';
import { PgLeases } from '../src/scale-out/leases.js';
import { type PartitionEngine, PartitionedRunner } from '../src/scale-out/partitioned-runner.js';
import { FEED_PARTITION } from '../src/scale-out/partitions.js';
import { PgHostStore, SecretBox } from '../src/index.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';

// Liveness of the leases under load (docs/scale-out.md, "Who runs which query"): a beat that takes long
// (engine work: partitions opened, queries started, a backlog caught up) must not hold the renewal of
// the leases back, or a busy host loses its partitions to the others and they churn; and the feed's
// leader publishes only while its lease is surely its own. A PartitionedRunner on real leases in
// PostgreSQL, with an engine that only records what it is asked; every wait is for an event.

const schemas: TestSchema[] = [];
const stores: PgHostStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const schema of schemas) await schema.drop();
});

async function database(label: string): Promise<{ schema: TestSchema; store: PgHostStore }> {
  const schema = await freshSchema(label);
  schemas.push(schema);
  const store = await PgHostStore.open(schema.url, { box: SecretBox.fromKey(SECRET_KEY_HEX) });
  stores.push(store);
  return { schema, store };
}

/** An engine that runs no query: it counts the partitions opened and closed, and its start of the partitions can be held. */
function recordingEngine(): { engine: PartitionEngine; closed: number[]; hold: () => { entered: Promise<void>; release: () => void } } {
  const closed: number[] = [];
  let held: { entered: () => void; released: Promise<void> } | undefined;
  const engine = {
    recording: { observations: [] } as unknown as Recording,
    start: () => Promise.resolve(0),
    add: () => undefined,
    remove: () => undefined,
    cancel: () => undefined,
    inspect: () => undefined,
    readiness: () => ({ queries: 0 }),
    dispose: () => undefined,
    openPartition: () => Promise.resolve(),
    closePartition: (partition: number) => {
      closed.push(partition);
      return Promise.resolve();
    },
    startPartitions: async () => {
      if (!held) return;
      const { entered, released } = held;
      held = undefined;
      entered();
      await released;
    },
  } as unknown as PartitionEngine;
  return {
    engine,
    closed,
    hold: () => {
      let entered!: () => void;
      let release!: () => void;
      const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
      held = { entered, released: new Promise<void>((resolve) => (release = resolve)) };
      return { entered: enteredPromise, release };
    },
  };
}

/** Resolves at the first of the named events. */
function first(events: Record<string, Promise<unknown>>): Promise<string> {
  return Promise.race(Object.entries(events).map(([name, event]) => event.then(() => name)));
}

/** Resolves when `check` holds, polled every 5 ms (the test's timeout bounds it). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
}

await describeWithPostgres('the leases of a busy host', () => {
  it('a beat held up by engine work longer than the TTL does not hold the renewal back: the host keeps its partitions and never fences itself', { timeout: 60_000 }, async () => {
    const { store } = await database('lease_busy');
    const leases = new PgLeases(store.pool, 'busy-host', 600);
    const warn = vi.fn();
    const { engine, closed, hold } = recordingEngine();
    const host = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions: 4, warn });
    await host.start();
    // The next beat's engine work lasts until released: three renewals must happen meanwhile.
    const held = hold();
    try {
      expect(host.readiness().partitions?.owned).toEqual([0, 1, 2, 3]);
      await held.entered;
      let renewals = 0;
      let renewed!: () => void;
      const threeRenewals = new Promise<void>((resolve) => (renewed = resolve));
      const renew = leases.renew.bind(leases);
      vi.spyOn(leases, 'renew').mockImplementation(async (partitions) => {
        const kept = await renew(partitions);
        if (kept.length === 4 && ++renewals === 3) renewed();
        return kept;
      });
      const fenced = until(() => closed.length > 0);
      expect(await first({ renewed: threeRenewals, fenced })).toBe('renewed');
      expect(closed).toEqual([]);
      // The engine work held past the TTL may be said to be slow (it goes on beside); nothing about the leases is.
      expect(warn.mock.calls.map(([message]) => String(message)).filter((message) => /lease|renew|stopping|fence/i.test(message))).toEqual([]);
      const all = await leases.all();
      expect(all.map(({ partition, nodeId, expired }) => ({ partition, nodeId, expired }))).toEqual([0, 1, 2, 3].map((partition) => ({ partition, nodeId: 'busy-host', expired: false })));
    } finally {
      held.release();
      vi.restoreAllMocks();
      await host.dispose();
    }
  });

  it("the feed's leader whose renewal hangs (PostgreSQL does not answer) stops publishing before its lease can expire", { timeout: 60_000 }, async () => {
    const { schema, store } = await database('lease_feed');
    const ttlMs = 3_000;
    const leases = new PgLeases(store.pool, 'feed-host', ttlMs);
    let leased: (() => boolean) | undefined;
    let stopped = false;
    const feed = {
      start: (_epoch: number, isLeased: () => boolean) => {
        leased = isLeased;
        return Promise.resolve();
      },
      stop: () => {
        stopped = true;
        return Promise.resolve();
      },
    };
    const { engine } = recordingEngine();
    const host = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions: 2, feed, warn: () => undefined });
    await host.start();
    const blocker = new pg.Client({ connectionString: schema.url });
    await blocker.connect();
    try {
      expect(host.readiness().feedLeader).toBe(true);
      expect(leased?.()).toBe(true);
      // Every heartbeat now waits on the lock, so the feed's lease is renewed no more.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE cluster_nodes IN ACCESS EXCLUSIVE MODE');
      await until(() => leased?.() === false);
      const fencedAt = Date.now();
      await until(() => stopped);
      const [row] = (await blocker.query<{ expires: string }>('SELECT (extract(epoch FROM expires_at) * 1000)::bigint AS expires FROM partition_leases WHERE partition = $1', [FEED_PARTITION])).rows;
      // The lease was still the host's when it stopped publishing (the same machine's clock).
      expect(fencedAt).toBeLessThan(Number(row!.expires));
      await blocker.query('COMMIT');
    } finally {
      await blocker.end();
      await host.dispose();
    }
  });
});
