import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';
import { DEFAULT_RETENTION, type RetentionKind, type RetentionPolicy } from '../src/store/retention.js';
import { RetentionJob } from '../src/store/retention-job.js';
import { call, eventually, json, testHost, type TestHost } from './support/host.js';

// The retention job (docs/operations.md, "Retention"): cutoffs counted back from the clock, batches until
// one comes back short, kinds kept for ever skipped, one run at a time, only on the host that leads; the
// settings read with clear errors; and on a host, what fired a month ago is gone from the API and counted
// in /metrics while what fired today stays. The stores' own part is in store-contract.test.ts.

const DAY = 86_400_000;
const NOW = Date.parse('2026-06-01T12:00:00Z');


/** A store that has `rows[kind]` records to prune, hands out at most `limit` a call, and notes each call. */
function fakeStore(rows: Partial<Record<RetentionKind, number>>) {
  const calls: Array<{ kind: RetentionKind; before: string; limit: number }> = [];
  const left = { ...rows };
  return {
    calls,
    store: {
      prune: async (kind: RetentionKind, before: string, limit: number) => {
        calls.push({ kind, before, limit });
        await Promise.resolve();
        const count = Math.min(limit, left[kind] ?? 0);
        left[kind] = (left[kind] ?? 0) - count;
        return count;
      },
    },
  };
}

const policy = (overrides: Partial<RetentionPolicy> = {}): RetentionPolicy => ({ ...DEFAULT_RETENTION, batch: 10, ...overrides });

describe('the retention job', () => {
  it('prunes each kind from now minus its retention, in batches until one comes back short; a kind kept for ever is skipped', async () => {
    const { store, calls } = fakeStore({ notifications: 25, ledger: 10 });
    const pruned: Array<[number, number]> = [];
    const job = new RetentionJob({
      store,
      policy: policy({ chat: 0 }),
      histories: [{ name: 'prices', keepMs: 60 * DAY, prune: (before, limit) => (pruned.push([before, limit]), 3) }],
      now: () => NOW,
    });
    const report = await job.runOnce();
    expect(report).toMatchObject({ at: NOW, pruned: { notifications: 25, ledger: 10, prices: 3 } });
    const byKind = (kind: RetentionKind) => calls.filter((entry) => entry.kind === kind);
    expect(byKind('notifications').map((entry) => entry.limit)).toEqual([10, 10, 10]);
    expect(byKind('notifications')[0]?.before).toBe(new Date(NOW - 30 * DAY).toISOString());
    // A full batch is followed by another, even when nothing is left then.
    expect(byKind('ledger').length).toBe(2);
    expect(byKind('ledger')[0]?.before).toBe(new Date(NOW - 400 * DAY).toISOString());
    expect(byKind('executions')[0]?.before).toBe(new Date(NOW - 90 * DAY).toISOString());
    expect(byKind('chat')).toEqual([]);
    expect(pruned).toEqual([[NOW - 60 * DAY, 10]]);
  });

  it('does nothing on a host that does not lead, and runs once at a time', async () => {
    let leads = false;
    const { store, calls } = fakeStore({ notifications: 5 });
    const job = new RetentionJob({ store, policy: policy(), now: () => NOW, leads: () => leads });
    expect(await job.runOnce()).toBeUndefined();
    expect(calls).toEqual([]);
    leads = true;
    const first = job.runOnce();
    expect(job.runOnce()).toBe(first);
    expect((await first)?.pruned).toEqual({ notifications: 5 });
    expect(calls.filter((entry) => entry.kind === 'notifications').length).toBe(1);
  });

  it('stops a run between two batches, and tells a failure without stopping later runs', async () => {
    let job: RetentionJob | undefined;
    let batches = 0;
    job = new RetentionJob({
      store: { prune: () => ++batches },
      policy: policy({ batch: 1 }),
      now: () => NOW,
      pause: () => {
        if (batches === 3) void job?.stop();
        return Promise.resolve();
      },
    });
    await job.runOnce();
    expect(batches).toBe(3);
    expect(await job.runOnce()).toBeUndefined();

    const errors: unknown[] = [];
    let fail = true;
    job = new RetentionJob({
      store: { prune: () => (fail ? Promise.reject(new Error('database is locked')) : Promise.resolve(0)) },
      policy: policy(),
      now: () => NOW,
      onError: (error) => errors.push(error),
    });
    expect(await job.runOnce()).toBeUndefined();
    expect(String(errors[0])).toMatch(/database is locked/);
    fail = false;
    expect(await job.runOnce()).toMatchObject({ pruned: {} });
  });
});

