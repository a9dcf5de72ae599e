import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { firstValueFrom, from, of } from 'rxjs';
import { Engine, EpochVirtualScheduler, type LlmProvider, MemoryStateStore, PushSource, type QueryRequest, RecordedLlmProvider } from '@eql/core';
import { type Analyst, composeProvider, createAnalyst, ModelAnalyst, OFFLINE_NOTICE, OfflineAnalyst } from '../src/index.js';
import type { SqliteMarketData } from '@eql/market-data';
import { DAY, DEMO_END, demoMarket, HOUR } from './support/demo-market.js';
import { OpenAiStub } from './support/openai-stub.js';

/** A day into the FlowEx exploit of the demo dataset. */
const DURING_HACK = DEMO_END - 28 * DAY + 19 * DAY + 14 * HOUR + DAY;
const KEY = 'sk-engine-test-abcdef0123456789';

let market: SqliteMarketData;
let stub: OpenAiStub;

beforeAll(async () => {
  market = demoMarket();
  stub = await OpenAiStub.start({ apiKey: KEY, models: ['fast-m', 'expert-m'] });
});

afterAll(async () => {
  await stub.close();
});

/** An engine on virtual time at `start` with the given provider. */
function setup(llm: LlmProvider, start = DURING_HACK) {
  const scheduler = new EpochVirtualScheduler(start, Number.MAX_SAFE_INTEGER);
  const store = new MemoryStateStore();
  let ids = 0;
  const engine = new Engine({ scheduler, sources: [new PushSource()], store, newId: () => `id-${++ids}`, llm });
  engine.paper.onPrice('ETH', 2_000);
  return { engine, store, scheduler };
}

const llmCondition = (query: string, extra: Record<string, unknown> = {}) => ({ source: 'llm', method: 'athena_condition', args: { query, period: '1h', minConfidence: 80, ...extra } });

function request(conditions: unknown[], actions: unknown[]): QueryRequest {
  return { title: 'FlowEx watch', query: { conditions: { AND: conditions }, actions, expiresIn: '1d' } } as QueryRequest;
}

const tradeAction = (prompt: string) => ({
  stepId: 'think',
  type: 'llm',
  params: { prompt, analysisType: 'tokenAnalysis', assetMetadata: { symbol: 'ETH' }, callback: { action: { type: 'market_order', params: { exchange: 'paper', amountUsd: 1000 } } } },
});

