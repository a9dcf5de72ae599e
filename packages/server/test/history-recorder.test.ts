import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import pg from 'pg';
import { afterAll, expect, it, vi } from 'vitest';
import { FEED_PARTITION } from '../src/scale-out/partitions.js';
import { PgLeases } from '../src/scale-out/leases.js';
import { HistoryRecorder, type HistoryRecorderOptions } from '../src/scale-out/history-recorder.js';
import { MarketBus } from '../src/scale-out/market-bus.js';
import { PgPartitionPositions } from '../src/scale-out/partition-positions.js';
import { migratePg } from '../src/store/pg/pg-migrations.js';
import { PgPriceHistory } from '../src/store/pg/pg-price-history.js';
import { freshSchema } from './support/postgres.js';
import { describeWithBus, freshStream, TEST_NATS_URL } from './support/nats.js';
import { tcpProxy } from './support/tcp-proxy.js';

// The cluster's history recorder on real NATS JetStream and PostgreSQL (issue 45, finding 4): a message
// that is no observation, or a tick the database refuses, never holds its position back; a database
// that cannot be reached is tried again until it answers, and no tick is lost.

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

const NODE = 'recorder-test';
const AT = Date.UTC(2026, 0, 5);

interface Setup {
  /** A pool on the test schema, straight to PostgreSQL. */
  pool: pg.Pool;
  schemaUrl: string;
  bus: MarketBus;
  epoch: number;
  publishRaw(payload: unknown): Promise<number>;
  recorder(pool: pg.Pool, options?: Partial<HistoryRecorderOptions>): HistoryRecorder;
  /** The recorder's saved position (0 when none). */
  saved(): Promise<number>;
  /** The sequences of the ticks written. */
  written(): Promise<number[]>;
}

async function setup(label: string): Promise<Setup> {
  const schema = await freshSchema(label);
  const pool = new pg.Pool({ connectionString: schema.url, max: 2 });
  pool.on('error', () => undefined);
  cleanups.push(() => schema.drop(), () => pool.end());
  await migratePg(pool);
  const [lease] = await new PgLeases(pool, NODE, 60_000).acquire([FEED_PARTITION]);
  const stream = freshStream(label);
  const bus = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name });
  const raw: NatsConnection = await connect({ servers: TEST_NATS_URL });
  cleanups.push(() => stream.drop(), () => bus.close(), () => raw.close());
  const js = jetstream(raw);
  return {
    pool,
    schemaUrl: schema.url,
    bus,
    epoch: lease!.epoch,
    publishRaw: async (payload) => (await js.publish(`${bus.prefix}.price.BTC`, typeof payload === 'string' ? payload : JSON.stringify(payload))).seq,
    recorder: (recorderPool, options = {}) => {
      const recorder = new HistoryRecorder({ bus, history: new PgPriceHistory(recorderPool, { epoch: 0 }), positions: new PgPartitionPositions(recorderPool, NODE), ...options });
      cleanups.push(() => recorder.stop());
      return recorder;
    },
    saved: async () => (await new PgPartitionPositions(pool, NODE).get(FEED_PARTITION))?.seq ?? 0,
    written: async () => (await pool.query<{ seq: string }>('SELECT seq FROM price_ticks ORDER BY seq')).rows.map((row) => Number(row.seq)),
  };
}

