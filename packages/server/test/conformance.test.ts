import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { at, call, errorCode, json, notifyQuery, testHost, type TestHost } from './support/host.js';
import { AUTHENTICATED_ROUTES, AUTO_ROUTES, fill, PAYMENT_ROUTES } from './support/routes.js';

/**
 * Issue 15, point 5: the conformance findings of the audit against the spec, one test each where the
 * route files' own tests do not already carry it (docs/http-api.md records each decision).
 */

let host: TestHost;

beforeAll(async () => {
  // With the payment model, so its routes are there too.
  host = await testHost({ config: { x402: { payTo: '0x1111111111111111111111111111111111111111', agentSecrets: ['agent-secret-of-the-tests-0001'] } } });
});
afterAll(() => host.close());

const creditsOf = async (key: Awaited<ReturnType<TestHost['newKey']>>): Promise<unknown> => at(json(await call(host.app, { url: '/v2/key-status', key })), 'data', 'creditsUsed', 'total');

describe('JSON bodies keep their types (no coercion of bodies)', () => {
  it('POST /v2/chat refuses {"message": 123} with 400 before charging anything', async () => {
    const key = await host.newKey();
    for (const body of [{ message: 123 }, { message: true }, { message: ['hi'] }, { message: 'hi', speed: 1 }, { message: 'hi', assetMetadata: { symbol: 7 } }]) {
      const response = await call(host.app, { method: 'POST', url: '/v2/chat', key, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorCode(response)).toBe('invalid_request');
      expect(response.headers['x-svc-credits-used']).toBe('0');
    }
    expect(await creditsOf(key)).toBe(0);
    // A string message is still answered and charged.
    expect((await call(host.app, { method: 'POST', url: '/v2/chat', key, body: { message: 'what is trending?' } })).statusCode).toBe(200);
    expect(await creditsOf(key)).toBe(5);
  });

  it('POST /v2/auto/chat refuses a non-string message too, naming the field', async () => {
    const key = await host.newKey();
    const response = await call(host.app, { method: 'POST', url: '/v2/auto/chat', key, body: { message: 42 } });
    expect(response.statusCode).toBe(400);
    expect(errorCode(response)).toBe('invalid_request');
    expect(at(json(response), 'error', 'details', 0, 'path')).toBe('/message');
    expect(await creditsOf(key)).toBe(0);
  });
});

describe('405 for a method a path does not take', () => {
  it.each([...AUTHENTICATED_ROUTES, ...PAYMENT_ROUTES].map((route) => [`${route.method} ${route.path}`, route] as const))('%s: another method answers 405 method_not_allowed with Allow', async (_name, route) => {
    const key = await host.newKey();
    const response = await call(host.app, { method: 'PATCH', url: fill(route.path), key });
    expect(response.statusCode).toBe(405);
    expect(errorCode(response)).toBe('method_not_allowed');
    expect(response.headers['content-type']).toMatch(/application\/json/);
    const allow = String(response.headers.allow).split(', ');
    expect(allow).toContain(route.method);
    expect(at(json(response), 'error', 'details', 'allow')).toEqual(allow);
  });

  it('Allow lists every method of the path (GET, HEAD and POST of /v2/auto/queries); a path no method takes stays 404', async () => {
    const response = await call(host.app, { method: 'PUT', url: '/v2/auto/queries?limit=5' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    const convert = await call(host.app, { method: 'GET', url: fill('/v2/auto/queries/drafts/{draftId}/convert') });
    expect(convert.headers.allow).toBe('POST');
    for (const url of ['/v2/auto/queries/x/y/z', '/v3/ping']) {
      const missing = await call(host.app, { method: 'PUT', url });
      expect(missing.statusCode, url).toBe(404);
      expect(errorCode(missing)).toBe('route_not_found');
    }
  });
});

const AGENT = { 'x-svc-agent-secret': 'agent-secret-of-the-tests-0001' };
const INGEST_ITEM = { kind: 'account', username: 'desk_analyst', displayName: 'Desk Analyst', isVerified: true, isSmart: true, isCt: true, isNews: false, followers: 48210, smartFollowingCount: 31 };
/** Routes of spec 5.2's table that need a signature here (always, or for a query that cannot be looked up): a signed request may carry no query string at all. */
const ALWAYS_SIGNED = new Set(['POST /v2/auto/exchanges', 'DELETE /v2/auto/exchanges/{exchange}', 'POST /v2/auto/queries/{queryId}/cancel', 'DELETE /v2/auto/queries/{queryId}']);
/** Parameters a route requires, so the unknown one is what is refused. */
const REQUIRED_QUERY: Record<string, string> = { '/v2/data/event-summary': 'keywords=btc&' };

describe('one rule for unknown query parameters: 400 unknown_parameter, on every route', () => {
  it.each([...AUTHENTICATED_ROUTES, ...PAYMENT_ROUTES].map((route) => [`${route.method} ${route.path}`, route] as const))('%s refuses ?zzUnknown=1, naming it', async (name, route) => {
    const key = await host.newKey({ scopes: ['ingest'] });
    const body = route.body ? (route.path.endsWith('chat') ? { message: 'hi' } : route.path === '/v2/ingest' ? { items: [INGEST_ITEM] } : notifyQuery()) : undefined;
    const response = await call(host.app, {
      method: route.method,
      url: `${fill(route.path)}?${REQUIRED_QUERY[route.path] ?? ''}zzUnknown=1`,
      ...(route.path.startsWith('/x402/') ? { headers: AGENT } : { key }),
      ...(body === undefined ? {} : { body }),
      ...(ALWAYS_SIGNED.has(name) ? { signed: true } : {}),
    });
    if (ALWAYS_SIGNED.has(name)) {
      // The query string is not signed (docs/http-api.md, signing): refused before any parameter is read.
      expect(response.statusCode).toBe(401);
      expect(errorCode(response)).toBe('signature_unsigned_query');
      return;
    }
    expect(response.statusCode).toBe(400);
    expect(errorCode(response)).toBe('unknown_parameter');
    expect(at(json(response), 'error', 'details', 'parameter')).toBe('zzUnknown');
  });

  it('documented parameters pass: lastEventId on the streams, draftId on the upsert, limit on lists; ping refuses others too', async () => {
    const key = await host.newKey();
    const stream = await call(host.app, { url: `${fill('/v2/auto/queries/{queryId}/stream')}?lastEventId=3`, key });
    expect(stream.statusCode).toBe(404);
    expect((await call(host.app, { url: '/v2/auto/queries?limit=5', key })).statusCode).toBe(200);
    const upsert = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts?draftId=${fill('{draftId}')}`, key, body: notifyQuery() });
    expect(upsert.statusCode).toBe(404);
    const ping = await call(host.app, { url: '/v2/ping?verbose=1' });
    expect(ping.statusCode).toBe(400);
    expect(errorCode(ping)).toBe('unknown_parameter');
  });
});

describe('stability flags (spec 9): x-eql-stability and x-beta / x-experimental', () => {
  it('every Auto route answers x-eql-stability: beta (errors and the payment model too)', async () => {
    const key = await host.newKey();
    // Streams are asked for an unknown query (a 404 that carries the flag; a stream that opens would not end).
    const routes = [...AUTO_ROUTES.filter((candidate) => !candidate.stream), { method: 'GET', path: '/v2/auto/queries/{queryId}/stream', body: false }, ...PAYMENT_ROUTES.filter((candidate) => candidate.path.startsWith('/x402/v2/auto/'))] as const;
    for (const route of routes) {
      const response = await call(host.app, { method: route.method, url: fill(route.path), ...(route.path.startsWith('/x402/') ? { headers: AGENT } : { key }), ...(route.body ? { body: {} } : {}) });
      expect(response.headers['x-eql-stability'], `${route.method} ${route.path}`).toBe('beta');
    }
  });

  it('smart-stats and trending-tokens (spec 4.2 "experimental") answer experimental; other routes carry no flag', async () => {
    const key = await host.newKey();
    for (const url of ['/v2/account/smart-stats?username=nobody_here', '/v2/aggregations/trending-tokens', '/x402/v2/account/smart-stats?username=nobody_here', '/x402/v2/aggregations/trending-tokens']) {
      const response = await call(host.app, { url, key });
      expect(response.headers['x-eql-stability'], url).toBe('experimental');
    }
    for (const url of ['/v2/ping', '/v2/key-status', '/v2/data/top-mentions?symbol=BTC', '/v2/aggregations/trending-cas/twitter', '/nowhere']) {
      expect((await call(host.app, { url, key })).headers['x-eql-stability'], url).toBeUndefined();
    }
  });

  it('the OpenAPI document marks the same operations x-beta and x-experimental', async () => {
    const doc = json(await call(host.app, { url: '/openapi.json' }));
    const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        const beta = path.startsWith('/v2/auto/') || path.startsWith('/x402/v2/auto/');
        const experimental = /\/v2\/(account\/smart-stats|aggregations\/trending-tokens)$/.test(path);
        expect(op['x-beta'], `${method} ${path}`).toBe(beta ? true : undefined);
        expect(op['x-experimental'], `${method} ${path}`).toBe(experimental ? true : undefined);
      }
    }
  });
});
