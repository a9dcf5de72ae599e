import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/auth/api-keys.js';
import type { QueryRecord, QueryStatus } from '../src/store/records.js';
import { ACTIONS, at, call, errorCode, eventually, ISO, json, notifyQuery, queryWith, testHost, type TestHost, UUID } from './support/host.js';

/**
 * docs/http-api.md, "Call order" and the query routes: validate, create (call order, idempotency,
 * trade preflight, caps, credits), poll, cancel, delete and the list with its paging.
 */

let host: TestHost;

beforeAll(async () => {
  host = await testHost({ config: { exchanges: ['binance'] } });
});
afterAll(() => host.close());

const validate = (key: CreatedKey, body: unknown) => call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body });
const create = (key: CreatedKey, body: unknown, extra: { headers?: Record<string, string>; signed?: boolean } = {}) =>
  call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body, ...extra });
const poll = (key: CreatedKey, id: string) => call(host.app, { url: `/v2/auto/queries/${id}`, key });

/** Validates then creates; gives the query id. */
async function created(key: CreatedKey, body: Record<string, unknown> = notifyQuery(1_000_000)): Promise<string> {
  expect((await validate(key, body)).statusCode).toBe(200);
  const response = await create(key, body);
  expect(response.statusCode).toBe(201);
  return json(response).queryId as string;
}

const SPEEDS = { fast: expect.any(Number) as number, expert: expect.any(Number) as number, adaptive: expect.any(Number) as number };
const ESTIMATE = {
  conditionCallsUpperBound: expect.any(Number) as number,
  actionCallsUpperBound: expect.any(Number) as number,
  conditionCallsBySpeed: SPEEDS,
  actionCallsBySpeed: SPEEDS,
};

