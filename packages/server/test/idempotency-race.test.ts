import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, json, notifyQuery, testHost, type TestHost } from './support/host.js';

// Retries of one create sent at the same time (a client that times out and retries at once): the
// store keeps one query, every other copy replays its answer; none is a 500.

let host: TestHost;
beforeAll(async () => {
  host = await testHost();
});
afterAll(() => host.close());

describe('one Idempotency-Key, sent several times at once', () => {
  it('creates one query: one 201, the others 200 with the same answer, one charge', async () => {
    const key = await host.newKey();
    const body = notifyQuery(654_321);
    expect((await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body })).statusCode).toBe(200);
    const copies = await Promise.all(
      Array.from({ length: 6 }, () => call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body, headers: { 'idempotency-key': 'same-retry' } })),
    );
    const statuses = copies.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 201]);
    const ids = new Set(copies.map((response) => json(response).queryId));
    expect(ids.size).toBe(1);
    const list = json(await call(host.app, { url: '/v2/auto/queries', key }));
    expect((list.queries as unknown[]).length).toBe(1);
  });
});
