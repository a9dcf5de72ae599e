import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import pg from 'pg';
import { MarketBus } from '../../../src/scale-out/market-bus.js';
import { partitionsOf } from '../../../src/scale-out/partitions.js';
import { type ChildHost, serveChild } from '../../support/child-host.js';
import { createQuery, removeDir } from '../../support/harness.js';
import { SECRET_KEY_HEX } from '../../support/host.js';
import { type OwnPostgres, startOwnPostgres } from '../../support/own-postgres.js';
import { freshSchema, type TestSchema } from '../../support/postgres.js';
import { startNatsServer, type TestNatsServer } from '../../support/nats-server.js';
import { type Delivery, readLedger, readTriggerCounts } from './ledger.js';
import { judge, type Verdict } from './verdict.js';

/**
 * The fault harness of issue 46: three real `eql serve` hosts on a PostgreSQL and a nats-server of
 * the test's own (so both can be stopped, crashed and started again), and beside them a **reference**:
 * one `eql serve` host on a schema of the shared PostgreSQL, reading the same stream, never faulted.
 * Both get the same queries (`BTC crosses below X` with a notify step, re-armed; every fourth `ETH
 * crosses below X` with a notify and a webhook step to a receiver here, once) and read the same
 * deterministic ticks, so after the run every stored notification, execution and webhook delivery of
 * the cluster must be the reference's: none missing, none extra, none twice. Meanwhile a watch polls
 * each live host's `/ready` (the longest stretch with no partition owned while a majority of hosts
 * lives and PostgreSQL runs) and the stored trigger counts (never backwards), and every host exit the
 * scenario did not cause is recorded.
 *
 * Ticks (`tickAt`) are one observation each, 1.5 s apart on the feed's clock (the engines judge a tick at
 * its own instant, so cooldowns of 1 s never hold a crossing back, however fast the stream is read).
 * Every wait is for a state, bounded generously; a wait that runs out leaves the verdict "not settled"
 * instead of throwing, so a broken run still reports its figures.
 */

export const API_KEY = 'faults-key-0123456789abcdef';
const TICK_SPACING_MS = 1_500;

export interface FaultClusterOptions {
  hosts?: number;
  partitions?: number;
  /** Lease TTL of the cluster's hosts (ms). */
  leaseTtlMs?: number;
  queries?: number;
}

/** One host of the cluster: its node id and data directory outlive its processes. */
export interface HostSlot {
  nodeId: string;
  child: ChildHost | undefined;
  paused: boolean;
  /** Set before the scenario kills it: its exit is not "on its own". */
  killing: boolean;
}

export interface FaultCluster {
  postgres: OwnPostgres;
  nats: TestNatsServer;
  slots: HostSlot[];
  leaseTtlMs: number;
  /** Publishes the next `count` ticks, a few milliseconds apart; resolves with the last one's stream sequence. */
  publish(count: number): Promise<number>;
  /** Ticks published so far. */
  ticks(): number;
  /** Publishes a tick every `everyMs` until the returned stop is called (a firing load beside a fault); stop resolves once the last is published. */
  keepPublishing(everyMs?: number): () => Promise<void>;
  /** Starts again every host that exited on its own (after its exit was recorded), so a run goes on to its verdict. */
  reviveExited(): Promise<void>;
  /** SIGKILL to a host (counted as the scenario's doing), and its exit. */
  kill(index: number): Promise<void>;
  /** Starts a killed host again under its node id and data directory. */
  restart(index: number): Promise<void>;
  /** SIGSTOP / SIGCONT. */
  pause(index: number): void;
  resume(index: number): void;
  /** Polls `check` until it holds (true) or `boundMs` passed (false); a bound against a hang, not a budget. */
  waitUntil(check: () => Promise<boolean>, boundMs?: number): Promise<boolean>;
  /** Whether every live host answers `/ready` and together they own every partition. */
  allOwned(): Promise<boolean>;
  /** Whether every live host owns exactly the partitions the assignment gives it among the live hosts (hand-overs done). */
  balanced(): Promise<boolean>;
  /** Waits for the last tick to be read everywhere and the actions to finish, then compares with the reference. */
  verdict(scenario: string): Promise<Verdict>;
  close(): Promise<void>;
}

