import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { createQuery, RawStream, removeDir, startHost, type TestHost as TestHost2, until } from './support/harness.js';
import { at, call, errorCode, ISO, json, testHost, type TestHost } from './support/host.js';

/**
 * The host's feed and its past (docs/semantics.md, "History and warm-up"): queries start warm from the
 * replayed recording's earlier laps, poll shows each condition ready / warming_up / no_data with the
 * observation time, and a query on data no feed serves is refused before anything is charged.
 */

let host: TestHost;
let key: CreatedKey;
beforeAll(async () => {
  host = await testHost({ feed: 'replay' });
  key = await host.newKey();
});
afterAll(async () => host.close());

const query = (condition: Record<string, unknown>, expiresIn = '7d') => ({
  title: 'history test',
  query: { conditions: { AND: [condition, { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '<', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn },
});

async function create(body: Record<string, unknown>) {
  const validated = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body });
  const created = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body });
  return { validated, created };
}

async function poll(queryId: string) {
  return json(await call(host.app, { url: `/v2/auto/queries/${queryId}`, key }));
}

describe('a host on its replay feed', () => {
  it('refuses a symbol no feed serves: validate says so with the served list, create answers 422 and charges nothing', async () => {
    const before = json(await call(host.app, { url: '/v2/ping', key }));
    const { validated, created } = await create(query({ source: 'price', method: 'current', args: { symbol: 'DOGE' }, operator: '>', value: 1 }));
    expect(json(validated)).toMatchObject({ valid: false, errors: ['query.conditions.AND[0].args.symbol: no feed of this host serves prices of DOGE; served: BTC'] });
    expect(created.statusCode).toBe(422);
    expect(errorCode(created)).toBe('unserved_symbol');
    expect(created.headers['x-svc-credits-used']).toBe('0');
    const after = json(await call(host.app, { url: '/v2/ping', key }));
    expect(at(after, 'creditsUsed')).toEqual(at(before, 'creditsUsed'));
  });

  it('starts an RSI query warm: ready at once, with the time of the observation it read', async () => {
    const { created } = await create(query({ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '1h', period: 14 }, operator: '<', value: 1 }));
    expect(created.statusCode).toBe(201);
    const polled = await poll(json(created).queryId as string);
    const state = at(polled, 'latestEvaluation', 'conditionStates', 0) as Record<string, unknown>;
    expect(state).toMatchObject({ source: 'ta', method: 'rsi', status: 'ready' });
    expect(typeof state.value).toBe('number');
    expect(state.observedAt).toMatch(ISO);
    expect(Date.parse(state.observedAt as string)).toBeLessThanOrEqual(Date.now());
  });

  it('shows warming_up with the instant it will be ready when the history is too short', async () => {
    const { created } = await create(query({ source: 'ta', method: 'sma', args: { symbol: 'BTC', timeframe: '1d', period: 30 }, operator: '>', value: 0 }, '30d'));
    expect(created.statusCode).toBe(201);
    const state = at(await poll(json(created).queryId as string), 'latestEvaluation', 'conditionStates', 0) as Record<string, unknown>;
    expect(state).toMatchObject({ status: 'warming_up' });
    expect(state.readyAt).toMatch(ISO);
    expect(Date.parse(state.readyAt as string)).toBeGreaterThan(Date.now());
    expect(state.reason).toMatch(/needs 30 closed candles of 1d, has \d+/);
  });
});

