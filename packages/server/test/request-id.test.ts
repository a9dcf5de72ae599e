import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseRecording, PushSource } from '@eql/core';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, type Host } from '../src/index.js';
import { removeDir } from './support/harness.js';

// X-Request-Id: a caller's plain token names the request in every log line and comes back in the answer;
// anything else is replaced by a UUID, neither logged nor echoed.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const logs: string[] = [];
let host: Host;
let dataDir: string;

afterAll(async () => {
  await host?.close();
  if (dataDir) await removeDir(dataDir);
});

describe('X-Request-Id', () => {
  it('is taken when it is a plain token, echoed on every answer and logged with the request; else replaced', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'eql-request-id-'));
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    host = await buildServer({ config: { dataDir, marketSeed: false }, logger: { level: 'info', stream }, engine: { sources: [new PushSource()], recording: parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n') } });

    const given = await host.app.inject({ method: 'GET', url: '/v2/ping', headers: { 'x-request-id': 'lb-7f3a.01:req_9' } });
    expect(given.headers['x-request-id']).toBe('lb-7f3a.01:req_9');
    const records = logs.map((line) => JSON.parse(line) as { reqId?: string; msg?: string });
    expect(records.filter((record) => record.reqId === 'lb-7f3a.01:req_9').map((record) => record.msg)).toEqual(['incoming request', 'request completed']);

    // An error answer carries it too.
    const missing = await host.app.inject({ method: 'GET', url: '/v2/nowhere', headers: { 'x-request-id': 'abc-404' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['x-request-id']).toBe('abc-404');

    for (const bad of ['has space', 'x'.repeat(129), 'quote"inject', 'new\u0085line', '']) {
      const answer = await host.app.inject({ method: 'GET', url: '/v2/ping', headers: { 'x-request-id': bad } });
      expect(answer.headers['x-request-id']).toMatch(UUID);
      if (bad.length > 3) expect(logs.some((line) => line.includes(bad))).toBe(false);
    }
    const none = await host.app.inject({ method: 'GET', url: '/v2/ping' });
    expect(none.headers['x-request-id']).toMatch(UUID);
    const other = await host.app.inject({ method: 'GET', url: '/v2/ping' });
    expect(other.headers['x-request-id']).not.toBe(none.headers['x-request-id']);
  });
});
