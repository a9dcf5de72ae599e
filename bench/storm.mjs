// Benchmark: alert storms (issue 47). One tick fires N queries `price BTC < X` with a notify step, all of one
// key; timed from the tick to the first and the last notification stored, and to the last one received on
// one SSE stream of that key. Beside it, in the same run, **the limit**: the same rows a trigger leaves
// (its runtime state, its execution, its notification, its outbox entry) written in bulk by plain code into
// the same kind of store, in one transaction (SQLite: prepared statements; PostgreSQL: one multi-row
// statement per table).
//
// Set-ups:
//   sqlite  one host in this process on embedded SQLite, the ticks pushed into its engine (a push source);
//   pg      one `eql serve` child on PostgreSQL and NATS JetStream (EQL_FEED=bus, 8 partitions), the ticks
//           published into the bus;
//   pg3     three such children sharing the 8 partitions.
// The queries are written into the store before the hosts start (validation and charging are not what is
// measured; one key holds them all so that one stream can receive every notification). A first tick at
// a price no threshold is above makes every query ready; the second is under every threshold.
//
// On PostgreSQL it also prints the leases lost during the storm (partitions whose epoch moved: a host
// that missed its renewals), the most of any round.
//
// `--webhooks`: each query has a webhook step too (after its notify step), to a receiver in this process; the
// run also prints the tick → first and last webhook received, and how many came twice (same webhook-id).
//
// `npm run bench storm [-- --n 1000,10000] [--setups sqlite,pg,pg3] [--rounds 3] [--webhooks]`: medians over the rounds.
// Needs PostgreSQL and NATS for pg and pg3 (EQL_TEST_DATABASE_URL, EQL_TEST_NATS_URL).
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PushSource } from '@eql/core';
import { buildServer, createApiKey, MarketBus, PgHostStore, SecretBox, SqliteStore } from '@eql/server';
import { admin, DATABASE_URL, NATS_URL } from './support/pg-admin.mjs';
import { startBusHost } from './support/bus-host.mjs';

const SECRET = 'ef'.repeat(32);
const PARTITIONS = 8;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const SIZES = option('n', '1000,10000').split(',').map(Number);
const SETUPS = option('setups', 'sqlite,pg,pg3').split(',');
const ROUNDS = Number(option('rounds', '1'));
const WEBHOOKS = args.includes('--webhooks');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value) => (value === undefined ? '—' : `${Math.round(value)} ms`);

/**
 * A webhook receiver on loopback: answers 200 at once and records when each delivery came (`at(n)`
 * resolves when n distinct webhook-ids have come) and how many came twice.
 */
async function webhookReceiver() {
  const ids = new Set();
  let repeats = 0;
  let first;
  let last;
  const waiters = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      const now = performance.now();
      if (ids.has(id)) repeats += 1;
      else {
        ids.add(id);
        first ??= now;
        last = now;
      }
      response.writeHead(200).end();
      for (const waiter of [...waiters]) {
        if (ids.size < waiter.n) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    /** Resolves with the first and last arrival once n distinct ids came. */
    all: async (n) => {
      if (ids.size < n) await new Promise((resolve) => waiters.push({ n, resolve }));
      return { first, last };
    },
    repeats: () => repeats,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The query records of a storm: N `price BTC < 1000 + i/N` alerts of one key (the storm tick is 500, the first 2000), each with a webhook step to `hookUrl` when given. */
function records(keyId, count, hookUrl) {
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.getTime() + 7 * 86_400_000);
  return Array.from({ length: count }, (_, index) => ({
    id: `storm-${index}-${randomBytes(3).toString('hex')}`,
    keyId,
    request: {
      title: `storm ${index}`,
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '<', value: 1000 + index / count }] },
        actions: [{ stepId: 'tell', type: 'notify', params: { message: 'BTC fell' } }, ...(hookUrl ? [{ stepId: 'hook', type: 'webhook', params: { url: hookUrl } }] : [])],
        expiresIn: '7d',
      },
    },
    status: 'active',
    tradeFlavoured: false,
    estimatedCredits: 1,
    credits: 1,
    createdAt: createdAt.toISOString(),
    expiresAt: expiresAt.toISOString(),
    cancelledAt: null,
    deletedAt: null,
    runtime: null,
    fromDraft: null,
  }));
}

