import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushSource } from '@eql/core';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { buildServer, createApiKey, type Host } from '../src/index.js';
import { ACTIONS, errorCode, json, queryWith, smallRecording, testHost, type TestHost } from './support/host.js';

/**
 * Issue 13, finding 1: a signed request replayed inside the ±30 s window. A signature is accepted once
 * (per key), remembered in the store (migration 5) while its timestamp could pass the drift check, so
 * the replay is refused after a restart too; expired entries are pruned. Signatures are computed here
 * with node:crypto, over timestamp + METHOD + path inside /v2/auto + body (spec 5.2).
 */

const NOW_MS = Math.floor(Date.now() / 1000) * 1000;
const NOW = NOW_MS / 1000;

const hmacHex = (secret: string, timestamp: number, method: string, path: string, body: string) => createHmac('sha256', secret).update(`${timestamp}${method}${path}${body}`).digest('hex');

function signedHeaders(key: CreatedKey, method: string, url: string, body: string, timestamp = NOW): Record<string, string> {
  const path = (url.split('?')[0] ?? '').slice('/v2/auto'.length);
  return { 'x-svc-api-key': key.key, 'content-type': 'application/json', 'x-svc-timestamp': String(timestamp), 'x-svc-signature': hmacHex(key.hmacSecret, timestamp, method, path, body) };
}

function expect401(response: LightMyRequestResponse, code: string): void {
  expect(response.statusCode, response.body).toBe(401);
  expect(errorCode(response)).toBe(code);
}

let clock = NOW_MS;
let host: TestHost;

beforeAll(async () => {
  host = await testHost({ now: () => clock });
});
afterAll(() => host.close());

/** Validates and lists the exchanges (unsigned), so a create of this body can succeed. */
async function prepare(key: CreatedKey, body: string): Promise<void> {
  const headers = { 'x-svc-api-key': key.key, 'content-type': 'application/json' };
  expect(json(await host.app.inject({ method: 'POST', url: '/v2/auto/queries/validate', headers, payload: body })).valid).toBe(true);
  expect((await host.app.inject({ method: 'GET', url: '/v2/auto/exchanges', headers })).statusCode).toBe(200);
}

const activeQueries = (key: CreatedKey) => host.app.inject({ method: 'GET', url: '/v2/auto/queries', headers: { 'x-svc-api-key': key.key } }).then((response) => (json(response).queries as unknown[]).length);

