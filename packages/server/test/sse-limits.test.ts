import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRecording, PushSource } from '@eql/core';
import { buildServer, configFromEnv, createApiKey, type Host } from '../src/index.js';
import { createQuery, notifyQuery } from './support/harness.js';

/**
 * Issue 13, finding 3: SSE streams per API key are capped (EQL_SSE_MAX_STREAMS_PER_KEY); beyond, a 429
 * with the error body. Over real sockets: a slot is free again once the client's connection has closed
 * on the server (the test waits for that socket's close event, never for a time).
 */

const LIMIT = 2;
let host: Host;
let base: string;
let dataDir: string;
/** The server's side of every connection, by the client's port. */
const serverSockets = new Map<number, Socket>();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'eql-sse-limits-'));
  const recording = parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');
  host = await buildServer({ config: { dataDir, marketSeed: false, sseMaxStreamsPerKey: LIMIT }, logger: false, engine: { sources: [new PushSource()], recording } });
  host.app.server.on('connection', (socket: Socket) => {
    if (socket.remotePort !== undefined) serverSockets.set(socket.remotePort, socket);
  });
  await host.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await host.close();
  await rm(dataDir, { recursive: true, force: true });
});

interface Opened {
  status: number;
  response: IncomingMessage;
  request: ClientRequest;
  /** The client's port: the key of the server's socket. */
  port: number;
  /** Text received so far. */
  text: () => string;
}

/** A GET on its own connection; resolves at the status line (a stream keeps going). */
function open(path: string, key: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    let text = '';
    const request = httpRequest(`${base}${path}`, { agent: false, headers: { accept: 'text/event-stream', 'x-svc-api-key': key } }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('error', () => undefined);
      resolve({ status: response.statusCode ?? 0, response, request, port: request.socket?.localPort ?? 0, text: () => text });
    });
    request.on('error', reject);
    request.end();
  });
}

/** The whole body of a response that ends (an error answer). */
async function bodyOf(opened: Opened): Promise<unknown> {
  if (!opened.response.complete) await once(opened.response, 'end');
  return JSON.parse(opened.text()) as unknown;
}

/** Closes the client's side and waits until the server has seen its socket close. */
async function hangUp(opened: Opened): Promise<void> {
  const socket = serverSockets.get(opened.port);
  if (!socket) throw new Error(`no server socket for client port ${opened.port}`);
  const closed = socket.destroyed ? Promise.resolve() : once(socket, 'close');
  opened.request.destroy();
  await closed;
}

describe('SSE streams per API key', () => {
  it('reads EQL_SSE_MAX_STREAMS_PER_KEY (default 10); refuses what is not a whole number above 0', () => {
    expect(configFromEnv({}).sseMaxStreamsPerKey).toBe(10);
    expect(configFromEnv({ EQL_SSE_MAX_STREAMS_PER_KEY: '3' }).sseMaxStreamsPerKey).toBe(3);
    for (const wrong of ['0', '-1', '2.5', 'many']) expect(() => configFromEnv({ EQL_SSE_MAX_STREAMS_PER_KEY: wrong }), wrong).toThrow(/EQL_SSE_MAX_STREAMS_PER_KEY/);
  });

  it(`at most ${LIMIT} open at once per key, one query's streams and the all-queries stream alike; 429 too_many_streams beyond; a slot is free again when a client hangs up`, async () => {
    const { key, record } = await createApiKey(host.context.store, host.context.box, { name: 'streams', plan: 'pro' });
    const queryId = await createQuery(base, key, notifyQuery('BTC', 1_000_000));
    const first = await open('/v2/auto/queries/stream', key);
    const second = await open(`/v2/auto/queries/${queryId}/stream`, key);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(host.context.hub.streamsOf(record.id)).toBe(LIMIT);

    for (const path of ['/v2/auto/queries/stream', `/v2/auto/queries/${queryId}/stream`]) {
      const refused = await open(path, key);
      expect(refused.status, path).toBe(429);
      expect(refused.response.headers['content-type']).toMatch(/^application\/json/);
      expect(await bodyOf(refused)).toEqual({ success: false, error: { code: 'too_many_streams', message: expect.stringContaining(`${LIMIT} event streams`) as string, details: { limit: LIMIT } } });
    }
    // Another key has slots of its own.
    const other = await createApiKey(host.context.store, host.context.box, { name: 'other', plan: 'pro' });
    const theirs = await open('/v2/auto/queries/stream', other.key);
    expect(theirs.status).toBe(200);

    // The client of the first stream goes away: once the server has seen it, a new stream opens.
    await hangUp(first);
    expect(host.context.hub.streamsOf(record.id)).toBe(LIMIT - 1);
    const third = await open('/v2/auto/queries/stream', key);
    expect(third.status).toBe(200);
    expect(host.context.hub.streamsOf(record.id)).toBe(LIMIT);

    for (const stream of [second, third, theirs]) await hangUp(stream);
    expect(host.context.hub.streamsOf(record.id)).toBe(0);
    expect(host.context.hub.streamsOf(other.record.id)).toBe(0);
  });

  it('refusals that open no stream (404, 400, 204) hold no slot', async () => {
    const { key, record } = await createApiKey(host.context.store, host.context.box, { name: 'refusals', plan: 'pro' });
    const queryId = await createQuery(base, key, notifyQuery('BTC', 1_000_000));
    expect((await fetch(`${base}/v2/auto/queries/${queryId}/cancel`, { method: 'POST', headers: { 'x-svc-api-key': key } })).status).toBe(200);
    for (let attempt = 0; attempt < LIMIT + 1; attempt += 1) {
      const unknown = await open('/v2/auto/queries/00000000-0000-4000-8000-00000000dead/stream', key);
      expect(unknown.status).toBe(404);
      await bodyOf(unknown);
      const badId = await open('/v2/auto/queries/stream?lastEventId=x', key);
      expect(badId.status).toBe(400);
      await bodyOf(badId);
      // A cancelled query with nothing after Last-Event-ID: 204, no stream.
      const done = await open(`/v2/auto/queries/${queryId}/stream`, key);
      expect(done.status).toBe(204);
    }
    expect(host.context.hub.streamsOf(record.id)).toBe(0);
    const live = await open('/v2/auto/queries/stream', key);
    expect(live.status).toBe(200);
    await hangUp(live);
  });

  it('concurrent requests cannot pass the cap together', async () => {
    const { key, record } = await createApiKey(host.context.store, host.context.box, { name: 'burst', plan: 'pro' });
    const queryId = await createQuery(base, key, notifyQuery('BTC', 1_000_000));
    const opened = await Promise.all(Array.from({ length: 6 }, (_, index) => open(index % 2 === 0 ? '/v2/auto/queries/stream' : `/v2/auto/queries/${queryId}/stream`, key)));
    expect(opened.filter((stream) => stream.status === 200)).toHaveLength(LIMIT);
    expect(opened.filter((stream) => stream.status === 429)).toHaveLength(6 - LIMIT);
    for (const stream of opened) {
      if (stream.status === 200) await hangUp(stream);
      else await bodyOf(stream);
    }
    expect(host.context.hub.streamsOf(record.id)).toBe(0);
  });
});
