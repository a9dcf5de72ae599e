import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEqlClient, type StreamEvent } from '../src/index.js';

// Issue 45, point 9: a stream that says `retry: 0` (or any small value) must not make the client
// reconnect as fast as it can. A real HTTP server on loopback whose streams close at once; the client's
// sleep records each wait and returns at once (virtual time): the waits are asserted, never measured.

/** What the server sends on its nth stream connection (from 1); the connection ends after it. */
let script: (connection: number) => string = () => 'retry: 0\nevent: ready\ndata: {}\n\n';
let connections = 0;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    connections += 1;
    request.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream' }).end(script(connections));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Follows the stream until `waits` reconnect waits were taken; returns them (ms) and the events seen. */
async function follow(waits: number, streamOptions: { reconnectDelayMs?: number } = {}, now?: () => number): Promise<{ delays: number[]; events: StreamEvent[] }> {
  connections = 0;
  const delays: number[] = [];
  const stop = new AbortController();
  const sleep = (ms: number) => {
    delays.push(ms);
    if (delays.length >= waits) stop.abort();
    return Promise.resolve();
  };
  const eql = createEqlClient({ baseUrl: base, apiKey: 'eql_reconnect_test_key_0123456789', sleep, ...(now ? { now } : {}) });
  const events: StreamEvent[] = [];
  for await (const event of eql.notifications({ ...streamOptions, signal: stop.signal })) events.push(event);
  return { delays, events };
}

describe('reconnecting a stream', () => {
  it('waits at least a second whatever `retry:` says, and backs off while the streams end at once (up to 30 s)', async () => {
    script = () => 'retry: 0\nevent: ready\ndata: {}\n\n';
    const { delays } = await follow(8);
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    // One connection per wait (the last wait is cut short by the abort).
    expect(connections).toBe(8);
  });

  it('a second at least for the caller’s reconnectDelayMs too; the host’s longer `retry:` is kept', async () => {
    script = () => 'retry: 0\nevent: ready\ndata: {}\n\n';
    expect((await follow(3, { reconnectDelayMs: 10 })).delays).toEqual([1_000, 2_000, 4_000]);
    script = () => 'retry: 2500\nevent: ready\ndata: {}\n\n';
    expect((await follow(3)).delays).toEqual([2_500, 5_000, 10_000]);
  });

  it('a stream that delivered a notification starts the backoff again', async () => {
    const notification = (id: number) => `id: ${id}\nevent: notification:new\ndata: ${JSON.stringify({ id, title: 't', body: 'b', data: { queryId: 'q' } })}\n\n`;
    script = (connection) => `retry: 0\nevent: ready\ndata: {}\n\n${connection === 4 ? notification(7) : ''}`;
    const { delays, events } = await follow(6);
    expect(delays).toEqual([1_000, 2_000, 4_000, 1_000, 2_000, 4_000]);
    expect(events.filter((event) => event.event === 'notification:new')).toHaveLength(1);
  });

  it('so does a stream that stayed open 30 s without one (the clock is virtual: it moves 31 s during the third stream)', async () => {
    script = () => 'retry: 0\nevent: ready\ndata: {}\n\n';
    let clock = 0;
    const now = () => (clock += connections === 3 ? 31_000 : 0);
    expect((await follow(4, {}, now)).delays).toEqual([1_000, 2_000, 1_000, 2_000]);
  });
});
