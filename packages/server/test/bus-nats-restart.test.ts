import { afterAll, expect, it } from 'vitest';
import { type BusObservation, MarketBus } from '../src/scale-out/market-bus.js';
import { killChildren } from './support/child-host.js';
import { startFaultHosts } from './support/fault-hosts.js';
import { call, notifyQuery } from './support/harness.js';
import { describeWithNatsServer, startNatsServer, type TestNatsServer } from './support/nats-server.js';
import { freshSchema, postgresProblem } from './support/postgres.js';

// A NATS restart (issue 46, point 5): a reading of the stream goes on with the first message published
// after the server is back, promptly, instead of waiting out a pull request the restarted server has
// forgotten (30 s by default). Asserted on the order of states, with a generous bound.

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  killChildren();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** Resolves when `check` holds (polled); the test's timeout bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Publishes until the stream acknowledges (JetStream answers a moment after the server accepts connections). */
async function publishOnceBack(bus: MarketBus, price: number, id: string): Promise<number> {
  for (;;) {
    try {
      const ack = await bus.publish({ at: Date.UTC(2026, 0, 5, 0, price), source: 'price', symbol: 'BTC', price }, id);
      if (ack) return ack.seq;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const postgresMissing = await postgresProblem();

describeWithNatsServer('a reading across a NATS restart', () => {
  it('hands over a tick published after the server restarted within seconds, none lost or repeated', { timeout: 60_000 }, async () => {
    const server: TestNatsServer = await startNatsServer('');
    cleanups.push(() => server.stop());
    const reader = await MarketBus.connect(server.url, { name: 'reader' });
    cleanups.push(() => reader.close());
    // A publisher connected afresh after each restart: its first publish is not held up by a reconnect of its own.
    const publishFresh = async (price: number): Promise<number> => {
      const publisher = await MarketBus.connect(server.url, { name: 'publisher' });
      try {
        return await publishOnceBack(publisher, price, `tick-${price}`);
      } finally {
        await publisher.close();
      }
    };
    const delivered: BusObservation[] = [];
    const errors: unknown[] = [];
    await publishFresh(1);
    const reading = await reader.read(1, (message) => void delivered.push(message), { onError: (error) => void errors.push(error) });
    cleanups.push(() => reading.stop());
    await until(() => delivered.length === 1);

    for (const [round, price, restart] of [
      [1, 2, {}],
      [2, 3, { signal: 'SIGKILL', downMs: 3_000 }],
    ] as const) {
      await server.restart(restart);
      const restartedAt = Date.now();
      const seq = await publishFresh(price);
      const publishedAt = Date.now();
      // Bounded (10 s, generous for a loaded machine) against the 30 s stall of a forgotten pull request.
      await Promise.race([until(() => delivered.length === price), new Promise((_, reject) => setTimeout(() => reject(new Error(`round ${round}: tick ${seq} not handed over within 10 s of the restart`)), 10_000))]);
      const deliveredAt = Date.now();
      console.info(`NATS restart ${round}: published ${publishedAt - restartedAt} ms after the server was back, handed over ${deliveredAt - publishedAt} ms after it was published`);
    }
    expect(delivered.map((message) => [message.seq, message.observation.source === 'price' ? message.observation.price : undefined])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('a reading waiting to try again (its last attempt failed) goes on as soon as the connection is back, not after its wait', { timeout: 60_000 }, async () => {
    const server: TestNatsServer = await startNatsServer('');
    cleanups.push(() => server.stop());
    const reader = await MarketBus.connect(server.url, { name: 'reader' });
    cleanups.push(() => reader.close());
    const publisher = await MarketBus.connect(server.url, { name: 'publisher' });
    await publishOnceBack(publisher, 1, 'tick-1');
    await publisher.close();
    const delivered: number[] = [];
    const waits: number[] = [];
    let failOnce = true;
    const reading = await reader.read(
      1,
      (message) => {
        // The first hand-over fails (as a store that cannot be reached would): the reading waits to try again.
        if (failOnce) {
          failOnce = false;
          throw new Error('the store is down');
        }
        delivered.push(message.seq);
        return undefined;
      },
      // A long wait after the first failure (as after a run of failures through an outage), short after.
      { retryDelayMs: (attempt) => (waits.push(attempt), waits.length === 1 ? 60_000 : 100) },
    );
    cleanups.push(() => reading.stop());
    await until(() => waits.length === 1);
    await server.restart({ downMs: 500 });
    await Promise.race([until(() => delivered.length === 1), new Promise((_, reject) => setTimeout(() => reject(new Error('the reading waited out its retry instead of going on once the server was back')), 10_000))]);
    expect(delivered).toEqual([1]);
  });

  it('a reading whose server came back without JetStream at first goes on promptly once JetStream is there', { timeout: 60_000 }, async () => {
    const server: TestNatsServer = await startNatsServer('');
    cleanups.push(() => server.stop());
    const reader = await MarketBus.connect(server.url, { name: 'reader' });
    cleanups.push(() => reader.close());
    const delivered: number[] = [];
    const reading = await reader.read(1, (message) => void delivered.push(message.seq));
    cleanups.push(() => reading.stop());
    // Back without JetStream (as a server still recovering its store): the client reconnects, and its
    // consumer's checks fail meanwhile.
    await server.restart({ jetstream: false });
    await until(() => reader.connected);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await server.restart();
    const restartedAt = Date.now();
    await publishOnceBack(await MarketBus.connect(server.url, { name: 'publisher' }).then((publisher) => (cleanups.push(() => publisher.close()), publisher)), 1, 'tick-1');
    const publishedAt = Date.now();
    await Promise.race([until(() => delivered.length === 1), new Promise((_, reject) => setTimeout(() => reject(new Error('the tick was not handed over within 10 s of JetStream coming back')), 10_000))]);
    console.info(`JetStream back: published ${publishedAt - restartedAt} ms after, handed over ${Date.now() - publishedAt} ms after it was published`);
    expect(delivered).toEqual([1]);
  });

  it.skipIf(postgresMissing !== undefined)('two hosts: a query fires on a tick published after NATS restarted, without waiting out a stalled pull, and no host exits', { timeout: 120_000 }, async () => {
    const server: TestNatsServer = await startNatsServer('');
    cleanups.push(() => server.stop());
    const schema = await freshSchema('nats_restart');
    cleanups.push(() => schema.drop());
    const cluster = await startFaultHosts('nats-restart', { databaseUrl: schema.url, natsUrl: server.url, stream: 'EQL_NATS_RESTART', hosts: 2, partitions: 4, leaseTtlMs: 3_000 });
    cleanups.push(() => cluster.close());
    const queryIds: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const body = notifyQuery('BTC', 100 + index);
      const base = cluster.bases[index % cluster.bases.length]!;
      expect((await call(base, 'POST', '/v2/auto/queries/validate', cluster.key, body)).status).toBe(200);
      const created = await call(base, 'POST', '/v2/auto/queries', cluster.key, body);
      expect(created.status).toBe(201);
      queryIds.push((created.body as { queryId: string }).queryId);
    }
    await cluster.waitFor(() => cluster.runningActive(queryIds.length), 'the hosts to run the queries');

    await server.restart({ signal: 'SIGKILL', downMs: 2_000 });
    const publisher = await MarketBus.connect(server.url, { stream: 'EQL_NATS_RESTART', name: 'publisher' });
    cleanups.push(() => publisher.close());
    await publishOnceBack(publisher, 1_000, 'after-restart');
    const publishedAt = Date.now();
    const notified = async () => Number((await cluster.database<{ count: string }>('SELECT count(*) AS count FROM notifications WHERE query_id = ANY($1::text[])', [queryIds]))[0]?.count);
    // Bounded (10 s, generous) against the 30 s stall of a forgotten pull request.
    const bound = Date.now() + 10_000;
    await cluster.waitFor(async () => {
      if (Date.now() > bound) throw new Error('the tick published after the restart was not judged within 10 s');
      return (await notified()) === queryIds.length;
    }, 'a notification for each query');
    console.info(`NATS restart under two hosts: the queries fired ${Date.now() - publishedAt} ms after the tick was published`);
    expect(cluster.exits).toEqual([]);
  });
});
