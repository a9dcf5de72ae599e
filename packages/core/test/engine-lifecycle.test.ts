import { describe, expect, it, vi } from 'vitest';
import { Observable, of, throwError } from 'rxjs';
import {
  ActionError,
  Engine,
  type EngineEvent,
  EpochVirtualScheduler,
  type LlmProvider,
  MemoryStateStore,
  PushSource,
  type QueryRequest,
  type RuntimeState,
} from '@eql/core';

const T0 = Date.parse('2026-01-05T00:00:00Z');

function request(conditions: unknown, actions: unknown[] = [{ stepId: 'n', type: 'notify', params: { message: 'fired' } }], extra: Record<string, unknown> = {}): QueryRequest {
  return { title: 'test', query: { conditions, actions, expiresIn: '1d', ...extra } } as QueryRequest;
}

const priceAbove = (symbol: string, value: number) => ({ AND: [{ source: 'price', method: 'current', args: { symbol }, operator: '>', value }] });

/** An engine on virtual time with a push source, its store and a log of its events. */
function setup(options: { store?: MemoryStateStore; llm?: LlmProvider; start?: number } = {}) {
  const scheduler = new EpochVirtualScheduler(options.start ?? T0, Number.MAX_SAFE_INTEGER);
  const source = new PushSource();
  const store = options.store ?? new MemoryStateStore();
  let ids = 0;
  const engine = new Engine({ scheduler, sources: [source], store, newId: () => `id-${++ids}`, ...(options.llm ? { llm: options.llm } : {}) });
  const events: EngineEvent[] = [];
  engine.events$.subscribe((event) => {
    if (event.type === 'problem' && event.code === 'ENGINE_ERROR') throw new Error(`engine error: ${event.message}`);
    events.push(event);
  });
  const tick = (symbol: string, price: number) => source.push({ at: scheduler.now(), source: 'price', symbol, price });
  const advance = (ms: number) => scheduler.advanceBy(ms);
  return { scheduler, source, store, engine, events, tick, advance, of: (type: EngineEvent['type']) => events.filter((event) => event.type === type) };
}

