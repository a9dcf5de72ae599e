// Benchmark: the hosts of a cluster on PostgreSQL and NATS JetStream (issue 14).
//
// Every host is a real `eql serve` child process (EQL_FEED=bus, 8 partitions), on a fresh PostgreSQL schema
// and a fresh JetStream stream of the machine's servers (EQL_TEST_DATABASE_URL, EQL_TEST_NATS_URL).
//
// 1. Throughput, end to end, for two workloads: the same 1,000 queries (firing: price thresholds near the
//    prices, a third of them crossings that re-arm; idle: thresholds no price reaches) and the same 20,000 ticks of 4 assets, published into the
//    bus as fast as the server takes them; timed from the first publish until every partition has handed the
//    last tick to its engine (GET /ready). One process holding the 8 partitions, then 3 processes sharing
//    them: ticks per second and the ratio, with the triggers each run stored (they must be equal).
// 2. Fail-over: 3 hosts at the default lease TTL (6 s); one is killed with SIGKILL, timed until the survivors
//    hold all 8 partitions and run all 1,000 queries; then it is started again and the partitions rebalance.
//    10 runs: median and max.
// 3. Create → visible on another host: 200 creates through one host, each polled through another from the
//    moment the create answered until it answers 200: p50 and p99.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey, MarketBus, PgHostStore, SecretBox } from '@eql/server';
import { mulberry32 } from '../scripts/seeded-random.mjs';
import { admin, DATABASE_URL, NATS_URL } from './support/pg-admin.mjs';
import { startBusHost } from './support/bus-host.mjs';

const SECRET = 'cd'.repeat(32);
const PARTITIONS = 8;
const QUERIES = 1_000;
const TICKS = 20_000;
const ASSETS = ['BTC', 'ETH', 'SOL', 'DOGE'];
const START = { BTC: 60_000, ETH: 3_000, SOL: 150, DOGE: 0.2 };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

/** A query of the firing workload (a threshold within 3 % of the start), or of the idle one (10 times the start: it never holds). */
function queryBody(index, workload = 'firing') {
  const next = mulberry32(1_000 + index);
  const symbol = ASSETS[index % ASSETS.length];
  const threshold = Number((START[symbol] * (workload === 'idle' ? 10 : 0.97 + next() * 0.06)).toPrecision(6));
  const kind = index % 3;
  const operator = kind === 0 ? 'crosses_above' : kind === 1 ? 'crosses_below' : '>';
  return {
    title: `q${index}`,
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol }, operator, value: threshold }] },
      actions: [{ stepId: 'tell', type: 'notify', params: { message: `${symbol} ${operator} ${threshold}` } }],
      expiresIn: '7d',
      ...(kind === 2 ? {} : { repeat: { cooldown: '1s', maxTriggers: 20 } }),
    },
  };
}

function ticks(start) {
  const next = mulberry32(14);
  const prices = { ...START };
  return Array.from({ length: TICKS }, (_, index) => {
    const symbol = ASSETS[index % ASSETS.length];
    prices[symbol] = prices[symbol] * (1 + (next() - 0.5) * 0.004);
    return { at: start + index * 2_000, source: 'price', symbol, price: Number(prices[symbol].toPrecision(8)) };
  });
}

/** A fresh schema and stream, the keys, and the env of a host. */
async function cluster(label) {
  const schema = `eql_bench_${label}_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const stream = `EQL_BENCH_${label.toUpperCase()}_${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'eql-bench-cluster-'));
  const box = SecretBox.fromKey(SECRET);
  const store = await PgHostStore.open(url.toString(), { box });
  const keys = [];
  for (let index = 0; index < 40; index += 1) keys.push((await createApiKey(store, box, { name: `k${index}`, plan: 'pro' })).key);
  const children = new Map();
  const start = async (nodeId, ttl = 1_500) => {
    const entry = await startBusHost({ databaseUrl: url.toString(), stream, nodeId, partitions: PARTITIONS, secret: SECRET, dir, extraEnv: { EQL_LEASE_TTL_MS: String(ttl) } });
    children.set(nodeId, entry);
    return entry;
  };
  const ready = async (base) => {
    try {
      return await (await fetch(`${base}/ready`)).json();
    } catch {
      return undefined;
    }
  };
  const states = () => Promise.all([...children.values()].map((entry) => ready(entry.base)));
  return {
    schema,
    keys,
    children,
    start,
    states,
    async balanced(queries) {
      for (;;) {
        const all = await states();
        const owned = all.flatMap((state) => state?.partitions?.owned ?? []);
        const running = all.reduce((sum, state) => sum + (state?.queries ?? 0), 0);
        if (all.every((state) => state?.status === 'ready') && new Set(owned).size === PARTITIONS && owned.length === PARTITIONS && running === queries) return;
        await sleep(20);
      }
    },
    async kill(nodeId) {
      const entry = children.get(nodeId);
      children.delete(nodeId);
      entry.child.kill('SIGKILL');
      await entry.exited;
    },
    async close() {
      for (const entry of children.values()) entry.child.kill(process.env.BENCH_HOST_NODE_ARGS ? 'SIGTERM' : 'SIGKILL');
      await Promise.all([...children.values()].map((entry) => entry.exited));
      children.clear();
      await store.close();
      const bus = await MarketBus.connect(NATS_URL, { stream });
      await bus.destroy().catch(() => undefined);
      await bus.close();
      await admin(`DROP SCHEMA ${schema} CASCADE`);
      await rm(dir, { recursive: true, force: true });
    },
    stream,
  };
}