describe('EQL_RETENTION_* settings', () => {
  it('read durations as Prometheus writes them, off for ever, with each variable named in its error', () => {
    const config = configFromEnv({ EQL_RETENTION_NOTIFICATIONS: '7d', EQL_RETENTION_EXECUTIONS: '1w2d', EQL_RETENTION_CHAT: 'off', EQL_RETENTION_PRICES: '36h', EQL_RETENTION_INTERVAL: '15m', EQL_RETENTION_BATCH: '500' });
    expect(config.retention).toEqual({ ...DEFAULT_RETENTION, notifications: 7 * DAY, executions: 9 * DAY, chat: 0, prices: 36 * 3_600_000, intervalMs: 900_000, batch: 500 });
    expect(configFromEnv({}).retention).toEqual(DEFAULT_RETENTION);
    expect(() => configFromEnv({ EQL_RETENTION_LEDGER: '30d' })).toThrow(/EQL_RETENTION_LEDGER must be a duration such as 30d, 12h or 90m of at least 62d, or off, not "30d"/);
    expect(() => configFromEnv({ EQL_RETENTION_VALIDATIONS: '1h' })).toThrow(/EQL_RETENTION_VALIDATIONS .* of at least 1d/);
    expect(() => configFromEnv({ EQL_RETENTION_NOTIFICATIONS: '30 days' })).toThrow(/EQL_RETENTION_NOTIFICATIONS must be a duration/);
    expect(() => configFromEnv({ EQL_RETENTION_INTERVAL: 'off' })).toThrow(/EQL_RETENTION_INTERVAL must be a duration such as 30d, 12h or 90m of at least 1s, not "off"/);
    expect(() => configFromEnv({ EQL_RETENTION_BATCH: '5' })).toThrow(/EQL_RETENTION_BATCH/);
  });
});

describe('retention on a host', () => {
  let host: TestHost | undefined;
  afterAll(async () => {
    await host?.close();
  });

  it('prunes what fired before the retention, keeps what fired after it, and counts it in /metrics', async () => {
    // The engine stamps records with the real clock; the host's clock (the job's) is moved on afterwards.
    let offset = 0;
    host = await testHost({ now: () => Date.now() + offset, config: { retention: { ...DEFAULT_RETENTION, notifications: 5 * DAY, executions: 5 * DAY, outbox: 5 * DAY } } });
    const key = await host.newKey();
    const { app, push, store } = host;
    const body = { title: 'every move', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'up' } }], expiresIn: '1h', repeat: { cooldown: '1s' } } };
    expect(json(await call(app, { method: 'POST', url: '/v2/auto/queries/validate', key, body })).valid).toBe(true);
    const created = await call(app, { method: 'POST', url: '/v2/auto/queries', key, body });
    expect(created.statusCode).toBe(201);
    const notifications = () => store.notificationsAfter(key.record.id, 0).map((item) => Date.parse(item.createdAt));
    // Prices above the threshold until the query has fired twice (once, then again after its cooldown).
    let price = 2;
    await eventually(() => {
      push.push({ source: 'price', symbol: 'BTC', at: Date.now(), price: (price += 0.01) });
      return notifications().length >= 2 ? true : undefined;
    });
    const [first, second] = notifications() as [number, number];
    expect(second).toBeGreaterThan(first);
    const executions = async () => json(await call(app, { url: '/v2/auto/executions', key })).executions as Array<{ createdAt: string }>;
    expect(await executions()).toHaveLength(2);
    // The host's clock 5 days after the middle of the two triggers: the first one's records are older than kept.
    const now = Math.floor((first + second) / 2) + 5 * DAY;
    offset = now - Date.now();

    const report = await host.retention.runOnce();
    expect(report?.pruned).toMatchObject({ notifications: 1, executions: 1, outbox: 1 });
    const left = await executions();
    expect(left).toHaveLength(1);
    expect(Date.parse(left[0]?.createdAt as string)).toBeGreaterThan(first);
    expect(notifications()).toEqual([second]);

    const scrape = (await app.inject({ url: '/metrics' })).body;
    expect(scrape).toMatch(/^eql_retention_pruned_rows_total\{kind="notifications"\} 1$/m);
    expect(scrape).toMatch(/^eql_retention_pruned_rows_total\{kind="executions"\} 1$/m);
    expect(Number(/^eql_retention_last_run_timestamp_seconds (\S+)$/m.exec(scrape)?.[1])).toBeGreaterThanOrEqual(now / 1000);
  });
});