describe('engine: firing and statuses', () => {
  it('fires once, runs the actions in order and ends triggered', () => {
    const { engine, tick, store, of } = setup();
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100), [
      { stepId: 'a', type: 'notify', params: { message: 'one' } },
      { stepId: 'b', type: 'notify', params: { message: 'two' } },
    ]), createdAt: T0 });
    tick('BTC', 99);
    expect(of('trigger')).toHaveLength(0);
    tick('BTC', 101);
    tick('BTC', 102);
    expect(of('trigger')).toHaveLength(1);
    expect(engine.inspect('q')?.status).toBe('triggered');
    expect(store.executionsOf('q').map((e) => [e.stepId, e.status])).toEqual([
      ['a', 'succeeded'],
      ['b', 'succeeded'],
    ]);
    expect(store.notifications.map((n) => n.body)).toEqual(['one', 'two']);
    expect(store.notifications[0]).toMatchObject({ id: 1, type: 'athena_query_notify_only', category: 'alerts', priority: 'high', title: 'test', data: { queryId: 'q' } });
  });

  it('a failing action records {code, message}, stops the chain and fails the query', () => {
    const scheduler = new EpochVirtualScheduler(T0, Number.MAX_SAFE_INTEGER);
    const source = new PushSource();
    const store = new MemoryStateStore();
    const engine = new Engine({
      scheduler,
      sources: [source],
      store,
      executors: { webhook: { execute: () => throwError(() => new ActionError('WEBHOOK_HTTP_ERROR', 'the webhook endpoint answered 500')) } },
    });
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100), [
      { stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } },
      { stepId: 'after', type: 'notify', params: { message: 'never' } },
    ]), createdAt: T0 });
    source.push({ at: T0, source: 'price', symbol: 'BTC', price: 101 });
    expect(engine.inspect('q')?.status).toBe('failed');
    expect(store.executionsOf('q')).toEqual([
      expect.objectContaining({ stepId: 'hook', type: 'webhook', status: 'failed', error: { code: 'WEBHOOK_HTTP_ERROR', message: 'the webhook endpoint answered 500' } }),
    ]);
    expect(store.notifications).toHaveLength(0);
  });

  it('an llm action records a session and hands its analysis to the callback', async () => {
    const llm: LlmProvider = {
      judge: () => of({ confidence: 0 }),
      analyze: () => of({ response: 'Buy the breakout.', trades: [{ side: 'buy', symbol: 'BTC', amountUsd: 1000 }] }),
    };
    const { engine, tick, store } = setup({ llm });
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100), [
      { stepId: 'think', type: 'llm', params: { prompt: 'What now?', analysisType: 'tokenAnalysis', assetMetadata: { symbol: 'BTC' }, callback: { action: { type: 'market_order', params: { exchange: 'paper', amountUsd: 1000 } } } } },
    ]), createdAt: T0 });
    tick('BTC', 50_000);
    // The order's client id is a SHA-256 (Web Crypto, asynchronous).
    await vi.waitFor(() => expect(engine.inspect('q')?.status).toBe('triggered'));
    expect(store.executionsOf('q').map((e) => [e.stepId, e.type, e.status])).toEqual([
      ['think', 'llm', 'succeeded'],
      ['think.callback', 'market_order', 'succeeded'],
    ]);
    const session = [...store.sessions.values()][0];
    expect(session).toMatchObject({ queryId: 'q', status: 'completed', analysisType: 'tokenAnalysis', messages: [{ query: 'What now?', response: 'Buy the breakout.', status: 'completed' }] });
    expect(engine.paper.position('BTC')).toMatchObject({ size: 0.02, entry: 50_000 });
    expect(engine.inspect('q')?.status).toBe('triggered');
  });

  it('a failing LLM provider gives LLM_ACTION_UPSTREAM_ERROR and a failed session', () => {
    const llm: LlmProvider = { judge: () => of({ confidence: 0 }), analyze: () => throwError(() => new Error('upstream 503')) };
    const { engine, tick, store } = setup({ llm });
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100), [{ stepId: 'think', type: 'llm', params: { prompt: 'Why?' } }]), createdAt: T0 });
    tick('BTC', 101);
    expect(store.executionsOf('q')[0]).toMatchObject({ status: 'failed', error: { code: 'LLM_ACTION_UPSTREAM_ERROR' } });
    expect([...store.sessions.values()][0]).toMatchObject({ status: 'failed', messages: [{ response: null, status: 'failed' }] });
    expect(engine.inspect('q')?.status).toBe('failed');
  });

  it('expires at createdAt + expiresIn when nothing fired', () => {
    const { engine, advance, of } = setup();
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100)), createdAt: T0 });
    advance(24 * 3_600_000 - 1);
    expect(engine.inspect('q')?.status).toBe('active');
    advance(1);
    expect(engine.inspect('q')?.status).toBe('expired');
    expect(of('expired')).toHaveLength(1);
  });

  it('a query added after its expiry expires at once', () => {
    const { engine } = setup({ start: T0 + 2 * 86_400_000 });
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100)), createdAt: T0 });
    expect(engine.inspect('q')?.status).toBe('expired');
  });

  it('cancel stops evaluation and refuses a second cancel with 409', () => {
    const { engine, tick, of } = setup();
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100)), createdAt: T0 });
    expect(engine.cancel('q')).toMatchObject({ ok: true, state: { status: 'cancelled' } });
    tick('BTC', 101);
    expect(of('trigger')).toHaveLength(0);
    expect(engine.cancel('q')).toMatchObject({ ok: false, httpStatus: 409 });
    expect(engine.cancel('missing')).toMatchObject({ ok: false, httpStatus: 404 });
  });

  it('a cancel while actions run stops the chain after the current step', () => {
    const scheduler = new EpochVirtualScheduler(T0, Number.MAX_SAFE_INTEGER);
    const source = new PushSource();
    const store = new MemoryStateStore();
    // A slow webhook: answers 10 s later on the virtual clock.
    const slow = { execute: () => new Observable<{ result: Record<string, unknown> }>((subscriber) => scheduler.schedule(() => { subscriber.next({ result: { status: 200 } }); subscriber.complete(); }, 10_000)) };
    const engine = new Engine({ scheduler, sources: [source], store, executors: { webhook: slow } });
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100), [
      { stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } },
      { stepId: 'after', type: 'notify', params: { message: 'never' } },
    ]), createdAt: T0 });
    source.push({ at: T0, source: 'price', symbol: 'BTC', price: 101 });
    expect(engine.inspect('q')?.status).toBe('active');
    expect(engine.cancel('q').ok).toBe(true);
    scheduler.advanceTo(T0 + 60_000);
    expect(store.executionsOf('q').map((e) => [e.stepId, e.status])).toEqual([['hook', 'succeeded']]);
    expect(engine.inspect('q')?.status).toBe('cancelled');
  });
});