function baseOf(child: ChildHost): string {
  return /listening on (http:\/\/\S+)/.exec(child.output())![1]!;
}

/**
 * Tick `index`: BTC on four of five ticks (a wave with a seeded wobble, so every threshold in 94..106
 * is crossed often), ETH on the fifth: 100, with a dip once every 40 ticks, the k-th to 90 - k. The
 * queries with a webhook step watch ETH and fire once, the j-th at the j-th dip: a query does not
 * fire while its previous trigger's actions run, and a webhook's round trip is wall-clock time (a
 * notify step is a store write the partition waits for; a webhook is not), so a webhook query that
 * fired again would be judged on timing (how fast a partition catching up reads), not on the cluster.
 */
export function tickAt(index: number): { symbol: string; price: number } {
  if (index % 5 === 4) {
    const eth = Math.floor(index / 5);
    return { symbol: 'ETH', price: eth % 8 === 7 ? Math.max(20, 90 - (eth + 1) / 8) : 100 };
  }
  let state = (index * 2_654_435_761) >>> 0;
  state ^= state >>> 13;
  state = Math.imul(state, 1_597_334_677) >>> 0;
  const wobble = (state % 1_000) / 1_000 - 0.5;
  return { symbol: 'BTC', price: Math.round((100 + 6 * Math.sin(index * 0.37) + 4 * wobble) * 100) / 100 };
}

interface ReadyState {
  status: string;
  queries: number;
  partitions: { owned: number[]; count: number };
}

async function ready(base: string): Promise<ReadyState | undefined> {
  try {
    const response = await fetch(`${base}/ready`, { signal: AbortSignal.timeout(1_500) });
    return (await response.json()) as ReadyState;
  } catch {
    return undefined;
  }
}

