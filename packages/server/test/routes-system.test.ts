import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { PLANS } from '../src/config.js';
import { at, call, errorCode, ISO, json, notifyQuery, testHost, type TestHost } from './support/host.js';
import { AUTHENTICATED_ROUTES, AUTO_ROUTES, fill } from './support/routes.js';

/**
 * docs/http-api.md, "Authentication, signing, limits" and spec 4.1: who may call what, ping and
 * key-status, unknown routes, rate limits, daily and monthly quotas, the body limit.
 */

let host: TestHost;
let pro: CreatedKey;

beforeAll(async () => {
  host = await testHost();
  pro = await host.newKey({ plan: 'pro', name: 'desk', email: 'desk@example.com', project: 'alpha' });
});
afterAll(() => host.close());

const sendTo = (route: (typeof AUTO_ROUTES)[number], key?: string) =>
  call(host.app, { method: route.method, url: fill(route.path), ...(key === undefined ? {} : { key }), ...(route.body ? { body: notifyQuery() } : {}) });

describe('API key (spec 5.1)', () => {
  it.each(AUTHENTICATED_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))('%s answers 401 missing_api_key without a key', async (_name, route) => {
    const response = await sendTo(route);
    expect(response.statusCode).toBe(401);
    expect(errorCode(response)).toBe('missing_api_key');
    expect(response.headers['x-svc-credits-used']).toBeUndefined();
  });

  it.each(AUTHENTICATED_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))('%s answers 401 invalid_api_key with an unknown or malformed key', async (_name, route) => {
    for (const key of ['eql_doesnotexistdoesnotexistdoesnotexist00', 'short', 'has spaces in it, surely not a key', 'x'.repeat(500)]) {
      const response = await sendTo(route, key);
      expect(response.statusCode).toBe(401);
      expect(errorCode(response)).toBe('invalid_api_key');
    }
  });

  it.each(AUTO_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))('%s answers 403 auto_not_enabled for a key without Auto', async (_name, route) => {
    const key = await host.newKey();
    await host.context.store.updateKey(key.record.id, { autoEnabled: false });
    const response = await sendTo(route, key.key);
    expect(response.statusCode).toBe(403);
    expect(errorCode(response)).toBe('auto_not_enabled');
  });

  it('a key without Auto still reads its key-status (not an Auto route)', async () => {
    const key = await host.newKey();
    await host.context.store.updateKey(key.record.id, { autoEnabled: false });
    const response = await call(host.app, { url: '/v2/key-status', key });
    expect(response.statusCode).toBe(200);
    expect(at(json(response), 'data', 'autoEnabled')).toBe(false);
  });

  it('a percent-encoded spelling of /v2/auto cannot dodge the 403 of a key without Auto', async () => {
    const key = await host.newKey();
    await host.context.store.updateKey(key.record.id, { autoEnabled: false });
    for (const url of ['/v2/%61uto/queries', '/v2/%61uto/exchanges', '/v2/auto/%65xchanges']) {
      const response = await call(host.app, { url, key });
      expect(response.statusCode, url).toBe(403);
    }
  });

  it('a request the router reaches through a percent-encoded /v2 prefix is authenticated like the canonical path', async () => {
    for (const url of ['/%762/key-status', '/%762/auto/queries', '/%762/auto/validate-symbol/paper/BTC', '/%762/auto/exchanges']) {
      const anonymous = await call(host.app, { url });
      expect(anonymous.statusCode, url).toBe(401);
      expect(errorCode(anonymous)).toBe('missing_api_key');
      const authenticated = await call(host.app, { url, key: pro });
      expect(authenticated.statusCode, url).toBe(200);
    }
  });

  it('a disabled key is a 401 invalid_api_key', async () => {
    const key = await host.newKey();
    await host.context.store.updateKey(key.record.id, { status: 'disabled' });
    for (const url of ['/v2/key-status', '/v2/auto/queries']) {
      const response = await call(host.app, { url, key });
      expect(response.statusCode).toBe(401);
      expect(errorCode(response)).toBe('invalid_api_key');
    }
  });

  it('an expired key is a 401 expired_api_key', async () => {
    const key = await host.newKey();
    host.store.db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(new Date(Date.now() - 1_000).toISOString(), key.record.id);
    for (const url of ['/v2/key-status', '/v2/auto/queries']) {
      const response = await call(host.app, { url, key });
      expect(response.statusCode).toBe(401);
      expect(errorCode(response)).toBe('expired_api_key');
    }
  });

  it('every authenticated response carries x-svc-credits-used (0 on free routes)', async () => {
    for (const url of ['/v2/key-status', '/v2/auto/queries', '/v2/auto/exchanges', '/v2/auto/queries/drafts']) {
      const response = await call(host.app, { url, key: pro });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-svc-credits-used']).toBe('0');
    }
    const validated = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key: pro, body: notifyQuery() });
    expect(validated.headers['x-svc-credits-used']).toBe('0');
  });
});

