import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '@eql/core';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { ACTIONS, call, json, notifyQuery, queryWith, testHost, type TestHost } from './support/host.js';
import { fuzzRuns } from './support/fuzz-runs.js';
import { AUTO_ROUTES, fill, type RouteSpec } from './support/routes.js';

/** A venue that answers without a network: every symbol but spot pairs is a perpetual. */
const stubVenue: Exchange = {
  id: 'binance',
  isPerpetual: (symbol) => !symbol.includes('/') || symbol.includes(':'),
  lastPrice: () => 100,
  availableBalanceUsd: () => 1000,
  placeOrder: (order) => ({ orderId: 'stub', clientOrderId: order.clientOrderId, status: 'filled', filled: order.amount }),
};

/**
 * Bad input is always a 4xx with the error envelope; a 500 means a bug (docs/http-api.md, "Bodies").
 * fast-check throws arbitrary bodies, content types, path parameters and query strings at every route,
 * with and without a valid key (and signed, so the trade-flavoured paths reach their handlers). Then:
 * the logs never carry an API key, an HMAC secret, a signature or a bot token.
 */

let host: TestHost;

beforeAll(async () => {
  // No network in tests: the public venue answers from a stub, so validate-symbol never waits on the internet.
  host = await testHost({ config: { exchanges: ['binance'] }, publicExchange: () => Promise.resolve(stubVenue), connectExchange: () => Promise.resolve(stubVenue) });
});
afterAll(() => host.close());

interface Seeded {
  key: CreatedKey;
  ids: string[];
}

/** A fresh key (rate limits are per key) with a notify query, a trade query, a draft, and their ids. */
async function seeded(): Promise<Seeded> {
  const key = await host.newKey();
  const ids: string[] = [];
  for (const body of [notifyQuery(1_000_000), queryWith(ACTIONS.marketOrder())]) {
    await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body });
    await call(host.app, { url: '/v2/auto/exchanges', key });
    const created = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body, signed: true });
    ids.push(json(created).queryId as string);
  }
  ids.push(json(await call(host.app, { method: 'POST', url: '/v2/auto/queries/drafts', key, body: queryWith(ACTIONS.limitOrder()), signed: true })).draftId as string);
  return { key, ids };
}

/** Status below 500, and every 4xx a JSON `{success: false, error: {code, message}}`. */
function wellFormed(response: LightMyRequestResponse, what: string): void {
  expect(response.statusCode, `${what} → ${response.statusCode} ${response.body.slice(0, 300)}`).toBeLessThan(500);
  if (response.statusCode >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      throw new Error(`${what} → ${response.statusCode} with a body that is not JSON: ${response.body.slice(0, 200)}`);
    }
    expect(body, what).toMatchObject({ success: false, error: { code: expect.any(String) as string, message: expect.any(String) as string } });
  }
}

type KeyMode = 'none' | 'invalid' | 'valid' | 'signed' | 'badly-signed';
const keyMode = fc.constantFrom<KeyMode>('none', 'invalid', 'valid', 'signed', 'signed', 'badly-signed');

function headersFor(mode: KeyMode, seed: Seeded, method: string, url: string, body: string): Record<string, string> {
  if (mode === 'none') return {};
  if (mode === 'invalid') return { 'x-svc-api-key': 'eql_notAKeynotAKeynotAKeynotAKeynotAKey0000' };
  const headers: Record<string, string> = { 'x-svc-api-key': seed.key.key };
  if (mode === 'signed' || mode === 'badly-signed') {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const path = (url.split('?')[0] ?? '').slice('/v2/auto'.length);
    const secret = mode === 'signed' ? seed.key.hmacSecret : 'not-the-secret-of-this-key';
    headers['x-svc-timestamp'] = timestamp;
    headers['x-svc-signature'] = createHmac('sha256', secret).update(timestamp + method + path + body).digest('hex');
  }
  return headers;
}

const ROUTES = AUTO_ROUTES.filter((route) => !route.stream);
const POSTS = ROUTES.filter((route) => route.method === 'POST');
const GETS = ROUTES.filter((route) => route.method === 'GET');
const DELETES = ROUTES.filter((route) => route.method === 'DELETE');