describe('a signature is accepted once', () => {
  it('one signed trade create sent three times: 201, then 401 signature_replayed twice; one query', async () => {
    const key = await host.newKey();
    const body = JSON.stringify(queryWith(ACTIONS.marketOrder()));
    await prepare(key, body);
    const headers = signedHeaders(key, 'POST', '/v2/auto/queries', body);
    const send = () => host.app.inject({ method: 'POST', url: '/v2/auto/queries', headers, payload: body });
    expect((await send()).statusCode).toBe(201);
    for (let replay = 0; replay < 2; replay += 1) {
      const response = await send();
      expect401(response, 'signature_replayed');
      expect(json(response).error).toMatchObject({ message: expect.stringContaining('already used') as string });
    }
    expect(await activeQueries(key)).toBe(1);
  });

  it('the same signature in uppercase hex is the same signature', async () => {
    const key = await host.newKey();
    const body = JSON.stringify(queryWith(ACTIONS.marketOrder()));
    await prepare(key, body);
    const headers = signedHeaders(key, 'POST', '/v2/auto/queries', body);
    expect((await host.app.inject({ method: 'POST', url: '/v2/auto/queries', headers, payload: body })).statusCode).toBe(201);
    const upper = { ...headers, 'x-svc-signature': (headers['x-svc-signature'] ?? '').toUpperCase() };
    expect401(await host.app.inject({ method: 'POST', url: '/v2/auto/queries', headers: upper, payload: body }), 'signature_replayed');
  });

  it('two copies sent at once: exactly one goes through', async () => {
    const key = await host.newKey();
    const body = JSON.stringify(queryWith(ACTIONS.limitOrder()));
    await prepare(key, body);
    const headers = signedHeaders(key, 'POST', '/v2/auto/queries', body);
    const responses = await Promise.all([0, 1, 2].map(() => host.app.inject({ method: 'POST', url: '/v2/auto/queries', headers, payload: body })));
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 401, 401]);
    expect(await activeQueries(key)).toBe(1);
  });

  it('what makes two requests distinct: another timestamp, another body text, another path; and per key', async () => {
    const key = await host.newKey();
    const url = '/v2/auto/queries/validate';
    const body = JSON.stringify(queryWith(ACTIONS.notify));
    const send = (headers: Record<string, string>, payload = body, to = url) => host.app.inject({ method: 'POST', url: to, headers, payload });
    expect((await send(signedHeaders(key, 'POST', url, body))).statusCode).toBe(200);
    // The same request signed with the previous second, or with a space more in its body, is another signature.
    expect((await send(signedHeaders(key, 'POST', url, body, NOW - 1))).statusCode).toBe(200);
    expect((await send(signedHeaders(key, 'POST', url, `${body} `), `${body} `)).statusCode).toBe(200);
    // A signature sent where none is required is accepted once too.
    expect401(await send(signedHeaders(key, 'POST', url, body)), 'signature_replayed');
    // Another key signing the same parts has another secret, so another signature.
    const other = await host.newKey();
    expect((await send(signedHeaders(other, 'POST', url, body))).statusCode).toBe(200);
  });

  it('a refused signature (wrong secret, drift) is not used up', async () => {
    const key = await host.newKey();
    const url = '/v2/auto/queries/validate';
    const body = JSON.stringify(queryWith(ACTIONS.webhook));
    const good = signedHeaders(key, 'POST', url, body, NOW - 2);
    expect401(await host.app.inject({ method: 'POST', url, headers: { ...good, 'x-svc-api-key': (await host.newKey()).key }, payload: body }), 'signature_invalid_signature');
    expect((await host.app.inject({ method: 'POST', url, headers: good, payload: body })).statusCode).toBe(200);
  });

  it('expired entries are pruned once their timestamp is past the window (and a grace window for other hosts\' clocks)', async () => {
    const key = await host.newKey();
    const rows = () => host.store.db.prepare('SELECT digest, expires_at AS expiresAt FROM used_signatures WHERE key_id = ?').all(key.record.id) as Array<{ digest: string; expiresAt: number }>;
    const url = '/v2/auto/queries/validate';
    const body = JSON.stringify(queryWith(ACTIONS.llmNotify));
    try {
      clock = NOW_MS + 20_000;
      expect((await host.app.inject({ method: 'POST', url, headers: signedHeaders(key, 'POST', url, body, NOW + 20), payload: body })).statusCode).toBe(200);
      expect(rows()).toEqual([{ digest: expect.stringMatching(/^[0-9a-f]{64}$/) as string, expiresAt: (NOW + 20 + 31) * 1000 }]);
      // Still kept 60 s after its timestamp (the drift window, then the grace).
      clock = NOW_MS + 80_000;
      expect((await host.app.inject({ method: 'POST', url, headers: signedHeaders(key, 'POST', url, body, NOW + 80), payload: body })).statusCode).toBe(200);
      expect(rows()).toHaveLength(2);
      // 62 s after it: gone, and the store holds only what can still be replayed.
      clock = NOW_MS + 20_000 + 62_000 + 10_000;
      expect((await host.app.inject({ method: 'POST', url, headers: signedHeaders(key, 'POST', url, body, NOW + 92), payload: body })).statusCode).toBe(200);
      expect(rows().map((row) => row.expiresAt).sort()).toEqual([(NOW + 80 + 31) * 1000, (NOW + 92 + 31) * 1000]);
      // The signature of the pruned entry is refused anyway: its timestamp is out of the window.
      expect401(await host.app.inject({ method: 'POST', url, headers: signedHeaders(key, 'POST', url, body, NOW + 20), payload: body }), 'signature_timestamp_drift');
    } finally {
      clock = NOW_MS;
    }
  });
});

describe('used signatures survive a restart (they are in the store)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'eql-replay-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const start = (): Promise<Host> =>
    buildServer({ config: { dataDir, marketSeed: false }, logger: false, now: () => NOW_MS, engine: { sources: [new PushSource()], recording: smallRecording() } });

  it('a request replayed to the restarted host on the same database: 401 signature_replayed', async () => {
    const first = await start();
    const key = await createApiKey(first.context.store, first.context.box, { name: 'replay', plan: 'pro' });
    const url = '/v2/auto/queries/validate';
    const body = JSON.stringify(queryWith(ACTIONS.marketOrder()));
    const headers = signedHeaders(key, 'POST', url, body);
    try {
      expect((await first.app.inject({ method: 'POST', url, headers, payload: body })).statusCode).toBe(200);
    } finally {
      await first.close();
    }
    const second = await start();
    try {
      expect401(await second.app.inject({ method: 'POST', url, headers, payload: body }), 'signature_replayed');
      expect((await second.app.inject({ method: 'POST', url, headers: signedHeaders(key, 'POST', url, body, NOW - 1), payload: body })).statusCode).toBe(200);
    } finally {
      await second.close();
    }
  });
});