describe('the engine with the offline analyst as its LLM provider', () => {
  const offline = () => new OfflineAnalyst(market);

  it('an llm condition judged on the local data fires an llm action whose explicit buy becomes a paper order', async () => {
    const { engine, store, scheduler } = setup(offline().provider);
    engine.add({ queryId: 'q', request: request([llmCondition('Was FlowEx hacked?')], [tradeAction('Buy $1000 of $ETH now.')]), createdAt: DURING_HACK });
    scheduler.advanceBy(1);
    await vi.waitFor(() => expect(engine.inspect('q')?.status).toBe('triggered'));
    expect(store.executionsOf('q').map((e) => [e.stepId, e.type, e.status])).toEqual([
      ['think', 'llm', 'succeeded'],
      ['think.callback', 'market_order', 'succeeded'],
    ]);
    const verdict = store.runtime.get('q')?.verdicts['/AND/0'];
    expect(verdict?.confidence).toBeGreaterThanOrEqual(80);
    const session = [...store.sessions.values()][0];
    const message = session?.messages[0];
    expect(message?.response).toContain(OFFLINE_NOTICE);
    expect(message?.response).toContain(`llm.athena_condition: held, value ${verdict?.confidence}, threshold 80`);
    expect(message?.response).toContain('### Analysis of $ETH');
    expect(message?.trades).toEqual([expect.objectContaining({ side: 'buy', symbol: 'ETH', amountUsd: 1000 })]);
    expect(engine.paper.position('ETH')).toMatchObject({ size: 0.5, entry: 2_000 });
  });

  it('without an explicit instruction the analysis signals no trade and no order is placed', async () => {
    const { engine, store, scheduler } = setup(offline().provider);
    engine.add({ queryId: 'q', request: request([llmCondition('Was FlowEx hacked?')], [tradeAction('Analyse what this means and what to do.')]), createdAt: DURING_HACK });
    scheduler.advanceBy(1);
    await vi.waitFor(() => expect(engine.inspect('q')?.status).toBe('triggered'));
    expect([...store.sessions.values()][0]?.messages[0]?.trades).toEqual([]);
    expect(store.executionsOf('q')[1]?.result).toMatchObject({ orders: [] });
    expect(engine.paper.position('ETH')).toBeUndefined();
  });

  it('a predicate without evidence is judged 0 and the query stays active; it is judged again each period', async () => {
    const calls: number[] = [];
    const analyst = offline();
    const spy: LlmProvider = { judge: (r) => (calls.push(r.at), analyst.provider.judge(r)), analyze: (r) => analyst.provider.analyze(r) };
    const { engine, store, scheduler } = setup(spy, DEMO_END);
    engine.add({ queryId: 'q', request: request([llmCondition('Was FlowEx hacked?')], [{ stepId: 'n', type: 'notify', params: { message: 'hacked' } }]), createdAt: DEMO_END });
    scheduler.advanceBy(1);
    await vi.waitFor(() => expect(store.runtime.get('q')?.verdicts['/AND/0']).toEqual({ at: DEMO_END, confidence: 0 }));
    scheduler.advanceBy(HOUR);
    expect(calls).toEqual([DEMO_END, DEMO_END + HOUR]);
    expect(engine.inspect('q')?.status).toBe('active');
    expect(store.notifications).toHaveLength(0);
  });
});

describe('the engine with the model analyst over a loopback endpoint', () => {
  it('the model judges the condition and its analysis trades through the callback', async () => {
    stub.reset().respondWith((req) =>
      req.messages[0]?.content.startsWith('You judge')
        ? { content: '{"confidence": 92, "reasoning": "Exploit widely reported."}' }
        : { content: JSON.stringify({ response: 'FlowEx was drained; ETH at risk.', trades: [{ side: 'sell', symbol: 'ETH', amountUsd: 400, reason: 'exploit' }] }) },
    );
    const analyst = createAnalyst({ market, config: { baseURL: stub.baseURL, apiKey: KEY, fastModel: 'fast-m', expertModel: 'expert-m', timeoutMs: 5_000, maxRetries: 0 } });
    expect(analyst).toBeInstanceOf(ModelAnalyst);
    const { engine, store, scheduler } = setup(analyst.provider);
    engine.add({ queryId: 'q', request: request([llmCondition('Was FlowEx hacked?', { speed: 'expert' })], [tradeAction('Decide whether to sell ETH.')]), createdAt: DURING_HACK });
    scheduler.advanceBy(1);
    await vi.waitFor(() => expect(engine.inspect('q')?.status).toBe('triggered'));
    expect(stub.requests.map((r) => [r.model, r.response_format?.type])).toEqual([
      ['expert-m', 'json_object'],
      ['fast-m', 'json_object'],
    ]);
    expect(store.runtime.get('q')?.verdicts['/AND/0']?.confidence).toBe(92);
    expect([...store.sessions.values()][0]?.messages[0]).toMatchObject({ response: 'FlowEx was drained; ETH at risk.', trades: [{ side: 'sell', symbol: 'ETH', amountUsd: 400, reason: 'exploit' }] });
    expect(engine.paper.position('ETH')).toMatchObject({ size: -0.2 });
  });

  it('a failing model fails the llm action with LLM_ACTION_UPSTREAM_ERROR and a failed session', async () => {
    stub.reset().respondWith(() => ({ status: 500 }));
    const analyst = createAnalyst({ market, config: { baseURL: stub.baseURL, apiKey: KEY, fastModel: 'fast-m', expertModel: 'expert-m', timeoutMs: 5_000, maxRetries: 0 } });
    const { engine, store, scheduler } = setup(composeProvider({ judge: () => of({ confidence: 99 }), analyze: () => of({ response: 'recorded', trades: [] }) }, analyst.provider));
    engine.add({ queryId: 'q', request: request([llmCondition('Was FlowEx hacked?')], [tradeAction('Decide.')]), createdAt: DURING_HACK });
    scheduler.advanceBy(1);
    await vi.waitFor(() => expect(engine.inspect('q')?.status).toBe('failed'));
    const [execution] = store.executionsOf('q');
    expect(execution?.error?.code).toBe('LLM_ACTION_UPSTREAM_ERROR');
    expect(execution?.error?.message).toContain('HTTP 500');
    expect(execution?.error?.message).not.toContain(KEY);
    expect([...store.sessions.values()][0]).toMatchObject({ status: 'failed', messages: [{ response: null, status: 'failed' }] });
  });
});