async function call(base, method, path, key, body) {
  const response = await fetch(`${base}${path}`, { method, headers: { 'x-svc-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

async function create(base, key, body) {
  const validated = await call(base, 'POST', '/v2/auto/queries/validate', key, body);
  if (validated.status !== 200) throw new Error(`validate: ${validated.status} ${JSON.stringify(validated.body)}`);
  const created = await call(base, 'POST', '/v2/auto/queries', key, body);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.queryId;
}

async function createAll(c, workload = 'firing') {
  const bases = [...c.children.values()].map((entry) => entry.base);
  const ids = [];
  for (let index = 0; index < QUERIES; index += 1) ids.push(await create(bases[index % bases.length], c.keys[index % c.keys.length], queryBody(index, workload)));
  return ids;
}

/** Publishes the ticks pipelined (in order over one connection, 500 acks awaited at a time); returns the last sequence. */
async function publishAll(stream, observations) {
  const bus = await MarketBus.connect(NATS_URL, { stream });
  let last = 0;
  for (let from = 0; from < observations.length; from += 500) {
    const acks = await Promise.all(observations.slice(from, from + 500).map((observation, offset) => bus.publish(observation, `bench:${from + offset}`)));
    for (const ack of acks) last = Math.max(last, ack.seq);
  }
  await bus.close();
  return last;
}

async function throughput(hosts, workload) {
  const c = await cluster(`t${hosts}`);
  try {
    for (let index = 1; index <= hosts; index += 1) await c.start(`bench-${index}`);
    await c.balanced(0);
    await createAll(c, workload);
    await c.balanced(QUERIES);
    const observations = ticks(Date.now() + 1_000);
    const started = performance.now();
    const lastSeq = await publishAll(c.stream, observations);
    const published = performance.now();
    for (;;) {
      const all = await c.states();
      const handled = all.flatMap((state) => Object.values(state?.bus?.positions ?? {}).map((position) => position.handled));
      if (handled.length === PARTITIONS && handled.every((seq) => seq >= lastSeq)) break;
      await sleep(10);
    }
    const elapsed = performance.now() - started;
    // The triggers' writes may still be settling: wait for the saved positions too, then count.
    for (;;) {
      const rows = await admin(`SELECT seq FROM ${c.schema}.partition_positions WHERE partition >= 0`);
      if (rows.length === PARTITIONS && rows.every((row) => Number(row.seq) >= lastSeq)) break;
      await sleep(20);
    }
    const [{ n }] = await admin(`SELECT count(*)::int AS n FROM ${c.schema}.notifications`);
    return { hosts, ticksPerSecond: Math.round((TICKS * 1_000) / elapsed), publishMs: Math.round(published - started), elapsedMs: Math.round(elapsed), triggers: n };
  } finally {
    await c.close();
  }
}

async function failover() {
  const c = await cluster('failover');
  const times = [];
  try {
    for (let index = 1; index <= 3; index += 1) await c.start(`bench-${index}`, 6_000);
    await c.balanced(0);
    await createAll(c);
    await c.balanced(QUERIES);
    for (let run = 0; run < 10; run += 1) {
      const victim = `bench-${(run % 3) + 1}`;
      const killedAt = performance.now();
      await c.kill(victim);
      await c.balanced(QUERIES);
      times.push(performance.now() - killedAt);
      await c.start(victim, 6_000);
      await c.balanced(QUERIES);
    }
    const bases = [...c.children.values()].map((entry) => entry.base);
    const visible = [];
    for (let index = 0; index < 200; index += 1) {
      const key = c.keys[index % c.keys.length];
      const id = await create(bases[0], key, queryBody(QUERIES + index));
      const started = performance.now();
      for (;;) {
        if ((await call(bases[1], 'GET', `/v2/auto/queries/${id}`, key)).status === 200) break;
      }
      visible.push(performance.now() - started);
    }
    return { times, visible };
  } finally {
    await c.close();
  }
}

for (const workload of ['idle', 'firing']) {
  const one = await throughput(1, workload);
  const three = await throughput(3, workload);
  console.log(`bus → hosts, ${workload} workload: ${QUERIES} queries, ${TICKS} ticks, ${PARTITIONS} partitions (publishing took ${one.publishMs} / ${three.publishMs} ms of it)`);
  console.log(`  1 process  : ${one.ticksPerSecond.toLocaleString('en')} ticks/s (${one.elapsedMs} ms), ${one.triggers} triggers`);
  console.log(`  3 processes: ${three.ticksPerSecond.toLocaleString('en')} ticks/s (${three.elapsedMs} ms), ${three.triggers} triggers`);
  console.log(`  ratio 3/1: ${(three.ticksPerSecond / one.ticksPerSecond).toFixed(2)}x${one.triggers === three.triggers ? '' : '  (TRIGGER COUNTS DIFFER)'}`);
}
const { times, visible } = await failover();
console.log(`fail-over after SIGKILL (lease TTL 6 s, 3 hosts, ${QUERIES} queries), 10 runs: median ${(median(times) / 1_000).toFixed(2)} s, max ${(Math.max(...times) / 1_000).toFixed(2)} s`);
console.log(`created on one host (answered) → visible on another, 200 creates: p50 ${percentile(visible, 50).toFixed(1)} ms, p99 ${percentile(visible, 99).toFixed(1)} ms`);