/**
 * Counts the `notification:new` frames of one SSE stream of `key` as they come, reconnecting with
 * Last-Event-ID when the host closes it (a stream too far behind is closed and resumed, as a client does);
 * `at(n)` resolves when the n-th came (performance.now()).
 */
async function sseCounter(base, key) {
  const controller = new AbortController();
  const seen = new Set();
  let lastId = '0';
  let lastAt;
  const waiters = [];
  const open = async () => {
    const response = await fetch(`${base}/v2/auto/queries/stream`, { headers: { 'x-svc-api-key': key, 'last-event-id': lastId }, signal: controller.signal });
    if (response.status !== 200) throw new Error(`stream: ${response.status}`);
    return response;
  };
  const first = await open();
  void (async () => {
    let response = first;
    for (;;) {
      const decoder = new TextDecoder();
      let buffered = '';
      try {
        for await (const chunk of response.body) {
          buffered += decoder.decode(chunk, { stream: true });
          let end;
          while ((end = buffered.indexOf('\n\n')) >= 0) {
            const frame = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            const id = /^id: (.*)$/m.exec(frame)?.[1];
            if (id !== undefined) lastId = id;
            if (/^event: notification:new$/m.test(frame) && id !== undefined && !seen.has(id)) {
              seen.add(id);
              lastAt = performance.now();
            }
          }
          for (const waiter of [...waiters]) {
            if (seen.size < waiter.n) continue;
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(lastAt);
          }
        }
      } catch {
        // aborted, or the connection broke: reconnect below unless aborted
      }
      if (controller.signal.aborted) return;
      response = await open().catch(() => undefined);
      if (!response) return;
    }
  })();
  return {
    at: (n) => (seen.size >= n ? Promise.resolve(lastAt) : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () => controller.abort(),
  };
}

/** Peak resident set of a process (VmHWM), in MB. */
function peakRssMb(pid) {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Process CPU time (user + system, ms) of a child, from /proc. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** One storm on one SQLite host in this process. */
async function sqliteStorm(count) {
  const dir = await mkdtemp(join(tmpdir(), 'eql-bench-storm-'));
  const box = SecretBox.fromKey(SECRET);
  const store = new SqliteStore(join(dir, 'eql.sqlite'), { box });
  const { record, key } = await createApiKey(store, box, { name: 'storm', plan: 'pro' });
  const receiver = WEBHOOKS ? await webhookReceiver() : undefined;
  for (const query of records(record.id, count, receiver?.url)) store.insertQuery(query);
  const push = new PushSource();
  const host = await buildServer({ config: { dataDir: dir, secretKey: SECRET, marketSeed: false, allowPrivateWebhooks: true }, store, logger: false, engine: { sources: [push] } });
  await host.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${host.app.server.address().port}`;
  try {
    push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 2000 });
    const sse = await sseCounter(base, key);
    let stored = 0;
    let first;
    let last;
    let done;
    const all = new Promise((resolve) => (done = resolve));
    host.context.runner.onNotification(() => {
      stored += 1;
      const now = performance.now();
      first ??= now;
      if (stored === count) {
        last = now;
        done();
      }
    });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const tickAt = performance.now();
    push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 500 });
    // The part of the storm the push itself ran (a synchronous store stores inside it): the loop was held that long.
    const held = performance.now() - tickAt;
    await all;
    const streamed = await sse.at(count);
    const hooks = await receiver?.all(count);
    // A turn for the delay's timer: a storm stored synchronously held the loop from the tick on.
    await sleep(30);
    delay.disable();
    sse.close();
    return { first: first - tickAt, last: last - tickAt, streamed: streamed - tickAt, stallMs: Math.max(delay.max / 1e6, held), rssMb: peakRssMb(process.pid), ...hookFigures(hooks, tickAt, receiver) };
  } finally {
    await host.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The webhook figures of a run: tick → first and last delivery, and repeats. */
function hookFigures(hooks, tickAt, receiver) {
  return hooks ? { hookFirst: hooks.first - tickAt, hookLast: hooks.last - tickAt, hookRepeats: receiver.repeats() } : {};
}

/** The limit on SQLite: the rows of N triggers written by plain code in one transaction. */
async function sqliteLimit(count) {
  const dir = await mkdtemp(join(tmpdir(), 'eql-bench-storm-limit-'));
  const box = SecretBox.fromKey(SECRET);
  const path = join(dir, 'eql.sqlite');
  const store = new SqliteStore(path, { box });
  const { record } = await createApiKey(store, box, { name: 'limit', plan: 'pro' });
  const queries = records(record.id, count);
  for (const query of queries) store.insertQuery(query);
  store.close?.();
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  try {
    const runtime = db.prepare('UPDATE queries SET runtime = ?, status = ? WHERE id = ?');
    const execution = db.prepare('INSERT INTO executions (id, key_id, query_id, step_id, type, status, trigger_index, created_at, finished_at, attempts, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const notification = db.prepare('INSERT INTO notifications (key_id, query_id, body, created_at) VALUES (?, ?, ?, ?)');
    const outbox = db.prepare('INSERT INTO action_outbox (idempotency_key, key_id, query_id, trigger_index, step_id, type, execution_id, status, created_at, finished_at, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const started = performance.now();
    db.transaction(() => {
      const at = new Date().toISOString();
      for (const query of queries) {
        runtime.run(JSON.stringify({ status: 'triggered', triggerCount: 1, lastTriggerAt: Date.now(), latched: {}, verdicts: {}, cronPulses: {} }), 'triggered', query.id);
        execution.run(`x-${query.id}`, record.id, query.id, 'tell', 'notify', 'succeeded', 1, at, at, 1, JSON.stringify({ notificationId: 1 }));
        notification.run(record.id, query.id, JSON.stringify({ title: query.request.title, body: 'BTC fell', data: { queryId: query.id, stepId: 'tell', triggerIndex: 1, observedAt: at } }), at);
        outbox.run(`${query.id}:1:tell`, record.id, query.id, 1, 'tell', 'notify', `x-${query.id}`, 'succeeded', at, at, '{}');
      }
    })();
    return performance.now() - started;
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** A fresh schema holding the key and the N queries; `url` has its search path. */
async function pgSchema(label, count, hookUrl) {
  const schema = `eql_bench_${label}_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const box = SecretBox.fromKey(SECRET);
  const store = await PgHostStore.open(url.toString(), { box });
  const { record, key } = await createApiKey(store, box, { name: label, plan: 'pro' });
  const queries = records(record.id, count, hookUrl);
  for (let from = 0; from < queries.length; from += 50) await Promise.all(queries.slice(from, from + 50).map((query) => store.insertQuery(query)));
  await store.close();
  return { schema, url: url.toString(), key, keyId: record.id, queries, drop: () => admin(`DROP SCHEMA ${schema} CASCADE`) };
}

/** The limit on PostgreSQL: the rows of N triggers in one transaction, one multi-row statement per table. */
async function pgLimit(count) {
  const made = await pgSchema('limit', count);
  const client = new pg.Client({ connectionString: made.url });
  await client.connect();
  try {
    const ids = made.queries.map((query) => query.id);
    const at = new Date().toISOString();
    const runtime = JSON.stringify({ status: 'triggered', triggerCount: 1, lastTriggerAt: Date.now(), latched: {}, verdicts: {}, cronPulses: {} });
    const bodies = made.queries.map((query) => JSON.stringify({ title: query.request.title, body: 'BTC fell', data: { queryId: query.id, stepId: 'tell', triggerIndex: 1, observedAt: at } }));
    const started = performance.now();
    await client.query('BEGIN');
    await client.query("UPDATE queries SET runtime = $2, status = 'triggered' FROM unnest($1::text[]) AS fired(id) WHERE queries.id = fired.id", [ids, runtime]);
    await client.query(
      "INSERT INTO executions (id, key_id, query_id, step_id, type, status, trigger_index, created_at, finished_at, attempts, result) SELECT 'x-' || q, $2, q, 'tell', 'notify', 'succeeded', 1, $3, $3, 1, '{}' FROM unnest($1::text[]) AS q",
      [ids, made.keyId, at],
    );
    await client.query("INSERT INTO notifications (key_id, query_id, step_id, trigger_index, body, created_at) SELECT $2, q, 'tell', 1, b, $3 FROM unnest($1::text[], $4::text[]) AS t(q, b)", [ids, made.keyId, at, bodies]);
    await client.query(
      "INSERT INTO action_outbox (idempotency_key, key_id, query_id, trigger_index, step_id, type, execution_id, status, created_at, finished_at, outcome) SELECT q || ':1:tell', $2, q, 1, 'tell', 'notify', 'x-' || q, 'succeeded', $3, $3, '{}' FROM unnest($1::text[]) AS q",
      [ids, made.keyId, at],
    );
    await client.query('COMMIT');
    return performance.now() - started;
  } finally {
    await client.end();
    await made.drop();
  }
}

/** One storm on `hosts` `eql serve` children on PostgreSQL and NATS. */
async function pgStorm(count, hosts) {
  const receiver = WEBHOOKS ? await webhookReceiver() : undefined;
  const made = await pgSchema(`storm${hosts}`, count, receiver?.url);
  const stream = `EQL_BENCH_STORM_${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'eql-bench-storm-'));
  const children = [];
  const start = (nodeId) => startBusHost({ databaseUrl: made.url, stream, nodeId, partitions: PARTITIONS, secret: SECRET, dir, extraEnv: { EQL_ALLOW_PRIVATE_WEBHOOKS: '1' } });
  const bus = await MarketBus.connect(NATS_URL, { stream });
  const pool = new pg.Pool({ connectionString: made.url, max: 1 });
  try {
    for (let index = 1; index <= hosts; index += 1) children.push(await start(`storm-${index}`));
    const ready = async (base) => (await fetch(`${base}/ready`).then((response) => response.json()).catch(() => undefined)) ?? {};
    for (;;) {
      const states = await Promise.all(children.map((child) => ready(child.base)));
      const owned = states.flatMap((state) => state.partitions?.owned ?? []);
      const running = states.reduce((sum, state) => sum + (state.queries ?? 0), 0);
      if (states.every((state) => state.status === 'ready') && new Set(owned).size === PARTITIONS && running === count) break;
      await sleep(50);
    }
    await bus.publish({ at: Date.now(), source: 'price', symbol: 'BTC', price: 2000 }, 'storm:warm');
    // Every partition has read the first tick (its queries are ready) before the storm.
    const warm = (await bus.last()).seq;
    for (;;) {
      const states = await Promise.all(children.map((child) => ready(child.base)));
      const handled = states.flatMap((state) => Object.values(state.bus?.positions ?? {}).map((position) => position.handled));
      if (handled.length === PARTITIONS && handled.every((seq) => seq >= warm)) break;
      await sleep(20);
    }
    const sse = await sseCounter(children[0].base, made.key);
    // A lease lost during the storm (a host that missed its renewals) shows as a new epoch of its partition.
    const epochs = async () => new Map((await pool.query('SELECT partition, epoch FROM partition_leases WHERE partition >= 0')).rows.map((row) => [row.partition, String(row.epoch)]));
    const epochsBefore = await epochs();
    const cpuBefore = children.map((child) => cpuMs(child.child.pid));
    const tickAt = performance.now();
    await bus.publish({ at: Date.now(), source: 'price', symbol: 'BTC', price: 500 }, 'storm:fall');
    let first;
    let last;
    for (;;) {
      const stored = Number((await pool.query('SELECT count(*) AS n FROM notifications')).rows[0].n);
      const now = performance.now();
      if (stored > 0) first ??= now;
      if (stored >= count) {
        last = now;
        break;
      }
      await sleep(5);
    }
    const streamed = await sse.at(count);
    sse.close();
    const hooks = await receiver?.all(count);
    const cpu = children.map((child, index) => cpuMs(child.child.pid) - cpuBefore[index]);
    const epochsAfter = await epochs();
    return {
      leasesLost: [...epochsAfter].filter(([partition, epoch]) => epochsBefore.get(partition) !== epoch).length,
      ...hookFigures(hooks, tickAt, receiver),
      first: first - tickAt,
      last: last - tickAt,
      streamed: streamed - tickAt,
      rssMb: Math.max(...children.map((child) => peakRssMb(child.child.pid) ?? 0)),
      cpuPerTriggerMs: cpu.reduce((sum, value) => sum + value, 0) / count,
    };
  } finally {
    for (const child of children) child.child.kill('SIGKILL');
    await Promise.all(children.map((child) => child.exited));
    await receiver?.close();
    await pool.end();
    await bus.destroy().catch(() => undefined);
    await bus.close();
    await made.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

const rows = [];
for (const count of SIZES) {
  const limits = { sqlite: [], pg: [] };
  const runs = {};
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const setup of SETUPS) {
      const result = setup === 'sqlite' ? await sqliteStorm(count) : await pgStorm(count, setup === 'pg3' ? 3 : 1);
      (runs[setup] ??= []).push(result);
    }
    if (SETUPS.includes('sqlite')) limits.sqlite.push(await sqliteLimit(count));
    if (SETUPS.some((setup) => setup.startsWith('pg'))) limits.pg.push(await pgLimit(count));
  }
  for (const setup of SETUPS) {
    const results = runs[setup];
    const pick = (field) => (results.every((result) => result[field] !== undefined) ? median(results.map((result) => result[field])) : undefined);
    const limit = median(setup === 'sqlite' ? limits.sqlite : limits.pg);
    const last = pick('last');
    rows.push({
      setup,
      count,
      first: pick('first'),
      last,
      streamed: pick('streamed'),
      rate: (count / last) * 1000,
      limit,
      ratio: limit / last,
      rssMb: pick('rssMb'),
      stallMs: pick('stallMs'),
      cpuPerTriggerMs: pick('cpuPerTriggerMs'),
      hookFirst: pick('hookFirst'),
      hookLast: pick('hookLast'),
      hookRepeats: pick('hookRepeats'),
      leasesLost: results.every((result) => result.leasesLost !== undefined) ? Math.max(...results.map((result) => result.leasesLost)) : undefined,
    });
    const row = rows.at(-1);
    console.log(
      `${setup.padEnd(6)} N=${String(count).padStart(6)}  first ${ms(row.first).padStart(8)}  all stored ${ms(row.last).padStart(9)} (${Math.round(row.rate)}/s)  on one stream ${ms(row.streamed).padStart(9)}` +
        `  limit ${ms(row.limit).padStart(8)} (${Math.round((count / row.limit) * 1000)}/s) → ${row.ratio.toFixed(3)}× the limit` +
        `  peak RSS ${row.rssMb === undefined ? '—' : `${Math.round(row.rssMb)} MB`}` +
        (row.stallMs === undefined ? '' : `  longest stall ${Math.round(row.stallMs)} ms`) +
        (row.cpuPerTriggerMs === undefined ? '' : `  CPU ${row.cpuPerTriggerMs.toFixed(2)} ms/trigger (all hosts)`) +
        (row.leasesLost === undefined ? '' : `  leases lost ${row.leasesLost}`) +
        (row.hookLast === undefined ? '' : `  webhooks: first ${ms(row.hookFirst)}, all ${ms(row.hookLast)}, ${row.hookRepeats} twice`),
    );
  }
  const one = rows.find((row) => row.count === count && row.setup === 'pg');
  const three = rows.find((row) => row.count === count && row.setup === 'pg3');
  if (one && three) console.log(`three hosts against one, N=${count}: ${(one.last / three.last).toFixed(2)}× as fast`);
}
console.log(`(${ROUNDS} round${ROUNDS === 1 ? '' : 's'}, medians; the limit is the same rows written in bulk by plain code in the same run)`);
