import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { ACTIONS, at, call, errorCode, ISO, json, notifyQuery, queryWith, testHost, type TestHost, UUID } from './support/host.js';

/** docs/http-api.md: drafts (upsert, list, read, delete, validate, convert, preview) and preview. */

let host: TestHost;

beforeAll(async () => {
  host = await testHost();
});
afterAll(() => host.close());

const upsert = (key: CreatedKey, body: unknown, draftId?: string, signed = false) =>
  call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts${draftId === undefined ? '' : `?draftId=${encodeURIComponent(draftId)}`}`, key, body, signed });

/** A new draft (signed: trade drafts need it, and a signature is accepted on the others). */
async function newDraft(key: CreatedKey, body: unknown = notifyQuery(1_000_000)): Promise<string> {
  const response = await upsert(key, body, undefined, true);
  expect(response.statusCode).toBe(200);
  return json(response).draftId as string;
}

const INVALID = { title: 'broken', query: { conditions: { AND: [{ source: 'price', method: 'current', args: {}, operator: '>', value: 'high' }] }, actions: [] } };

describe('POST /v2/auto/queries/drafts (upsert)', () => {
  it('creates: {draftId, created: true, createdAt, updatedAt, validation (spec 2.4)}', async () => {
    const key = await host.newKey();
    const response = await upsert(key, notifyQuery(5, { title: 'first' }));
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-svc-credits-used']).toBe('0');
    const body = json(response);
    expect(Object.keys(body).sort()).toEqual(['created', 'createdAt', 'draftId', 'updatedAt', 'validation']);
    expect(body.draftId).toMatch(UUID);
    expect(body.created).toBe(true);
    expect(body.createdAt).toMatch(ISO);
    expect(body.updatedAt).toBe(body.createdAt);
    expect(body.validation).toMatchObject({ valid: true, errors: [], warnings: [], estimatedCost: { credits: 5, price: '$0.045' } });
  });

  it('updates with ?draftId=: created false, same createdAt, the new request stored', async () => {
    const key = await host.newKey();
    const draftId = await newDraft(key, notifyQuery(5, { title: 'v1' }));
    const before = json(await call(host.app, { url: `/v2/auto/queries/drafts/${draftId}`, key }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await upsert(key, notifyQuery(6, { title: 'v2' }), draftId);
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body).toMatchObject({ draftId, created: false, createdAt: before.createdAt });
    expect(String(body.updatedAt) > String(before.updatedAt)).toBe(true);
    const read = json(await call(host.app, { url: `/v2/auto/queries/drafts/${draftId}`, key }));
    expect(at(read, 'request', 'title')).toBe('v2');
  });

  it('an invalid draft is stored, with its findings in validation', async () => {
    const key = await host.newKey();
    const response = await upsert(key, INVALID);
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(at(body, 'validation', 'valid')).toBe(false);
    expect((at(body, 'validation', 'errors') as string[]).length).toBeGreaterThan(0);
    const read = json(await call(host.app, { url: `/v2/auto/queries/drafts/${body.draftId as string}`, key }));
    expect(read.request).toEqual(INVALID);
  });

  it('404 for an unknown or another key\'s ?draftId=; 400 for a body that is not an object or bad JSON', async () => {
    const [owner, stranger] = [await host.newKey(), await host.newKey()];
    const draftId = await newDraft(owner);
    for (const [key, id] of [[owner, randomUUID()], [stranger, draftId]] as const) {
      const response = await upsert(key, notifyQuery(), id);
      expect(response.statusCode).toBe(404);
      expect(errorCode(response)).toBe('not_found');
    }
    const notObject = await call(host.app, { method: 'POST', url: '/v2/auto/queries/drafts', key: owner, raw: '"draft"' });
    expect(notObject.statusCode).toBe(400);
    expect(errorCode(notObject)).toBe('invalid_request');
    const bad = await call(host.app, { method: 'POST', url: '/v2/auto/queries/drafts', key: owner, raw: '{"query"' });
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe('invalid_json');
  });
});

describe('GET, DELETE /v2/auto/queries/drafts[/{id}]', () => {
  it('read: {draftId, request, createdAt, updatedAt, convertedQueryId}', async () => {
    const key = await host.newKey();
    const body = notifyQuery(7, { title: 'read me', description: 'details' });
    const draftId = await newDraft(key, body);
    const response = await call(host.app, { url: `/v2/auto/queries/drafts/${draftId}`, key });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ draftId, request: body, createdAt: expect.stringMatching(ISO) as string, updatedAt: expect.stringMatching(ISO) as string, convertedQueryId: null });
  });

  it('list: {drafts: [{draftId, title, tradeFlavoured, createdAt, updatedAt, convertedQueryId}]}, most recently updated first', async () => {
    const key = await host.newKey();
    const first = await newDraft(key, notifyQuery(1, { title: 'one' }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await newDraft(key, queryWith(ACTIONS.marketOrder()));
    const response = await call(host.app, { url: '/v2/auto/queries/drafts', key });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body).not.toHaveProperty('nextCursor');
    const drafts = body.drafts as Array<Record<string, unknown>>;
    expect(drafts.map((draft) => draft.draftId)).toEqual([second, first]);
    expect(Object.keys(drafts[0] ?? {}).sort()).toEqual(['convertedQueryId', 'createdAt', 'draftId', 'title', 'tradeFlavoured', 'updatedAt']);
    expect(drafts[0]).toMatchObject({ title: 'one action', tradeFlavoured: true, convertedQueryId: null });
    expect(drafts[1]).toMatchObject({ title: 'one', tradeFlavoured: false });
  });

  it('list pages without gaps or duplicates (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 1, max: 6 }), async (count, limit) => {
        const key = await host.newKey();
        const time = new Date('2026-01-01T00:00:00Z').toISOString();
        const ids: string[] = [];
        for (let index = 0; index < count; index += 1) {
          const id = randomUUID();
          ids.push(id);
          host.store.upsertDraft({ id, keyId: key.record.id, request: { query: { conditions: { AND: [] }, actions: [] } } as never, tradeFlavoured: false, createdAt: time, updatedAt: time, convertedQueryId: null });
        }
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = json(await call(host.app, { url: `/v2/auto/queries/drafts?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, key }));
          seen.push(...(page.drafts as Array<Record<string, unknown>>).map((draft) => draft.draftId as string));
          cursor = page.nextCursor as string | undefined;
        } while (cursor !== undefined);
        expect(seen).toEqual([...ids].sort().reverse());
      }),
      { numRuns: 25 },
    );
  });

  // Regression: drafts used to be listed by updated_at, so a draft updated while a client paged moved in
  // front of the cursor and was skipped. They are listed by creation now (docs/http-api.md).
  it('a draft updated while paging is not skipped', async () => {
    const key = await host.newKey();
    const ids: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      ids.push(await newDraft(key, notifyQuery(index + 2)));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const first = json(await call(host.app, { url: '/v2/auto/queries/drafts?limit=2', key }));
    const seen = (first.drafts as Array<Record<string, unknown>>).map((draft) => draft.draftId);
    expect((await upsert(key, notifyQuery(99), ids[0])).statusCode).toBe(200);
    const second = json(await call(host.app, { url: `/v2/auto/queries/drafts?limit=2&cursor=${String(first.nextCursor)}`, key }));
    seen.push(...(second.drafts as Array<Record<string, unknown>>).map((draft) => draft.draftId));
    expect([...seen].sort()).toEqual([...ids].sort());
  });

  it('delete: {id, deletedAt}; then 404 everywhere (deleted for good)', async () => {
    const key = await host.newKey();
    const draftId = await newDraft(key);
    const response = await call(host.app, { method: 'DELETE', url: `/v2/auto/queries/drafts/${draftId}`, key });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ id: draftId, deletedAt: expect.stringMatching(ISO) as string });
    for (const [method, url] of [
      ['GET', `/v2/auto/queries/drafts/${draftId}`],
      ['DELETE', `/v2/auto/queries/drafts/${draftId}`],
      ['POST', `/v2/auto/queries/drafts/${draftId}/validate`],
      ['POST', `/v2/auto/queries/drafts/${draftId}/convert`],
      ['POST', `/v2/auto/queries/drafts/${draftId}/preview`],
      ['GET', `/v2/auto/queries/${draftId}`],
    ] as const) {
      const gone = await call(host.app, { method, url, key });
      expect(gone.statusCode, `${method} ${url}`).toBe(404);
      expect(errorCode(gone)).toBe('not_found');
    }
    expect(host.store.draftById(draftId)).toBeUndefined();
  });

  it('404 for another key\'s draft on every draft route', async () => {
    const [owner, stranger] = [await host.newKey(), await host.newKey()];
    const draftId = await newDraft(owner);
    for (const [method, url] of [
      ['GET', `/v2/auto/queries/drafts/${draftId}`],
      ['DELETE', `/v2/auto/queries/drafts/${draftId}`],
      ['POST', `/v2/auto/queries/drafts/${draftId}/validate`],
      ['POST', `/v2/auto/queries/drafts/${draftId}/convert`],
      ['POST', `/v2/auto/queries/drafts/${draftId}/preview`],
    ] as const) {
      const response = await call(host.app, { method, url, key: stranger });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await call(host.app, { url: `/v2/auto/queries/drafts/${draftId}`, key: owner })).statusCode).toBe(200);
  });
});