describe('POST /v2/auto/queries/validate (spec 2.4)', () => {
  it('a valid request: valid, errors, warnings, the LLM estimate, the cost and diagnostics', async () => {
    const key = await host.newKey();
    const response = await validate(key, notifyQuery());
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-svc-credits-used']).toBe('0');
    const body = json(response);
    expect(body).toEqual({ valid: true, errors: [], warnings: [], simulationLlmCallsEstimate: ESTIMATE, estimatedCost: { credits: 5, price: '$0.045' }, diagnostics: [] });
  });

  it('an invalid request is a 200 with valid: false and its findings (no estimate)', async () => {
    const key = await host.newKey();
    const response = await validate(key, { query: { conditions: { AND: [] }, actions: [] } });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body.valid).toBe(false);
    expect((body.errors as string[]).length).toBeGreaterThan(0);
    expect(body.errors).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(Array.isArray(body.warnings)).toBe(true);
    expect(body).not.toHaveProperty('estimatedCost');
    expect(body).not.toHaveProperty('simulationLlmCallsEstimate');
    expect((body.diagnostics as unknown[]).length).toBeGreaterThan(0);
  });

  it('an operator spelled as elsewhere (=>, ≤, crosses above) gets a did-you-mean and a fix, as in the text form', async () => {
    const key = await host.newKey();
    for (const [written, meant] of [['=>', '>='], ['≤', '<='], ['<>', '!='], ['crosses above', 'crosses_above']] as const) {
      const request = notifyQuery() as { query: { conditions: { AND: Array<Record<string, unknown>> } } };
      (request.query.conditions.AND[0] as Record<string, unknown>).operator = written;
      const body = json(await validate(key, request));
      expect(body.valid).toBe(false);
      const diagnostic = (body.diagnostics as Array<{ code: string; message: string; fix?: { edits: unknown[] } }>).find((d) => d.code === 'unknown-operator');
      expect(diagnostic?.message, written).toContain(`(did you mean "${meant}"?)`);
      expect(diagnostic?.fix?.edits).toEqual([{ op: 'replace', path: '/query/conditions/AND/0/operator', value: meant }]);
    }
  });

  it('a body that is not a JSON object is a 400 invalid_request', async () => {
    const key = await host.newKey();
    for (const raw of ['[]', '"query"', '42', 'null', 'true']) {
      const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, raw });
      expect(response.statusCode, raw).toBe(400);
      expect(errorCode(response)).toBe('invalid_request');
    }
  });

  it('an empty body is a 400', async () => {
    const key = await host.newKey();
    const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, raw: '' });
    expect(response.statusCode).toBe(400);
    errorCode(response);
  });

  it('bad JSON is a 400 invalid_json', async () => {
    const key = await host.newKey();
    for (const raw of ['{', '{"query": }', "{'query': 1}", '{"a":1}}']) {
      const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, raw });
      expect(response.statusCode, raw).toBe(400);
      expect(errorCode(response)).toBe('invalid_json');
    }
  });

  it('writes a validation to the store once per key and request in 10 minutes, and again after', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const timed = await testHost({ now: () => clock });
    try {
      const writes: string[] = [];
      const remember = timed.store.rememberValidation.bind(timed.store);
      timed.store.rememberValidation = (keyId, hash, at) => {
        writes.push(`${keyId} ${at}`);
        return remember(keyId, hash, at);
      };
      const [first, second] = [await timed.newKey(), await timed.newKey()];
      const send = (key: CreatedKey, raw: string) => call(timed.app, { method: 'POST', url: '/v2/auto/queries/validate', key, raw });
      const text = JSON.stringify(notifyQuery(1_000_000));
      const spaced = JSON.stringify(notifyQuery(1_000_000), null, 2);
      for (const response of [await send(first, text), await send(first, text), await send(second, text), await send(first, spaced)]) expect(response.statusCode).toBe(200);
      // The same request again is not written, whatever its spelling (validation-memo.test.ts); another key's is.
      expect(writes).toEqual([`${first.record.id} 2026-01-01T00:00:00.000Z`, `${second.record.id} 2026-01-01T00:00:00.000Z`]);
      clock += 600_001;
      expect((await send(first, text)).statusCode).toBe(200);
      expect(writes.at(-1)).toBe(`${first.record.id} 2026-01-01T00:10:00.001Z`);
      expect(writes).toHaveLength(3);
      // What was written counts for create.
      const createdResponse = await call(timed.app, { method: 'POST', url: '/v2/auto/queries', key: second, raw: text });
      expect(createdResponse.statusCode).toBe(201);
    } finally {
      await timed.close();
    }
  });

  it('a body that nests absurdly deep is a 400, not a crash', async () => {
    const key = await host.newKey();
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    for (const url of ['/v2/auto/queries/validate', '/v2/auto/queries', '/v2/auto/queries/drafts', '/v2/auto/queries/preview']) {
      const response = await call(host.app, { method: 'POST', url, key, raw: `{"query":{"conditions":{"AND":[]},"actions":[]},"title":${deep}}` });
      expect(response.statusCode, url).toBe(400);
      expect(errorCode(response)).toBe('invalid_request');
    }
  });

  it('a non-JSON content type is a 415', async () => {
    const key = await host.newKey();
    const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, raw: 'query=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response.statusCode).toBe(415);
    expect(errorCode(response)).toBe('unsupported_media_type');
  });

  it('a JSON body sent as text/plain is a 415 that names the type to send, not a schema error', async () => {
    const key = await host.newKey();
    for (const type of ['text/plain', 'text/plain; charset=utf-8']) {
      const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, raw: JSON.stringify(notifyQuery(1_000_000)), headers: { 'content-type': type } });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toMatchObject({ error: { code: 'unsupported_media_type', message: 'send the body as application/json' } });
    }
  });
});

