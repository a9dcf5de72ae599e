import { afterAll, afterEach, beforeEach, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import type { ExecutionRecord, LlmSession, NotificationDraft, OutboxEntry, QueryRequest, RuntimeState } from '@eql/core';
import { PgLeases } from '../src/scale-out/leases.js';
import { SecretBox } from '../src/secrets.js';
import { NOTIFICATION_KEY_LOCK_SQL, PgHostStore } from '../src/store/pg/pg-store.js';
import type { QueryRecord } from '../src/store/records.js';
import { type Fence, FencedWriteError } from '../src/store/store.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';

// Fenced writes (issue 46, point 3): every write a partition's engine makes carries its lease (a fence),
// and the PostgreSQL store refuses it once the lease moved on, in the write's own transaction. And no
// cluster-wide lock on the alert path: a key's notifications are ordered by a lock of that key only.
// Every wait is for a promise or a database state, never a sleep.

const box = SecretBox.fromKey(SECRET_KEY_HEX);
const at = (second: number) => new Date(Date.UTC(2026, 0, 5, 0, 0, second)).toISOString();

const request = (id: string) => ({ id, conditions: [{ type: 'price', symbol: 'BTC', operator: 'above', value: 1 }], actions: [{ type: 'notify' }] }) as unknown as QueryRequest;

function queryRecord(id: string, keyId = 1): QueryRecord {
  return {
    id,
    keyId,
    request: request(id),
    status: 'active',
    tradeFlavoured: false,
    estimatedCredits: 3,
    credits: 3,
    createdAt: at(0),
    expiresAt: '2026-02-05T00:00:00.000Z',
    cancelledAt: null,
    deletedAt: null,
    runtime: null,
    fromDraft: null,
  };
}

const runtime = (triggerCount: number): RuntimeState => ({ status: 'active', triggerCount, latched: {}, verdicts: {}, cronPulses: {} });
const execution = (id: string, queryId: string, status: ExecutionRecord['status'] = 'running'): ExecutionRecord => ({ id, queryId, stepId: 'w', type: 'webhook', status, triggerIndex: 1, createdAt: at(1), attempts: 1 });
const pending = (queryId: string, executionId: string, triggerIndex = 1): OutboxEntry => ({
  key: `${queryId}:${triggerIndex}:w`,
  queryId,
  triggerIndex,
  stepId: 'w',
  type: 'webhook',
  executionId,
  status: 'pending',
  createdAt: at(1),
});
const notification = (queryId: string, triggerIndex: number, observedAt = at(triggerIndex)): NotificationDraft => ({
  type: 'athena_query_notify_only',
  category: 'alerts',
  title: 'BTC moved',
  body: 'BTC is above 1',
  data: { queryId, stepId: 'n', triggerIndex, observedAt },
  priority: 'high',
  createdAt: at(triggerIndex),
});
const session = (queryId: string): LlmSession => ({ sessionId: `s-${queryId}`, queryId, title: null, analysisType: null, status: 'done', createdAt: at(1), executedAt: at(1), messages: [] });

/** Resolves to how the promise settled, without throwing. */
async function settled<T>(promise: Promise<T> | T): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

await describeWithPostgres('fenced writes (PostgreSQL)', () => {
  let schema: TestSchema;
  let store: PgHostStore;
  const others: Array<PgHostStore | pg.Client> = [];
  const schemas: TestSchema[] = [];

  beforeEach(async () => {
    schema = await freshSchema('fence');
    schemas.push(schema);
    store = await PgHostStore.open(schema.url, { box });
    await store.createKey({
      keyHash: 'h1',
      keyPrefix: 'eql_1',
      name: 'one',
      email: null,
      project: null,
      plan: 'pro',
      status: 'active',
      autoEnabled: true,
      hmacSecretSealed: box.seal('hmac'),
      createdAt: at(0),
      updatedAt: at(0),
      expiresAt: null,
      scopes: [],
      webhookSecretSealed: null,
      previousWebhookSecretSealed: null,
      previousWebhookSecretUntil: null,
    });
  });

  afterEach(async () => {
    for (const other of others.splice(0)) await (other instanceof PgHostStore ? other.close() : other.end());
    await store.close();
  });

  afterAll(async () => {
    for (const made of schemas) await made.drop();
  });

  /** Gives the lease of `partition` to `nodeId` at `epoch` (a take-over when it held another). */
  async function lease(partition: number, nodeId: string, epoch: number): Promise<Fence> {
    await store.pool.query(
      `INSERT INTO partition_leases (partition, node_id, epoch, expires_at) VALUES ($1, $2, $3, now() + interval '1 minute')
       ON CONFLICT (partition) DO UPDATE SET node_id = EXCLUDED.node_id, epoch = EXCLUDED.epoch, expires_at = EXCLUDED.expires_at`,
      [partition, nodeId, epoch],
    );
    return { partition, nodeId, epoch };
  }

  /** A connection of its own on the test schema (another session: psql, another host). */
  async function otherSession(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: schema.url });
    client.on('error', () => undefined);
    await client.connect();
    others.push(client);
    return client;
  }

  it('after a take-over, every write of the old epoch is refused and leaves nothing; the new epoch writes and rows say who wrote them', async () => {
    await store.insertQuery(queryRecord('q-1'));
    const old = await lease(0, 'host-a', 1);
    await store.saveRuntime('q-1', runtime(12), old, 1);
    await store.saveExecution(1, execution('e-1', 'q-1'), old);
    const young = await lease(0, 'host-b', 2);

    const refused = [
      settled(store.saveRuntime('q-1', runtime(13), old, 2)),
      settled(store.saveExecution(1, execution('e-1', 'q-1', 'succeeded'), old)),
      settled(store.saveExecution(1, execution('e-2', 'q-1'), old)),
      settled(store.addNotification(1, notification('q-1', 1), old)),
      settled(store.saveOutbox(1, pending('q-1', 'e-2'), old)),
      settled(store.claimOutbox(1, pending('q-1', 'e-3', 2), old)),
      settled(store.saveSession(1, session('q-1'), old)),
    ];
    for (const outcome of await Promise.all(refused)) {
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.error).toBeInstanceOf(FencedWriteError);
    }
    expect((await store.queryById('q-1'))?.runtime?.triggerCount).toBe(12);
    expect((await store.executionById('e-1'))?.status).toBe('running');
    expect(await store.executionById('e-2')).toBeUndefined();
    expect(await store.notificationsAfter(1, 0)).toEqual([]);
    expect(await store.outboxEntry('q-1:1:w')).toBeUndefined();
    expect(await store.outboxEntry('q-1:2:w')).toBeUndefined();
    expect(await store.sessionById('s-q-1')).toBeUndefined();

    // The new owner's writes pass (its runtime version starts again under its epoch), and are audited.
    await store.saveRuntime('q-1', runtime(17), young, 1);
    await store.saveExecution(1, execution('e-1', 'q-1', 'succeeded'), young);
    const stored = await store.addNotification(1, notification('q-1', 1), young);
    expect(await store.claimOutbox(1, pending('q-1', 'e-1'), young)).toBe(true);
    await store.saveSession(1, session('q-1'), young);
    expect((await store.queryById('q-1'))?.runtime?.triggerCount).toBe(17);
    const audit = async (sql: string, params: unknown[]) => (await store.pool.query(sql, params)).rows[0] as Record<string, unknown>;
    expect(await audit('SELECT runtime_written_by AS node, runtime_epoch AS epoch FROM queries WHERE id = $1', ['q-1'])).toEqual({ node: 'host-b', epoch: '2' });
    expect(await audit('SELECT written_by AS node, written_epoch AS epoch FROM executions WHERE id = $1', ['e-1'])).toEqual({ node: 'host-b', epoch: '2' });
    expect(await audit('SELECT written_by AS node, written_epoch AS epoch FROM notifications WHERE id = $1', [stored.id])).toEqual({ node: 'host-b', epoch: '2' });
    expect(await audit('SELECT written_by AS node, written_epoch AS epoch FROM action_outbox WHERE idempotency_key = $1', ['q-1:1:w'])).toEqual({ node: 'host-b', epoch: '2' });

    // A host without partitions writes without a fence, as before.
    await store.saveRuntime('q-1', runtime(18));
    expect((await store.queryById('q-1'))?.runtime?.triggerCount).toBe(18);
  });

  it('a lease released and taken again has a higher epoch: the fence of the earlier lease never matches again (no A-B-A)', async () => {
    await store.insertQuery(queryRecord('q-1'));
    const a = new PgLeases(store.pool, 'host-a', 60_000);
    const b = new PgLeases(store.pool, 'host-b', 60_000);
    const [first] = await a.acquire([0]);
    const before: Fence = { partition: 0, epoch: first?.epoch ?? -1, nodeId: 'host-a' };
    await store.saveRuntime('q-1', runtime(5), before, 50);
    await a.release([0]);
    const [between] = await b.acquire([0]);
    await b.release([0]);
    const [again] = await a.acquire([0]);
    expect(between?.epoch).toBeGreaterThan(first?.epoch ?? Infinity);
    expect(again?.epoch).toBeGreaterThan(between?.epoch ?? Infinity);
    // The zombie of host A's first lease is refused, though host A holds the partition again.
    await expect(store.saveRuntime('q-1', runtime(4), before, 51)).rejects.toBeInstanceOf(FencedWriteError);
    // Host A's new lease writes, its version counted again from its new epoch.
    await store.saveRuntime('q-1', runtime(6), { partition: 0, epoch: again?.epoch ?? -1, nodeId: 'host-a' }, 1);
    expect((await store.queryById('q-1'))?.runtime?.triggerCount).toBe(6);
  });

  it('a write racing a take-over either commits before it or is refused: the take-over waits on the write’s share lock, the write on the take-over', async () => {
    await store.insertQuery(queryRecord('q-1'));
    const old = await lease(0, 'host-a', 1);
    // The take-over is under way (its UPDATE holds the lease row) when the old owner writes.
    const takeover = await otherSession();
    await takeover.query('BEGIN');
    await takeover.query("UPDATE partition_leases SET node_id = 'host-b', epoch = 2 WHERE partition = 0");
    const write = settled(store.saveRuntime('q-1', runtime(99), old, 1));
    await until(async () => (await blockedBy(store, takeover)) > 0);
    await takeover.query('COMMIT');
    const outcome = await write;
    expect(outcome.ok).toBe(false);
    expect((await store.queryById('q-1'))?.runtime).toBeNull();

    // The other way round: the old owner's write holds its share lock (here: a transaction of the same
    // shape left open), and the take-over's UPDATE waits until it commits.
    const young = await lease(0, 'host-b', 2);
    const writer = await otherSession();
    await writer.query('BEGIN');
    await writer.query('SELECT 1 FROM partition_leases WHERE partition = $1 AND epoch = $2 AND node_id = $3 FOR SHARE', [0, young.epoch, young.nodeId]);
    const next = settled(store.pool.query("UPDATE partition_leases SET node_id = 'host-c', epoch = 3 WHERE partition = 0"));
    await until(async () => (await blockedBy(store, writer)) > 0);
    await writer.query('COMMIT');
    expect((await next).ok).toBe(true);
  });

  it('two owners writing at once across a take-over: only the new epoch’s effects stay, and no write begun after the take-over passes', async () => {
    const queries = ['q-1', 'q-2', 'q-3'];
    for (const id of queries) await store.insertQuery(queryRecord(id));
    const old = await lease(0, 'host-a', 1);
    const zombie = await PgHostStore.open(schema.url, { box });
    others.push(zombie);
    let takenOver = false;
    const lateOutcomes: Array<Promise<{ ok: boolean }>> = [];
    // The old owner writes on and on; each write begun after the take-over committed must be refused.
    const zombieRun = (async () => {
      let lateRounds = 0;
      for (let round = 1; lateRounds < 5; round += 1) {
        const late = takenOver;
        if (late) lateRounds += 1;
        const writes: Array<Promise<{ ok: boolean }>> = queries.map((id) => settled(zombie.saveRuntime(id, runtime(1_000 + round), old, round)));
        writes.push(settled(zombie.saveExecution(1, execution(`z-${round}`, 'q-1'), old)));
        writes.push(settled(zombie.claimOutbox(1, pending('q-2', `z-${round}`, round), old)));
        if (late) lateOutcomes.push(...writes);
        await Promise.all(writes);
      }
    })();
    await until(async () => Number((await store.pool.query<{ n: string }>("SELECT COUNT(*) AS n FROM executions WHERE id LIKE 'z-%'")).rows[0]?.n) >= 3);
    const young = await lease(0, 'host-b', 2);
    takenOver = true;
    for (let round = 1; round <= 20; round += 1) {
      for (const id of queries) await store.saveRuntime(id, runtime(round), young, round);
      await store.claimOutbox(1, pending('q-3', `n-${round}`, round), young);
    }
    await zombieRun;
    expect(lateOutcomes.length).toBeGreaterThan(0);
    expect((await Promise.all(lateOutcomes)).filter((outcome) => outcome.ok)).toEqual([]);
    for (const id of queries) {
      expect((await store.queryById(id))?.runtime?.triggerCount).toBe(20);
    }
    const { rows } = await store.pool.query<{ epoch: string }>('SELECT DISTINCT runtime_epoch AS epoch FROM queries');
    expect(rows.map((row) => row.epoch)).toEqual(['2']);
  });

  it('a runtime state’s version only moves forward: saves in any order leave the highest version’s state', async () => {
    await store.insertQuery(queryRecord('q-1'));
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ epoch: fc.integer({ min: 1, max: 3 }), version: fc.integer({ min: 1, max: 50 }) }), { minLength: 1, maxLength: 12, selector: (save) => `${save.epoch}:${save.version}` }),
        async (saves) => {
          round += 1;
          const id = `q-p${round}`;
          await store.insertQuery(queryRecord(id));
          // Every epoch's fence is valid here (one partition each): only the version decides.
          const fences = new Map<number, Fence>();
          for (const epoch of [1, 2, 3]) fences.set(epoch, await lease(epoch, `host-${epoch}`, epoch));
          const outcomes = await Promise.all(saves.map((save) => settled(store.saveRuntime(id, runtime(save.epoch * 1_000 + save.version), fences.get(save.epoch), save.version))));
          const highest = saves.reduce((best, save) => (save.epoch > best.epoch || (save.epoch === best.epoch && save.version > best.version) ? save : best));
          expect((await store.queryById(id))?.runtime?.triggerCount).toBe(highest.epoch * 1_000 + highest.version);
          // A refused save is one that came after a newer one, and it says so.
          for (const outcome of outcomes) if (!outcome.ok) expect(outcome.error).toBeInstanceOf(FencedWriteError);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('an outbox claim is won once when several hosts claim one step at once', async () => {
    const fence = await lease(0, 'host-a', 1);
    const stores = [store, ...(await Promise.all([1, 2, 3].map(() => PgHostStore.open(schema.url, { box }))))];
    others.push(...stores.slice(1));
    for (let trigger = 1; trigger <= 10; trigger += 1) {
      const won = await Promise.all(stores.map((each, index) => each.claimOutbox(1, pending('q-1', `e-${trigger}-${index}`, trigger), index % 2 === 0 ? fence : undefined)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = won.indexOf(true);
      expect((await store.outboxEntry(`q-1:${trigger}:w`))?.executionId).toBe(`e-${trigger}-${winner}`);
    }
  });

  it('notifications of two keys do not wait on each other: a session holding key 1’s lock blocks key 1 only', async () => {
    await store.insertQuery(queryRecord('q-1', 1));
    await store.insertQuery(queryRecord('q-2', 2));
    const holder = await otherSession();
    await holder.query('BEGIN');
    await holder.query(NOTIFICATION_KEY_LOCK_SQL, [1]);
    let keyOneDone = false;
    const keyOne = Promise.resolve(store.addNotification(1, notification('q-1', 1))).then((stored) => {
      keyOneDone = true;
      return stored;
    });
    await until(async () => (await blockedBy(store, holder)) > 0);
    // Key 2 goes through while key 1 waits on the lock the other session holds.
    const keyTwo = await store.addNotification(2, notification('q-2', 1));
    expect(keyTwo.keyId).toBe(2);
    expect(keyOneDone).toBe(false);
    await holder.query('COMMIT');
    expect((await keyOne).keyId).toBe(1);
    expect((await store.notificationsAfter(1, 0)).map((item) => item.id)).toEqual([(await keyOne).id]);
  });

  it('a key’s notification ids are in commit order: a reader following the key as they commit misses none', async () => {
    await store.insertQuery(queryRecord('q-1', 1));
    await store.insertQuery(queryRecord('q-2', 2));
    const writers = [store, ...(await Promise.all([1, 2].map(() => PgHostStore.open(schema.url, { box, maxConnections: 6 }))))];
    others.push(...writers.slice(1));
    const perWriter = 40;
    const seen: number[] = [];
    let last = 0;
    let writing = true;
    const reader = (async () => {
      for (;;) {
        const done = !writing;
        for (const item of await store.notificationsAfter(1, last, undefined, 1_000)) {
          seen.push(item.id);
          last = item.id;
        }
        if (done) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const added = await Promise.all(
      writers.flatMap((writer, w) =>
        Array.from({ length: perWriter }, (_, index) =>
          Promise.resolve(writer.addNotification(index % 3 === 0 ? 2 : 1, notification(index % 3 === 0 ? 'q-2' : 'q-1', w * 1_000 + index + 1))),
        ),
      ),
    );
    writing = false;
    await reader;
    const keyOne = added.filter((item) => item.keyId === 1).map((item) => item.id);
    expect(seen.length).toBe(keyOne.length);
    expect([...seen].sort((a, b) => a - b)).toEqual([...keyOne].sort((a, b) => a - b));
  });

  it('group commit: a burst of writes goes in one transaction per lease and kind, each write answering as it would alone', async () => {
    const fence = await lease(0, 'host-a', 1);
    const ids = Array.from({ length: 120 }, (_, index) => `q-${index}`);
    for (const id of ids) await store.insertQuery(queryRecord(id));
    // Some queries already hold a newer state (a later lease), some steps an entry (another run claimed them), and
    // some triggers a notification of their step (one for another observation: a reused trigger index).
    await store.saveRuntime('q-3', runtime(50), { ...fence }, 10_000);
    for (const id of ['q-5', 'q-6']) expect(await store.claimOutbox(1, pending(id, `earlier-${id}`), fence)).toBe(true);
    const earlierAlert = await store.addNotification(1, notification('q-7', 1), fence);
    await store.addNotification(1, notification('q-8', 1, at(30)), fence);

    const connects = vi.spyOn(store.pool, 'connect');
    const burst = ids.flatMap((id) => [
      settled(store.saveRuntime(id, runtime(1), fence, 1)),
      settled(store.saveExecution(1, execution(`e-${id}`, id), fence)),
      settled(store.claimOutbox(1, pending(id, `e-${id}`), fence)),
      settled(store.addNotification(1, notification(id, 1), fence)),
    ]);
    const outcomes = await Promise.all(burst);
    const transactions = connects.mock.calls.length;
    connects.mockRestore();
    // Four kinds, one lease: four batches (eight when a batch was under way as the burst began), not 480 transactions.
    expect(transactions).toBeLessThanOrEqual(8);

    const of = (kind: number) => ids.map((_, index) => outcomes[index * 4 + kind]!);
    const runtimes = of(0);
    expect(runtimes[3]).toMatchObject({ ok: false, error: expect.any(FencedWriteError) as unknown });
    expect(runtimes.filter((outcome) => !outcome.ok)).toHaveLength(1);
    expect((await store.queryById('q-4'))?.runtime).toEqual(runtime(1));
    expect((await store.queryById('q-3'))?.runtime).toEqual(runtime(50));
    expect(of(1).every((outcome) => outcome.ok)).toBe(true);
    expect((await store.executionById('e-q-9'))).toMatchObject({ status: 'running', queryId: 'q-9' });
    const claims = of(2).map((outcome) => (outcome.ok ? outcome.value : outcome.error));
    expect(claims.filter((won) => won !== true)).toEqual([false, false]);
    expect([claims[5], claims[6]]).toEqual([false, false]);
    expect((await store.outboxEntry('q-5:1:w'))?.executionId).toBe('earlier-q-5');
    const alerts = of(3);
    expect(alerts[7]).toEqual({ ok: true, value: earlierAlert });
    expect(alerts[8]).toMatchObject({ ok: false, error: { code: 'STALE_STATE' } });
    // The new notifications have ids in the order they were added, after the earlier ones.
    const created = alerts.filter((outcome, index) => outcome.ok && index !== 7).map((outcome) => (outcome.ok ? (outcome.value as { id: number }).id : 0));
    expect(created).toHaveLength(118);
    expect(created).toEqual([...created].sort((a, b) => a - b));
    expect(created[0]).toBeGreaterThan(earlierAlert.id);
    expect((await store.notificationsAfter(1, 0, undefined, 1_000)).map((item) => item.id)).toEqual([earlierAlert.id, earlierAlert.id + 1, ...created]);
  });

  it('group commit: of one key\'s notifications added together under two leases, those of the lease taken over are refused and the others stored, in order', async () => {
    const kept = await lease(0, 'host-a', 1);
    const lost = await lease(1, 'host-a', 2);
    await store.insertQuery(queryRecord('q-1'));
    await store.insertQuery(queryRecord('q-2'));
    await lease(1, 'host-b', 3);
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, index) => settled(store.addNotification(1, notification(index % 2 === 0 ? 'q-1' : 'q-2', index + 1), index % 2 === 0 ? kept : lost))));
    outcomes.forEach((outcome, index) => expect(outcome.ok).toBe(index % 2 === 0));
    expect(outcomes.filter((outcome) => !outcome.ok).every((outcome) => !outcome.ok && outcome.error instanceof FencedWriteError)).toBe(true);
    const stored = await store.notificationsAfter(1, 0);
    expect(stored.map((item) => item.data.triggerIndex)).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    expect(stored.map((item) => item.id)).toEqual(outcomes.filter((outcome) => outcome.ok).map((outcome) => (outcome.ok ? (outcome.value as { id: number }).id : 0)));
    expect(stored.every((item) => item.data.queryId === 'q-1')).toBe(true);
  });
});

/** How many sessions wait on a lock that `holder`'s session holds (a row lock or an advisory lock). */
async function blockedBy(store: PgHostStore, holder: pg.Client): Promise<number> {
  const pid = Number((await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
  const { rows } = await store.pool.query<{ n: string }>('SELECT COUNT(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
  return Number(rows[0]?.n ?? 0);
}

/** Polls `condition` until it holds (a bounded number of turns, not a time budget). */
async function until(condition: () => Promise<boolean>, turns = 2_000): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the condition never held');
}
