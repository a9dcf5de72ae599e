// Benchmark: soak (issue 50, retention). Hours of virtual time on one host on embedded SQLite, in this
// process: N queries `price BTC > threshold` with a notify step, re-arming after a cooldown, fire as a price
// wave (one tick a minute) crosses their thresholds; every 10 virtual minutes the retention job runs, with a
// window of W hours for notifications, executions and the outbox (the defaults are days: the soak shortens
// the window so that it fills within the run). Printed every hour, as a curve: what fired, the rows kept,
// the database's size (file + WAL) and the process's RSS and heap.
//
// Beside it, in the same run, **the limit**: the same rows (each notification the host stored, each
// execution with its outbox entry, copied as they happen) written by plain code into a bare file of the same
// schema, and deleted by the same cutoffs with one DELETE per table: the size the data itself needs.
//
// `npm run bench soak [-- --queries 10000] [--hours 24] [--window 4] [--cooldown 1h]`
import { mkdtemp, rm } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { EpochVirtualScheduler, PushSource } from '@eql/core';
import { buildServer, createApiKey, DEFAULT_RETENTION, SecretBox, SqliteStore } from '@eql/server';

const SECRET = 'ab'.repeat(32);
const HOUR = 3_600_000;
const MINUTE = 60_000;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const QUERIES = Number(option('queries', '10000'));
const HOURS = Number(option('hours', '24'));
const WINDOW_H = Number(option('window', '4'));
const COOLDOWN = option('cooldown', '1h');
const START = Date.parse('2026-03-02T00:00:00Z');

/** The price at a virtual instant: a wave of 3 hours between 900 and 1100, so each threshold is crossed 8 times a day. */
const priceAt = (at) => 1000 + 100 * Math.sin((2 * Math.PI * (at - START)) / (3 * HOUR));

function queryRecords(keyId) {
  const createdAt = new Date(START).toISOString();
  return Array.from({ length: QUERIES }, (_, index) => ({
    id: `soak-${index}-${randomBytes(3).toString('hex')}`,
    keyId,
    request: {
      title: `soak ${index}`,
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 920 + (160 * index) / QUERIES }] },
        actions: [{ stepId: 'tell', type: 'notify', params: { message: 'BTC is up' } }],
        expiresIn: '30d',
        repeat: { cooldown: COOLDOWN },
      },
    },
    status: 'active',
    tradeFlavoured: false,
    estimatedCredits: 1,
    credits: 1,
    createdAt,
    expiresAt: new Date(START + 30 * 86_400_000).toISOString(),
    cancelledAt: null,
    deletedAt: null,
    runtime: null,
    fromDraft: null,
  }));
}

/** Bytes of a SQLite database: its file and its WAL. */
function databaseBytes(path) {
  const size = (file) => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  return size(path) + size(`${path}-wal`);
}

/** The limit: a bare store file written and pruned by plain statements. */
function limitStore(path) {
  const bare = new SqliteStore(path);
  const db = bare.db;
  const notification = db.prepare('INSERT INTO notifications (key_id, query_id, body, created_at) VALUES (?, ?, ?, ?)');
  const execution = db.prepare(
    'INSERT INTO executions (id, key_id, query_id, step_id, type, status, trigger_index, created_at, finished_at, attempts, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const outbox = db.prepare(
    'INSERT INTO action_outbox (idempotency_key, key_id, query_id, trigger_index, step_id, type, execution_id, status, created_at, finished_at, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const prune = [
    db.prepare('DELETE FROM notifications WHERE created_at < ?'),
    db.prepare('DELETE FROM executions WHERE finished_at < ?'),
    db.prepare("DELETE FROM action_outbox WHERE status <> 'pending' AND finished_at < ?"),
  ];
  const pending = [];
  const write = db.transaction((rows) => {
    for (const row of rows) row();
  });
  return {
    notification: (n) => pending.push(() => notification.run(n.keyId, n.data.queryId, JSON.stringify(n), n.createdAt)),
    execution: (keyId, e) =>
      pending.push(() => {
        execution.run(e.id, keyId, e.queryId, e.stepId, e.type, e.status, e.triggerIndex, e.createdAt, e.finishedAt ?? null, e.attempts, JSON.stringify(e.result ?? null));
        outbox.run(`${e.queryId}:${e.triggerIndex}:${e.stepId}`, keyId, e.queryId, e.triggerIndex, e.stepId, e.type, e.id, e.status, e.createdAt, e.finishedAt ?? null, JSON.stringify(e.result ?? null));
      }),
    flush: () => write(pending.splice(0)),
    prune: (before) => {
      for (const statement of prune) statement.run(before);
    },
    close: () => bare.close(),
  };
}

