import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashKey, type QueryRunner, SqliteStore } from '../src/index.js';
import { killChildren, serveChild } from './support/child-host.js';
import { call, createQuery, freePort, notifyQuery, RawStream, removeDir, startHost } from './support/harness.js';

// `eql serve` as a child process, killed with SIGKILL in the middle of a load of creates, then
// started again on the same data directory: what was acknowledged is there, nothing fires twice,
// and what had not fired yet still fires. Every wait is for an event (a line the child prints, an
// SSE frame, a status change), never a wall-clock budget; the tests' own timeouts are generous.

const API_KEY = 'eql_restart_test_key_0123456789abcdef';
const HMAC_SECRET = 'restart-test-hmac-secret-0123456789';
/** At speed 60 a recorded minute is a second. */
const SPEED = 60;

const dirs: string[] = [];
afterAll(async () => {
  killChildren();
  for (const dir of dirs) await removeDir(dir);
});

/** Writes a recording of BTC at `priceAt(minute)` for minutes 0 to 12. */
async function btcRecording(path: string, what: string, priceAt: (minute: number) => number): Promise<string> {
  const lines = [`// ${what} (restart test)`];
  for (let minute = 0; minute <= 12; minute += 1) {
    lines.push(JSON.stringify({ at: new Date(Date.UTC(2026, 0, 5, 0, minute)).toISOString(), source: 'price', symbol: 'BTC', price: priceAt(minute) }));
  }
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
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

type Kind = 'now' | 'later' | 'never';
const THRESHOLD: Record<Kind, number> = { now: 1, later: 150, never: 1_000_000 };

describe('a host killed with SIGKILL under load', () => {
  it('keeps every acknowledged query, fires none twice, and fires after the restart what had not fired', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eql-restart-'));
    dirs.push(dir);
    // The first life's feed never passes 150 (so no "later" query can fire before the kill, however slow
    // the machine); the second life's feed goes to 200 from minute 2.
    const flat = await btcRecording(join(dir, 'flat.jsonl'), 'BTC at 100', () => 100);
    const rising = await btcRecording(join(dir, 'rising.jsonl'), 'BTC at 100, then 200 from minute 2', (minute) => (minute < 2 ? 100 : 200));
    const port = await freePort();
    const env = {
      EQL_PORT: String(port),
      EQL_HOST: '127.0.0.1',
      EQL_DATA_DIR: join(dir, 'data'),
      EQL_API_KEY: API_KEY,
      EQL_HMAC_SECRET: HMAC_SECRET,
      EQL_RECORDING: flat,
      EQL_REPLAY_SPEED: String(SPEED),
      EQL_LOG_LEVEL: 'warn',
    };
    const base = `http://127.0.0.1:${port}`;

    // ---- first life: a load of validate + create, killed in the middle
    const first = await serveChild(env);
    const kinds: Kind[] = [];
    for (let index = 0; index < 15; index += 1) kinds.push('now', 'later', 'never');
    const acknowledged = new Map<string, Kind>();
    let answered = 0;
    let killedAt = 0;
    const killAfter = 15;
    const load = kinds.map(async (kind, index) => {
      const body = notifyQuery('BTC', THRESHOLD[kind], { title: `${kind} ${index}`, message: `${kind} ${index} fired` });
      try {
        const validated = await call(base, 'POST', '/v2/auto/queries/validate', API_KEY, body);
        if (validated.status !== 200) throw new Error(`validate answered ${validated.status}`);
        const created = await call(base, 'POST', '/v2/auto/queries', API_KEY, body);
        if (created.status === 201) acknowledged.set((created.body as { queryId: string }).queryId, kind);
        else throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
        answered += 1;
        if (answered === killAfter) {
          killedAt = Date.now();
          first.process.kill('SIGKILL');
        }
      } catch (error) {
        // Only a killed host may fail a request.
        if (killedAt === 0) throw error;
      }
    });
    await Promise.all(load);
    expect(await first.exit).toBeNull();
    expect(first.process.signalCode).toBe('SIGKILL');
    expect(acknowledged.size).toBeGreaterThanOrEqual(killAfter);
    expect(acknowledged.size).toBeLessThan(kinds.length);

    // ---- second life on the same data directory, its feed rising past the "later" threshold
    const restartedAt = Date.now();
    const second = await serveChild({ ...env, EQL_RECORDING: rising });
    for (const queryId of acknowledged.keys()) {
      const polled = await call(base, 'GET', `/v2/auto/queries/${queryId}`, API_KEY);
      expect(polled.status, `acknowledged query ${queryId}`).toBe(200);
    }
    const stream = await RawStream.open(`${base}/v2/auto/queries/stream`, { 'x-svc-api-key': API_KEY, 'last-event-id': '0' });
    expect(stream.status).toBe(200);
    const notifiedQueries = () => new Set(stream.named('notification:new').map((frame) => (JSON.parse(frame.data!) as { data: { queryId: string } }).data.queryId));
    const mustFire = [...acknowledged].filter(([, kind]) => kind !== 'never').map(([queryId]) => queryId);
    await stream.waitFor(() => mustFire.every((queryId) => notifiedQueries().has(queryId)), 'every acknowledged "now" and "later" query notified');
    // Duplicates would be in the database too: it is read below once the host has stopped.
    const frames = stream.named('notification:new').map((frame) => JSON.parse(frame.data!) as { id: number; data: { queryId: string; stepId: string; triggerIndex: number } });
    stream.close();

    // Over SSE from id 0: one notification per fired query, none for the queries that never fire.
    const ids = frames.map((frame) => frame.id);
    expect(new Set(ids).size).toBe(ids.length);
    const perQuery = new Map<string, number>();
    for (const frame of frames) perQuery.set(frame.data.queryId, (perQuery.get(frame.data.queryId) ?? 0) + 1);
    for (const [queryId, count] of perQuery) expect(count, `notifications of ${queryId}`).toBe(1);
    for (const [queryId, kind] of acknowledged) if (kind === 'never') expect(perQuery.has(queryId)).toBe(false);

    // ---- stop it cleanly and read the database
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);
    const store = new SqliteStore(join(env.EQL_DATA_DIR, 'eql.sqlite'));
    try {
      const queries = store.db.prepare('SELECT id, status, request FROM queries').all() as Array<{ id: string; status: string; request: string }>;
      for (const queryId of acknowledged.keys()) expect(queries.some((query) => query.id === queryId), `acknowledged query ${queryId} stored`).toBe(true);
      const executions = store.db.prepare('SELECT query_id, step_id, status, trigger_index, created_at FROM executions').all() as Array<{ query_id: string; step_id: string; status: string; trigger_index: number; created_at: string }>;
      const notifications = store.db.prepare("SELECT query_id, json_extract(body, '$.data.stepId') AS step_id, json_extract(body, '$.data.triggerIndex') AS trigger_index FROM notifications").all() as Array<{ query_id: string; step_id: string; trigger_index: number }>;
      for (const query of queries) {
        const threshold = (JSON.parse(query.request) as { query: { conditions: { AND: Array<{ value: number }> } } }).query.conditions.AND[0]!.value;
        const own = executions.filter((execution) => execution.query_id === query.id);
        // One trigger at most: every execution belongs to trigger 1, and its notify step succeeded once.
        expect(own.every((execution) => execution.trigger_index === 1), `triggers of ${query.id}`).toBe(true);
        expect(own.filter((execution) => execution.status === 'succeeded').length, `succeeded executions of ${query.id}`).toBeLessThanOrEqual(1);
        const notes = notifications.filter((notification) => notification.query_id === query.id);
        if (threshold === THRESHOLD.never) {
          expect(query.status).toBe('active');
          expect(own).toEqual([]);
          expect(notes).toEqual([]);
        } else {
          // Whatever the kill interrupted, every query on a price the feed passes fired exactly once.
          expect(query.status, `status of ${query.id}`).toBe('triggered');
          expect(own.filter((execution) => execution.status === 'succeeded').length).toBe(1);
          expect(notes).toEqual([{ query_id: query.id, step_id: 'notify-1', trigger_index: 1 }]);
        }
        if (threshold === THRESHOLD.later) {
          // ...and a "later" one only in the second life.
          for (const execution of own) expect(Date.parse(execution.created_at)).toBeGreaterThanOrEqual(restartedAt);
        }
      }
    } finally {
      store.close();
    }
  });
});