/** The lowest saved position over `partitions` (0 for one never saved) and whether an execution still runs. */
async function progress(url: string, schema: string, partitions: number): Promise<{ lowest: number; running: number } | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const saved = new Map((await client.query<{ partition: number; seq: string }>(`SELECT partition, seq FROM ${schema}.partition_positions`)).rows.map((row) => [Number(row.partition), Number(row.seq)]));
    let lowest = Number.POSITIVE_INFINITY;
    for (let partition = 0; partition < partitions; partition += 1) lowest = Math.min(lowest, saved.get(partition) ?? 0);
    const running = Number((await client.query<{ count: string }>(`SELECT count(*) AS count FROM ${schema}.executions WHERE status = 'running'`)).rows[0]?.count ?? 0);
    return { lowest, running };
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** One line per execution of the query titled `title`: index, step, status, attempts, start and end (for reading a failure). */
async function executionTimeline(url: string, schema: string, title: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const rows = (
      await client.query<{ trigger_index: string; step_id: string; status: string; attempts: string; created_at: string; finished_at: string | null; error_code: string | null }>(
        `SELECT e.trigger_index, e.step_id, e.status, e.attempts, e.created_at, e.finished_at, e.error_code FROM ${schema}.executions e JOIN ${schema}.queries q ON q.id = e.query_id WHERE q.request::jsonb->>'title' = $1 ORDER BY e.created_at, e.seq`,
        [title],
      )
    ).rows;
    return rows.map((row) => `#${row.trigger_index} ${row.step_id} ${row.status}${row.error_code ? `(${row.error_code})` : ''} x${row.attempts} ${row.created_at.slice(11, 23)}..${row.finished_at?.slice(11, 23) ?? '-'}`).join('; ');
  } catch (error) {
    return `unreadable: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A receiver of webhooks: records each delivery (its `webhook-id`, the title and trigger of its body) by side. */
async function startReceiver(): Promise<{ url: string; deliveries: Map<string, Delivery[]>; close(): Promise<void> }> {
  const deliveries = new Map<string, Delivery[]>([
    ['cluster', []],
    ['reference', []],
  ]);
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const side = (request.url ?? '').split('/')[1] ?? '';
      try {
        const data = (JSON.parse(body) as { data: { title: string; triggerIndex: number } }).data;
        deliveries.get(side)?.push({ key: `${data.title}|${data.triggerIndex}`, webhookId: String(request.headers['webhook-id']) });
      } catch {
        deliveries.get(side)?.push({ key: `unreadable body ${body.slice(0, 80)}`, webhookId: String(request.headers['webhook-id']) });
      }
      // No keep-alive: a delivery on a socket the receiver is closing fails and is retried a second
      // later, holding its query's next crossing back (a timing of the test, not of the cluster).
      response.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deliveries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function startFaultCluster(label: string, options: FaultClusterOptions = {}): Promise<FaultCluster> {
  const hostCount = options.hosts ?? 3;
  const partitions = options.partitions ?? 32;
  const leaseTtlMs = options.leaseTtlMs ?? 3_000;
  const queryCount = options.queries ?? 60;
  const referencePartitions = 4;
  const postgres = await startOwnPostgres();
  const nats = await startNatsServer('');
  const referenceSchema: TestSchema = await freshSchema(`faults_ref_${label}`);
  const receiver = await startReceiver();
  const dir = await mkdtemp(join(tmpdir(), `eql-faults-${label}-`));
  const stream = `EQL_FAULTS_${label.toUpperCase()}`;
  const bus = await MarketBus.connect(nats.url, { stream });
  const prefix = bus.prefix;
  await bus.close();
  const raw: NatsConnection = await connect({ servers: nats.url });
  const js: JetStreamClient = jetstream(raw);

  const common = (nodeId: string): Record<string, string> => ({
    EQL_NATS_URL: nats.url,
    EQL_NATS_STREAM: stream,
    EQL_FEED: 'bus',
    EQL_SECRET_KEY: SECRET_KEY_HEX,
    EQL_NODE_ID: nodeId,
    EQL_PORT: '0',
    EQL_HOST: '127.0.0.1',
    EQL_DATA_DIR: join(dir, nodeId),
    EQL_MARKET_SEED: 'none',
    EQL_API_KEY: API_KEY,
    EQL_LOG_LEVEL: 'warn',
    EQL_ALLOW_PRIVATE_WEBHOOKS: '1',
  });
  const clusterEnv = (nodeId: string) => ({ ...common(nodeId), EQL_DATABASE_URL: postgres.url, EQL_PARTITIONS: String(partitions), EQL_LEASE_TTL_MS: String(leaseTtlMs) });
  const reference = await serveChild({ ...common(`${label}-reference`), EQL_DATABASE_URL: referenceSchema.url, EQL_PARTITIONS: String(referencePartitions), EQL_LEASE_TTL_MS: '15000' });

  const exitedOnTheirOwn: string[] = [];
  const slots: HostSlot[] = [];
  const watchExit = (slot: HostSlot, child: ChildHost) => {
    void child.exit.then((code) => {
      if (slot.child === child) slot.child = undefined;
      if (slot.killing) return;
      // The line that says why (an uncaught error's name and message), not the host's JSON log around it.
      const lines = child.output().split('\n');
      const why = lines.filter((line) => !line.startsWith('{') && /Unhandled|^\s*\w*Error\b|Connection terminated/.test(line)).slice(0, 3).join(' / ');
      exitedOnTheirOwn.push(`${slot.nodeId} exited with ${code}: ${why || lines.slice(-5).join(' / ')}`);
    });
  };
  const launch = async (slot: HostSlot) => {
    slot.killing = false;
    slot.paused = false;
    const child = await serveChild(clusterEnv(slot.nodeId));
    slot.child = child;
    watchExit(slot, child);
  };
  for (let index = 0; index < hostCount; index += 1) {
    const slot: HostSlot = { nodeId: `${label}-${index + 1}`, child: undefined, paused: false, killing: false };
    slots.push(slot);
    await launch(slot);
  }
  const liveSlots = () => slots.filter((slot) => slot.child !== undefined && !slot.paused);

  const waitUntil = async (check: () => Promise<boolean>, boundMs = 180_000): Promise<boolean> => {
    const deadline = Date.now() + boundMs;
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return true;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return false;
  };
  const allOwned = async (): Promise<boolean> => {
    const states = await Promise.all(liveSlots().map((slot) => ready(baseOf(slot.child!))));
    if (states.some((state) => state === undefined)) return false;
    const owned = states.flatMap((state) => state!.partitions.owned);
    return new Set(owned).size === partitions && owned.length === partitions;
  };
  const balanced = async (): Promise<boolean> => {
    const live = liveSlots();
    const states = await Promise.all(live.map((slot) => ready(baseOf(slot.child!))));
    const nodes = live.map((slot) => slot.nodeId);
    return states.every((state, index) => state !== undefined && JSON.stringify([...state.partitions.owned].sort((a, b) => a - b)) === JSON.stringify(partitionsOf(nodes[index]!, nodes, partitions)));
  };
  const queriesRunning = async (bases: string[]): Promise<number> => (await Promise.all(bases.map(ready))).reduce((sum, state) => sum + (state?.queries ?? 0), 0);

  if (!(await waitUntil(balanced))) throw new Error(`the cluster never shared its ${partitions} partitions as assigned`);
  // The same queries on both sides, all running before the first tick (so both judge the whole stream).
  for (let index = 0; index < queryCount; index += 1) {
    const hooked = index % 4 === 0;
    const symbol = hooked ? 'ETH' : 'BTC';
    // The j-th webhook query (j from 1) crosses at the j-th dip first (90 - j < 90.5 - j).
    const threshold = hooked ? 90.5 - (index / 4 + 1) : Math.round((94 + (12 * index) / queryCount) * 100) / 100;
    const body = (side: string) => ({
      title: `q-${index}`,
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol }, operator: 'crosses_below', value: threshold }] },
        actions: [
          { stepId: 'tell', type: 'notify', params: { message: `${symbol} below ${threshold}` } },
          ...(hooked ? [{ stepId: 'hook', type: 'webhook', params: { url: `${receiver.url}/${side}/q-${index}` } }] : []),
        ],
        expiresIn: '24h',
        ...(hooked ? {} : { repeat: { cooldown: '1s', maxTriggers: 1000 } }),
      },
    });
    await createQuery(baseOf(slots[index % slots.length]!.child!), API_KEY, body('cluster'));
    await createQuery(baseOf(reference), API_KEY, body('reference'));
  }
  if (!(await waitUntil(async () => (await queriesRunning(slots.map((slot) => baseOf(slot.child!))))=== queryCount && (await queriesRunning([baseOf(reference)])) === queryCount))) {
    throw new Error(`the ${queryCount} queries never ran on both sides`);
  }

  // The watch: ownership, trigger counts, from now to the verdict.
  let watching = true;
  let noOwnerSince: number | undefined;
  let someUnownedSince: number | undefined;
  let longestNoOwner = 0;
  let longestSomeUnowned = 0;
  const highest = new Map<string, number>();
  const backwards: string[] = [];
  const watchOwnership = async () => {
    while (watching) {
      const live = liveSlots();
      const states = await Promise.all(live.map((slot) => ready(baseOf(slot.child!))));
      const now = Date.now();
      const judged = live.length * 2 > hostCount && postgres.running();
      const owned = new Set(states.flatMap((state) => state?.partitions.owned ?? []));
      noOwnerSince = judged && owned.size === 0 ? (noOwnerSince ?? now) : undefined;
      someUnownedSince = judged && owned.size < partitions ? (someUnownedSince ?? now) : undefined;
      if (noOwnerSince !== undefined) longestNoOwner = Math.max(longestNoOwner, now - noOwnerSince);
      if (someUnownedSince !== undefined) longestSomeUnowned = Math.max(longestSomeUnowned, now - someUnownedSince);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const watchCounts = async () => {
    while (watching) {
      const counts = await readTriggerCounts(postgres.url);
      for (const [title, count] of counts ?? []) {
        const before = highest.get(title) ?? 0;
        if (count < before) backwards.push(`${title}: ${before} -> ${count}`);
        highest.set(title, Math.max(before, count));
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
  const watches = [watchOwnership(), watchCounts()];

  let published = 0;
  let lastSeq = 0;
  const origin = Date.now();
  const publish = async (count: number): Promise<number> => {
    for (let step = 0; step < count; step += 1) {
      const index = published;
      published += 1;
      const { symbol, price } = tickAt(index);
      const observation = { at: origin + index * TICK_SPACING_MS, source: 'price', symbol, price };
      lastSeq = (await js.publish(`${prefix}.price.${symbol}`, JSON.stringify(observation))).seq;
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    return lastSeq;
  };

  const cluster: FaultCluster = {
    postgres,
    nats,
    slots,
    leaseTtlMs,
    publish,
    ticks: () => published,
    keepPublishing: (everyMs = 100) => {
      let going = true;
      const loop = (async () => {
        while (going) {
          await publish(1);
          await new Promise((resolve) => setTimeout(resolve, everyMs));
        }
      })();
      return async () => {
        going = false;
        await loop;
      };
    },
    reviveExited: async () => {
      for (const slot of slots) if (slot.child === undefined && !slot.killing) await launch(slot);
    },
    kill: async (index) => {
      const slot = slots[index]!;
      const child = slot.child;
      if (!child) return;
      slot.killing = true;
      await child.kill9();
      slot.child = undefined;
      slot.paused = false;
    },
    restart: async (index) => launch(slots[index]!),
    pause: (index) => {
      const slot = slots[index]!;
      slot.child!.process.kill('SIGSTOP');
      slot.paused = true;
    },
    resume: (index) => {
      const slot = slots[index]!;
      slot.child!.process.kill('SIGCONT');
      slot.paused = false;
    },
    waitUntil,
    allOwned,
    balanced,
    verdict: async (scenario) => {
      const last = lastSeq;
      const settledEverywhere = async () => {
        const [mine, theirs] = await Promise.all([progress(postgres.url, 'public', partitions), progress(referenceSchema.url, referenceSchema.name, referencePartitions)]);
        return mine !== undefined && theirs !== undefined && mine.lowest >= last && theirs.lowest >= last && mine.running === 0 && theirs.running === 0;
      };
      const settled = await waitUntil(settledEverywhere);
      watching = false;
      await Promise.all(watches);
      const [clusterLedger, referenceLedger] = await Promise.all([readLedger(postgres.url), readLedger(referenceSchema.url, referenceSchema.name)]);
      // For reading a failure: the executions of the first query whose trigger count differs, on both sides.
      const differing = [...referenceLedger.triggerCounts].find(([title, count]) => clusterLedger.triggerCounts.get(title) !== count)?.[0];
      const notes =
        differing === undefined
          ? []
          : [
              `executions of ${differing} in the cluster: ${await executionTimeline(postgres.url, 'public', differing)}`,
              `executions of ${differing} in the reference: ${await executionTimeline(referenceSchema.url, referenceSchema.name, differing)}`,
              `deliveries of ${differing}: cluster ${receiver.deliveries.get('cluster')!.filter((delivery) => delivery.key.startsWith(`${differing}|`)).length}, reference ${receiver.deliveries.get('reference')!.filter((delivery) => delivery.key.startsWith(`${differing}|`)).length}`,
            ];
      return judge({
        notes,
        scenario,
        settled,
        ticks: published,
        reference: referenceLedger,
        cluster: clusterLedger,
        referenceDeliveries: receiver.deliveries.get('reference')!,
        clusterDeliveries: receiver.deliveries.get('cluster')!,
        backwards,
        exitedOnTheirOwn,
        longestNoOwnerSeconds: longestNoOwner / 1_000,
        longestSomeUnownedSeconds: longestSomeUnowned / 1_000,
      });
    },
    close: async () => {
      watching = false;
      await Promise.all(watches);
      for (const slot of slots) {
        slot.killing = true;
        const child = slot.child;
        if (child) {
          if (slot.paused) child.process.kill('SIGCONT');
          await child.kill9();
        }
      }
      await reference.kill9();
      await raw.close().catch(() => undefined);
      await receiver.close();
      await nats.stop().catch(() => undefined);
      await postgres.destroy().catch(() => undefined);
      await referenceSchema.drop().catch(() => undefined);
      await removeDir(dir).catch(() => undefined);
    },
  };
  return cluster;
}