/** Polls until `check` holds; fails naming `what` after 30 s (a safety net for a state that never comes, not a budget). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const tick = (offset: number, price: number, symbol = 'BTC') => ({ at: AT + offset, source: 'price', symbol, price });

await describeWithBus('HistoryRecorder', () => {
  it('skips a message that is no observation (at as text, at missing, a bare number, at in fractions of a ms), counts it, and moves past it', { timeout: 60_000 }, async () => {
    const s = await setup('recorder_shape');
    await s.publishRaw(tick(1, 100));
    await s.publishRaw({ ...tick(2, 101), at: new Date(AT + 2).toISOString() });
    await s.publishRaw({ source: 'price', symbol: 'BTC', price: 102 });
    await s.publishRaw(42);
    await s.publishRaw({ ...tick(3, 103), at: AT + 3.5 });
    const last = await s.publishRaw(tick(4, 104));
    const recorder = s.recorder(s.pool);
    await recorder.start(s.epoch);
    await until(async () => (await s.saved()) >= last, `the recorder's position to pass message ${last}`);
    expect(await s.written()).toEqual([1, last]);
    expect(recorder.status()).toEqual({ handled: last, saved: last, malformed: 4, dropped: 0 });
  });

  it('drops a tick the database refuses (a constraint it breaks), writes the rest of its batch, and moves on', { timeout: 60_000 }, async () => {
    const s = await setup('recorder_refused');
    // A valid observation the database refuses with a data error (SQLSTATE class 23): the stores write every
    // valid observation, so the refusal is made here, by a constraint of the test's own schema.
    await s.pool.query(`ALTER TABLE price_ticks ADD CONSTRAINT refused_in_test CHECK (asset <> 'REFUSED')`);
    for (let index = 1; index <= 7; index += 1) await s.publishRaw(tick(index, 100 + index, index === 3 ? 'REFUSED' : 'BTC'));
    const warn = vi.fn();
    const recorder = s.recorder(s.pool, { warn });
    await recorder.start(s.epoch);
    await until(async () => (await s.saved()) >= 7, "the recorder's position to pass message 7");
    expect(await s.written()).toEqual([1, 2, 4, 5, 6, 7]);
    expect(recorder.status()).toMatchObject({ saved: 7, malformed: 0, dropped: 1 });
    expect(warn.mock.calls.map(([message]) => String(message))).toEqual(['bus: the price history refused the tick of message 3: left out (further ones are counted in GET /ready, bus.history.dropped)']);
  });

  it('takes a RangeError of anything but the history itself (a driver reading a broken connection) for a failure to write: the ticks are kept and written, none dropped', { timeout: 60_000 }, async () => {
    const s = await setup('recorder_range_error');
    const history = new PgPriceHistory(s.pool, { epoch: 0 });
    let thrown = 0;
    const flaky = {
      record: (ticks: Parameters<PgPriceHistory['record']>[0]) => {
        if (thrown < 3) {
          thrown += 1;
          return Promise.reject(new RangeError('The value of "offset" is out of range.'));
        }
        return history.record(ticks);
      },
    };
    for (let index = 1; index <= 4; index += 1) await s.publishRaw(tick(index, 100 + index));
    const warn = vi.fn();
    const recorder = s.recorder(s.pool, { history: flaky, warn, maxRetryMs: 50 });
    await recorder.start(s.epoch);
    await until(async () => (await s.saved()) >= 4, 'every tick written');
    expect(thrown).toBe(3);
    expect(await s.written()).toEqual([1, 2, 3, 4]);
    expect(recorder.status()).toMatchObject({ saved: 4, dropped: 0 });
    expect(warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('refused'))).toEqual([]);
  });

  it('tries again while the database cannot be reached, holding the reading, and loses no tick', { timeout: 90_000 }, async () => {
    const s = await setup('recorder_outage');
    const url = new URL(s.schemaUrl);
    const proxy = await tcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    cleanups.push(() => proxy.close());
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const proxied = new pg.Pool({ connectionString: url.toString(), max: 2, connectionTimeoutMillis: 2_000 });
    proxied.on('error', () => undefined);
    cleanups.push(() => proxied.end());
    const warn = vi.fn();
    const recorder = s.recorder(proxied, { warn, batchSize: 2, maxRetryMs: 100 });
    await recorder.start(s.epoch);
    for (let index = 1; index <= 3; index += 1) await s.publishRaw(tick(index, 100 + index));
    await until(async () => (await s.saved()) >= 3, 'the first three ticks');

    proxy.cut();
    for (let index = 4; index <= 9; index += 1) await s.publishRaw(tick(index, 100 + index));
    await until(() => Promise.resolve(warn.mock.calls.some(([message]) => String(message).startsWith('bus: the price history could not be written'))), 'a failed write');
    // Two ticks (the batch size) are read and cannot be written: the reading waits at tick 5, whether
    // tick 4 was in the batch or in a flush of its own, and the stream keeps the rest.
    const failedAttempts = async (count: number) => {
      const from = proxy.refused();
      await until(() => Promise.resolve(proxy.refused() >= from + count), `${count} more failed attempts`);
    };
    await failedAttempts(3);
    const held = recorder.status()!.handled;
    await failedAttempts(3);
    expect(recorder.status()!.handled).toBe(held);
    expect(held).toBe(5);
    expect(await s.written()).toEqual([1, 2, 3]);

    proxy.restore();
    await until(async () => (await s.saved()) >= 9, 'every tick once the database answers again');
    expect(await s.written()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(recorder.status()).toEqual({ handled: 9, saved: 9, malformed: 0, dropped: 0 });
    expect(warn.mock.calls.map(([message]) => String(message)).filter((message) => message.startsWith('bus: the price history is written again'))).toHaveLength(1);
  });
});