describe('a trigger cut off between its notification and the record of its step', () => {
  it('resumes without a second notification, and the cut-off execution is marked failed (HOST_RESTARTED)', { timeout: 60_000 }, async () => {
    const first = await startHost();
    dirs.push(first.dataDir);
    const key = await first.key();
    const keyId = (await first.host.context.store.keyByHash(hashKey(key)))!.id;
    const queryId = await createQuery(first.base, key, notifyQuery('BTC', 1_000_000));
    await first.close();

    // What a SIGKILL right after the notification was stored leaves: the trigger pending with no
    // completed step, its execution `running`, and the notification.
    const store = new SqliteStore(join(first.dataDir, 'eql.sqlite'));
    const firedAt = Date.now();
    store.saveRuntime(queryId, {
      status: 'active',
      triggerCount: 1,
      lastTriggerAt: firedAt,
      pendingTrigger: { triggerIndex: 1, final: true, firedAt, conditionStates: [], completedSteps: [] },
      latched: {},
      verdicts: {},
      cronPulses: {},
    });
    store.saveExecution(keyId, { id: 'cut-off', queryId, stepId: 'notify-1', type: 'notify', status: 'running', triggerIndex: 1, createdAt: new Date(firedAt).toISOString(), attempts: 1 });
    const stored = store.addNotification(keyId, {
      type: 'athena_query_notify_only',
      category: 'alerts',
      title: 'BTC above 1000000',
      body: 'BTC is above 1000000',
      data: { queryId, stepId: 'notify-1', triggerIndex: 1, executionId: 'cut-off' },
      priority: 'high',
      createdAt: new Date(firedAt).toISOString(),
    });
    store.close();

    const second = await startHost({ dataDir: first.dataDir });
    try {
      await statusReached(second.host.context.runner, queryId, 'triggered');
      const polled = await call(second.base, 'GET', `/v2/auto/queries/${queryId}`, key);
      const executions = (polled.body as { status: string; executions: Array<{ id: string; status: string; triggerIndex: number; error?: { code: string } }> }).executions;
      expect((polled.body as { status: string }).status).toBe('triggered');
      expect(executions.find((execution) => execution.id === 'cut-off')).toMatchObject({ status: 'failed', error: { code: 'HOST_RESTARTED' } });
      expect(executions.filter((execution) => execution.status === 'succeeded')).toHaveLength(1);
      expect(executions.every((execution) => execution.triggerIndex === 1)).toBe(true);
      const notifications = second.host.context.store.notificationsAfter(keyId, 0, queryId) as Array<{ id: number }>;
      expect(notifications.map((notification) => notification.id)).toEqual([stored.id]);
    } finally {
      await second.close();
    }
  });
});
