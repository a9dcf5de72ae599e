import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterStatus } from '../src/scale-out/cluster-status.js';
import type { MalformedBusMessage } from '../src/scale-out/malformed-messages.js';
import { type BusObservation, MarketBus, readRetryDelayMs } from '../src/scale-out/market-bus.js';
import { migratePg } from '../src/store/pg/pg-migrations.js';
import { freshSchema } from './support/postgres.js';
import { describeWithBus, freshStream, TEST_NATS_URL } from './support/nats.js';

// MarketBus.read on a real NATS JetStream stream (issue 45, finding 2): a message that is no
// observation never reaches `deliver` and the reading goes on after it; an exception while reading
// starts the reading again at the message it failed on, after a growing wait, never as an unhandled
// rejection; what the stream's end and one sequence are when the message there is malformed.

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** A bus on a stream of its own, and a raw client that publishes any bytes under its subjects. */
async function setup(label: string): Promise<{ bus: MarketBus; publishRaw: (subject: string, payload: string) => Promise<number> }> {
  const stream = freshStream(label);
  const bus = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name });
  const raw: NatsConnection = await connect({ servers: TEST_NATS_URL });
  cleanups.push(() => stream.drop(), () => bus.close(), () => raw.close());
  const js = jetstream(raw);
  return { bus, publishRaw: async (subject, payload) => (await js.publish(`${bus.prefix}.${subject}`, payload)).seq };
}

