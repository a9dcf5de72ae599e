import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { apiKeyParameter, redactUrl } from '../src/http/url-secrets.js';
import { errorCode, json, testHost, type TestHost } from './support/host.js';

/**
 * Issue 13, finding 5: an API key passed in the URL was logged. Keys in query parameters are refused
 * (400 api_key_in_url: use the header), and the request log writes URLs with secret values redacted.
 * The log is captured from pino's stream.
 */

let logText = '';
let host: TestHost;
let key: CreatedKey;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      logText += chunk.toString();
      done();
    },
  });
  host = await testHost({ logger: { level: 'trace', stream }, config: { x402: { payTo: '0x0000000000000000000000000000000000000001', agentSecrets: [] } } });
  key = await host.newKey();
});
afterAll(() => host.close());

const SPELLINGS = ['apiKey', 'api_key', 'API-KEY', 'apikey', 'x-svc-api-key', 'X_SVC_API_KEY', 'key', 'api%5Fkey', 'api%2Dkey'];

describe('an API key in the URL', () => {
  it.each(SPELLINGS)('?%s= is a 400 api_key_in_url telling to use the header, on every route, even with the header sent', async (name) => {
    for (const path of ['/v2/key-status', '/v2/auto/queries', '/v2/ping', '/x402/v2/aggregations/trending-tokens', '/v2/nowhere', '/openapi.json']) {
      for (const headers of [{}, { 'x-svc-api-key': key.key }]) {
        const response = await host.app.inject({ method: 'GET', url: `${path}?limit=5&${name}=${key.key}`, headers });
        expect(response.statusCode, `${path} ${name}`).toBe(400);
        expect(errorCode(response)).toBe('api_key_in_url');
        expect(response.body).toContain('x-svc-api-key header');
        expect(response.body).not.toContain(key.key);
      }
    }
  });

  it('other parameters are not mistaken for one (keywords, monkey, a key-like value under another name)', async () => {
    const headers = { 'x-svc-api-key': key.key };
    expect((await host.app.inject({ method: 'GET', url: '/v2/data/keyword-mentions?keywords=btc', headers })).statusCode).toBe(200);
    expect(apiKeyParameter('/v2/auto/queries?monkey=1&keys=2&apikeys=3')).toBeUndefined();
    expect(apiKeyParameter('/v2/auto/queries?x=1&Api-Key=2')).toBe('Api-Key');
    // A lone `?`, or no query: nothing to refuse.
    expect(json(await host.app.inject({ method: 'GET', url: '/v2/key-status?', headers })).success).toBe(true);
  });

  it('the log never holds the key, however the URL carried it, nor other secret-looking values', async () => {
    const secretToken = 'tok-that-must-not-be-logged-1234';
    const urls = [
      ...SPELLINGS.map((name) => `/v2/key-status?${name}=${key.key}`),
      `/v2/auto/queries?status=active&apiKey=${encodeURIComponent(key.key)}`,
      // A key under another name, or as a bare parameter, or in a path: redacted by its shape.
      `/v2/data/keyword-mentions?keywords=${key.key}`,
      `/v2/data/keyword-mentions?${key.key}`,
      `/v2/auto/queries/${key.key}`,
      `/v2/auto/queries?token=${secretToken}&x-svc-signature=${secretToken}&agent_secret=${secretToken}`,
    ];
    for (const url of urls) await host.app.inject({ method: 'GET', url, headers: { 'x-svc-api-key': key.key } });
    expect(logText).toContain('incoming request');
    expect(logText).toContain('api_key=[redacted]');
    expect(logText).toContain('/v2/auto/queries?status=active&apiKey=[redacted]');
    expect(logText.includes(key.key), 'the log holds the API key').toBe(false);
    expect(logText.includes(key.key.slice(4)), 'the log holds the API key without its prefix').toBe(false);
    expect(logText.includes(secretToken), 'the log holds a secret query value').toBe(false);
  });
});

describe('redactUrl', () => {
  it('replaces values of secret-looking parameters and anything shaped like an issued key; keeps the rest as sent', () => {
    expect(redactUrl('/v2/x')).toBe('/v2/x');
    expect(redactUrl('/v2/x?limit=5&cursor=abc%3D')).toBe('/v2/x?limit=5&cursor=abc%3D');
    expect(redactUrl('/v2/x?api_key=eql_AAAAAAAAAAAAAAAAAAAAAAAA&limit=5')).toBe('/v2/x?api_key=[redacted]&limit=5');
    expect(redactUrl('/v2/x?Token=abc&password=p&secret&x=1')).toBe('/v2/x?Token=[redacted]&password=[redacted]&secret&x=1');
    expect(redactUrl('/v2/x?q=eql_AAAAAAAAAAAAAAAAAAAAAAAA')).toBe('/v2/x?q=[redacted]');
    expect(redactUrl('/v2/x?eql_AAAAAAAAAAAAAAAAAAAAAAAA')).toBe('/v2/x?[redacted]');
    expect(redactUrl('/v2/eql_AAAAAAAAAAAAAAAAAAAAAAAA/x?y=1')).toBe('[redacted path]?y=1');
    expect(redactUrl('/v2/x?api%5Fkey=s3cret')).toBe('/v2/x?api%5Fkey=[redacted]');
    expect(redactUrl('/v2/x?%E0%A4%A=1&key=%E0%A4%A')).toBe('/v2/x?%E0%A4%A=1&key=[redacted]');
  });
});