/** A path parameter: one of the key's real ids (by index), or junk (percent-encoded as a client library would). */
type Param = { real: number } | { junk: string };
const param: fc.Arbitrary<Param> = fc.oneof(
  fc.nat().map((real) => ({ real })),
  fc
    .oneof(
      fc.uuid(),
      fc.string({ maxLength: 40 }).filter((text) => text !== ''),
      fc.string({ unit: 'binary', maxLength: 20 }).filter((text) => text !== ''),
      fc.constantFrom('paper', 'binance', 'BTC', 'BTC/USDT:USDT', '..', '.', '%', '%25', '__proto__', 'constructor', 'x'.repeat(100), '0', '-1', 'null'),
    )
    .map((value) => encodeURIComponent(value))
    // Fastify's router refuses longer parameters itself (see the known gaps below).
    .filter((value) => value.length <= 100)
    .map((junk) => ({ junk })),
);
const resolve = (choice: Param, seed: Seeded): string => ('real' in choice ? encodeURIComponent(seed.ids[choice.real % seed.ids.length] ?? '') : choice.junk);

const QUERY_NAMES = ['limit', 'cursor', 'status', 'queryId', 'type', 'since', 'until', 'from', 'to', 'draftId', 'lastEventId', '__proto__', 'x'];
const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...QUERY_NAMES), fc.string({ maxLength: 8 })),
      fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String), fc.constantFrom('', 'active', '2026-01-06T00:00:00Z', 'bm9wZXxub3Bl', '1e400', 'NaN', '-0', '101', '0')),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')}`));