const count = (db, table) => db.prepare(`SELECT count(*) AS n FROM ${table}`).get().n;
const mb = (bytes) => (bytes / 1e6).toFixed(1);

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'eql-bench-soak-'));
  const box = SecretBox.fromKey(SECRET);
  const storePath = join(dir, 'eql.sqlite');
  const limitPath = join(dir, 'limit.sqlite');
  const store = new SqliteStore(storePath, { box });
  const limit = limitStore(limitPath);
  const { record } = await createApiKey(store, box, { name: 'soak', plan: 'pro' });
  for (const query of queryRecords(record.id)) store.insertQuery(query);
  const scheduler = new EpochVirtualScheduler(START);
  const push = new PushSource();
  const window = WINDOW_H * HOUR;
  const retention = { ...DEFAULT_RETENTION, notifications: window, executions: window, outbox: window };
  const host = await buildServer({
    config: { dataDir: dir, secretKey: SECRET, marketSeed: false, retention },
    store,
    logger: false,
    now: () => scheduler.now(),
    engine: { sources: [push], scheduler },
  });
  let fired = 0;
  host.context.runner.onActivity((activity) => {
    if (activity.type === 'trigger') fired += 1;
    else limit.execution(record.id, activity.execution);
  });
  host.context.runner.onNotification((notification) => limit.notification(notification));
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  console.log(`soak: ${QUERIES.toLocaleString('en-US')} queries (cooldown ${COOLDOWN}), ${HOURS} h of virtual time, a tick a minute; retention ${WINDOW_H} h for notifications, executions and the outbox, the job every 10 min`);
  console.log('  hour   fired  notifications  executions  outbox   host DB MB  limit DB MB  ratio   RSS MB  heap MB');
  const started = performance.now();
  const curve = [];
  for (let minute = 1; minute <= HOURS * 60; minute += 1) {
    const at = START + minute * MINUTE;
    scheduler.advanceTo(at);
    push.push({ at, source: 'price', symbol: 'BTC', price: priceAt(at) });
    // The executions' outcomes land on later turns: let them, then copy their rows into the limit.
    for (let turn = 0; turn < 3; turn += 1) await settle();
    limit.flush();
    if (minute % 10 === 0) {
      await host.retention.runOnce();
      limit.prune(new Date(at - window).toISOString());
    }
    if (minute % 60 === 0) {
      const hostBytes = databaseBytes(storePath);
      const limitBytes = databaseBytes(limitPath);
      const memory = process.memoryUsage();
      const row = {
        hour: minute / 60,
        fired,
        notifications: count(store.db, 'notifications'),
        executions: count(store.db, 'executions'),
        outbox: count(store.db, 'action_outbox'),
        hostMb: hostBytes / 1e6,
        limitMb: limitBytes / 1e6,
        rssMb: memory.rss / 1e6,
        heapMb: memory.heapUsed / 1e6,
      };
      curve.push(row);
      console.log(
        `  ${String(row.hour).padStart(4)}  ${String(fired).padStart(7)}  ${String(row.notifications).padStart(13)}  ${String(row.executions).padStart(10)}  ${String(row.outbox).padStart(6)}   ${mb(hostBytes).padStart(10)}  ${mb(limitBytes).padStart(11)}  ${(hostBytes / Math.max(limitBytes, 1)).toFixed(2).padStart(5)}  ${row.rssMb.toFixed(0).padStart(7)}  ${row.heapMb.toFixed(0).padStart(7)}`,
      );
    }
  }
  const seconds = (performance.now() - started) / 1000;
  // Flat: from twice the window on, the largest size is within 10% of the size at twice the window.
  const settled = curve.filter((row) => row.hour >= 2 * WINDOW_H + 1);
  if (settled.length > 1) {
    const base = settled[0];
    const growth = (key) => Math.max(...settled.map((row) => row[key])) / base[key];
    console.log(`  after ${2 * WINDOW_H + 1} h: host DB grows ×${growth('hostMb').toFixed(2)}, limit DB ×${growth('limitMb').toFixed(2)}, RSS ×${growth('rssMb').toFixed(2)} to the end (flat: ≤ ×1.10) ${growth('hostMb') <= 1.1 && growth('rssMb') <= 1.1 ? 'FLAT' : 'NOT FLAT'}`);
  }
  console.log(`  ${fired.toLocaleString('en-US')} triggers in ${seconds.toFixed(0)} s of real time (${Math.round(fired / seconds).toLocaleString('en-US')} a second)`);
  await host.close();
  limit.close();
  await rm(dir, { recursive: true, force: true });
}

await main();