describe('engine: restarts', () => {
  it('a fired query never fires again after a restart', () => {
    const store = new MemoryStateStore();
    const first = setup({ store });
    const query = { queryId: 'q', request: request(priceAbove('BTC', 100)), createdAt: T0 };
    first.engine.add(query);
    first.tick('BTC', 101);
    expect(first.of('trigger')).toHaveLength(1);
    first.engine.dispose();

    const second = setup({ store, start: T0 + 60_000 });
    second.engine.add(query, store.runtime.get('q'));
    second.tick('BTC', 150);
    expect(second.of('trigger')).toHaveLength(0);
    expect(second.engine.inspect('q')?.status).toBe('triggered');
  });

  it('a trigger interrupted before its actions finished resumes the rest, never re-fires', () => {
    const store = new MemoryStateStore();
    const interrupted: RuntimeState = {
      status: 'active',
      triggerCount: 1,
      lastTriggerAt: T0,
      pendingTrigger: { triggerIndex: 1, final: true, firedAt: T0, conditionStates: [], completedSteps: ['a'] },
      latched: {},
      verdicts: {},
      cronPulses: {},
    };
    const { engine, tick, of } = setup({ store, start: T0 + 1000 });
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100), [
      { stepId: 'a', type: 'notify', params: { message: 'done before the restart' } },
      { stepId: 'b', type: 'notify', params: { message: 'after the restart' } },
    ]), createdAt: T0 }, interrupted);
    tick('BTC', 200);
    expect(of('trigger')).toHaveLength(0);
    expect(store.notifications.map((n) => n.body)).toEqual(['after the restart']);
    expect(store.executionsOf('q').map((e) => [e.stepId, e.triggerIndex])).toEqual([['b', 1]]);
    expect(engine.inspect('q')?.status).toBe('triggered');
  });

  it('a query resumed from a state ahead of its feed never fires again at or before its last trigger (a host taking it over replays what its previous host saw)', () => {
    const store = new MemoryStateStore();
    const ahead: RuntimeState = { status: 'active', triggerCount: 1, lastTriggerAt: T0 + 5_000, latched: {}, verdicts: {}, cronPulses: {} };
    // The new owner's clock starts at the previous owner's last checkpoint, before that trigger.
    const { engine, tick, advance, of } = setup({ store, start: T0 + 1_000 });
    engine.add({ queryId: 'q', request: request(priceAbove('BTC', 100), undefined, { repeat: { cooldown: '1s' } }), createdAt: T0 }, ahead);
    tick('BTC', 101);
    advance(4_000);
    tick('BTC', 102);
    advance(999);
    tick('BTC', 103);
    expect(of('trigger')).toHaveLength(0);
    advance(1);
    tick('BTC', 104);
    expect(of('trigger').map((event) => event.type === 'trigger' && event.triggerIndex)).toEqual([2]);
  });

  it('a cooldown survives a restart', () => {
    const store = new MemoryStateStore();
    const query = { queryId: 'q', request: request(priceAbove('BTC', 100), undefined, { repeat: { cooldown: '1h' } }), createdAt: T0 };
    const first = setup({ store });
    first.engine.add(query);
    first.tick('BTC', 101);
    expect(first.of('trigger')).toHaveLength(1);
    first.engine.dispose();

    const second = setup({ store, start: T0 + 10 * 60_000 });
    second.engine.add(query, store.runtime.get('q'));
    second.tick('BTC', 102);
    expect(second.of('trigger')).toHaveLength(0);
    second.advance(50 * 60_000);
    expect(second.of('trigger')).toHaveLength(1);
    expect((second.of('trigger')[0] as { at: number }).at).toBe(T0 + 3_600_000);
  });

  it('a holdFor span under way starts again after a restart (docs/semantics.md, "Firing, repeat, expiry")', () => {
    const store = new MemoryStateStore();
    const held = { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100, holdFor: '5m' }] };
    const query = { queryId: 'q', request: request(held), createdAt: T0 };
    const first = setup({ store });
    first.engine.add(query);
    first.tick('BTC', 101);
    first.advance(3 * 60_000);
    expect(first.of('trigger')).toHaveLength(0);
    first.engine.dispose();

    const second = setup({ store, start: T0 + 3 * 60_000 });
    second.engine.add(query, store.runtime.get('q'));
    second.tick('BTC', 102);
    second.advance(4 * 60_000);
    expect(second.of('trigger')).toHaveLength(0);
    second.advance(60_000);
    expect(second.of('trigger').map((event) => event.at)).toEqual([T0 + 8 * 60_000]);
  });

  it('a latched tweet match survives a restart', () => {
    const store = new MemoryStateStore();
    const query = {
      queryId: 'q',
      request: request({ AND: [{ source: 'tweet', args: { username: 'elonmusk', text: 'dogecoin moon', minConfidence: 80 } }, { source: 'price', method: 'current', args: { symbol: 'DOGE' }, operator: '>', value: 1 }] }),
      createdAt: T0,
    };
    const first = setup({ store });
    first.engine.add(query);
    first.source.push({ at: T0, source: 'tweet', username: 'elonmusk', text: 'Dogecoin to the moon', tweetId: '1' });
    first.tick('DOGE', 0.5);
    expect(first.of('trigger')).toHaveLength(0);
    expect(store.runtime.get('q')?.latched['/AND/0']).toMatchObject({ id: '1', confidence: 100 });
    first.engine.dispose();

    const second = setup({ store, start: T0 + 60_000 });
    second.engine.add(query, store.runtime.get('q'));
    second.tick('DOGE', 1.5);
    expect(second.of('trigger')).toHaveLength(1);
  });

  it('llm verdicts survive a restart: no call is paid twice', () => {
    const store = new MemoryStateStore();
    const calls: number[] = [];
    const llm: LlmProvider = { judge: (r) => { calls.push(r.at); return of({ confidence: 90 }); }, analyze: () => of({ response: '', trades: [] }) };
    const query = { queryId: 'q', request: request({ AND: [{ source: 'llm', method: 'athena_condition', args: { query: 'Is it bullish?', period: '1h' } }, { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1e9 }] }), createdAt: T0 };
    const first = setup({ store, llm });
    first.engine.add(query);
    first.advance(1);
    expect(calls).toEqual([T0]);
    first.engine.dispose();
    const second = setup({ store, llm, start: T0 + 20 * 60_000 });
    second.engine.add(query, store.runtime.get('q'));
    second.advance(41 * 60_000);
    expect(calls).toEqual([T0, T0 + 3_600_000]);
  });
});