/** Resolves when `check` holds (polled); the test's timeout bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const price = (at: number, value: number) => JSON.stringify({ at, source: 'price', symbol: 'BTC', price: value });

describe('readRetryDelayMs', () => {
  it('waits longer after each failure in a row, up to 30 s', () => {
    const delays = Array.from({ length: 40 }, (_, index) => readRetryDelayMs(index + 1));
    expect(delays[0]).toBe(100);
    for (let index = 1; index < delays.length; index += 1) expect(delays[index]!).toBeGreaterThanOrEqual(delays[index - 1]!);
    expect(Math.max(...delays)).toBe(30_000);
  });
});

await describeWithBus('MarketBus.read', () => {
  it('hands over only observations (their known fields), tells each malformed message to onMalformed, and goes on after it', { timeout: 60_000 }, async () => {
    const { bus, publishRaw } = await setup('read_shape');
    const at = Date.UTC(2026, 0, 5);
    const bad = ['null', '42', '"text"', '[]', '{"at":', JSON.stringify({ at, source: 'price', price: 1 }), JSON.stringify({ at, source: 'price', symbol: 7, price: 1 }), JSON.stringify({ at: 'soon', source: 'price', symbol: 'BTC', price: 1 }), JSON.stringify({ source: 'price', symbol: 'BTC', price: 1 }), JSON.stringify({ at: at + 0.5, source: 'price', symbol: 'BTC', price: 1 }), JSON.stringify({ at, source: 'tweet', text: 'x', tweetId: '1' }), JSON.stringify({ at, source: 'llm', query: 'q', confidence: 1 })];
    await publishRaw('price.BTC', price(at, 1));
    for (const payload of bad) await publishRaw('price.BTC', payload);
    await publishRaw('price.BTC', JSON.stringify({ at: at + 1, source: 'price', symbol: 'BTC', price: 2, extra: 'dropped' }));
    const delivered: BusObservation[] = [];
    const malformed: MalformedBusMessage[] = [];
    const reading = await bus.read(
      1,
      (message) => {
        delivered.push(message);
        return undefined;
      },
      { onMalformed: (message) => void malformed.push(message) },
    );
    await until(() => delivered.length + malformed.length === bad.length + 2);
    await reading.stop();
    await expect(reading.done).resolves.toBeUndefined();
    expect(delivered).toEqual([
      { seq: 1, observation: { at, source: 'price', symbol: 'BTC', price: 1 } },
      { seq: bad.length + 2, observation: { at: at + 1, source: 'price', symbol: 'BTC', price: 2 } },
    ]);
    expect(malformed.map((message) => message.seq)).toEqual(bad.map((_, index) => index + 2));
    expect(malformed.map((message) => message.problem.kind)).toEqual(['object', 'object', 'object', 'object', 'json', 'price.symbol', 'price.symbol', 'at', 'at', 'at', 'tweet.username', 'llm']);
    expect(malformed[0]!.subject).toBe(`${bus.prefix}.price.BTC`);
  });

  it('starts again at the message `deliver` failed on, after a growing wait, and goes on once it passes: no unhandled rejection, `done` never rejects', { timeout: 60_000 }, async () => {
    const { bus, publishRaw } = await setup('read_retry');
    const at = Date.UTC(2026, 0, 5);
    for (let index = 1; index <= 5; index += 1) await publishRaw('price.BTC', price(at + index, index));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const seen: number[] = [];
      const attempts: number[] = [];
      const errors: Array<{ seq: number; attempt: number }> = [];
      let failing = 3;
      const reading = await bus.read(
        1,
        ({ seq }) => {
          seen.push(seq);
          if (seq === 3 && failing > 0) {
            failing -= 1;
            // Half of the failures thrown, half as a rejected promise.
            if (failing % 2 === 0) throw new Error('the engine broke on 3');
            return Promise.reject(new Error('the engine broke on 3'));
          }
          return undefined;
        },
        {
          retryDelayMs: (attempt) => {
            attempts.push(attempt);
            return 1;
          },
          onError: (_error, { seq, attempt }) => errors.push({ seq, attempt }),
        },
      );
      await until(() => seen.includes(5));
      await reading.stop();
      await expect(reading.done).resolves.toBeUndefined();
      // 1, 2, then 3 three times failing and once passing, then 4 and 5: nothing skipped, nothing before 3 again.
      expect(seen).toEqual([1, 2, 3, 3, 3, 3, 4, 5]);
      expect(attempts).toEqual([1, 2, 3]);
      expect(errors).toEqual([
        { seq: 3, attempt: 1 },
        { seq: 3, attempt: 2 },
        { seq: 3, attempt: 3 },
      ]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it('stops while it waits to read again', { timeout: 60_000 }, async () => {
    const { bus, publishRaw } = await setup('read_stop');
    await publishRaw('price.BTC', price(Date.UTC(2026, 0, 5), 1));
    let calls = 0;
    const reading = await bus.read(
      1,
      () => {
        calls += 1;
        throw new Error('always');
      },
      { retryDelayMs: () => 3_600_000 },
    );
    await until(() => calls === 1);
    await reading.stop();
    await expect(reading.done).resolves.toBeUndefined();
    expect(calls).toBe(1);
  });

  it('at() answers undefined for a malformed message; last() gives its sequence without an observation, and the cluster status no instant', { timeout: 60_000 }, async () => {
    const { bus, publishRaw } = await setup('read_end');
    const at = Date.UTC(2026, 0, 5);
    await publishRaw('price.BTC', price(at, 1));
    await publishRaw('price.BTC', JSON.stringify({ source: 'price', symbol: 'BTC', price: 1 }));
    expect(await bus.at(1)).toEqual({ seq: 1, observation: { at, source: 'price', symbol: 'BTC', price: 1 } });
    expect(await bus.at(2)).toBeUndefined();
    expect(await bus.last()).toEqual({ seq: 2, observation: undefined });
    const schema = await freshSchema('bus_end');
    const pool = new pg.Pool({ connectionString: schema.url, max: 2 });
    cleanups.push(() => schema.drop(), () => pool.end());
    await migratePg(pool);
    expect((await clusterStatus(pool, bus, 1_000)).stream).toEqual({ name: bus.stream, lastSeq: 2, lastAt: null });
  });

  it('publish refuses what the readers would skip, and stores nothing', { timeout: 60_000 }, async () => {
    const { bus } = await setup('publish_shape');
    const at = Date.UTC(2026, 0, 5);
    await expect(bus.publish({ at: at + 0.5, source: 'price', symbol: 'BTC', price: 1 }, 'a')).rejects.toThrow('not an observation the market bus carries: at must be an integer epoch ms time, not 1767571200000.5');
    await expect(bus.publish({ at, source: 'price', symbol: 'BTC', price: -1 }, 'b')).rejects.toThrow('price must be a positive number, not -1');
    await expect(bus.publish({ at, source: 'tweet', username: 7 as unknown as string, text: 'x', tweetId: '1' }, 'c')).rejects.toThrow('username must be a string, not 7');
    expect(await bus.last()).toBeUndefined();
    expect(await bus.publish({ at, source: 'price', symbol: 'BTC', price: 1 }, 'd')).toEqual({ seq: 1, duplicate: false });
  });
});
