import { createServer, request as httpRequest } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createQuery as createQueryInHost } from '../src/host/query-service.js';
import { hashKey, type ProcessRunner, SqliteStore, SseHub } from '../src/index.js';
import { call, createQuery, EsClient, notifyQuery, pushPrice, RawStream, removeDir, sleep, startHost, type TestHost, until } from './support/harness.js';

// Spec 6 over a real socket: the hub, the stream routes and the store together, read by a WHATWG
// EventSource client (`eventsource`) and by node:http for the raw frames.

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function host(options: Parameters<typeof startHost>[0] = {}): Promise<TestHost> {
  const started = await startHost(options);
  cleanup.push(() => removeDir(started.dataDir));
  cleanup.push(() => started.close());
  return started;
}

function es(url: string, key: string, headers: Record<string, string> = {}): EsClient {
  const client = new EsClient(url, key, headers);
  cleanup.push(() => client.close());
  return client;
}

async function raw(url: string, headers: Record<string, string>): Promise<RawStream> {
  const stream = await RawStream.open(url, headers);
  cleanup.push(() => stream.close());
  return stream;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('SSE: the all-queries stream', () => {
  it('sends ready first, then notification:new with a numeric id and the spec 2.10 payload, then notification:count', async () => {
    const h = await host();
    const key = await h.key();
    const client = es(`${h.base}/v2/auto/queries/stream`, key);
    await until(() => client.named('ready').length === 1, 'ready');
    expect(client.events[0]).toEqual({ type: 'ready', id: '', data: { lastEventId: 0 } });

    const queryId = await createQuery(h.base, key, notifyQuery('BTC', 10, { title: 'BTC above 10', message: 'BTC crossed 10' }));
    pushPrice(h.push, 'BTC', 11);
    await until(() => client.named('notification:count').length === 2, 'the notification and its count');

    // After the replay (empty here) the stream states its count, then each notification is followed by one.
    expect(client.events.map((event) => event.type)).toEqual(['ready', 'notification:count', 'notification:new', 'notification:count']);
    const [notification] = client.notifications;
    const frame = client.named('notification:new')[0]!;
    expect(frame.id).toMatch(/^[0-9]+$/);
    expect(notification).toMatchObject({
      id: Number(frame.id),
      type: 'athena_query_notify_only',
      category: 'alerts',
      title: 'BTC above 10',
      body: 'BTC crossed 10',
      data: { queryId },
      priority: 'high',
    });
    expect(Number.isInteger(notification!.id)).toBe(true);
    expect(notification!.data.queryId).toMatch(UUID);
    expect(notification!.createdAt).toMatch(ISO);
    expect(notification).not.toHaveProperty('keyId');
    expect(notification).not.toHaveProperty('ownerId');
    expect(client.named('notification:count').map((event) => event.data)).toEqual([{ unread: 0 }, { unread: 1 }]);
  });

  it('carries every query of the key and none of another key', async () => {
    const h = await host();
    const [mine, theirs] = [await h.key('mine'), await h.key('theirs')];
    const client = es(`${h.base}/v2/auto/queries/stream`, mine);
    const other = es(`${h.base}/v2/auto/queries/stream`, theirs);
    await until(() => client.named('ready').length === 1 && other.named('ready').length === 1, 'ready');

    const myQueries = [await createQuery(h.base, mine, notifyQuery('BTC', 1)), await createQuery(h.base, mine, notifyQuery('ETH', 1)), await createQuery(h.base, mine, notifyQuery('SOL', 1))];
    const theirQuery = await createQuery(h.base, theirs, notifyQuery('BTC', 1));
    for (const symbol of ['BTC', 'ETH', 'SOL']) pushPrice(h.push, symbol, 5);
    await until(() => client.notifications.length === 3 && other.notifications.length === 1, 'four notifications');
    await sleep(50);

    expect(client.notifications.map((n) => n.data.queryId).sort()).toEqual([...myQueries].sort());
    expect(other.notifications.map((n) => n.data.queryId)).toEqual([theirQuery]);
    expect(client.named('notification:count').map((event) => event.data)).toEqual([{ unread: 0 }, { unread: 1 }, { unread: 2 }, { unread: 3 }]);
    const ids = client.notifications.map((n) => n.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('resumes after a dropped connection: eventsource reconnects with Last-Event-ID and gets exactly the missed notifications', async () => {
    const h = await host();
    const key = await h.key();
    const first = await createQuery(h.base, key, notifyQuery('BTC', 1));
    const client = es(`${h.base}/v2/auto/queries/stream`, key);
    await until(() => client.opens === 1 && client.named('ready').length === 1, 'ready');
    pushPrice(h.push, 'BTC', 2);
    await until(() => client.notifications.length === 1, 'the first notification');
    const missed = [await createQuery(h.base, key, notifyQuery('ETH', 1)), await createQuery(h.base, key, notifyQuery('SOL', 1))];

    // The network drops every connection; while the client waits to reconnect, two queries fire.
    h.host.app.server.closeAllConnections();
    await until(() => client.errors.length > 0, 'the client noticing the drop');
    pushPrice(h.push, 'ETH', 2);
    pushPrice(h.push, 'SOL', 2);
    await until(() => client.notifications.length === 3, 'the missed notifications');
    await sleep(100);

    expect(client.opens).toBe(2);
    const readies = client.named('ready');
    expect(readies[1]!.data).toEqual({ lastEventId: client.notifications[0]!.id });
    expect(client.notifications.map((n) => n.data.queryId)).toEqual([first, ...missed]);
    const ids = client.notifications.map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
    // After the replay, the count is what this connection delivered since its Last-Event-ID.
    expect(client.named('notification:count').at(-1)!.data).toEqual({ unread: 2 });
  });

  it('resumes a fresh client from its Last-Event-ID header (or ?lastEventId=), without duplicates', async () => {
    const h = await host();
    const key = await h.key();
    const queries = [];
    for (const symbol of ['BTC', 'ETH', 'SOL']) queries.push(await createQuery(h.base, key, notifyQuery(symbol, 1)));
    const first = es(`${h.base}/v2/auto/queries/stream`, key);
    pushPrice(h.push, 'BTC', 2);
    await until(() => first.notifications.length === 1, 'the first notification');
    const seen = first.notifications[0]!.id;
    first.close();
    pushPrice(h.push, 'ETH', 2);
    pushPrice(h.push, 'SOL', 2);
    await until(() => h.host.context.hub.size === 0, 'the first stream to close');

    const resumed = es(`${h.base}/v2/auto/queries/stream`, key, { 'Last-Event-ID': String(seen) });
    await until(() => resumed.notifications.length === 2, 'the two missed notifications');
    await sleep(50);
    expect(resumed.events[0]).toMatchObject({ type: 'ready', data: { lastEventId: seen } });
    expect(resumed.notifications.map((n) => n.data.queryId)).toEqual(queries.slice(1));
    expect(resumed.notifications.every((n) => n.id > seen)).toBe(true);

    const byQuery = await raw(`${h.base}/v2/auto/queries/stream?lastEventId=${seen}`, { 'x-svc-api-key': key });
    await until(() => byQuery.named('notification:count').length === 1, 'the replay by query parameter');
    expect(byQuery.named('notification:new').map((frame) => frame.id)).toEqual(resumed.notifications.map((n) => String(n.id)));
  });

  it('forgets a deleted query: its notifications are neither replayed nor counted on the all-queries stream', async () => {
    const h = await host();
    const key = await h.key();
    const kept = await createQuery(h.base, key, notifyQuery('BTC', 1));
    const deleted = await createQuery(h.base, key, notifyQuery('ETH', 1));
    pushPrice(h.push, 'ETH', 2);
    pushPrice(h.push, 'BTC', 2);
    await until(() => (h.host.context.runner as ProcessRunner).engine.inspect(kept)?.status === 'triggered' && (h.host.context.runner as ProcessRunner).engine.inspect(deleted)?.status === 'triggered', 'both queries to fire');
    const before = await raw(`${h.base}/v2/auto/queries/stream`, { 'x-svc-api-key': key, 'last-event-id': '0' });
    await until(() => before.named('notification:count').length === 1, 'the replay before the delete');
    expect(before.named('notification:new')).toHaveLength(2);

    expect((await call(h.base, 'DELETE', `/v2/auto/queries/${deleted}`, key)).status).toBe(200);
    const after = await raw(`${h.base}/v2/auto/queries/stream`, { 'x-svc-api-key': key, 'last-event-id': '0' });
    await until(() => after.named('notification:count').length === 1, 'the replay after the delete');
    const replayed = after.named('notification:new').map((frame) => (JSON.parse(frame.data!) as { data: { queryId: string } }).data.queryId);
    expect(replayed).toEqual([kept]);
    const count = JSON.parse(after.named('notification:count')[0]!.data!) as Record<string, unknown>;
    expect(Object.values(count)).toContain(1);
  });

  it('resumes across a host restart on the same data directory', async () => {
    const h = await host();
    const key = await h.key();
    const before = await createQuery(h.base, key, notifyQuery('BTC', 1));
    const after = [await createQuery(h.base, key, notifyQuery('ETH', 1)), await createQuery(h.base, key, notifyQuery('SOL', 1))];
    const client = es(`${h.base}/v2/auto/queries/stream`, key);
    pushPrice(h.push, 'BTC', 2);
    await until(() => client.notifications.length === 1, 'the first notification');

    await h.close();
    await until(() => client.errors.length > 0, 'the client noticing the restart');
    // The new host fires the queries it took back from the store before it accepts the reconnect.
    const restarted = await host({
      dataDir: h.dataDir,
      port: h.port,
      beforeListen: (push) => {
        pushPrice(push, 'ETH', 2);
        pushPrice(push, 'SOL', 2);
      },
    });
    await until(() => client.notifications.length === 3, 'the notifications fired during the restart');
    await sleep(100);
    expect(client.named('ready').at(-1)!.data).toEqual({ lastEventId: client.notifications[0]!.id });
    expect(client.notifications.map((n) => n.data.queryId)).toEqual([before, ...after]);

    // A fresh client with the header gets the same, from the store of the new host.
    const fresh = await raw(`${restarted.base}/v2/auto/queries/stream`, { 'x-svc-api-key': key, 'last-event-id': String(client.notifications[0]!.id) });
    await until(() => fresh.named('notification:count').length === 1, 'the replay');
    expect(fresh.named('notification:new').map((frame) => Number(frame.id))).toEqual(client.notifications.slice(1).map((n) => n.id));
  });
});

describe('SSE: one query', () => {
  it('ends with `event: end` when the query is done, then a reconnect gets 204 and eventsource stops', async () => {
    const h = await host();
    const key = await h.key();
    const queryId = await createQuery(h.base, key, notifyQuery('BTC', 1));
    const stream = await raw(`${h.base}/v2/auto/queries/${queryId}/stream`, { 'x-svc-api-key': key });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await until(() => stream.named('ready').length === 1, 'ready');
    pushPrice(h.push, 'BTC', 2);
    await until(() => stream.ended, 'the end of the stream');

    expect(stream.events.map((frame) => frame.event)).toEqual(['ready', 'notification:count', 'notification:new', 'notification:count', 'end']);
    expect(stream.frames[0]!.retry).toBe('200');
    expect(JSON.parse(stream.events[0]!.data!)).toEqual({ queryId, status: 'active', lastEventId: 0 });
    expect(JSON.parse(stream.events[1]!.data!)).toEqual({ queryId, unread: 0 });
    const id = stream.events[2]!.id!;
    expect(JSON.parse(stream.events[2]!.data!)).toMatchObject({ id: Number(id), data: { queryId } });
    expect(JSON.parse(stream.events[3]!.data!)).toEqual({ queryId, unread: 1 });
    expect(JSON.parse(stream.events[4]!.data!)).toEqual({ queryId, status: 'triggered' });

    const again = await call(h.base, 'GET', `/v2/auto/queries/${queryId}/stream`, key, undefined, { 'last-event-id': id });
    expect(again.status).toBe(204);
    // Without Last-Event-ID the notification is still there: replayed, then the end.
    const late = await raw(`${h.base}/v2/auto/queries/${queryId}/stream`, { 'x-svc-api-key': key });
    await until(() => late.ended, 'the end of the late stream');
    expect(late.events.map((frame) => frame.event)).toEqual(['ready', 'notification:new', 'notification:count', 'end']);
    expect(JSON.parse(late.events[0]!.data!)).toEqual({ queryId, status: 'triggered', lastEventId: 0 });

    // A WHATWG client: reads to the end, reconnects with the id it saw, gets 204 and stops for good.
    const client = es(`${h.base}/v2/auto/queries/${queryId}/stream`, key);
    await until(() => client.es.readyState === client.es.CLOSED, 'eventsource to stop');
    expect(client.events.map((event) => event.type)).toEqual(['ready', 'notification:new', 'notification:count', 'end']);
    expect(client.errors.at(-1)?.code).toBe(204);
  });

  it('ends a cancelled query\'s stream with its status', async () => {
    const h = await host();
    const key = await h.key();
    const queryId = await createQuery(h.base, key, notifyQuery('BTC', 1_000_000));
    const stream = await raw(`${h.base}/v2/auto/queries/${queryId}/stream`, { 'x-svc-api-key': key });
    await until(() => stream.named('ready').length === 1, 'ready');
    expect((await call(h.base, 'POST', `/v2/auto/queries/${queryId}/cancel`, key)).status).toBe(200);
    await until(() => stream.ended, 'the end');
    expect(stream.named('end').map((frame) => JSON.parse(frame.data!) as unknown)).toEqual([{ queryId, status: 'cancelled' }]);
    expect((await call(h.base, 'GET', `/v2/auto/queries/${queryId}/stream`, key)).status).toBe(204);
  });

  it('answers 410 for a deleted query, 404 for an unknown one or another key\'s, 401 without a valid key, 400 for a bad Last-Event-ID', async () => {
    const h = await host();
    const key = await h.key();
    const other = await h.key('other');
    const queryId = await createQuery(h.base, key, notifyQuery('BTC', 1));
    pushPrice(h.push, 'BTC', 2);
    await until(() => (h.host.context.runner as ProcessRunner).engine.inspect(queryId)?.status === 'triggered', 'the query to fire');
    expect((await call(h.base, 'DELETE', `/v2/auto/queries/${queryId}`, key)).status).toBe(200);

    const gone = await call(h.base, 'GET', `/v2/auto/queries/${queryId}/stream`, key);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ success: false, error: { code: 'query_deleted' } });
    const unknown = await call(h.base, 'GET', '/v2/auto/queries/00000000-0000-4000-8000-000000000000/stream', key);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'not_found' } });
    const live = await createQuery(h.base, key, notifyQuery('ETH', 1_000_000));
    expect((await call(h.base, 'GET', `/v2/auto/queries/${live}/stream`, other)).status).toBe(404);

    for (const path of ['/v2/auto/queries/stream', `/v2/auto/queries/${live}/stream`]) {
      const missing = await call(h.base, 'GET', path, undefined);
      expect(missing.status).toBe(401);
      expect(missing.body).toMatchObject({ error: { code: 'missing_api_key' } });
      expect((await call(h.base, 'GET', path, 'eql_not_a_key_of_this_host_0000')).status).toBe(401);
      const bad = await call(h.base, 'GET', path, key, undefined, { 'last-event-id': 'abc' });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ error: { code: 'invalid_last_event_id' } });
    }
    // eventsource reports the status and does not retry a 401.
    const rejected = new EsClient(`${h.base}/v2/auto/queries/stream`, 'eql_not_a_key_of_this_host_0000');
    cleanup.push(() => rejected.close());
    await until(() => rejected.es.readyState === rejected.es.CLOSED, 'eventsource to give up');
    expect(rejected.errors[0]?.code).toBe(401);
    expect(h.host.context.hub.size).toBe(0);
  });
});