describe('POST /v2/auto/queries (create, spec 2.5 and 3)', () => {
  it('answers 409 validate_first until the same request was validated, then 201 with spec 2.5', async () => {
    const key = await host.newKey();
    const body = notifyQuery(1_000_000);
    const early = await create(key, body);
    expect(early.statusCode).toBe(409);
    expect(errorCode(early)).toBe('validate_first');
    expect(early.headers['x-svc-credits-used']).toBe('0');
    // Validating an invalid body does not count; validating another body does not count.
    expect(json(await validate(key, notifyQuery(999))).valid).toBe(true);
    expect((await create(key, body)).statusCode).toBe(409);

    const validated = await validate(key, body);
    const estimate = json(validated).estimatedCost as { credits: number };
    const response = await create(key, body);
    expect(response.statusCode).toBe(201);
    const result = json(response);
    expect(result).toEqual({ queryId: expect.stringMatching(UUID) as string, status: 'active', estimatedCredits: estimate.credits, simulationLlmCallsEstimate: ESTIMATE });
    expect(response.headers['x-svc-credits-used']).toBe(String(estimate.credits));
  });

  it('"the same request" ignores key order and whitespace', async () => {
    const key = await host.newKey();
    const body = notifyQuery(123_456);
    await validate(key, body);
    const reordered = `{ "query" : ${JSON.stringify(body.query, null, 2)},\n "title": ${JSON.stringify(body.title)} }`;
    const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, raw: reordered });
    expect(response.statusCode).toBe(201);
  });

  it('a validation by another key does not count', async () => {
    const [one, two] = [await host.newKey(), await host.newKey()];
    const body = notifyQuery(424_242);
    await validate(one, body);
    const response = await create(two, body);
    expect(response.statusCode).toBe(409);
    expect(errorCode(response)).toBe('validate_first');
  });

  it('x-svc-credits-used is the estimate of the validate call (an llm action costs more)', async () => {
    const key = await host.newKey();
    const body = queryWith({ stepId: 'a', type: 'llm', params: { prompt: 'what now?', speed: 'expert' } });
    const estimate = (json(await validate(key, body)).estimatedCost as { credits: number }).credits;
    expect(estimate).toBeGreaterThan(5);
    const response = await create(key, body);
    expect(response.statusCode).toBe(201);
    expect(json(response).estimatedCredits).toBe(estimate);
    expect(response.headers['x-svc-credits-used']).toBe(String(estimate));
  });

  it('an invalid request is a 400 invalid_query with details.errors, warnings and diagnostics', async () => {
    const key = await host.newKey();
    const response = await create(key, { query: { conditions: { AND: [{ source: 'price' }] }, actions: [ACTIONS.notify] } });
    expect(response.statusCode).toBe(400);
    expect(errorCode(response)).toBe('invalid_query');
    const details = at(json(response), 'error', 'details') as Record<string, unknown>;
    expect((details.errors as string[]).length).toBeGreaterThan(0);
    expect(Array.isArray(details.warnings)).toBe(true);
    expect(Array.isArray(details.diagnostics)).toBe(true);
  });

  it('a body that is not an object is a 400 invalid_request; bad JSON a 400 invalid_json', async () => {
    const key = await host.newKey();
    const notObject = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, raw: '[1,2]' });
    expect(notObject.statusCode).toBe(400);
    expect(errorCode(notObject)).toBe('invalid_request');
    const bad = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, raw: '{"query":' });
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe('invalid_json');
  });

  describe('Idempotency-Key', () => {
    it('a retry with the same key and body gives the same query with 200 and charges nothing', async () => {
      const key = await host.newKey();
      const body = notifyQuery(777_777);
      await validate(key, body);
      const first = await create(key, body, { headers: { 'idempotency-key': 'retry-1' } });
      expect(first.statusCode).toBe(201);
      const again = await create(key, body, { headers: { 'idempotency-key': 'retry-1' } });
      expect(again.statusCode).toBe(200);
      expect(json(again)).toEqual(json(first));
      expect(again.headers['x-svc-credits-used']).toBe('0');
      const list = json(await call(host.app, { url: '/v2/auto/queries', key }));
      expect((list.queries as unknown[]).length).toBe(1);
      const status = json(await call(host.app, { url: '/v2/key-status', key }));
      expect(at(status, 'data', 'creditsUsed', 'total')).toBe(5);
    });

    it('the same Idempotency-Key with another body is a 409 idempotency_key_reused', async () => {
      const key = await host.newKey();
      const body = notifyQuery(888_888);
      await validate(key, body);
      expect((await create(key, body, { headers: { 'idempotency-key': 'k' } })).statusCode).toBe(201);
      const other = notifyQuery(888_889);
      await validate(key, other);
      const reused = await create(key, other, { headers: { 'idempotency-key': 'k' } });
      expect(reused.statusCode).toBe(409);
      expect(errorCode(reused)).toBe('idempotency_key_reused');
      // Without the header, or under another Idempotency-Key, it is a new query.
      expect((await create(key, other, { headers: { 'idempotency-key': 'k2' } })).statusCode).toBe(201);
    });

    it('Idempotency-Keys are per API key', async () => {
      const [one, two] = [await host.newKey(), await host.newKey()];
      const body = notifyQuery(999_111);
      for (const key of [one, two]) {
        await validate(key, body);
        const response = await create(key, body, { headers: { 'idempotency-key': 'shared' } });
        expect(response.statusCode).toBe(201);
      }
    });
  });

  describe('trade preflight (spec 3)', () => {
    it('409 check_exchanges_first, then 422 exchange_not_connected, then 201 on paper', async () => {
      const key = await host.newKey();
      const onBinance = queryWith(ACTIONS.marketOrder('binance'));
      const onPaper = queryWith(ACTIONS.marketOrder('paper'));
      for (const body of [onBinance, onPaper]) expect(json(await validate(key, body)).valid).toBe(true);

      const first = await create(key, onPaper, { signed: true });
      expect(first.statusCode).toBe(409);
      expect(errorCode(first)).toBe('check_exchanges_first');

      expect((await call(host.app, { url: '/v2/auto/exchanges', key })).statusCode).toBe(200);
      const unconnected = await create(key, onBinance, { signed: true });
      expect(unconnected.statusCode).toBe(422);
      expect(errorCode(unconnected)).toBe('exchange_not_connected');

      const paper = await create(key, onPaper, { signed: true });
      expect(paper.statusCode).toBe(201);
      expect(json(paper).status).toBe('active');
    });

    it('an llm action with a trade callback is trade-flavoured too', async () => {
      const key = await host.newKey();
      const body = queryWith(ACTIONS.llmTrade);
      await validate(key, body);
      const response = await create(key, body, { signed: true });
      expect(response.statusCode).toBe(409);
      expect(errorCode(response)).toBe('check_exchanges_first');
    });

    it('a notification query needs no exchange check', async () => {
      const key = await host.newKey();
      expect(typeof (await created(key))).toBe('string');
    });
  });

  it('422 too_many_active_queries for a free key at its cap of 100 active queries', async () => {
    const key = await host.newKey({ plan: 'free' });
    insertQueries(key, 100, () => 'active');
    const body = notifyQuery(1_000_000);
    await validate(key, body);
    const refused = await create(key, body);
    expect(refused.statusCode).toBe(422);
    expect(errorCode(refused)).toBe('too_many_active_queries');
    // Terminal queries do not count: with one cancelled, there is room again.
    host.store.db.prepare("UPDATE queries SET status = 'cancelled' WHERE id = (SELECT id FROM queries WHERE key_id = ? LIMIT 1)").run(key.record.id);
    expect((await create(key, body)).statusCode).toBe(201);
  });
});

