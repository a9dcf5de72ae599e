import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmAnalysis, LlmProvider } from '@eql/core';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { call, errorCode, eventually, ISO, json, testHost, type TestHost } from './support/host.js';

/**
 * docs/http-api.md: executions (list with filters and paging, one execution) and LLM sessions
 * (spec 2.8), from queries that really fire: prices come through the PushSource, analyses from a
 * fixed LLM provider.
 */

const ANALYSIS: LlmAnalysis = { response: 'BTC broke out; momentum is strong.', trades: [{ side: 'buy', symbol: 'BTC', amountUsd: 50, reason: 'breakout' }] };

const llm: LlmProvider = {
  judge: () => Promise.reject(new Error('no llm conditions here')),
  analyze: (request) => (request.prompt === 'fail' ? Promise.reject(new Error('upstream is down')) : Promise.resolve(ANALYSIS)),
};

let host: TestHost;
let key: CreatedKey;
const ids = { analysed: '', failed: '', notFirst: '', quiet: '' };

const condition = (value: number) => ({ AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value }] });

async function create(body: Record<string, unknown>): Promise<string> {
  expect(json(await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body })).valid).toBe(true);
  const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body });
  expect(response.statusCode).toBe(201);
  return json(response).queryId as string;
}

beforeAll(async () => {
  host = await testHost({ llm });
  key = await host.newKey();
  ids.analysed = await create({
    title: 'analyse the breakout',
    query: { conditions: condition(1), actions: [{ stepId: 'think', type: 'llm', params: { prompt: 'ok', analysisType: 'tokenAnalysis', assetMetadata: { symbol: 'BTC' }, callback: { action: { type: 'notify' } } } }] },
  });
  ids.failed = await create({ title: 'analysis fails', query: { conditions: condition(1), actions: [{ stepId: 'think', type: 'llm', params: { prompt: 'fail' } }] } });
  ids.notFirst = await create({
    title: 'notify then analyse',
    query: { conditions: condition(1), actions: [{ stepId: 'tell', type: 'notify', params: { message: 'up' } }, { stepId: 'think', type: 'llm', params: { prompt: 'ok' } }] },
  });
  ids.quiet = await create({ title: 'never', query: { conditions: condition(10_000_000), actions: [{ stepId: 'tell', type: 'notify', params: { message: 'never' } }] } });
  host.push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 100_000 });
  await eventually(async () => {
    const statuses = await Promise.all([ids.analysed, ids.failed, ids.notFirst].map(async (id) => json(await call(host.app, { url: `/v2/auto/queries/${id}`, key })).status));
    return statuses.join() === 'triggered,failed,triggered';
  });
});
afterAll(() => host.close());

type Row = Record<string, unknown>;
const list = async (query = '', as: CreatedKey = key): Promise<Row[]> => {
  const response = await call(host.app, { url: `/v2/auto/executions${query}`, key: as });
  expect(response.statusCode).toBe(200);
  return json(response).executions as Row[];
};

