import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpochVirtualScheduler, parseRecording, PushSource } from '@eql/core';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, createApiKey, type Host } from '../src/index.js';
import { removeDir } from './support/harness.js';

// GET /ready for load balancers and orchestrators: 503 once the host is told to stop (while it still
// serves), and when queries wait on a feed that has been silent longer than EQL_READY_MAX_FEED_AGE_MS.
// Time is the engine's virtual clock: nothing waits on the wall clock.

const T0 = Date.parse('2026-03-02T00:00:00Z');
const dirs: string[] = [];
const hosts: Host[] = [];
afterAll(async () => {
  for (const host of hosts) await host.close();
  for (const dir of dirs) await removeDir(dir);
});

async function virtualHost(config: Record<string, unknown> = {}): Promise<{ host: Host; push: PushSource; clock: EpochVirtualScheduler; key: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'eql-ready-'));
  dirs.push(dataDir);
  const clock = new EpochVirtualScheduler(T0);
  const push = new PushSource();
  const host = await buildServer({
    config: { dataDir, marketSeed: false, ...config },
    logger: false,
    now: () => clock.now(),
    engine: { scheduler: clock, sources: [push], recording: parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n') },
  });
  hosts.push(host);
  const key = (await createApiKey(host.context.store, host.context.box, { name: 'ready', plan: 'pro' })).key;
  return { host, push, clock, key };
}

async function ready(host: Host): Promise<{ status: number; body: { status: string; reason?: string; feed?: { activeQueries: number; lastObservationAgeSeconds?: number; silent: boolean } } }> {
  const answer = await host.app.inject({ method: 'GET', url: '/ready' });
  return { status: answer.statusCode, body: answer.json() };
}

async function createWatching(host: Host, key: string): Promise<void> {
  const body = { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1_000_000 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn: '1d' } };
  const headers = { 'x-svc-api-key': key };
  expect((await host.app.inject({ method: 'POST', url: '/v2/auto/queries/validate', headers, payload: body })).statusCode).toBe(200);
  expect((await host.app.inject({ method: 'POST', url: '/v2/auto/queries', headers, payload: body })).statusCode).toBe(201);
}

describe('GET /ready', () => {
  it('turns 503 when queries wait on a feed silent for longer than EQL_READY_MAX_FEED_AGE_MS, and back once it speaks', async () => {
    const { host, push, clock, key } = await virtualHost({ readyMaxFeedAgeMs: 300_000 });
    // No query: nothing waits on the feed, however long it is silent.
    clock.advanceBy(600_000);
    expect(await ready(host)).toMatchObject({ status: 200, body: { status: 'ready', feed: { activeQueries: 0, silent: false } } });
    await createWatching(host, key);
    push.push({ at: clock.now(), source: 'price', symbol: 'BTC', price: 100 });
    expect(await ready(host)).toMatchObject({ status: 200, body: { feed: { activeQueries: 1, lastObservationAgeSeconds: 0, silent: false } } });
    clock.advanceBy(300_000);
    expect((await ready(host)).status).toBe(200);
    clock.advanceBy(1_000);
    expect(await ready(host)).toMatchObject({
      status: 503,
      body: { status: 'unavailable', reason: 'no observation from the feed for 301 s while 1 query waits (EQL_READY_MAX_FEED_AGE_MS is 300000)', feed: { lastObservationAgeSeconds: 301, silent: true } },
    });
    push.push({ at: clock.now(), source: 'price', symbol: 'BTC', price: 101 });
    expect((await ready(host)).status).toBe(200);
  });

  it('counts from the start when the feed never spoke; 0 turns the check off', async () => {
    const silent = await virtualHost({ readyMaxFeedAgeMs: 60_000 });
    await createWatching(silent.host, silent.key);
    silent.clock.advanceBy(61_000);
    expect(await ready(silent.host)).toMatchObject({ status: 503, body: { reason: 'no observation from the feed for 61 s while 1 query waits (EQL_READY_MAX_FEED_AGE_MS is 60000)', feed: { silent: true } } });
    const off = await virtualHost({ readyMaxFeedAgeMs: 0 });
    await createWatching(off.host, off.key);
    off.clock.advanceBy(86_000_000);
    expect((await ready(off.host)).status).toBe(200);
  });

  it('turns 503 at once when the host is told to stop, while it still serves', async () => {
    const { host } = await virtualHost();
    expect((await ready(host)).status).toBe(200);
    host.drain();
    expect(await ready(host)).toMatchObject({ status: 503, body: { status: 'unavailable', reason: 'the host is shutting down' } });
    expect((await host.app.inject({ method: 'GET', url: '/v2/ping' })).statusCode).toBe(200);
  });
});
