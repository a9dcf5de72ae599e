import { createHmac } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { killChildren, serveChild } from './support/child-host.js';
import { call, createQuery, freePort, RawStream, removeDir } from './support/harness.js';

// Side effects once across crashes (docs/semantics.md, "Once across restarts"), against the real host:
// `eql serve` as a child process, killed with SIGKILL while an action's send is in flight, then started
// again on the same data directory. "In flight" is an event, never a guess: a loopback stub (the bot
// API, the webhook receiver) holds the request open and tells the test it arrived; for in-process
// effects (the paper venue, a notification) a crash point (support/crash-point.mjs) stops the host right
// after the effect's write and prints a line. Nothing here waits on a wall-clock budget.

const API_KEY = 'eql_crash_test_key_0123456789abcdef0';
const HMAC_SECRET = 'crash-test-hmac-secret-0123456789ab';
const BOT_TOKEN = '123456789:AAHcrashTestTokenNotARealOne0123456';
const crashPoint = new URL('./support/crash-point.mjs', import.meta.url).href;
/**
 * Each test starts `eql serve` twice, and a start costs about 2 s of CPU (loading the modules, building
 * the app), which a loaded 2-core machine stretched to 20–30 s each: the bound only stops a hang.
 */
const BOUND = { timeout: 240_000 };

const dirs: string[] = [];
const servers: Server[] = [];
afterAll(async () => {
  killChildren();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const dir of dirs) await removeDir(dir);
});

interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback HTTP stub: `answer` decides each response (or holds it open); `arrivals(n)` resolves at the n-th request. */
async function stub(answer: (request: Received, response: ServerResponse, count: number) => void): Promise<{ url: string; received: Received[]; arrivals: (n: number) => Promise<void> }> {
  const received: Received[] = [];
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const entry = { url: request.url ?? '', headers: request.headers, body };
      received.push(entry);
      answer(entry, response, received.length);
      for (const wait of waiting.filter((item) => received.length >= item.n)) wait.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    arrivals: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }))),
  };
}

/** A data directory, a recording and the environment of a host. BTC alternates 100 and 200 each recorded minute (a second at speed 60). */
async function hostSetup(extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; base: string; dataDir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'eql-crash-'));
  dirs.push(dir);
  const recording = join(dir, 'recording.jsonl');
  const lines = ['// BTC alternating 100 and 200 (crash test)'];
  for (let minute = 0; minute < 20; minute += 1) {
    lines.push(JSON.stringify({ at: new Date(Date.UTC(2026, 0, 5, 0, minute)).toISOString(), source: 'price', symbol: 'BTC', price: minute % 2 === 0 ? 100 : 200 }));
  }
  await writeFile(recording, `${lines.join('\n')}\n`);
  const port = await freePort();
  const dataDir = join(dir, 'data');
  const env = {
    EQL_PORT: String(port),
    EQL_HOST: '127.0.0.1',
    EQL_DATA_DIR: dataDir,
    EQL_API_KEY: API_KEY,
    EQL_HMAC_SECRET: HMAC_SECRET,
    EQL_RECORDING: recording,
    EQL_REPLAY_SPEED: '60',
    EQL_MARKET_SEED: 'none',
    EQL_LOG_LEVEL: 'warn',
    ...extra,
  };
  return { env, base: `http://127.0.0.1:${port}`, dataDir };
}

/** A query on BTC crossing above 150 (it fires at a live tick) with one action. */
function queryWith(action: Record<string, unknown>): Record<string, unknown> {
  return {
    title: 'crash test',
    query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: 'crosses_above', value: 150 }] }, actions: [action], expiresIn: '1h' },
  };
}

interface Execution {
  id: string;
  stepId: string;
  status: string;
  createdAt: string;
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** Waits until the query is done (its SSE stream answers 204, or ends with it): its status and executions. */
async function settled(base: string, queryId: string): Promise<{ status: string; executions: Execution[] }> {
  for (;;) {
    const stream = await RawStream.open(`${base}/v2/auto/queries/${queryId}/stream`, { 'x-svc-api-key': API_KEY, 'last-event-id': '999999999999999' });
    if (stream.status !== 204) await stream.whenEnded();
    stream.close();
    const polled = await call(base, 'GET', `/v2/auto/queries/${queryId}`, API_KEY);
    const body = polled.body as { status: string; executions: Execution[] };
    if (body.status !== 'active') return body;
  }
}

/** Waits for the send to reach the stub; fails at once if the query ends first (nothing was sent then). */
async function inFlight(arrival: Promise<void>, base: string, queryId: string): Promise<void> {
  const ended = settled(base, queryId).then((done) => {
    throw new Error(`the query ended ${done.status} before its send reached the stub: ${JSON.stringify(done.executions)}`);
  });
  ended.catch(() => undefined);
  await Promise.race([arrival, ended]);
}

/** Validate, list exchanges, then a signed create (a trade query needs all three). */
async function createTradeQuery(base: string, body: Record<string, unknown>): Promise<string> {
  expect((await call(base, 'POST', '/v2/auto/queries/validate', API_KEY, body)).status).toBe(200);
  expect((await call(base, 'GET', '/v2/auto/exchanges', API_KEY)).status).toBe(200);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', HMAC_SECRET).update(`${timestamp}POST/queries${JSON.stringify(body)}`).digest('hex');
  const created = await call(base, 'POST', '/v2/auto/queries', API_KEY, body, { 'x-svc-timestamp': timestamp, 'x-svc-signature': signature });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return (created.body as { queryId: string }).queryId;
}

function readDatabase<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'eql.sqlite'), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