describe('GET /v2/auto/executions', () => {
  it('lists every execution of the key, newest first, with the fields of spec 2.6 and the extras', async () => {
    const executions = await list();
    expect(executions).toHaveLength(5);
    for (const execution of executions) {
      expect(execution).toMatchObject({ id: expect.any(String) as string, queryId: expect.any(String) as string, type: expect.any(String) as string, status: expect.stringMatching(/^(running|succeeded|failed)$/) as string });
      expect(execution.createdAt).toMatch(ISO);
      for (const extra of ['stepId', 'triggerIndex', 'attempts', 'finishedAt']) expect(execution).toHaveProperty(extra);
    }
    const times = executions.map((execution) => String(execution.createdAt));
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('filters by queryId', async () => {
    const executions = await list(`?queryId=${ids.analysed}`);
    expect(executions.map((execution) => [execution.stepId, execution.type, execution.status]).sort()).toEqual([
      ['think', 'llm', 'succeeded'],
      ['think.callback', 'notify', 'succeeded'],
    ]);
    expect(await list(`?queryId=${ids.quiet}`)).toEqual([]);
    expect(await list(`?queryId=${randomUUID()}`)).toEqual([]);
  });

  it('filters by status: a failure carries error {code, message}', async () => {
    const failed = await list('?status=failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ queryId: ids.failed, type: 'llm', status: 'failed', error: { code: 'LLM_ACTION_UPSTREAM_ERROR', message: expect.any(String) as string } });
    expect(await list('?status=succeeded')).toHaveLength(4);
    expect(await list('?status=running')).toEqual([]);
  });

  it('filters by type, and by type and status together', async () => {
    expect(await list('?type=llm')).toHaveLength(3);
    expect(await list('?type=notify')).toHaveLength(2);
    expect(await list('?type=llm&status=succeeded')).toHaveLength(2);
    expect(await list('?type=webhook')).toEqual([]);
  });

  it('filters by since (inclusive) and until (exclusive), and pages', async () => {
    const other = await host.newKey();
    const base = Date.parse('2026-01-06T10:00:00Z');
    const queryId = randomUUID();
    const stored = Array.from({ length: 10 }, (_, index) => ({ id: `exec-${index}`, createdAt: new Date(base + index * 60_000).toISOString() }));
    for (const [index, execution] of stored.entries()) {
      host.store.saveExecution(other.record.id, { id: execution.id, queryId, stepId: 's', type: index % 2 === 0 ? 'notify' : 'webhook', status: 'succeeded', triggerIndex: index + 1, createdAt: execution.createdAt, attempts: 1 });
    }
    const since = stored[3]?.createdAt ?? '';
    const until = stored[7]?.createdAt ?? '';
    const between = await list(`?since=${since}&until=${until}`, other);
    expect(between.map((execution) => execution.id)).toEqual(['exec-6', 'exec-5', 'exec-4', 'exec-3']);
    expect((await list(`?since=${since}`, other)).map((execution) => execution.id)).toEqual(['exec-9', 'exec-8', 'exec-7', 'exec-6', 'exec-5', 'exec-4', 'exec-3']);
    expect((await list(`?until=${since}`, other)).map((execution) => execution.id)).toEqual(['exec-2', 'exec-1', 'exec-0']);
    // Epoch milliseconds are instants too.
    expect((await list(`?since=${Date.parse(since)}&until=${Date.parse(until)}`, other)).map((execution) => execution.id)).toEqual(['exec-6', 'exec-5', 'exec-4', 'exec-3']);
    expect((await list(`?since=${since}&type=webhook&queryId=${queryId}`, other)).map((execution) => execution.id)).toEqual(['exec-9', 'exec-7', 'exec-5', 'exec-3']);
    // Another key's executions are not listed.
    expect((await list('', other)).every((execution) => execution.queryId === queryId)).toBe(true);
    expect((await list()).some((execution) => execution.queryId === queryId)).toBe(false);
  });

  it('pages without gaps or duplicates, default limit 50 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 3 }), async (count, limit, spread) => {
        const owner = await host.newKey();
        const executionIds: string[] = [];
        for (let index = 0; index < count; index += 1) {
          const id = randomUUID();
          executionIds.push(id);
          host.store.saveExecution(owner.record.id, { id, queryId: 'q', stepId: 's', type: 'notify', status: 'succeeded', triggerIndex: 1, createdAt: new Date(Date.parse('2026-01-01T00:00:00Z') + Math.floor(index / spread) * 1_000).toISOString(), attempts: 1 });
        }
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const response = await call(host.app, { url: `/v2/auto/executions?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, key: owner });
          const body = json(response);
          seen.push(...(body.executions as Row[]).map((execution) => execution.id as string));
          cursor = body.nextCursor as string | undefined;
        } while (cursor !== undefined);
        expect(new Set(seen).size).toBe(seen.length);
        expect([...seen].sort()).toEqual([...executionIds].sort());
        expect(seen).toHaveLength(count);
      }),
      { numRuns: 25 },
    );
    const many = await host.newKey();
    for (let index = 0; index < 60; index += 1) {
      host.store.saveExecution(many.record.id, { id: randomUUID(), queryId: 'q', stepId: 's', type: 'notify', status: 'succeeded', triggerIndex: 1, createdAt: new Date().toISOString(), attempts: 1 });
    }
    const firstPage = json(await call(host.app, { url: '/v2/auto/executions', key: many }));
    expect(firstPage.executions as Row[]).toHaveLength(50);
    expect(typeof firstPage.nextCursor).toBe('string');
  });

  it('400 for a bad status, since, until, limit or cursor, and an unknown parameter', async () => {
    for (const [query, code] of [
      ['?status=done', 'invalid_request'],
      ['?since=not-a-time', 'invalid_request'],
      ['?until=2026-13-45', 'invalid_request'],
      ['?since=2026-01-07T00:00:00Z&until=2026-01-06T00:00:00Z', 'invalid_request'],
      ['?limit=0', 'invalid_request'],
      ['?limit=101', 'invalid_request'],
      ['?cursor=Zm9v', 'invalid_cursor'],
      ['?order=asc', 'unknown_parameter'],
    ] as const) {
      const response = await call(host.app, { url: `/v2/auto/executions${query}`, key });
      expect(response.statusCode, query).toBe(400);
      expect(errorCode(response)).toBe(code);
    }
  });
});

describe('GET /v2/auto/executions/{id}', () => {
  it('one execution, as listed', async () => {
    const [listed] = await list(`?queryId=${ids.failed}`);
    const response = await call(host.app, { url: `/v2/auto/executions/${String(listed?.id)}`, key });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual(listed);
  });

  it('404 for an unknown one and for another key\'s', async () => {
    const [listed] = await list();
    for (const [as, id] of [[key, randomUUID()], [await host.newKey(), String(listed?.id)]] as const) {
      const response = await call(host.app, { url: `/v2/auto/executions/${id}`, key: as });
      expect(response.statusCode).toBe(404);
      expect(errorCode(response)).toBe('not_found');
    }
  });
});

describe('LLM sessions (spec 2.8)', () => {
  it('list: {queryId, sessions: [{sessionId, status, executedAt}]} for a query whose first step is llm', async () => {
    const response = await call(host.app, { url: `/v2/auto/queries/${ids.analysed}/sessions`, key });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-svc-credits-used']).toBe('0');
    const body = json(response);
    expect(body).toEqual({ queryId: ids.analysed, sessions: [{ sessionId: expect.any(String) as string, status: 'completed', executedAt: expect.stringMatching(ISO) as string }] });
  });

  it('detail: {sessionId, queryId, title, analysisType, createdAt, messages: [{query, response, status, analysisType, timestamp, trades}]}', async () => {
    const sessions = json(await call(host.app, { url: `/v2/auto/queries/${ids.analysed}/sessions`, key })).sessions as Row[];
    const sessionId = String(sessions[0]?.sessionId);
    const response = await call(host.app, { url: `/v2/auto/queries/${ids.analysed}/sessions/${sessionId}`, key });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body).toMatchObject({ sessionId, queryId: ids.analysed, title: 'analyse the breakout', analysisType: 'tokenAnalysis' });
    expect(body.createdAt).toMatch(ISO);
    expect(body).not.toHaveProperty('keyId');
    const messages = body.messages as Row[];
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ query: 'ok', response: ANALYSIS.response, status: 'completed', analysisType: 'tokenAnalysis', trades: ANALYSIS.trades });
    expect(messages[0]?.timestamp).toMatch(ISO);
  });

  it('a failed analysis records a failed session', async () => {
    const body = json(await call(host.app, { url: `/v2/auto/queries/${ids.failed}/sessions`, key }));
    expect((body.sessions as Row[]).map((session) => session.status)).toEqual(['failed']);
    const detail = json(await call(host.app, { url: `/v2/auto/queries/${ids.failed}/sessions/${String((body.sessions as Row[])[0]?.sessionId)}`, key }));
    expect((detail.messages as Row[])[0]).toMatchObject({ status: 'failed', response: null });
  });

  it('only first-step llm actions record sessions; a query that never fired has none', async () => {
    for (const id of [ids.notFirst, ids.quiet]) {
      const response = await call(host.app, { url: `/v2/auto/queries/${id}/sessions`, key });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({ queryId: id, sessions: [] });
    }
  });

  it('404: unknown query, another key\'s query, unknown session, a session asked for under another query', async () => {
    const sessions = json(await call(host.app, { url: `/v2/auto/queries/${ids.analysed}/sessions`, key })).sessions as Row[];
    const sessionId = String(sessions[0]?.sessionId);
    const stranger = await host.newKey();
    for (const [as, url] of [
      [key, `/v2/auto/queries/${randomUUID()}/sessions`],
      [stranger, `/v2/auto/queries/${ids.analysed}/sessions`],
      [stranger, `/v2/auto/queries/${ids.analysed}/sessions/${sessionId}`],
      [key, `/v2/auto/queries/${ids.analysed}/sessions/${randomUUID()}`],
      [key, `/v2/auto/queries/${ids.notFirst}/sessions/${sessionId}`],
    ] as const) {
      const response = await call(host.app, { url, key: as });
      expect(response.statusCode, url).toBe(404);
      expect(errorCode(response)).toBe('not_found');
    }
  });
});
