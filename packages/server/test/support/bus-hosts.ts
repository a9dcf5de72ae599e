import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { createApiKey, PgHostStore, SecretBox } from '../../src/index.js';
import { MarketBus } from '../../src/scale-out/market-bus.js';
import { type ChildHost, serveChild } from './child-host.js';
import { removeDir } from './harness.js';
import { SECRET_KEY_HEX } from './host.js';
import { adminQuery, freshSchema, type TestSchema } from './postgres.js';
import { freshStream, TEST_NATS_URL } from './nats.js';

/**
 * A cluster of real `eql serve` processes on one PostgreSQL schema and one NATS stream of their own
 * (EQL_FEED=bus: nothing but the test publishes), and a raw JetStream client that publishes any bytes
 * under the stream's subjects, bypassing MarketBus.publish (what another publisher, or an attacker
 * with the bus's credentials, could put there). Every wait is for a state; a host that exits during
 * a wait fails it at once with its output.
 */
export interface BusCluster {
  schema: TestSchema;
  stream: string;
  hosts: ChildHost[];
  /** An API key of the store (plan pro). */
  key: string;
  /** The base URL of each host. */
  bases(): string[];
  /** Publishes `payload` as it is on `<prefix>.<subject>`; resolves with its stream sequence. */
  publishRaw(subject: string, payload: string | Uint8Array): Promise<number>;
  /** Each host's `GET /ready`. */
  readiness(): Promise<BusReadiness[]>;
  /**
   * Polls `check` every 100 ms until it holds; throws when a host exits meanwhile, or after 10 minutes (a
   * bound against a hang where no test timeout applies, as in `npm run fuzz`; not a budget).
   */
  waitFor(check: () => Promise<boolean>, what: string): Promise<void>;
  /** The saved position (stream sequence) of each partition, the feed's (-1, the history recorder's) included. */
  positions(): Promise<Map<number, number>>;
  /** The hosts that have exited, with their output. */
  exited(): string[];
  close(): Promise<void>;
}

/** What the tests read of `GET /ready` on the bus. */
export interface BusReadiness {
  status: string;
  nodeId: string;
  queries: number;
  feedLeader?: boolean;
  partitions: { owned: number[]; count: number };
  bus: {
    stream: string;
    connected: boolean;
    positions: Record<string, { handled: number; saved: number; catchingUp: boolean; judged: number; malformed: number }>;
    history?: { handled: number; saved: number; malformed: number; dropped: number };
  };
}

export async function startBusCluster(label: string, options: { hosts: number; partitions: number }): Promise<BusCluster> {
  const schema = await freshSchema(label);
  const stream = freshStream(label);
  const dir = await mkdtemp(join(tmpdir(), `eql-${label}-`));
  const box = SecretBox.fromKey(SECRET_KEY_HEX);
  const store = await PgHostStore.open(schema.url, { box });
  const key = (await createApiKey(store, box, { name: label, plan: 'pro' })).key;
  await store.close();
  // The stream first (and its subjects' prefix), as a host would create it.
  const bus = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name });
  const prefix = bus.prefix;
  await bus.close();
  const raw: NatsConnection = await connect({ servers: TEST_NATS_URL });
  const js = jetstream(raw);
  const env = (nodeId: string): Record<string, string> => ({
    EQL_DATABASE_URL: schema.url,
    EQL_NATS_URL: TEST_NATS_URL,
    EQL_NATS_STREAM: stream.name,
    EQL_FEED: 'bus',
    EQL_SECRET_KEY: SECRET_KEY_HEX,
    EQL_NODE_ID: nodeId,
    EQL_PARTITIONS: String(options.partitions),
    // Long leases: a busy machine must not move partitions during a test (the counts are per holder).
    EQL_LEASE_TTL_MS: '15000',
    EQL_PORT: '0',
    EQL_HOST: '127.0.0.1',
    EQL_DATA_DIR: join(dir, nodeId),
    EQL_MARKET_SEED: 'none',
    EQL_API_KEY: key,
    EQL_LOG_LEVEL: 'warn',
  });
  const hosts: ChildHost[] = [];
  for (let index = 0; index < options.hosts; index += 1) hosts.push(await serveChild(env(`${label}-${index + 1}`)));
  const exitCodes = new Map<ChildHost, number | null>();
  for (const host of hosts) void host.exit.then((code) => exitCodes.set(host, code));
  const baseOf = (child: ChildHost): string => /listening on (http:\/\/\S+)/.exec(child.output())![1]!;
  const exited = () => hosts.filter((host) => exitCodes.has(host)).map((host) => `exited with ${exitCodes.get(host)}:\n${host.output().slice(-3_000)}`);
  const readiness = async (): Promise<BusReadiness[]> => Promise.all(hosts.map(async (host) => (await (await fetch(`${baseOf(host)}/ready`)).json()) as BusReadiness));
  const waitFor = async (check: () => Promise<boolean>, what: string): Promise<void> => {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const gone = exited();
      if (gone.length > 0) throw new Error(`a host exited while waiting for ${what}: ${gone.join('\n')}`);
      if (await check().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`still waiting for ${what} after 10 minutes; /ready says ${JSON.stringify(await readiness().catch((error: unknown) => String(error)))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await waitFor(async () => {
    const states = await readiness();
    const owned = states.flatMap((state) => state.partitions.owned);
    return states.every((state) => state.status === 'ready' && state.partitions.owned.length > 0) && new Set(owned).size === options.partitions && owned.length === options.partitions && states.some((state) => state.feedLeader === true);
  }, 'the hosts to share the partitions and one to lead the feed');
  return {
    schema,
    stream: stream.name,
    hosts,
    key,
    bases: () => hosts.map(baseOf),
    publishRaw: async (subject, payload) => (await js.publish(`${prefix}.${subject}`, payload)).seq,
    readiness,
    waitFor,
    positions: async () => new Map((await adminQuery<{ partition: number; seq: string }>(`SELECT partition, seq FROM ${schema.name}.partition_positions`)).map((row) => [Number(row.partition), Number(row.seq)])),
    exited,
    close: async () => {
      await Promise.all(hosts.map((host) => (exitCodes.has(host) ? host.exit : host.kill9())));
      await raw.close().catch(() => undefined);
      await stream.drop().catch(() => undefined);
      await schema.drop().catch(() => undefined);
      await removeDir(dir).catch(() => undefined);
    },
  };
}