/** Bodies shaped like query requests, so the validator and the handlers past it are reached. */
const queryish = fc.record(
  {
    title: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    description: fc.string(),
    query: fc.record(
      {
        conditions: fc.oneof(fc.constant(notifyQuery().query as Record<string, unknown>).map((query) => query.conditions), fc.jsonValue()),
        actions: fc.oneof(
          fc.array(fc.constantFrom<unknown>(ACTIONS.notify, ACTIONS.webhook, ACTIONS.messengerBot, ACTIONS.llmNotify, ACTIONS.llmTrade, ACTIONS.marketOrder(), ACTIONS.marketOrder('binance'), ACTIONS.limitOrder(), ACTIONS.unknown), { maxLength: 3 }),
          fc.array(fc.record({ stepId: fc.jsonValue(), type: fc.oneof(fc.constantFrom('notify', 'llm', 'market_order', 'webhook'), fc.jsonValue()), params: fc.jsonValue() }, { requiredKeys: [] }), { maxLength: 3 }),
          fc.jsonValue(),
        ),
        expiresIn: fc.oneof(fc.constantFrom('24h', '1h', '30d', '0h', '-1h', ''), fc.jsonValue()),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

const connectish = fc.record(
  {
    exchange: fc.oneof(fc.constantFrom('binance', 'paper', 'kraken'), fc.jsonValue()),
    credentialType: fc.oneof(fc.constantFrom('api_key', 'wallet', 'none'), fc.jsonValue()),
    credentials: fc.oneof(fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof(fc.string(), fc.jsonValue())), fc.jsonValue()),
  },
  { requiredKeys: [] },
);

const jsonBody = fc.oneof(fc.jsonValue(), queryish, connectish, fc.record({ query: fc.jsonValue() })).map((value) => JSON.stringify(value) ?? 'null');

const RUNS = fuzzRuns(120);

async function inject(options: InjectOptions & { url: string; method: string }): Promise<LightMyRequestResponse> {
  return host.app.inject(options);
}

describe('no request gets a 500', () => {
  it('POST routes with arbitrary JSON bodies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS), jsonBody, keyMode, fc.nat(), async (route, body, mode, pick) => {
        const seed = await seeded();
        const url = fill(route.path, { queryId: seed.ids[pick % 2], draftId: seed.ids[2] });
        const response = await inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/json', ...headersFor(mode, seed, 'POST', url, route.body ? body : '') } });
        wellFormed(response, `POST ${url} ${body.slice(0, 200)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('POST routes with arbitrary text sent as application/json', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS), fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', ' ', '{', '[', '{"query":', 'null', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '1'.repeat(400), '[[[[[[[[[[', `{"title":${'['.repeat(20_000)}${']'.repeat(20_000)}}`, `{"query":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`)), keyMode, async (route, body, mode) => {
        const seed = await seeded();
        const url = fill(route.path, { queryId: seed.ids[0], draftId: seed.ids[2] });
        const response = await inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/json', ...headersFor(mode, seed, 'POST', url, body) } });
        wellFormed(response, `POST ${url} ${JSON.stringify(body.slice(0, 100))}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('POST routes with random content types', async () => {
    const contentType = fc.oneof(
      fc.constantFrom('text/plain', 'text/plain; charset=utf-8', 'application/json; charset=latin1', 'application/JSON', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/xml', '*/*', ';', 'application/json;;'),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS), fc.oneof(jsonBody, fc.string()), contentType, keyMode, async (route, body, type, mode) => {
        const seed = await seeded();
        const url = fill(route.path, { queryId: seed.ids[1], draftId: seed.ids[2] });
        const headers = { ...headersFor(mode, seed, 'POST', url, body), ...(type === '' ? {} : { 'content-type': type }) };
        const response = await inject({ method: 'POST', url, payload: body, headers });
        wellFormed(response, `POST ${url} as ${JSON.stringify(type)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('GET routes with arbitrary path parameters and query strings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...GETS), fc.array(param, { minLength: 4, maxLength: 4 }), queryString, keyMode, async (route, params, query, mode) => {
        const seed = await seeded();
        const [one = '', two = '', three = '', four = ''] = params.map((choice) => resolve(choice, seed));
        const url = `${fill(route.path, { queryId: one, draftId: one, executionId: two, sessionId: three, exchange: four, symbol: two })}${query}`;
        const response = await inject({ method: 'GET', url, headers: headersFor(mode, seed, 'GET', url, '') });
        wellFormed(response, `GET ${url}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('DELETE and body-less POST routes with arbitrary path parameters', async () => {
    const routes: RouteSpec[] = [...DELETES, ...POSTS.filter((route) => !route.body)];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), param, keyMode, async (route, choice, mode) => {
        const seed = await seeded();
        const value = resolve(choice, seed);
        const url = fill(route.path, { queryId: value, draftId: value, exchange: value });
        const response = await inject({ method: route.method, url, headers: headersFor(mode, seed, route.method, url, '') });
        wellFormed(response, `${route.method} ${url}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('arbitrary paths under /v2 (however its prefix is spelled) with arbitrary methods', async () => {
    const segment = fc.oneof(fc.constantFrom('v2', 'auto', 'queries', 'drafts', 'exchanges', 'executions', 'sessions', 'validate', 'preview', 'convert', 'cancel', 'stream', 'ping', 'key-status', ''), fc.string({ maxLength: 10 }).map(encodeURIComponent));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<InjectOptions['method']>('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'), fc.constantFrom('/v2/', '/v2/', '/%762/', '/v2/%61uto/', '/%76%32/auto/'), fc.array(segment, { minLength: 1, maxLength: 6 }), keyMode, async (method, prefix, segments, mode) => {
        const seed = await seeded();
        const url = `${prefix}${segments.join('/')}`;
        if (/\/(queries\/)?[^/]*\/?stream$/.test(url.split('?')[0] ?? '') && method === 'GET') return; // SSE: a success would not end
        const response = await inject({ method: method ?? 'GET', url, headers: headersFor(mode, seed, method ?? 'GET', url, '') });
        if (method === 'HEAD') expect(response.statusCode).toBeLessThan(500);
        else wellFormed(response, `${method ?? ''} ${url}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('malformed percent-escapes in paths and query strings: never a 500', async () => {
    const escape = fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`),
      fc.constantFrom('%', '%Z', '%E0%A4%A', '%C0%AF', '%FF', '%00', '%u0041'),
    );
    const junk = fc.array(fc.oneof(escape, fc.constantFrom('a', 'B', '-', '.', '_')), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), junk, junk, keyMode, async (route, value, queryValue, mode) => {
        const seed = await seeded();
        const url = `${fill(route.path, { queryId: value, draftId: value, executionId: value, sessionId: value, exchange: value, symbol: value })}?cursor=${queryValue}`;
        const response = await inject({ method: route.method, url, headers: headersFor(mode, seed, route.method, url, ''), ...(route.body ? { payload: '{}' } : {}) });
        expect(response.statusCode, `${route.method} ${url}`).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });

  // Regressions: Fastify's router answers a path it cannot percent-decode (FST_ERR_BAD_URL, 400) and a
  // path parameter over 100 characters (FST_ERR_MAX_PARAM_LENGTH, 414) itself, before any hook or
  // handler; the `frameworkErrors` option of build-server.ts gives those answers the error envelope.
  it('a path that cannot be percent-decoded gets the error envelope', async () => {
    const seed = await seeded();
    const response = await inject({ method: 'GET', url: '/v2/auto/queries/%E0%A4%A', headers: { 'x-svc-api-key': seed.key.key } });
    expect(response.statusCode).toBe(400);
    wellFormed(response, 'GET /v2/auto/queries/%E0%A4%A');
  });

  it('a path parameter over 100 characters gets the error envelope', async () => {
    const seed = await seeded();
    const response = await inject({ method: 'GET', url: `/v2/auto/queries/${'x'.repeat(101)}`, headers: { 'x-svc-api-key': seed.key.key } });
    expect(response.statusCode).toBeLessThan(500);
    wellFormed(response, 'GET /v2/auto/queries/xxx…');
  });
});

describe('logs', () => {
  it('never contain an API key, an HMAC secret, a signature, an agent secret, a bot token or exchange credentials', async () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    const logged = await testHost({ logger: { level: 'trace', stream }, config: { exchanges: ['binance'] }, connectExchange: () => Promise.reject(new Error('refused')) });
    try {
      const key = await logged.newKey();
      const botToken = '987654321:AAFsecretBotTokenValue_abcdefghijklmn';
      const venueSecret = 'venue-secret-that-must-not-be-logged';
      const agentSecret = 'agent-secret-that-must-not-be-logged';
      const withBot = queryWith({ stepId: 'b', type: 'messenger_bot', params: { botToken, chatId: '@alerts', message: 'hi' } });
      const signatures: string[] = [];
      const send = async (method: 'GET' | 'POST' | 'DELETE', url: string, body?: string, extra: Record<string, string> = {}) => {
        const timestamp = String(Math.floor(Date.now() / 1000));
        const signature = createHmac('sha256', key.hmacSecret).update(timestamp + method + (url.split('?')[0] ?? '').slice('/v2/auto'.length) + (body ?? '')).digest('hex');
        signatures.push(signature);
        const headers: Record<string, string> = { 'x-svc-api-key': key.key, 'x-svc-timestamp': timestamp, 'x-svc-signature': signature, 'x-svc-agent-secret': agentSecret, authorization: `Bearer ${key.key}`, ...extra };
        if (body !== undefined) headers['content-type'] = 'application/json';
        return logged.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body }) });
      };
      const bot = JSON.stringify(withBot);
      expect((await send('POST', '/v2/auto/queries/validate', bot)).statusCode).toBe(200);
      expect((await send('POST', '/v2/auto/queries', bot)).statusCode).toBe(201);
      expect((await send('POST', '/v2/auto/queries/drafts', bot)).statusCode).toBe(200);
      expect((await send('POST', '/v2/auto/queries/validate', `{"broken": "${botToken}`)).statusCode).toBe(400);
      expect((await send('POST', '/v2/auto/exchanges', JSON.stringify({ exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: key.key, secret: venueSecret } }))).statusCode).toBe(422);
      expect((await send('GET', '/v2/key-status')).statusCode).toBe(200);
      expect((await send('GET', '/v2/auto/nowhere')).statusCode).toBe(404);
      // Wrong signatures and a wrong key are logged as refusals, still without the values.
      expect((await send('POST', '/v2/auto/queries/validate', bot, { 'x-svc-signature': 'ab'.repeat(32) })).statusCode).toBe(401);
      expect((await logged.app.inject({ method: 'GET', url: '/v2/auto/queries', headers: { 'x-svc-api-key': `${key.key}x` } })).statusCode).toBe(401);

      expect(text).toContain('incoming request');
      expect(text.split('\n').filter(Boolean).length).toBeGreaterThan(10);
      for (const secret of [key.key, `${key.key}x`, key.hmacSecret, botToken, venueSecret, agentSecret, 'ab'.repeat(32), ...signatures]) {
        expect(text.includes(secret), `the log holds ${secret.slice(0, 12)}…`).toBe(false);
      }
    } finally {
      await logged.close();
    }
  });
});
