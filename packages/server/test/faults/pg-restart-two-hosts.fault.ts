import { afterAll, expect, it } from 'vitest';
import { MarketBus } from '../../src/scale-out/market-bus.js';
import { killChildren } from '../support/child-host.js';
import { startFaultHosts } from '../support/fault-hosts.js';
import { call, notifyQuery } from '../support/harness.js';
import { describeWithOwnPostgres, type OwnPostgres, startOwnPostgres } from '../support/own-postgres.js';
import { freshStream, natsProblem, TEST_NATS_URL } from '../support/nats.js';

// PostgreSQL restarted under a clustered host's load (issue 46, point 1): two real `eql serve` processes
// on a PostgreSQL of the test's own and a NATS stream, queries being created and ticks published while
// the server is stopped as a crash (`immediate`) and started again, then stopped cleanly (`fast`) and
// started again. No host exits; a create during the outage answers 201 or 503 with Retry-After, never
// 500; once the server is back the hosts take every partition again, run every acknowledged query, and
// a tick published then fires each of them once (its notification stored). Every wait is for a state.

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  killChildren();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

const natsMissing = await natsProblem();

describeWithOwnPostgres('hosts on a PostgreSQL that restarts', () => {
  it.skipIf(natsMissing !== undefined)(
    'survive a crash and a clean stop of PostgreSQL under load: none exits, creates answer 201 or 503, every partition is taken again and every acknowledged query fires once after',
    { timeout: 300_000 },
    async () => {
      const postgres: OwnPostgres = await startOwnPostgres();
      cleanups.push(() => postgres.destroy());
      const stream = freshStream('pg_restart');
      cleanups.push(() => stream.drop());
      const cluster = await startFaultHosts('pg-restart', { databaseUrl: postgres.url, natsUrl: TEST_NATS_URL, stream: stream.name, hosts: 2, partitions: 4, leaseTtlMs: 3_000 });
      cleanups.push(() => cluster.close());
      const { bases, key, problems, waitFor } = cluster;
      const publisher = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name, name: 'test-publisher' });
      cleanups.push(() => publisher.close());
      let tick = 0;
      const publish = async (symbol: string, price: number): Promise<void> => {
        tick += 1;
        await publisher.publish({ at: Date.now(), source: 'price', symbol, price }, `tick-${tick}`);
      };

      for (const [round, mode, symbol] of [
        [1, 'immediate', 'BTC'],
        [2, 'fast', 'ETH'],
      ] as const) {
        // Load: creates through both hosts and ticks that fire nothing, before, during and after the stop.
        const acknowledged: string[] = [];
        const answers = new Map<number, number>();
        let loading = true;
        const creates = (async () => {
          for (let index = 0; loading; index += 1) {
            const base = bases[index % bases.length]!;
            const body = notifyQuery(symbol, 100 + index);
            const failed = (error: unknown) => ({ status: 0, body: String(error), headers: new Headers() });
            const validated = await call(base, 'POST', '/v2/auto/queries/validate', key, body).catch(failed);
            const answer = validated.status === 200 ? await call(base, 'POST', '/v2/auto/queries', key, body).catch(failed) : validated;
            answers.set(answer.status, (answers.get(answer.status) ?? 0) + 1);
            if (answer.status === 201) acknowledged.push((answer.body as { queryId: string }).queryId);
            else if (answer.status !== 503 || answer.headers.get('retry-after') !== '2') problems.push(`round ${round}: a create answered ${answer.status} (retry-after ${answer.headers.get('retry-after')}): ${JSON.stringify(answer.body)}`);
          }
        })();
        const ticks = (async () => {
          while (loading) {
            await publish(symbol, 50).catch((error: unknown) => problems.push(`round ${round}: a publish failed: ${String(error)}`));
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
        await waitFor(() => acknowledged.length >= 5, `round ${round}: creates before the stop`);
        await postgres.stop(mode);
        const before = answers.get(503) ?? 0;
        await waitFor(() => (answers.get(503) ?? 0) > before, `round ${round}: a create answered 503 during the outage`);
        await postgres.start();
        await waitFor(() => acknowledged.length >= 10, `round ${round}: creates after the restart`);
        loading = false;
        await Promise.all([creates, ticks]);
        expect(problems).toEqual([]);

        await waitFor(() => cluster.everyPartitionOwned(), `round ${round}: every partition taken again`);
        // A tick that fires every query of the round, published again until each has fired: a query its
        // owner had not added yet (a reconcile still under way) fires at the next one, and a query fires
        // once (it ends at its trigger), so the ticks published again cannot fire one twice.
        const notified = async () => (await cluster.database<{ query_id: string; count: string }>('SELECT query_id, count(*) AS count FROM notifications WHERE query_id = ANY($1::text[]) GROUP BY query_id', [acknowledged]));
        let lastFiringTick = 0;
        await waitFor(async () => {
          if ((await notified()).length === acknowledged.length) return true;
          if (Date.now() - lastFiringTick >= 500) {
            lastFiringTick = Date.now();
            await publish(symbol, 1_000_000);
          }
          return false;
        }, `round ${round}: a notification for each of the ${acknowledged.length} acknowledged queries`);
        expect((await notified()).every((row) => Number(row.count) === 1)).toBe(true);
        console.info(`round ${round} (${mode}): creates answered ${JSON.stringify(Object.fromEntries(answers))}`);
      }
      expect(cluster.exits).toEqual([]);
    },
  );
});
