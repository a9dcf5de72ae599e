import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { createApiKey, PgHostStore, SecretBox } from '../src/index.js';
import { MarketBus } from '../src/bus/market-bus.js';
import { type ChildHost, killChildren, serveChild } from './support/child-host.js';
import { call, notifyQuery, removeDir } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { describeWithOwnPostgres, type OwnPostgres, startOwnPostgres } from './support/own-postgres.js';
import { freshStream, natsProblem, TEST_NATS_URL } from './support/nats.js';

// PostgreSQL restarted under a clustered host's load (issue 46, point 1): two real `eql serve` processes
// on a PostgreSQL of the test's own and a NATS stream, queries being created and ticks published while
// the server is stopped as a crash (`immediate`) and started again, then stopped cleanly (`fast`) and
// started again. No host exits; a create during the outage answers 201 or 503, never 500; once the
// server is back the hosts take every partition again, and a tick published then fires every
// acknowledged query once (its notification stored). Every wait is for a state.

const PARTITIONS = 4;
const HOSTS = 2;

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  killChildren();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

interface Readiness {
  status: string;
  partitions: { owned: number[]; count: number };
}

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
      const dir = await mkdtemp(join(tmpdir(), 'eql-pg-restart-'));
      cleanups.push(() => removeDir(dir));
      const box = SecretBox.fromKey(SECRET_KEY_HEX);
      const setup = await PgHostStore.open(postgres.url, { box });
      const key = (await createApiKey(setup, box, { name: 'restart', plan: 'pro' })).key;
      await setup.close();
      const publisher = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name, name: 'test-publisher' });
      cleanups.push(() => publisher.close());

      const hosts: ChildHost[] = [];
      for (let index = 0; index < HOSTS; index += 1) {
        hosts.push(
          await serveChild({
            EQL_DATABASE_URL: postgres.url,
            EQL_NATS_URL: TEST_NATS_URL,
            EQL_NATS_STREAM: stream.name,
            EQL_FEED: 'bus',
            EQL_SECRET_KEY: SECRET_KEY_HEX,
            EQL_NODE_ID: `pg-restart-${index + 1}`,
            EQL_PARTITIONS: String(PARTITIONS),
            EQL_LEASE_TTL_MS: '3000',
            EQL_PORT: '0',
            EQL_HOST: '127.0.0.1',
            EQL_DATA_DIR: join(dir, `host-${index + 1}`),
            EQL_MARKET_SEED: 'none',
            EQL_LOG_LEVEL: 'warn',
          }),
        );
      }
      const exits: string[] = [];
      for (const host of hosts) void host.exit.then((code) => exits.push(`exited with ${code}:\n${host.output().slice(-3_000)}`));
      const bases = hosts.map((host) => /listening on (http:\/\/\S+)/.exec(host.output())![1]!);
      /** What went wrong in the load running beside the waits (a create answered neither 201 nor 503, a publish failed). */
      const problems: string[] = [];
      const readiness = () => Promise.all(bases.map(async (base) => (await (await fetch(`${base}/ready`)).json()))).catch((error: unknown) => String(error));
      const waitFor = async (check: () => Promise<boolean> | boolean, what: string): Promise<void> => {
        // A bound against a hang, with what the hosts say (not a budget: the test's timeout is longer).
        const deadline = Date.now() + 120_000;
        for (;;) {
          if (exits.length > 0) throw new Error(`a host exited while waiting for ${what}: ${exits.join('\n')}`);
          if (problems.length > 0) throw new Error(`while waiting for ${what}: ${problems.join('\n')}`);
          if (Date.now() > deadline) throw new Error(`still waiting for ${what}; /ready says ${JSON.stringify(await readiness())}`);
          if (await Promise.resolve().then(check).catch(() => false)) return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      const everyPartitionOwned = async (): Promise<boolean> => {
        const states = await Promise.all(bases.map(async (base) => (await (await fetch(`${base}/ready`)).json()) as Readiness));
        const owned = states.flatMap((state) => state.partitions.owned);
        return states.every((state) => state.status === 'ready') && owned.length === PARTITIONS && new Set(owned).size === PARTITIONS;
      };
      await waitFor(everyPartitionOwned, 'the hosts to share the partitions');

      const database = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> => {
        const client = new pg.Client({ connectionString: postgres.url });
        client.on('error', () => undefined);
        await client.connect();
        try {
          return (await client.query<T>(sql, params)).rows;
        } finally {
          await client.end().catch(() => undefined);
        }
      };

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
            const validated = await call(base, 'POST', '/v2/auto/queries/validate', key, body).catch((error: unknown) => ({ status: 0, body: String(error), headers: new Headers() }));
            const answer = validated.status === 200 ? await call(base, 'POST', '/v2/auto/queries', key, body).catch((error: unknown) => ({ status: 0, body: String(error), headers: new Headers() })) : validated;
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

        await waitFor(everyPartitionOwned, `round ${round}: every partition taken again`);
        // Every acknowledged query is run by its partition's owner again before the tick that fires it.
        const running = async () => {
          const states = await Promise.all(bases.map(async (base) => (await (await fetch(`${base}/ready`)).json()) as { queries: number }));
          const active = await database<{ count: string }>("SELECT count(*) AS count FROM queries WHERE status = 'active'");
          return states.reduce((sum, state) => sum + state.queries, 0) === Number(active[0]?.count) && Number(active[0]?.count) === acknowledged.length;
        };
        await waitFor(running, `round ${round}: the hosts to run the ${acknowledged.length} acknowledged queries`);
        await publish(symbol, 1_000_000);
        await waitFor(async () => {
          const rows = await database<{ count: string }>('SELECT count(*) AS count FROM notifications WHERE query_id = ANY($1::text[])', [acknowledged]);
          return Number(rows[0]?.count) >= acknowledged.length;
        }, `round ${round}: a notification for each of the ${acknowledged.length} acknowledged queries`);
        const perQuery = await database<{ query_id: string; count: string }>('SELECT query_id, count(*) AS count FROM notifications WHERE query_id = ANY($1::text[]) GROUP BY query_id', [acknowledged]);
        expect(perQuery.length).toBe(acknowledged.length);
        expect(perQuery.every((row) => Number(row.count) === 1)).toBe(true);
        console.info(`round ${round} (${mode}): creates answered ${JSON.stringify(Object.fromEntries(answers))}`);
      }
      expect(exits).toEqual([]);
    },
  );
});