describe('draft validate, convert, preview', () => {
  it('validate: spec 2.4 of the stored draft, valid or not', async () => {
    const key = await host.newKey();
    const good = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${await newDraft(key)}/validate`, key });
    expect(good.statusCode).toBe(200);
    expect(json(good)).toMatchObject({ valid: true, errors: [], warnings: [], estimatedCost: { credits: 5, price: '$0.045' }, simulationLlmCallsEstimate: expect.any(Object) as object });
    const bad = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${await newDraft(key, INVALID)}/validate`, key });
    expect(bad.statusCode).toBe(200);
    expect(json(bad).valid).toBe(false);
  });

  it('convert: 201 spec 2.5 without a validate call, charging the estimate; then 409 draft_converted', async () => {
    const key = await host.newKey();
    const draftId = await newDraft(key, notifyQuery(1_000_000, { title: 'to convert' }));
    const response = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${draftId}/convert`, key });
    expect(response.statusCode).toBe(201);
    const body = json(response);
    expect(body).toEqual({ queryId: expect.stringMatching(UUID) as string, status: 'active', estimatedCredits: 5, simulationLlmCallsEstimate: expect.any(Object) as object });
    expect(response.headers['x-svc-credits-used']).toBe('5');
    const queryId = body.queryId as string;

    const polled = json(await call(host.app, { url: `/v2/auto/queries/${queryId}`, key }));
    expect(polled).toMatchObject({ queryId, status: 'active', title: 'to convert' });
    const listed = json(await call(host.app, { url: '/v2/auto/queries', key })).queries as Array<Record<string, unknown>>;
    expect(listed).toEqual([expect.objectContaining({ queryId, fromDraft: draftId })]);
    expect(json(await call(host.app, { url: `/v2/auto/queries/drafts/${draftId}`, key })).convertedQueryId).toBe(queryId);
    // Polled by its draft id, a converted draft answers as the query it became.
    expect(json(await call(host.app, { url: `/v2/auto/queries/${draftId}`, key }))).toMatchObject({ queryId, draftId, status: 'active' });

    const again = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${draftId}/convert`, key });
    expect(again.statusCode).toBe(409);
    expect(errorCode(again)).toBe('draft_converted');
    expect(again.headers['x-svc-credits-used']).toBe('0');
    const update = await upsert(key, notifyQuery(3), draftId);
    expect(update.statusCode).toBe(409);
    expect(errorCode(update)).toBe('draft_converted');
  });

  it('convert of an invalid draft is a 409 draft_invalid with the findings', async () => {
    const key = await host.newKey();
    const response = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${await newDraft(key, INVALID)}/convert`, key });
    expect(response.statusCode).toBe(409);
    expect(errorCode(response)).toBe('draft_invalid');
    expect((at(json(response), 'error', 'details', 'errors') as string[]).length).toBeGreaterThan(0);
  });

  it('convert of a trade draft follows the trade preflight', async () => {
    const key = await host.newKey();
    const draftId = await newDraft(key, queryWith(ACTIONS.marketOrder()));
    const early = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${draftId}/convert`, key, signed: true });
    expect(early.statusCode).toBe(409);
    expect(errorCode(early)).toBe('check_exchanges_first');
    await call(host.app, { url: '/v2/auto/exchanges', key });
    const converted = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${draftId}/convert`, key, signed: true });
    expect(converted.statusCode).toBe(201);
  });

  it('preview of a stored draft: the preview result; of an invalid one, 409 draft_invalid', async () => {
    const key = await host.newKey();
    const response = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${await newDraft(key, notifyQuery(50_000))}/preview`, key });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body).toMatchObject({ triggered: true, status: 'triggered' });
    for (const field of ['trigger', 'triggers', 'timeline', 'executions']) expect(body).toHaveProperty(field);
    const invalid = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${await newDraft(key, INVALID)}/preview`, key });
    expect(invalid.statusCode).toBe(409);
    expect(errorCode(invalid)).toBe('draft_invalid');
  });
});

describe('POST /v2/auto/queries/preview', () => {
  it('body {query}: {triggered, trigger, triggers, timeline, executions (dry run), status}', async () => {
    const key = await host.newKey();
    const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries/preview', key, body: { query: notifyQuery(50_000).query } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-svc-credits-used']).toBe('0');
    const body = json(response);
    expect(body).toMatchObject({ triggered: true, status: 'triggered' });
    expect(at(body, 'trigger', 'at')).toMatch(ISO);
    expect((body.triggers as unknown[]).length).toBe(1);
    expect(Array.isArray(body.timeline)).toBe(true);
    expect(body.executions).toEqual([expect.objectContaining({ type: 'notify', status: 'succeeded' })]);
    // Dry run: nothing was created or notified.
    expect(json(await call(host.app, { url: '/v2/auto/queries', key })).queries).toEqual([]);
    expect(json(await call(host.app, { url: '/v2/auto/executions', key })).executions).toEqual([]);
  });

  it('a query that never holds on the recording does not trigger', async () => {
    const key = await host.newKey();
    const body = json(await call(host.app, { method: 'POST', url: '/v2/auto/queries/preview', key, body: { query: notifyQuery(10_000_000).query } }));
    expect(body.triggered).toBe(false);
    expect(body.triggers).toEqual([]);
  });

  it('from and to bound the replay', async () => {
    const key = await host.newKey();
    const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries/preview?from=2026-01-06T12:00:00Z&to=2026-01-06T13:00:00Z', key, body: { query: notifyQuery(50_000).query } });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body.from).toBe('2026-01-06T12:00:00.000Z');
    expect(body.to).toBe('2026-01-06T13:00:00.000Z');
    const firedAt = Date.parse(at(body, 'trigger', 'at') as string);
    expect(firedAt).toBeGreaterThanOrEqual(Date.parse('2026-01-06T12:00:00Z'));
    expect(firedAt).toBeLessThanOrEqual(Date.parse('2026-01-06T13:00:00Z'));
  });

  it('order steps trade on paper: fee, slippage and deposit in the query string, the report under paper; out of range is a 400', async () => {
    const key = await host.newKey();
    const query = {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] },
      actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', amountUsd: 1000, stopLoss: { percent: 50 } } }],
      expiresIn: '1d',
    };
    const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries/preview?fee=0.1&slippage=0.05&deposit=5000', key, body: { query } });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body.paper).toMatchObject({ depositUsd: 5000, feeRate: 0.001, slippage: 0.0005, trades: [expect.objectContaining({ side: 'long', open: true })] });
    const fill = (at(body, 'paper', 'fills') as Array<{ price: number; feeUsd: number; amount: number }>)[0];
    expect(fill?.feeUsd).toBeCloseTo((fill?.amount ?? 0) * (fill?.price ?? 0) * 0.001, 9);
    // Nothing was placed anywhere: the host's own paper venue saw no order.
    expect(json(await call(host.app, { url: '/v2/auto/executions', key })).executions).toEqual([]);
    for (const bad of ['fee=-1', 'slippage=11', 'deposit=0', 'fee=abc']) {
      const refused = await call(host.app, { method: 'POST', url: `/v2/auto/queries/preview?${bad}`, key, body: { query } });
      expect(refused.statusCode, bad).toBe(400);
    }
  });

  it('400: an invalid query (invalid_query with details), a missing query, a non-object body, bad from/to, unknown parameters', async () => {
    const key = await host.newKey();
    const invalid = await call(host.app, { method: 'POST', url: '/v2/auto/queries/preview', key, body: { query: INVALID.query } });
    expect(invalid.statusCode).toBe(400);
    expect(errorCode(invalid)).toBe('invalid_query');
    expect((at(json(invalid), 'error', 'details', 'errors') as string[]).length).toBeGreaterThan(0);
    for (const [url, body] of [
      ['/v2/auto/queries/preview', { title: 'no query' }],
      ['/v2/auto/queries/preview', ['not', 'an', 'object']],
      ['/v2/auto/queries/preview', { query: 'text' }],
      ['/v2/auto/queries/preview?from=yesterday', { query: notifyQuery().query }],
      ['/v2/auto/queries/preview?to=2026-99-99', { query: notifyQuery().query }],
      ['/v2/auto/queries/preview?from=2026-01-06T13:00:00Z&to=2026-01-06T12:00:00Z', { query: notifyQuery().query }],
      ['/v2/auto/queries/preview?speed=2', { query: notifyQuery().query }],
    ] as const) {
      const response = await call(host.app, { method: 'POST', url, key, body });
      expect(response.statusCode, `${url} ${JSON.stringify(body)}`).toBe(400);
      errorCode(response);
    }
  });
});