describe('system routes (spec 4.1)', () => {
  it('GET /v2/ping needs no key and answers {success, data: {message}}', async () => {
    const response = await call(host.app, { url: '/v2/ping' });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, data: { message: expect.any(String) as string } });
    const withKey = await call(host.app, { url: '/v2/ping', key: 'not-a-key-at-all' });
    expect(withKey.statusCode).toBe(200);
  });

  it('GET /v2/key-status has every field of spec 4.1, with the right types', async () => {
    const key = await host.newKey({ plan: 'free', name: 'reporting', email: 'ops@example.com', project: 'beta' });
    const response = await call(host.app, { url: '/v2/key-status', key });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body.success).toBe(true);
    const data = body.data as Record<string, unknown>;
    const specFields = [
      'id', 'key', 'name', 'status', 'dailyRequestLimit', 'monthlyRequestLimit', 'expiresAt', 'createdAt', 'updatedAt', 'requestsPerMinute',
      'email', 'project', 'allowOverage', 'maxOverage', 'tier', 'usage', 'limits', 'isExpired', 'remainingRequests',
    ];
    // A key without an expiry omits expiresAt (spec 4.1 types it as a string, so never null).
    for (const field of specFields.filter((name) => name !== 'expiresAt')) expect(data, field).toHaveProperty(field);
    expect(Object.keys(data).sort()).toEqual([...specFields.filter((name) => name !== 'expiresAt'), 'autoEnabled', 'creditsUsed'].sort());
    expect(Number.isInteger(data.id)).toBe(true);
    expect(data.id).toBe(key.record.id);
    expect(typeof data.key).toBe('string');
    expect(data.key).not.toBe(key.key); // only a recognisable prefix, never the key
    expect(key.key.startsWith(String(data.key).replace('…', ''))).toBe(true);
    expect(data).toMatchObject({
      name: 'reporting',
      status: 'active',
      email: 'ops@example.com',
      project: 'beta',
      dailyRequestLimit: PLANS.free.dailyRequestLimit,
      monthlyRequestLimit: PLANS.free.monthlyRequestLimit,
      requestsPerMinute: 60,
      allowOverage: false,
      maxOverage: 0,
      tier: 'free',
      isExpired: false,
      limits: { monthly: 20_000, daily: 1_000 },
      autoEnabled: true,
    });
    expect(data.createdAt).toMatch(ISO);
    expect(data.updatedAt).toMatch(ISO);
    // This request is the first one of the key: it is counted.
    expect(data.usage).toEqual({ monthly: 1, daily: 1 });
    expect(data.remainingRequests).toEqual({ monthly: 19_999, daily: 999 });
    expect(data.creditsUsed).toEqual({ daily: 0, monthly: 0, total: 0 });
  });

  it('key-status of a pro key shows its plan, overage and the credits charged', async () => {
    const key = await host.newKey({ plan: 'pro' });
    await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body: notifyQuery(1_000_000) });
    const created = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body: notifyQuery(1_000_000) });
    expect(created.statusCode).toBe(201);
    const data = json(await call(host.app, { url: '/v2/key-status', key })).data as Record<string, unknown>;
    expect(data).toMatchObject({ tier: 'pro', requestsPerMinute: 120, allowOverage: true, maxOverage: 100_000, dailyRequestLimit: 50_000, monthlyRequestLimit: 1_000_000 });
    expect(data.usage).toEqual({ monthly: 3, daily: 3 });
    expect(data.creditsUsed).toEqual({ daily: 5, monthly: 5, total: 5 });
  });

  it('key-status of a key with a future expiry shows expiresAt and isExpired false', async () => {
    const key = await host.newKey();
    host.store.db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(new Date(Date.now() + 3_600_000).toISOString(), key.record.id);
    const data = json(await call(host.app, { url: '/v2/key-status', key })).data as Record<string, unknown>;
    expect(data.isExpired).toBe(false);
    expect(data.expiresAt).toMatch(ISO);
  });

  it('key-status never answers null for the string fields of spec 4.1: a key without expiry, email or project omits them', async () => {
    const key = await host.newKey();
    const data = json(await call(host.app, { url: '/v2/key-status', key })).data as Record<string, unknown>;
    for (const field of ['expiresAt', 'email', 'project']) expect(data, field).not.toHaveProperty(field);
    for (const [field, value] of Object.entries(data)) expect(value, field).not.toBeNull();
  });

  it('an unknown route is a 404 route_not_found JSON error (with or without a key, any method)', async () => {
    for (const [method, url] of [['GET', '/nope'], ['POST', '/v2/auto/nope'], ['GET', '/v3/ping'], ['PUT', '/v2/auto/nope/x'], ['PATCH', '/v2/nothing']] as const) {
      const response = await call(host.app, { method, url, key: pro });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.headers['content-type']).toMatch(/application\/json/);
      expect(errorCode(response)).toBe('route_not_found');
    }
    const anonymous = await call(host.app, { url: '/nowhere' });
    expect(anonymous.statusCode).toBe(404);
    expect(errorCode(anonymous)).toBe('route_not_found');
  });

  it('GET /openapi.json serves the OpenAPI 3.1 document of the routes', async () => {
    const response = await call(host.app, { url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body.openapi).toBe('3.1.0');
    const paths = Object.keys(body.paths as Record<string, unknown>);
    for (const route of AUTO_ROUTES) expect(paths, route.path).toContain(route.path);
  });
});