describe('engine: no subscription leaks', () => {
  it('queries on one symbol share one upstream subscription, released with the last', () => {
    const { engine, source } = setup();
    engine.add({ queryId: 'a', request: request(priceAbove('BTC', 100)), createdAt: T0 });
    engine.add({ queryId: 'b', request: request({ OR: [{ source: 'price', method: 'change', args: { symbol: 'BTC', period: '1h' }, operator: '>', value: 5 }, { source: 'ta', method: 'rsi', args: { symbol: 'BTC' }, operator: '<', value: 30 }] }), createdAt: T0 });
    expect(engine.openTopics).toBe(1);
    engine.cancel('a');
    expect(engine.openTopics).toBe(1);
    expect(source.observed).toBe(true);
    engine.remove('b');
    expect(engine.openTopics).toBe(0);
    expect(source.observed).toBe(false);
  });

  it('a final trigger, an expiry, a cancel and a remove each release everything', () => {
    const { engine, source, tick, advance } = setup();
    engine.add({ queryId: 'fires', request: request(priceAbove('BTC', 100)), createdAt: T0 });
    engine.add({ queryId: 'expires', request: { query: { conditions: priceAbove('ETH', 1e9), actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn: '1h' } } as unknown as QueryRequest, createdAt: T0 });
    engine.add({ queryId: 'cancelled', request: request({ AND: [{ source: 'news', args: { text: 'exchange hacked' } }] }), createdAt: T0 });
    engine.add({ queryId: 'removed', request: request({ AND: [{ source: 'tweet', args: { username: 'saylor', text: 'bitcoin' } }] }), createdAt: T0 });
    engine.add({ queryId: 'llm', request: request({ AND: [{ source: 'cron', method: 'every', args: { period: '1h' } }, { source: 'llm', method: 'athena_condition', args: { query: 'x?', period: '1h' } }] }), createdAt: T0 });
    expect(engine.openTopics).toBe(4);
    tick('BTC', 101);
    expect(engine.openTopics).toBe(3);
    advance(3_600_000);
    expect(engine.openTopics).toBe(2);
    engine.cancel('cancelled');
    engine.remove('removed');
    engine.remove('llm');
    expect(engine.openTopics).toBe(0);
    expect(source.observed).toBe(false);
    // No timer is left: flushing far ahead runs nothing and changes nothing.
    const before = engine.inspect('expires');
    advance(30 * 86_400_000);
    expect(engine.inspect('expires')).toEqual(before);
  });

  it('a removed query keeps nothing its runs built (an old query would carry young objects into the old generation)', () => {
    const { engine, tick } = setup();
    // The engine's own view of its queries: what a removed runtime still points to is not visible otherwise.
    type Runtime = { pendingTrigger: unknown; conditionStates(): Array<{ value?: number }> };
    const runtimes = (engine as unknown as { queries: Map<string, Runtime> }).queries;
    engine.add({ queryId: 'fired', request: request(priceAbove('BTC', 100)), createdAt: T0 });
    engine.add({ queryId: 'waiting', request: request(priceAbove('BTC', 1_000)), createdAt: T0 });
    const fired = runtimes.get('fired') as Runtime;
    const waiting = runtimes.get('waiting') as Runtime;
    tick('BTC', 101);
    // Fired and detached: until it leaves the engine, it shows what it read last.
    expect(fired.conditionStates()[0]?.value).toBe(101);
    engine.remove('fired');
    engine.remove('waiting');
    for (const runtime of [fired, waiting]) {
      expect(runtime.pendingTrigger).toBeUndefined();
      expect(runtime.conditionStates()[0]?.value).toBeUndefined();
    }
  });
});