describe('SSE: keep-alive, slow clients and memory', () => {
  it('sends `: keep-alive` comments at the configured interval', async () => {
    const h = await host({ sse: { keepAliveMs: 50 } });
    const key = await h.key();
    const stream = await raw(`${h.base}/v2/auto/queries/stream`, { 'x-svc-api-key': key });
    await sleep(400);
    const comments = stream.frames.flatMap((frame) => frame.comments);
    expect(comments.length).toBeGreaterThanOrEqual(4);
    expect(new Set(comments)).toEqual(new Set(['keep-alive']));
    expect(stream.text).toMatch(/\n\n: keep-alive\n\n/);
  });

  it('drops a client that does not read once it is more than maxBufferedBytes behind, while the others keep receiving; memory stays bounded', { timeout: 60_000 }, async () => {
    const maxBufferedBytes = 256 * 1024;
    const h = await host({ sse: { maxBufferedBytes } });
    const key = await h.key();
    const record = (await h.host.context.store.keyByHash(hashKey(key)))!;
    // 60 waves of 8 queries, each with 10 notify steps of 2,000 characters: ~22 KB of frames a
    // trigger, ~176 KB a wave, ~10 MB in all: more than loopback sockets buffer in the kernel.
    const waves = 60;
    const perWave = 8;
    const message = 'x'.repeat(2000);
    for (let wave = 0; wave < waves; wave += 1) {
      for (let index = 0; index < perWave; index += 1) {
        await createQueryInHost(h.host.context, record, notifyQuery('BTC', wave + 1, { steps: 10, message }), { requireValidation: false });
      }
    }

    // The slow client: a raw socket that sends its request and never reads a byte.
    const slow: Socket = connect(h.port, '127.0.0.1');
    cleanup.push(() => void slow.destroy());
    await new Promise<void>((resolve) => slow.once('connect', resolve));
    slow.pause();
    slow.write(`GET /v2/auto/queries/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nx-svc-api-key: ${key}\r\n\r\n`);
    await until(() => h.host.context.hub.size === 1, 'the slow stream to open');
    const healthy = es(`${h.base}/v2/auto/queries/stream`, key);
    await until(() => h.host.context.hub.size === 2 && healthy.named('ready').length === 1, 'the healthy stream to open');

    let peakBuffered = 0;
    let droppedAtWave: number | undefined;
    for (let wave = 0; wave < waves; wave += 1) {
      pushPrice(h.push, 'BTC', wave + 1.5);
      const expected = (wave + 1) * perWave * 10;
      await until(() => healthy.notifications.length === expected, `wave ${wave} at the healthy client`);
      await new Promise((resolve) => setImmediate(resolve));
      peakBuffered = Math.max(peakBuffered, h.host.context.hub.bufferedBytes);
      if (droppedAtWave === undefined && h.host.context.hub.size === 1) droppedAtWave = wave;
    }

    // The slow one was dropped once the kernel's buffers were full and it fell more than 256 KB behind.
    expect(droppedAtWave).toBeDefined();
    expect(droppedAtWave!).toBeGreaterThan(0);
    expect(h.host.context.hub.size).toBe(1);
    // What the hub held never went far past the limit (one wave of frames on top of it).
    expect(peakBuffered).toBeLessThan(maxBufferedBytes + 2 * perWave * 10 * 2_300);
    // The healthy one got every notification once, in order, over its first connection.
    const ids = healthy.notifications.map((n) => n.id);
    expect(ids.length).toBe(waves * perWave * 10);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(healthy.opens).toBe(1);
    expect(healthy.errors).toEqual([]);
  });

  it('replays a backlog far larger than maxBufferedBytes at the socket\'s pace, and takes a burst larger than it, without dropping a client that reads', async () => {
    const maxBufferedBytes = 64 * 1024;
    const h = await host({ sse: { maxBufferedBytes } });
    const key = await h.key();
    const record = (await h.host.context.store.keyByHash(hashKey(key)))!;
    const message = 'y'.repeat(2000);
    for (let index = 0; index < 60; index += 1) {
      await createQueryInHost(h.host.context, record, notifyQuery(index < 30 ? 'BTC' : 'ETH', 1, { steps: 10, message }), { requireValidation: false });
    }
    // 300 notifications (~660 KB) stored before anyone listens...
    pushPrice(h.push, 'BTC', 2);
    await until(() => Number(h.host.context.store.countNotificationsAfter(record.id, 0)) === 300, 'the backlog');
    const client = es(`${h.base}/v2/auto/queries/stream`, key);
    await until(() => client.notifications.length === 300, 'the replayed backlog');
    // ...and 300 more in one burst (one turn of the event loop) once it is live.
    pushPrice(h.push, 'ETH', 2);
    await until(() => client.notifications.length === 600, 'the burst');
    await sleep(50);
    const ids = client.notifications.map((n) => n.id);
    expect(new Set(ids).size).toBe(600);
    expect(client.opens).toBe(1);
    expect(client.errors).toEqual([]);
    expect(h.host.context.hub.size).toBe(1);
  });
});