describe('rate limit (60 a minute for free, per key, on Auto routes)', () => {
  it('the 61st Auto request of a free key within a minute is a 429 with retry-after and x-ratelimit-* headers', async () => {
    const limited = await testHost();
    try {
      const key = await limited.newKey({ plan: 'free' });
      for (let i = 1; i <= 60; i += 1) {
        const response = await call(limited.app, { url: '/v2/auto/exchanges', key });
        expect(response.statusCode).toBe(200);
        expect(response.headers['x-ratelimit-limit']).toBe('60');
        expect(response.headers['x-ratelimit-remaining']).toBe(String(60 - i));
      }
      const refused = await call(limited.app, { url: '/v2/auto/queries', key });
      expect(refused.statusCode).toBe(429);
      expect(errorCode(refused)).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['x-ratelimit-limit']).toBe('60');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      // Not an Auto route: key-status is not rate limited.
      expect((await call(limited.app, { url: '/v2/key-status', key })).statusCode).toBe(200);
      // Per key: another free key is not affected.
      const other = await limited.newKey({ plan: 'free' });
      expect((await call(limited.app, { url: '/v2/auto/exchanges', key: other })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  // Regression: the router decodes percent-escapes, so the rate limiter judges the matched route
  // (isAutoRequest), not the raw URL: `/v2/%61uto/...` is limited like `/v2/auto/...`.
  it('a percent-encoded spelling of /v2/auto is rate limited too', async () => {
    const limited = await testHost();
    try {
      const key = await limited.newKey({ plan: 'free' });
      const statuses: number[] = [];
      for (let i = 0; i < 61; i += 1) statuses.push((await call(limited.app, { url: '/v2/%61uto/exchanges', key })).statusCode);
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await limited.close();
    }
  });

  // As under @fastify/rate-limit, which bounded routes only: a path no route serves is a 404 each time, never a 429.
  it('a path under /v2/auto that no route serves is a 404 each time, neither counted nor marked', async () => {
    const limited = await testHost();
    try {
      const key = await limited.newKey({ plan: 'free' });
      for (let i = 0; i < 62; i += 1) {
        const response = await call(limited.app, { url: '/v2/auto/no-such-route', key });
        expect(response.statusCode).toBe(404);
        expect(response.headers['x-ratelimit-limit']).toBeUndefined();
      }
      // The key's own window is untouched.
      expect((await call(limited.app, { url: '/v2/auto/exchanges', key })).headers['x-ratelimit-remaining']).toBe('59');
    } finally {
      await limited.close();
    }
  });

  it('a pro key has 120 a minute', async () => {
    const response = await call(host.app, { url: '/v2/auto/exchanges', key: await host.newKey({ plan: 'pro' }) });
    expect(response.headers['x-ratelimit-limit']).toBe('120');
  });
});

describe('quotas', () => {
  const day = () => new Date().toISOString().slice(0, 10);

  it('the 1,001st request of a day of a free key is a 429 daily_quota_exceeded with retry-after', async () => {
    const key = await host.newKey({ plan: 'free' });
    host.store.db.prepare('INSERT INTO usage_days (key_id, day, requests) VALUES (?, ?, ?)').run(key.record.id, day(), 999);
    const last = await call(host.app, { url: '/v2/key-status', key });
    expect(last.statusCode).toBe(200);
    expect(at(json(last), 'data', 'remainingRequests', 'daily')).toBe(0);
    const refused = await call(host.app, { url: '/v2/key-status', key });
    expect(refused.statusCode).toBe(429);
    expect(errorCode(refused)).toBe('daily_quota_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(86_400);
    const auto = await call(host.app, { url: '/v2/auto/queries', key });
    expect(auto.statusCode).toBe(429);
  });

  it('the daily quota also counts through countRequest', async () => {
    const key = await host.newKey({ plan: 'free' });
    for (let i = 0; i < 1_000; i += 1) host.store.countRequest(key.record.id, day());
    const refused = await call(host.app, { url: '/v2/auto/exchanges', key });
    expect(refused.statusCode).toBe(429);
    expect(errorCode(refused)).toBe('daily_quota_exceeded');
  });

  it('a free key past 20,000 requests in a month is a 429 monthly_quota_exceeded; a pro key has an overage', async () => {
    const fixed = Date.parse('2026-03-15T12:00:00Z');
    const clocked = await testHost({ now: () => fixed });
    try {
      const free = await clocked.newKey({ plan: 'free' });
      const insert = clocked.store.db.prepare('INSERT INTO usage_days (key_id, day, requests) VALUES (?, ?, ?)');
      insert.run(free.record.id, '2026-03-02', 20_000);
      const refused = await call(clocked.app, { url: '/v2/key-status', key: free });
      expect(refused.statusCode).toBe(429);
      expect(errorCode(refused)).toBe('monthly_quota_exceeded');
      // Another month does not count.
      const lastMonth = await clocked.newKey({ plan: 'free' });
      insert.run(lastMonth.record.id, '2026-02-27', 20_000);
      expect((await call(clocked.app, { url: '/v2/key-status', key: lastMonth })).statusCode).toBe(200);

      const pro = await clocked.newKey({ plan: 'pro' });
      insert.run(pro.record.id, '2026-03-01', 1_000_000);
      const inOverage = await call(clocked.app, { url: '/v2/key-status', key: pro });
      expect(inOverage.statusCode).toBe(200);
      expect(at(json(inOverage), 'data', 'remainingRequests', 'monthly')).toBe(0);
      clocked.store.db.prepare('UPDATE usage_days SET requests = ? WHERE key_id = ? AND day = ?').run(1_100_000, pro.record.id, '2026-03-01');
      // Counts live in memory between flushes: an operator's change to the store is picked up after forget().
      await clocked.context.usage.forget(pro.record.id);
      const pastOverage = await call(clocked.app, { url: '/v2/key-status', key: pro });
      expect(pastOverage.statusCode).toBe(429);
      expect(errorCode(pastOverage)).toBe('monthly_quota_exceeded');
    } finally {
      await clocked.close();
    }
  });
});

describe('body limit', () => {
  it('a body over config.bodyLimit is a 413 body_too_large', async () => {
    const small = await testHost({ config: { bodyLimit: 512 } });
    try {
      const key = await small.newKey();
      const big = notifyQuery(1, { description: 'x'.repeat(1_000) });
      for (const url of ['/v2/auto/queries/validate', '/v2/auto/queries', '/v2/auto/queries/drafts', '/v2/auto/queries/preview']) {
        const response = await call(small.app, { method: 'POST', url, key, body: big });
        expect(response.statusCode, url).toBe(413);
        expect(errorCode(response)).toBe('body_too_large');
      }
      const fits = await call(small.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body: notifyQuery() });
      expect(fits.statusCode).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('GET /ready (readiness)', () => {
  it('answers 200 without a key: the store answers, and what this host runs (no cluster fields on SQLite)', async () => {
    const response = await call(host.app, { method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body).toMatchObject({ status: 'ready', store: { kind: 'sqlite', ok: true } });
    expect(typeof body.queries).toBe('number');
    expect(body.nodeId).toBeUndefined();
  });

  it('answers 503 when the store does not answer', async () => {
    const store = host.context.store as { keyById(id: number): unknown };
    const keyById = store.keyById.bind(store);
    store.keyById = () => {
      throw new Error('database is locked');
    };
    try {
      const response = await call(host.app, { method: 'GET', url: '/ready' });
      expect(response.statusCode).toBe(503);
      expect(json(response)).toMatchObject({ status: 'unavailable', store: { kind: 'sqlite', ok: false } });
    } finally {
      store.keyById = keyById;
    }
  });
});