describe('kill -9 while an action is being sent, then a restart on the same data', () => {
  it('messenger_bot (killed while the bot API holds the request): sent once, never again; the execution says DELIVERY_UNCERTAIN', BOUND, async () => {
    const bot = await stub((_request, response, count) => {
      // The first send is held open until the host dies; none other is expected.
      if (count > 1) response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result: { message_id: count } }));
    });
    const { env, base } = await hostSetup({ EQL_MESSENGER_BASE_URL: bot.url, EQL_ALLOW_PRIVATE_WEBHOOKS: '1' });
    const first = await serveChild(env);
    const queryId = await createQuery(base, API_KEY, queryWith({ stepId: 'tell', type: 'messenger_bot', params: { botToken: BOT_TOKEN, chatId: 42, message: 'BTC crossed 150' } }));
    await inFlight(bot.arrivals(1), base, queryId);
    await first.kill9();

    const second = await serveChild(env);
    const { status, executions } = await settled(base, queryId);
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    expect(bot.received).toHaveLength(1);
    expect(bot.received[0]?.url).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(status).toBe('failed');
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ stepId: 'tell', status: 'failed', error: { code: 'DELIVERY_UNCERTAIN' } });
    expect(executions[0]?.error?.message).not.toContain(BOT_TOKEN.split(':')[1]);
  });

  it('messenger_bot (killed after the outbox entry, before the send): never sent; the execution says DELIVERY_UNCERTAIN', BOUND, async () => {
    const bot = await stub((_request, response, count) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result: { message_id: count } })));
    const { env, base } = await hostSetup({ EQL_MESSENGER_BASE_URL: bot.url, EQL_ALLOW_PRIVATE_WEBHOOKS: '1' });
    const first = await serveChild({ ...env, EQL_TEST_CRASH_AFTER: 'saveOutbox' }, { preload: crashPoint });
    const queryId = await createQuery(base, API_KEY, queryWith({ stepId: 'tell', type: 'messenger_bot', params: { botToken: BOT_TOKEN, chatId: 42, message: 'BTC crossed 150' } }));
    await first.line(/^crash-point: saveOutbox$/, 'the outbox entry was written');
    await first.kill9();

    const second = await serveChild(env);
    const { status, executions } = await settled(base, queryId);
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    expect(bot.received).toHaveLength(0);
    expect(status).toBe('failed');
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ stepId: 'tell', status: 'failed', error: { code: 'DELIVERY_UNCERTAIN' } });
  });

  it('webhook (killed while the receiver holds the request): delivered again with the same webhook-id, which the receiver drops', BOUND, async () => {
    const delivered = new Set<string>();
    const receiver = await stub((request, response, count) => {
      if (count === 1) return; // held open until the host dies
      // A receiver as examples/webhook-receiver.mjs: each webhook-id is taken once.
      delivered.add(String(request.headers['webhook-id']));
      response.writeHead(204).end();
    });
    const { env, base } = await hostSetup({ EQL_ALLOW_PRIVATE_WEBHOOKS: '1' });
    const first = await serveChild(env);
    const queryId = await createQuery(base, API_KEY, queryWith({ stepId: 'hook', type: 'webhook', params: { url: `${receiver.url}/hook`, payload: { desk: 'crash' } } }));
    await inFlight(receiver.arrivals(1), base, queryId);
    const restartedAt = Date.now();
    await first.kill9();

    const second = await serveChild(env);
    const { status, executions } = await settled(base, queryId);
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    expect(ids).toEqual([`${queryId}:1:hook`, `${queryId}:1:hook`]);
    expect(receiver.received.map((request) => (JSON.parse(request.body) as { id: string }).id)).toEqual([`${queryId}:1:hook`, `${queryId}:1:hook`]);
    expect([...delivered]).toEqual([`${queryId}:1:hook`]);
    expect(status).toBe('triggered');
    // One execution: the one the kill cut off, settled after the restart.
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ stepId: 'hook', status: 'succeeded', result: { status: 204, recoveredAfterRestart: true } });
    expect(Date.parse(executions[0]!.createdAt)).toBeLessThan(restartedAt);
  });

  it('market_order on paper (killed right after the venue saved the order): placed once, found by its client order id after the restart', BOUND, async () => {
    const { env, base, dataDir } = await hostSetup();
    const first = await serveChild({ ...env, EQL_TEST_CRASH_AFTER: 'savePaperOrders' }, { preload: crashPoint });
    const queryId = await createTradeQuery(base, queryWith({ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', size: 0.01 } }));
    await first.line(/^crash-point: savePaperOrders$/, 'the paper venue saved the order');
    await first.kill9();

    const second = await serveChild(env);
    const { status, executions } = await settled(base, queryId);
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    expect(status).toBe('triggered');
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ stepId: 'buy', status: 'succeeded', result: { orderId: 'paper-1', status: 'filled', foundByClientOrderId: true, recoveredAfterRestart: true } });
    const orders = readDatabase(dataDir, (db) => db.prepare('SELECT client_order_id, body FROM paper_orders').all() as Array<{ client_order_id: string; body: string }>);
    expect(orders).toHaveLength(1);
    expect(orders[0]?.client_order_id).toBe(executions[0]?.result?.clientOrderId);
    expect(JSON.parse(orders[0]!.body)).toMatchObject({ seq: 1, request: { side: 'buy', amount: 0.01 }, result: { status: 'filled', filled: 0.01 } });
  });

  it('market_order on paper with a stop and a take profit (killed right after the order and its exits were saved, together): after the restart the stop fills once, at the first tick through it; the take profit is canceled', BOUND, async () => {
    const { env, base, dataDir } = await hostSetup();
    const first = await serveChild({ ...env, EQL_TEST_CRASH_AFTER: 'savePaperOrders' }, { preload: crashPoint });
    const buy = { stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', size: 0.01, stopLoss: { price: 150 }, takeProfit: { price: 300 } } };
    const queryId = await createTradeQuery(base, queryWith(buy));
    await first.line(/^crash-point: savePaperOrders$/, 'the paper venue saved the order and its exits');
    type Saved = { request: { clientOrderId: string; side: string; amount: number }; result: { status: string; filled: number; averagePrice?: number }; seq: number; exit?: { kind: string; trigger: number } };
    const savedOrders = () => readDatabase(dataDir, (db) => (db.prepare('SELECT body FROM paper_orders ORDER BY seq').all() as Array<{ body: string }>).map((row) => JSON.parse(row.body) as Saved));
    // The first write of the venue holds the filled entry and both of its exits.
    const atCrash = savedOrders();
    expect(atCrash.map((order) => [order.exit?.kind ?? 'entry', order.result.status])).toEqual([
      ['entry', 'filled'],
      ['take_profit', 'open'],
      ['stop_loss', 'open'],
    ]);
    expect(atCrash[0]?.result.averagePrice).toBe(200);
    await first.kill9();

    // The second life replays the recording from its start: BTC at 100, through the stop at 150.
    const second = await serveChild(env);
    const { status, executions } = await settled(base, queryId);
    const stopFilled = () => savedOrders().find((order) => order.exit?.kind === 'stop_loss')?.result.status === 'filled';
    while (!stopFilled()) await new Promise((resolve) => setTimeout(resolve, 50));
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    expect(status).toBe('triggered');
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ stepId: 'buy', status: 'succeeded', result: { orderId: 'paper-1', status: 'filled', foundByClientOrderId: true, recoveredAfterRestart: true } });
    const after = savedOrders();
    // Nothing placed again; the stop filled the whole position at the tick that went through it (a gap fills at the tick's price).
    expect(after.map((order) => [order.seq, order.exit?.kind ?? 'entry', order.result.status])).toEqual([
      [1, 'entry', 'filled'],
      [2, 'take_profit', 'canceled'],
      [3, 'stop_loss', 'filled'],
    ]);
    expect(after[2]?.result).toMatchObject({ filled: 0.01, averagePrice: 100 });
    expect(after[2]?.request).toMatchObject({ side: 'sell', amount: 0.01 });
  });

  // The notification is stored with the rest of its instant's writes (one transaction: SqliteStore.together),
  // so the kill lands after the whole trigger was committed: nothing is left to resume, and nothing runs twice.
  it('notify (killed right after the notification was stored): one notification; the execution succeeded, and the restart runs nothing again', BOUND, async () => {
    const { env, base, dataDir } = await hostSetup();
    const first = await serveChild({ ...env, EQL_TEST_CRASH_AFTER: 'addNotification' }, { preload: crashPoint });
    const queryId = await createQuery(base, API_KEY, queryWith({ stepId: 'note', type: 'notify', params: { message: 'BTC crossed 150' } }));
    await first.line(/^crash-point: addNotification$/, 'the notification was stored');
    await first.kill9();

    const second = await serveChild(env);
    const { status, executions } = await settled(base, queryId);
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    expect(status).toBe('triggered');
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ stepId: 'note', status: 'succeeded' });
    expect(executions[0]?.result?.recoveredAfterRestart).toBeUndefined();
    const notes = readDatabase(dataDir, (db) => db.prepare('SELECT id FROM notifications WHERE query_id = ?').all(queryId) as Array<{ id: number }>);
    expect(notes).toHaveLength(1);
    expect(executions[0]?.result?.notificationId).toBe(notes[0]?.id);
  });
});