describe('createAnalyst and composeProvider', () => {
  it('createAnalyst: the offline analyst without a model configuration', () => {
    const analyst: Analyst = createAnalyst({ market });
    expect(analyst).toBeInstanceOf(OfflineAnalyst);
    expect(analyst.offline).toBe(true);
    expect(createAnalyst({ market, model: { complete: () => Promise.resolve({ text: 'x', model: 'm' }) } }).offline).toBe(false);
  });

  it('recorded verdicts answer the predicates they have; the analyst answers the others and every analysis', async () => {
    const recorded = new RecordedLlmProvider([{ at: DURING_HACK - HOUR, source: 'llm', query: 'Is BTC bullish?', confidence: 95, reasoning: 'recorded' }]);
    const asked: string[] = [];
    const analyst = new OfflineAnalyst(market);
    const spy: LlmProvider = { judge: (r) => (asked.push(r.query), analyst.provider.judge(r)), analyze: (r) => analyst.provider.analyze(r) };
    const provider = composeProvider(recorded, spy);
    expect(await firstValueFrom(from(provider.judge({ query: '  is btc   BULLISH? ', speed: 'fast', at: DURING_HACK })))).toEqual({ confidence: 95, reasoning: 'recorded' });
    expect(asked).toEqual([]);
    // Before the first recorded verdict, and for another predicate, the analyst judges.
    expect((await firstValueFrom(from(provider.judge({ query: 'Is BTC bullish?', speed: 'fast', at: DURING_HACK - 2 * HOUR })))).reasoning).toMatch(/^Offline heuristic/);
    expect((await firstValueFrom(from(provider.judge({ query: 'Was FlowEx hacked?', speed: 'fast', at: DURING_HACK })))).confidence).toBeGreaterThanOrEqual(80);
    expect(asked).toEqual(['Is BTC bullish?', 'Was FlowEx hacked?']);
    const analysis = await firstValueFrom(from(provider.analyze({ prompt: 'What now?', analysisType: 'macro', speed: 'fast', trigger: { queryId: 'q', triggerIndex: 1, firedAt: DURING_HACK, conditionStates: [] } })));
    expect(analysis.response).toContain(OFFLINE_NOTICE);
  });

  it('composeProvider maps engine time to the recording clock when asked', async () => {
    const recorded = new RecordedLlmProvider([{ at: 1_000, source: 'llm', query: 'x?', confidence: 70 }]);
    const never: LlmProvider = { judge: () => Promise.reject(new Error('not the analyst')), analyze: () => Promise.reject(new Error('no')) };
    const shifted = composeProvider(recorded, never, { toRecordingTime: (at) => at - 10_000 });
    expect(await firstValueFrom(from(shifted.judge({ query: 'x?', speed: 'fast', at: 11_500 })))).toEqual({ confidence: 70 });
    await expect(firstValueFrom(from(shifted.judge({ query: 'x?', speed: 'fast', at: 10_500 })))).rejects.toThrow('not the analyst');
  });
});