describe('SSE hub', () => {
  it('does not keep a stream whose client left before it opened', async () => {
    const store = new SqliteStore(':memory:');
    const hub = new SseHub(store);
    cleanup.push(() => store.close());
    cleanup.push(() => hub.close());
    const server = createServer((request, response) => {
      // The client is gone while the request is checked (auth, store lookups), then the stream opens.
      request.socket.destroy();
      setTimeout(() => void hub.open(response, { keyId: 1 }, 0, {}), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const request = httpRequest({ host: '127.0.0.1', port, path: '/' });
      request.on('error', () => resolve());
      request.end();
    });
    await sleep(100);
    expect(hub.size).toBe(0);
  });
});

describe('SSE hub: publishing during a replay', () => {
  it('keeps at most a page of what is published while a stream replays, reads the rest from the store, and delivers each once in order', async () => {
    const store = new SqliteStore(':memory:');
    cleanup.push(() => store.close());
    const draft = (index: number) => ({
      type: 'athena_query_notify_only',
      category: 'alerts',
      title: `n${index}`,
      body: 'b',
      data: { queryId: '00000000-0000-4000-8000-000000000001', stepId: `s${index}`, triggerIndex: 1 },
      priority: 'high' as const,
      createdAt: new Date().toISOString(),
    });
    for (let index = 0; index < 10; index += 1) store.addNotification(1, draft(index));
    // A store that answers slowly, like a remote database: the replay is still reading while more arrive.
    const slow = Object.assign(Object.create(store) as SqliteStore, {
      notificationsAfter: async (...args: Parameters<SqliteStore['notificationsAfter']>) => {
        await sleep(50);
        return store.notificationsAfter(...args);
      },
    });
    const hub = new SseHub(slow);
    cleanup.push(() => hub.close());
    const server = createServer((_request, response) => void hub.open(response, { keyId: 1 }, 0, {}));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const stream = await raw(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {});
    await until(() => hub.size === 1, 'the stream');
    // 1,200 published during the first read: more than the page the hub keeps for a replaying stream.
    for (let index = 10; index < 1_210; index += 1) hub.publish(store.addNotification(1, draft(index)));
    await until(() => stream.named('notification:new').length >= 1_210, 'every notification');
    await sleep(50);
    const ids = stream.named('notification:new').map((frame) => Number(frame.id));
    expect(ids).toEqual(Array.from({ length: 1_210 }, (_, index) => index + 1));
    hub.publish(store.addNotification(1, draft(1_210)));
    await until(() => stream.named('notification:new').length === 1_211, 'a live one after the replay');
  });
});