describe('GET /v2/auto/queries/{id} (poll, spec 2.6)', () => {
  it('a new query: queryId, status, credits, latestEvaluation {evaluatedAt, wouldTriggerNow}, executions', async () => {
    const key = await host.newKey();
    const id = await created(key);
    const response = await poll(key, id);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-svc-credits-used']).toBe('0');
    const body = json(response);
    expect(body).toMatchObject({ queryId: id, status: 'active', credits: 5, executions: [], title: 'BTC above 1000000', triggerCount: 0, lastTriggeredAt: null, cancelledAt: null });
    expect(at(body, 'latestEvaluation', 'evaluatedAt')).toMatch(ISO);
    expect(at(body, 'latestEvaluation', 'wouldTriggerNow')).toBe(false);
    expect(body.createdAt).toMatch(ISO);
    expect(body.expiresAt).toMatch(ISO);
  });

  it('after a price fires a `price.current > 1` notify query: triggered, wouldTriggerNow, its execution', async () => {
    const key = await host.newKey();
    const id = await created(key, notifyQuery(1));
    host.push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 101_000 });
    const body = await eventually(async () => {
      const polled = json(await poll(key, id));
      return polled.status === 'triggered' && (polled.executions as unknown[]).length === 1 && polled;
    });
    expect(at(body, 'latestEvaluation', 'wouldTriggerNow')).toBe(true);
    expect(at(body, 'latestEvaluation', 'evaluatedAt')).toMatch(ISO);
    expect(body.triggerCount).toBe(1);
    expect(body.lastTriggeredAt).toMatch(ISO);
    const [execution] = body.executions as Array<Record<string, unknown>>;
    expect(execution).toMatchObject({ id: expect.any(String) as string, queryId: id, type: 'notify', status: 'succeeded', stepId: 'notify-1', triggerIndex: 1 });
    expect(execution?.createdAt).toMatch(ISO);
    expect(execution).not.toHaveProperty('error');
  });

  it('a draft id not converted yet resolves with kind "draft" and status "draft" (never evaluated: latestEvaluation null)', async () => {
    const key = await host.newKey();
    const draft = json(await call(host.app, { method: 'POST', url: '/v2/auto/queries/drafts', key, body: notifyQuery(5, { title: 'my draft' }) }));
    const response = await poll(key, draft.draftId as string);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({
      queryId: draft.draftId,
      kind: 'draft',
      draftId: draft.draftId,
      status: 'draft',
      credits: 0,
      latestEvaluation: null,
      executions: [],
      title: 'my draft',
      createdAt: draft.createdAt,
      updatedAt: draft.updatedAt,
    });
  });

  it('a converted draft\'s id resolves to the query it became: a status of spec 3, with draftId', async () => {
    const key = await host.newKey();
    const draftId = json(await call(host.app, { method: 'POST', url: '/v2/auto/queries/drafts', key, body: notifyQuery(1_000_000) })).draftId as string;
    const converted = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${draftId}/convert`, key });
    expect(converted.statusCode).toBe(201);
    const queryId = json(converted).queryId as string;
    const body = json(await poll(key, draftId));
    expect(body).toMatchObject({ queryId, draftId, status: 'active' });
    expect(body).not.toHaveProperty('kind');
    expect(body.latestEvaluation).toEqual(expect.objectContaining({ evaluatedAt: expect.stringMatching(ISO) as string }));
  });

  it('404 for an unknown id, another key\'s query or draft, and a deleted query', async () => {
    const [owner, stranger] = [await host.newKey(), await host.newKey()];
    const id = await created(owner);
    const draftId = json(await call(host.app, { method: 'POST', url: '/v2/auto/queries/drafts', key: owner, body: notifyQuery() })).draftId as string;
    for (const [key, target] of [[owner, randomUUID()], [owner, 'not-a-uuid'], [stranger, id], [stranger, draftId]] as const) {
      const response = await poll(key, target);
      expect(response.statusCode).toBe(404);
      expect(errorCode(response)).toBe('not_found');
    }
    await call(host.app, { method: 'POST', url: `/v2/auto/queries/${id}/cancel`, key: owner });
    expect((await call(host.app, { method: 'DELETE', url: `/v2/auto/queries/${id}`, key: owner })).statusCode).toBe(200);
    const deleted = await poll(owner, id);
    expect(deleted.statusCode).toBe(404);
    expect(errorCode(deleted)).toBe('not_found');
  });
});

describe('cancel and delete (spec 2.7 and 3)', () => {
  it('cancel: 200 {id, status: "cancelled", cancelledAt}; again: 409 query_not_active', async () => {
    const key = await host.newKey();
    const id = await created(key);
    const response = await call(host.app, { method: 'POST', url: `/v2/auto/queries/${id}/cancel`, key });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-svc-credits-used']).toBe('0');
    const body = json(response);
    expect(body).toEqual({ id, status: 'cancelled', cancelledAt: expect.stringMatching(ISO) as string });
    const polled = json(await poll(key, id));
    expect(polled.status).toBe('cancelled');
    expect(polled.cancelledAt).toBe(body.cancelledAt);
    const again = await call(host.app, { method: 'POST', url: `/v2/auto/queries/${id}/cancel`, key });
    expect(again.statusCode).toBe(409);
    expect(errorCode(again)).toBe('query_not_active');
  });

  it('cancel of a triggered query is a 409', async () => {
    const key = await host.newKey();
    const id = await created(key, notifyQuery(2));
    host.push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 50 });
    await eventually(async () => json(await poll(key, id)).status === 'triggered');
    const response = await call(host.app, { method: 'POST', url: `/v2/auto/queries/${id}/cancel`, key });
    expect(response.statusCode).toBe(409);
    expect(errorCode(response)).toBe('query_not_active');
    // A triggered query is terminal: it can be deleted.
    expect((await call(host.app, { method: 'DELETE', url: `/v2/auto/queries/${id}`, key })).statusCode).toBe(200);
  });

  it('delete: 409 query_still_active while active; after cancel 200 {id, deletedAt}; then 404 on poll, cancel and delete', async () => {
    const key = await host.newKey();
    const id = await created(key);
    const early = await call(host.app, { method: 'DELETE', url: `/v2/auto/queries/${id}`, key });
    expect(early.statusCode).toBe(409);
    expect(errorCode(early)).toBe('query_still_active');
    await call(host.app, { method: 'POST', url: `/v2/auto/queries/${id}/cancel`, key });
    const deleted = await call(host.app, { method: 'DELETE', url: `/v2/auto/queries/${id}`, key });
    expect(deleted.statusCode).toBe(200);
    expect(json(deleted)).toEqual({ id, deletedAt: expect.stringMatching(ISO) as string });
    for (const [method, url] of [['GET', `/v2/auto/queries/${id}`], ['POST', `/v2/auto/queries/${id}/cancel`], ['DELETE', `/v2/auto/queries/${id}`], ['GET', `/v2/auto/queries/${id}/sessions`]] as const) {
      const response = await call(host.app, { method, url, key });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(errorCode(response)).toBe('not_found');
    }
    // The record is kept, hidden from reads.
    expect(host.store.queryById(id)?.deletedAt).toBe(json(deleted).deletedAt);
    expect((json(await call(host.app, { url: '/v2/auto/queries', key })).queries as unknown[]).length).toBe(0);
  });

  it('404 for unknown ids and another key\'s query', async () => {
    const [owner, stranger] = [await host.newKey(), await host.newKey()];
    const id = await created(owner);
    for (const [key, target] of [[owner, randomUUID()], [stranger, id]] as const) {
      for (const [method, url] of [['POST', `/v2/auto/queries/${target}/cancel`], ['DELETE', `/v2/auto/queries/${target}`]] as const) {
        const response = await call(host.app, { method, url, key, signed: true });
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(errorCode(response)).toBe('not_found');
      }
    }
    expect(json(await poll(owner, id)).status).toBe('active');
  });
});

// ---------------------------------------------------------------- list and paging

const STATUSES: readonly QueryStatus[] = ['active', 'triggered', 'expired', 'cancelled', 'failed'];

/** Stores queries of a key directly (with clashing creation times, so paging must break ties by id). */
function insertQueries(key: CreatedKey, count: number, statusOf: (index: number) => QueryStatus, timeOf: (index: number) => number = (index) => Date.parse('2026-01-01T00:00:00Z') + Math.floor(index / 3) * 1_000): QueryRecord[] {
  const records: QueryRecord[] = [];
  for (let index = 0; index < count; index += 1) {
    const createdAt = new Date(timeOf(index)).toISOString();
    const record: QueryRecord = {
      id: randomUUID(),
      keyId: key.record.id,
      request: { title: `q${index}`, query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'm' } }] } },
      status: statusOf(index),
      tradeFlavoured: false,
      estimatedCredits: 5,
      credits: 5,
      createdAt,
      expiresAt: new Date(timeOf(index) + 86_400_000).toISOString(),
      cancelledAt: null,
      deletedAt: null,
      runtime: null,
      fromDraft: null,
    };
    host.store.insertQuery(record);
    records.push(record);
  }
  return records;
}

async function allPages(key: CreatedKey, limit: number, status?: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1_000; page += 1) {
    const query = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
    const response = await call(host.app, { url: `/v2/auto/queries?${query.toString()}`, key });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    const queries = body.queries as Array<Record<string, unknown>>;
    expect(queries.length).toBeLessThanOrEqual(limit);
    items.push(...queries);
    if (body.nextCursor === undefined) return items;
    expect(queries.length).toBe(limit);
    cursor = body.nextCursor as string;
  }
  throw new Error('paging did not end');
}

describe('GET /v2/auto/queries (list)', () => {
  it('items have {queryId, title, status, credits, tradeFlavoured, createdAt, expiresAt, fromDraft}, newest first, default limit 20', async () => {
    const key = await host.newKey();
    insertQueries(key, 25, () => 'active', (index) => Date.parse('2026-01-01T00:00:00Z') + index * 1_000);
    const body = json(await call(host.app, { url: '/v2/auto/queries', key }));
    const queries = body.queries as Array<Record<string, unknown>>;
    expect(queries).toHaveLength(20);
    expect(typeof body.nextCursor).toBe('string');
    expect(Object.keys(queries[0] ?? {}).sort()).toEqual(['createdAt', 'credits', 'expiresAt', 'fromDraft', 'queryId', 'status', 'title', 'tradeFlavoured']);
    expect(queries[0]).toMatchObject({ title: 'q24', status: 'active', credits: 5, tradeFlavoured: false, fromDraft: null });
    const times = queries.map((query) => String(query.createdAt));
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('limit must be 1 to 100; an unknown status, a foreign cursor or an unknown parameter is a 400', async () => {
    const key = await host.newKey();
    for (const [url, code] of [
      ['/v2/auto/queries?limit=0', 'invalid_request'],
      ['/v2/auto/queries?limit=101', 'invalid_request'],
      ['/v2/auto/queries?limit=ten', 'invalid_request'],
      ['/v2/auto/queries?status=sleeping', 'invalid_request'],
      ['/v2/auto/queries?cursor=bm9wZQ', 'invalid_cursor'],
      ['/v2/auto/queries?colour=red', 'unknown_parameter'],
    ] as const) {
      const response = await call(host.app, { url, key });
      expect(response.statusCode, url).toBe(400);
      expect(errorCode(response)).toBe(code);
    }
    expect((await call(host.app, { url: '/v2/auto/queries?limit=100', key })).statusCode).toBe(200);
  });

  it('the status filter gives exactly the queries of that status', async () => {
    const key = await host.newKey();
    const records = insertQueries(key, 20, (index) => STATUSES[index % STATUSES.length] as QueryStatus);
    for (const status of STATUSES) {
      const listed = await allPages(key, 3, status);
      expect(listed.map((query) => query.queryId).sort()).toEqual(records.filter((record) => record.status === status).map((record) => record.id).sort());
      expect(listed.every((query) => query.status === status)).toBe(true);
    }
  });

  it('another key\'s queries are never listed', async () => {
    const [one, two] = [await host.newKey(), await host.newKey()];
    insertQueries(one, 3, () => 'active');
    expect(await allPages(two, 10)).toEqual([]);
  });

  it('paging: the concatenated pages are the full list, newest first, without gaps or duplicates (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
        async (count, limit, spread, status) => {
          const key = await host.newKey();
          const records = insertQueries(key, count, (index) => STATUSES[(index * 7) % STATUSES.length] as QueryStatus, (index) => Date.parse('2026-02-01T00:00:00Z') + Math.floor(index / spread) * 60_000);
          const expected = records
            .filter((record) => status === undefined || record.status === status)
            .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
            .map((record) => record.id);
          const listed = (await allPages(key, limit, status)).map((query) => query.queryId);
          expect(listed).toEqual(expected);
          expect(new Set(listed).size).toBe(listed.length);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('paging started before new queries are created neither repeats nor skips an existing one', async () => {
    const key = await host.newKey();
    const records = insertQueries(key, 9, () => 'active');
    const first = json(await call(host.app, { url: '/v2/auto/queries?limit=4', key }));
    insertQueries(key, 3, () => 'active', () => Date.now());
    const seen = (first.queries as Array<Record<string, unknown>>).map((query) => query.queryId);
    let cursor = first.nextCursor as string | undefined;
    while (cursor) {
      const page = json(await call(host.app, { url: `/v2/auto/queries?limit=4&cursor=${cursor}`, key }));
      seen.push(...(page.queries as Array<Record<string, unknown>>).map((query) => query.queryId));
      cursor = page.nextCursor as string | undefined;
    }
    expect(seen.sort()).toEqual(records.map((record) => record.id).sort());
  });
});
