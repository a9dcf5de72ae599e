import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { configFromEnv } from '../src/config.js';
import { INGEST_REQUESTS_PER_MINUTE } from '../src/routes/market/market-routes.js';
import { errorCode, json, testHost, type TestHost } from './support/host.js';
import { watchedBody } from './support/watched-body.js';

/**
 * `POST /v2/ingest` reads up to 16 MB of JSON: the key's scope and its requests a minute are checked
 * before a byte of the body is read (observed as the bytes the host pulled from a streamed body).
 */

const PER_MINUTE = 2;
/** About 1 MB of items: what a key without the scope used to have read in full before its 403. */
const LARGE = JSON.stringify({ items: Array.from({ length: 4_000 }, (_, i) => ({ kind: 'news', id: `n-${i}`, title: 'x'.repeat(200), publishedAt: 0 })) });
const item = (id: string) => ({ kind: 'post', tweetId: id, link: `https://x.com/ingester/status/${id}`, username: 'ingester', text: `ingested ${id}`, mentionedAt: new Date().toISOString(), viewCount: 5 });

let clock = Date.parse('2026-03-01T12:00:00Z');
let host: TestHost;
let reader: CreatedKey;
let writer: CreatedKey;
beforeAll(async () => {
  host = await testHost({ now: () => clock, config: { ingestRequestsPerMinute: PER_MINUTE } });
  reader = await host.newKey();
  writer = await host.newKey({ scopes: ['ingest'] });
});
afterAll(async () => host.close());

async function ingest(key: CreatedKey, text: string) {
  const body = watchedBody(text);
  const response = await host.app.inject({ method: 'POST', url: '/v2/ingest', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-svc-api-key': key.key }, payload: body.stream });
  return { response, pulled: body.pulled() };
}

describe('POST /v2/ingest', () => {
  it('answers a key without the ingest scope 403 without reading the body', async () => {
    expect(LARGE.length).toBeGreaterThan(1_000_000);
    const { response, pulled } = await ingest(reader, LARGE);
    expect(response.statusCode).toBe(403);
    expect(errorCode(response)).toBe('missing_scope');
    expect(pulled).toBe(0);
  });

  it(`takes ${PER_MINUTE} requests a minute per key as configured, refuses the next before reading it, and takes more in the next minute`, async () => {
    const small = (id: string) => JSON.stringify({ items: [item(id)] });
    for (let count = 1; count <= PER_MINUTE; count += 1) {
      const { response, pulled } = await ingest(writer, small(`w-${count}`));
      expect(response.statusCode, response.body).toBe(200);
      expect(pulled).toBeGreaterThan(0);
      expect(response.headers['x-ratelimit-limit']).toBe(String(PER_MINUTE));
      expect(response.headers['x-ratelimit-remaining']).toBe(String(PER_MINUTE - count));
    }
    const refused = await ingest(writer, LARGE);
    expect(refused.response.statusCode).toBe(429);
    expect(json(refused.response)).toMatchObject({ error: { code: 'rate_limited', message: expect.stringContaining(`more than ${PER_MINUTE} ingest requests a minute`) as unknown } });
    expect(refused.response.headers['retry-after']).toBe('60');
    expect(refused.pulled).toBe(0);
    // Another key has its own minute.
    const other = await host.newKey({ scopes: ['ingest'] });
    expect((await ingest(other, small('o-1'))).response.statusCode).toBe(200);
    clock += 60_000;
    expect((await ingest(writer, small('w-next'))).response.statusCode).toBe(200);
  });

  it(`takes ${INGEST_REQUESTS_PER_MINUTE} requests a minute per key by default (EQL_INGEST_REQUESTS_PER_MINUTE)`, () => {
    expect(INGEST_REQUESTS_PER_MINUTE).toBe(10);
    expect(configFromEnv({}).ingestRequestsPerMinute).toBeUndefined();
    expect(configFromEnv({ EQL_INGEST_REQUESTS_PER_MINUTE: '30' }).ingestRequestsPerMinute).toBe(30);
    expect(() => configFromEnv({ EQL_INGEST_REQUESTS_PER_MINUTE: '0' })).toThrow('EQL_INGEST_REQUESTS_PER_MINUTE must be a whole number of at least 1');
  });
});
