import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecording, PushSource } from '@eql/core';
import { buildServer, createApiKey } from '../src/index.js';
import { databaseTrouble } from '../src/http/database-unavailable.js';
import { call, notifyQuery, removeDir } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { describeWithPostgres, freshSchema, TEST_DATABASE_URL } from './support/postgres.js';
import { tcpProxy } from './support/tcp-proxy.js';

// A request that needs the database while it cannot be reached answers 503 with Retry-After and a code
// a client can act on (retry), never a 500 or a hang; once it is back the same request succeeds.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.().catch(() => undefined);
});

describe('which errors are the database being down or busy', () => {
  it('knows the connection failures of node-postgres and PostgreSQL, and nothing else', () => {
    const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    expect(databaseTrouble(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe('unavailable');
    expect(databaseTrouble(new AggregateError([withCode('ECONNREFUSED')], 'connect failed'))).toBe('unavailable');
    expect(databaseTrouble(new Error('Connection terminated unexpectedly'))).toBe('unavailable');
    expect(databaseTrouble(new Error('Connection terminated due to connection timeout'))).toBe('unavailable');
    expect(databaseTrouble(new Error('timeout exceeded when trying to connect'))).toBe('unavailable');
    for (const state of ['57P01', '57P02', '57P03', '53300', '08006', '08001', '08P01']) expect(databaseTrouble(withCode(state)), state).toBe('unavailable');
    expect(databaseTrouble(new Error('wrapped', { cause: withCode('57P01') }))).toBe('unavailable');
    expect(databaseTrouble(withCode('57014', 'canceling statement due to statement timeout'))).toBe('busy');
    expect(databaseTrouble(withCode('55P03', 'canceling statement due to lock timeout'))).toBe('busy');
    // A constraint, a syntax error, a bug: not the database's absence.
    for (const state of ['23505', '42601', '22P02']) expect(databaseTrouble(withCode(state)), state).toBeUndefined();
    expect(databaseTrouble(new TypeError('x is undefined'))).toBeUndefined();
    expect(databaseTrouble(undefined)).toBeUndefined();
  });
});

await describeWithPostgres('a request during a database outage', () => {
  it('answers 503 database_unavailable with Retry-After while the connection is cut, and serves again once it is back', { timeout: 60_000 }, async () => {
    const schema = await freshSchema('outage');
    cleanups.push(() => schema.drop());
    const target = new URL(TEST_DATABASE_URL);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    cleanups.push(() => proxy.close());
    const viaProxy = new URL(schema.url);
    viaProxy.port = String(proxy.port);
    const dataDir = await mkdtemp(join(tmpdir(), 'eql-pg-outage-'));
    cleanups.push(() => removeDir(dataDir));
    const host = await buildServer({
      config: { dataDir, databaseUrl: viaProxy.toString(), secretKey: SECRET_KEY_HEX, marketSeed: false },
      logger: false,
      engine: { sources: [new PushSource()], recording: parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n') },
    });
    cleanups.push(() => host.close());
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
    const key = (await createApiKey(host.context.store, host.context.box, { name: 'outage', plan: 'pro' })).key;
    const body = notifyQuery('BTC', 100);
    expect((await call(base, 'POST', '/v2/auto/queries/validate', key, body)).status).toBe(200);

    proxy.cut();
    for (const [method, path, sent] of [
      ['POST', '/v2/auto/queries', body],
      ['GET', '/v2/auto/queries', undefined],
    ] as const) {
      const answer = await call(base, method, path, key, sent);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('2');
      expect(answer.body).toMatchObject({ success: false, error: { code: 'database_unavailable' } });
    }
    const ready = await call(base, 'GET', '/ready', undefined);
    expect(ready.status).toBe(503);

    proxy.restore();
    const created = await call(base, 'POST', '/v2/auto/queries', key, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });
});
