import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApiKey, PgHostStore, SecretBox } from '../../src/index.js';
import { type ChildHost, serveChild } from './child-host.js';
import { removeDir } from './harness.js';
import { SECRET_KEY_HEX } from './host.js';

/**
 * Real `eql serve` processes for fault tests (issue 46): on a database and a NATS server the test may
 * stop (its own PostgreSQL, its own nats-server), with an API key made in the store first, and waits that
 * fail at once when a host exits or the load beside them met a problem.
 */
export interface FaultHosts {
  hosts: ChildHost[];
  bases: string[];
  /** An API key of the store (plan pro). */
  key: string;
  /** What went wrong in the load a test runs beside its waits; a wait fails as soon as it holds one. */
  problems: string[];
  /** The hosts that exited, with their output. */
  exits: string[];
  /**
   * Polls `check` every 100 ms until it holds; throws when a host exits or a problem is recorded meanwhile,
   * or after 2 minutes with what `/ready` says (a bound against a hang, not a budget).
   */
  waitFor: (check: () => Promise<boolean> | boolean, what: string) => Promise<void>;
  /** Whether every host is ready and the partitions are owned, each by one host. */
  everyPartitionOwned(): Promise<boolean>;
  /** Whether the hosts run, together, every active query of the store, and there are `count` of them. */
  runningActive(count: number): Promise<boolean>;
  /** Runs SQL on the database with a connection of its own. */
  database<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

interface Readiness {
  status: string;
  queries: number;
  partitions: { owned: number[]; count: number };
}

export async function startFaultHosts(label: string, options: { databaseUrl: string; natsUrl: string; stream: string; hosts: number; partitions: number; leaseTtlMs: number }): Promise<FaultHosts> {
  const dir = await mkdtemp(join(tmpdir(), `eql-${label}-`));
  const box = SecretBox.fromKey(SECRET_KEY_HEX);
  const setup = await PgHostStore.open(options.databaseUrl, { box });
  const key = (await createApiKey(setup, box, { name: label, plan: 'pro' })).key;
  await setup.close();
  const hosts: ChildHost[] = [];
  for (let index = 0; index < options.hosts; index += 1) {
    hosts.push(
      await serveChild({
        EQL_DATABASE_URL: options.databaseUrl,
        EQL_NATS_URL: options.natsUrl,
        EQL_NATS_STREAM: options.stream,
        EQL_FEED: 'bus',
        EQL_SECRET_KEY: SECRET_KEY_HEX,
        EQL_NODE_ID: `${label}-${index + 1}`,
        EQL_PARTITIONS: String(options.partitions),
        EQL_LEASE_TTL_MS: String(options.leaseTtlMs),
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
  const problems: string[] = [];
  const readiness = () => Promise.all(bases.map(async (base) => (await (await fetch(`${base}/ready`)).json()) as Readiness));
  const waitFor = async (check: () => Promise<boolean> | boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (exits.length > 0) throw new Error(`a host exited while waiting for ${what}: ${exits.join('\n')}`);
      if (problems.length > 0) throw new Error(`while waiting for ${what}: ${problems.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`still waiting for ${what}; /ready says ${JSON.stringify(await readiness().catch((error: unknown) => String(error)))}`);
      if (await Promise.resolve().then(check).catch(() => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const database = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: options.databaseUrl });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const faultHosts: FaultHosts = {
    hosts,
    bases,
    key,
    problems,
    exits,
    waitFor,
    everyPartitionOwned: async () => {
      const states = await readiness();
      const owned = states.flatMap((state) => state.partitions.owned);
      return states.every((state) => state.status === 'ready') && owned.length === options.partitions && new Set(owned).size === options.partitions;
    },
    runningActive: async (count) => {
      const states = await readiness();
      const active = Number((await database<{ count: string }>("SELECT count(*) AS count FROM queries WHERE status = 'active'"))[0]?.count);
      return active === count && states.reduce((sum, state) => sum + state.queries, 0) === active;
    },
    database,
    close: async () => {
      await Promise.all(hosts.map((host) => (host.process.exitCode === null && host.process.signalCode === null ? host.kill9() : Promise.resolve())));
      await removeDir(dir).catch(() => undefined);
    },
  };
  await waitFor(() => faultHosts.everyPartitionOwned(), 'the hosts to share the partitions');
  return faultHosts;
}