describe('a series the replay cannot warm before the query expires', () => {
  const AGENT = 'agent-secret-of-the-tests-0001';
  let paid: TestHost;
  beforeAll(async () => {
    paid = await testHost({ feed: 'replay', config: { x402: { payTo: '0x1111111111111111111111111111111111111111', agentSecrets: [AGENT] } } });
  });
  afterAll(async () => paid.close());

  // The replay's history is three laps of a one-day recording: RSI(14) on daily candles needs 15 of them.
  const rsiDaily = query({ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '1d' }, operator: '<', value: 30 }, '72h');

  it('is refused by validate, create, draft convert and the payment model, and nothing is charged', async () => {
    const owner = await paid.newKey();
    const before = json(await call(paid.app, { url: '/v2/key-status', key: owner }));
    const validated = json(await call(paid.app, { method: 'POST', url: '/v2/auto/queries/validate', key: owner, body: rsiDaily }));
    expect(validated).toMatchObject({ valid: false, diagnostics: [{ code: 'lookback-exceeds-lifetime', path: '/query/conditions/AND/0' }] });
    expect((validated.errors as string[])[0]).toMatch(/rsi on 1d candles needs 15d of prices before its value is defined; this host's history starts at .*, after the query expires \(72h, at /);

    const created = await call(paid.app, { method: 'POST', url: '/v2/auto/queries', key: owner, body: rsiDaily });
    expect(created.statusCode).toBe(422);
    expect(errorCode(created)).toBe('lookback_exceeds_lifetime');
    expect(at(json(created), 'error', 'details', 'diagnostics', 0)).toMatchObject({ code: 'lookback-exceeds-lifetime' });
    expect(created.headers['x-svc-credits-used']).toBe('0');

    const draft = json(await call(paid.app, { method: 'POST', url: '/v2/auto/queries/drafts', key: owner, body: rsiDaily }));
    expect(draft).toMatchObject({ validation: { valid: false, diagnostics: [{ code: 'lookback-exceeds-lifetime' }] } });
    const converted = await call(paid.app, { method: 'POST', url: `/v2/auto/queries/drafts/${String(draft.draftId)}/convert`, key: owner });
    expect(converted.statusCode).toBe(409);
    expect(errorCode(converted)).toBe('draft_invalid');
    expect(at(json(converted), 'error', 'details', 'diagnostics', 0)).toMatchObject({ code: 'lookback-exceeds-lifetime' });
    expect(converted.headers['x-svc-credits-used']).toBe('0');

    const agentCall = (url: string) => paid.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', 'x-svc-agent-secret': AGENT }, payload: JSON.stringify(rsiDaily) });
    expect((await agentCall('/x402/v2/auto/queries/validate')).json()).toMatchObject({ valid: false, diagnostics: [{ code: 'lookback-exceeds-lifetime' }] });
    const paidCreate = await agentCall('/x402/v2/auto/queries');
    expect(paidCreate.statusCode).toBe(422);
    expect(paidCreate.json()).toMatchObject({ error: { code: 'lookback_exceeds_lifetime' } });
    expect(paidCreate.headers['payment-required']).toBeUndefined();

    const after = json(await call(paid.app, { url: '/v2/key-status', key: owner }));
    expect(at(after, 'data', 'creditsUsed')).toEqual(at(before, 'data', 'creditsUsed'));
    expect(paid.store.countActiveQueries(owner.record.id)).toBe(0);
  });

  it('accepts it when the query lives long enough for the replay to play the missing days', async () => {
    const owner = await paid.newKey();
    const longer = { ...rsiDaily, query: { ...rsiDaily.query, expiresIn: '20d' } };
    expect(json(await call(paid.app, { method: 'POST', url: '/v2/auto/queries/validate', key: owner, body: longer }))).toMatchObject({ valid: true });
    const created = await call(paid.app, { method: 'POST', url: '/v2/auto/queries', key: owner, body: longer });
    expect(created.statusCode).toBe(201);
    const polled = json(await call(paid.app, { url: `/v2/auto/queries/${String(json(created).queryId)}`, key: owner }));
    const state = at(polled, 'latestEvaluation', 'conditionStates', 0) as Record<string, unknown>;
    // What validate judged is what the engine says: ready before the query expires.
    expect(state).toMatchObject({ status: 'warming_up', readyAt: expect.stringMatching(ISO) as string });
    expect(Date.parse(state.readyAt as string)).toBeLessThanOrEqual(Date.parse(polled.expiresAt as string));
  });
});

describe('readiness over SSE', () => {
  let live: TestHost2;
  afterAll(async () => {
    await live?.close();
    if (live) await removeDir(live.dataDir);
  });

  it('tells query:state when a query starts (warming_up, with readyAt) and again when its indicator is ready', async () => {
    live = await startHost();
    const apiKey = await live.key();
    const stream = await RawStream.open(`${live.base}/v2/auto/queries/stream`, { 'x-svc-api-key': apiKey });
    await until(() => stream.named('ready').length > 0, 'the stream to open');
    const start = Math.ceil(Date.now() / 60_000) * 60_000;
    live.push.push({ at: start, source: 'price', symbol: 'ETH', price: 100 });
    const queryId = await createQuery(live.base, apiKey, query({ source: 'ta', method: 'sma', args: { symbol: 'ETH', timeframe: '1m', period: 2 }, operator: '>', value: 1_000_000 }));
    const states = () => stream.named('query:state').map((frame) => JSON.parse(frame.data ?? '{}') as { queryId: string; at: string; conditionStates: Array<Record<string, unknown>> }).filter((state) => state.queryId === queryId);
    await until(() => states().length > 0, 'the first query:state');
    expect(states()[0]?.conditionStates[0]).toMatchObject({ status: 'warming_up', readyAt: new Date(start + 2 * 60_000).toISOString() });
    // Minutes later (observation time, stamped by the feed): two candles close, the SMA(2) is defined.
    for (const minute of [1, 2]) live.push.push({ at: start + minute * 60_000, source: 'price', symbol: 'ETH', price: 100 + minute });
    await until(() => states().some((state) => state.conditionStates[0]?.status === 'ready'), 'query:state ready');
    const ready = states().find((state) => state.conditionStates[0]?.status === 'ready');
    expect(ready?.at).toBe(new Date(start + 2 * 60_000).toISOString());
    stream.close();
  });
});
