import { describe, expect, it } from 'vitest';
import { type ActionExecutor, type ActionOutcome, Engine, type EngineEvent, EpochVirtualScheduler, MemoryStateStore, PushSource, type QueryRequest } from '@eql/core';

// The engine makes a removed query's runtime and leaf the objects of a later add (QueryRuntime.renew). These
// tests take queries through that on purpose: a query added after a removal behaves as if it were the
// engine's first, and nothing still running for the removed one ever reaches the query that took its place.
// (engine-differential.test.ts holds the same against the reference evaluator on random queries.)

const T0 = Date.parse('2026-01-05T00:00:00Z');

function request(condition: Record<string, unknown>, extra: Record<string, unknown> = {}, actions: unknown[] = [{ stepId: 'n', type: 'notify', params: { message: 'fired' } }], title = 'test'): QueryRequest {
  return { title, query: { conditions: { AND: [condition] }, actions, expiresIn: '1d', ...extra } } as unknown as QueryRequest;
}

const price = (symbol: string, operator: string, value: number, holdFor?: string) => ({
  source: 'price',
  method: 'current',
  args: { symbol },
  operator,
  value,
  ...(holdFor === undefined ? {} : { holdFor }),
});

function setup(executors?: Record<string, ActionExecutor>) {
  const scheduler = new EpochVirtualScheduler(T0, Number.MAX_SAFE_INTEGER);
  const source = new PushSource();
  const store = new MemoryStateStore();
  let ids = 0;
  const engine = new Engine({ scheduler, sources: [source], store, newId: () => `id-${++ids}`, ...(executors ? { executors } : {}) });
  const events: EngineEvent[] = [];
  engine.events$.subscribe((event) => {
    if (event.type === 'problem') throw new Error(`problem: ${event.code} ${event.message}`);
    events.push(event);
  });
  const tick = (symbol: string, value: number) => source.push({ at: scheduler.now(), source: 'price', symbol, price: value });
  const advance = (ms: number) => scheduler.advanceBy(ms);
  const triggersOf = (queryId: string) => events.filter((event) => event.type === 'trigger' && event.queryId === queryId);
  /** At the first `type` event of query `of`, its listener removes query `removed` and adds `added` (once). */
  const replaceFromListener = (type: 'trigger' | 'query-added', of: string, removed: string, added: { queryId: string; condition: Record<string, unknown> }) => {
    let replaced = false;
    engine.eventsOf(type).subscribe((event) => {
      if (event.queryId !== of || replaced) return;
      replaced = true;
      engine.remove(removed);
      engine.add({ queryId: added.queryId, request: request(added.condition), createdAt: T0 });
    });
  };
  return { scheduler, store, engine, events, tick, advance, triggersOf, replaceFromListener };
}

describe('engine: a query added after a removal', () => {
  it('starts fresh after a query that fired, on another symbol, operator and holdFor', () => {
    const { engine, tick, advance, triggersOf, store } = setup();
    tick('BTC', 100);
    tick('ETH', 50);
    engine.add({ queryId: 'old', request: request(price('BTC', '>', 101), {}, undefined, 'old one'), createdAt: T0 });
    tick('BTC', 102);
    expect(triggersOf('old')).toHaveLength(1);
    expect(engine.remove('old')).toBe(true);

    engine.add({ queryId: 'new', request: request(price('ETH', '<', 49, '2m')), createdAt: T0 });
    expect(engine.inspect('new')).toMatchObject({ status: 'active', triggerCount: 0, wouldTriggerNow: false, expiresAt: T0 + 86_400_000 });
    expect(engine.inspect('new')?.lastTriggerAt).toBeUndefined();
    const [state] = engine.inspect('new')?.conditionStates ?? [];
    expect(state).toMatchObject({ path: '/AND/0', method: 'current', holds: false, value: 50, threshold: 49 });
    expect(state?.since).toBeUndefined();

    // The old query's symbol and threshold are nothing to it any more.
    tick('BTC', 90);
    tick('BTC', 110);
    expect(triggersOf('new')).toHaveLength(0);
    // Its own condition, held for its own two minutes.
    tick('ETH', 48);
    advance(60_000);
    expect(triggersOf('new')).toHaveLength(0);
    advance(60_000);
    expect(triggersOf('new')).toHaveLength(1);
    expect(engine.inspect('new')?.status).toBe('triggered');
    expect(store.notifications.map((n) => [n.data.queryId, n.title])).toEqual([
      ['old', 'old one'],
      ['new', 'test'],
    ]);
  });

  it('keeps nothing of a removed query that was holding: its holdFor timer and its state stay behind', () => {
    const { engine, tick, advance, triggersOf } = setup();
    tick('BTC', 100);
    engine.add({ queryId: 'held', request: request(price('BTC', '>', 99, '5m')), createdAt: T0 });
    expect(engine.inspect('held')?.conditionStates[0]?.holds).toBe(false);
    advance(4 * 60_000);
    engine.remove('held');
    // Same symbol and threshold, no holdFor, on the side that does not hold: had the timer or `raw` stayed, it would fire.
    engine.add({ queryId: 'after', request: request(price('BTC', '<', 99)), createdAt: T0 + 4 * 60_000 });
    advance(10 * 60_000);
    expect(triggersOf('held')).toHaveLength(0);
    expect(triggersOf('after')).toHaveLength(0);
    expect(engine.inspect('after')).toMatchObject({ status: 'active', triggerCount: 0, wouldTriggerNow: false });
    tick('BTC', 98);
    expect(triggersOf('after')).toHaveLength(1);
  });

  it('starts a crossing of a live operand from nothing: the removed comparison it replaces is not its last value', () => {
    const { engine, tick, triggersOf } = setup();
    const eth = { source: 'price', method: 'current', args: { symbol: 'ETH' } };
    const btc = { source: 'price', method: 'current', args: { symbol: 'BTC' } };
    tick('BTC', 90);
    tick('ETH', 100);
    // BTC - ETH = -10 when removed; the next query reads ETH - BTC = +10: a crossing, had it kept the -10.
    engine.add({ queryId: 'below', request: request({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: eth }), createdAt: T0 });
    engine.remove('below');
    engine.add({ queryId: 'crossing', request: request({ source: 'price', method: 'current', args: { symbol: 'ETH' }, operator: 'crosses_above', value: btc }), createdAt: T0 });
    expect(triggersOf('crossing')).toHaveLength(0);
    tick('ETH', 80);
    expect(triggersOf('crossing')).toHaveLength(0);
    tick('ETH', 95);
    expect(triggersOf('crossing')).toHaveLength(1);
  });

  it('takes over a removed query with a repeat policy without its cooldown or count', () => {
    const { engine, tick, advance, triggersOf } = setup();
    tick('BTC', 100);
    engine.add({ queryId: 'repeating', request: request(price('BTC', 'crosses_above', 100.5), { repeat: { cooldown: '10m', maxTriggers: 5 } }), createdAt: T0 });
    tick('BTC', 101);
    expect(triggersOf('repeating')).toHaveLength(1);
    engine.remove('repeating');
    engine.add({ queryId: 'plain', request: request(price('BTC', 'crosses_above', 101.5)), createdAt: T0 });
    advance(1_000);
    tick('BTC', 102);
    expect(triggersOf('plain')).toHaveLength(1);
    expect(engine.inspect('plain')).toMatchObject({ status: 'triggered', triggerCount: 1 });
    // No re-arm of the old policy comes after its cooldown.
    advance(20 * 60_000);
    tick('BTC', 101);
    tick('BTC', 102);
    expect(triggersOf('plain')).toHaveLength(1);
    expect(triggersOf('repeating')).toHaveLength(1);
  });

  it('gives a query removed while its actions run nothing of the query added after it', async () => {
    let finish: ((outcome: ActionOutcome) => void) | undefined;
    const slow: ActionExecutor = { execute: () => new Promise<ActionOutcome>((resolve) => (finish = resolve)) };
    const { engine, tick, triggersOf, store } = setup({ webhook: slow });
    tick('BTC', 100);
    engine.add({ queryId: 'busy', request: request(price('BTC', '>', 101), {}, [{ stepId: 'w', type: 'webhook', params: { url: 'https://example.com/hook' } }]), createdAt: T0 });
    tick('BTC', 102);
    expect(triggersOf('busy')).toHaveLength(1);
    engine.remove('busy');
    engine.add({ queryId: 'next', request: request(price('BTC', '>', 103)), createdAt: T0 });
    // The removed query's trigger ends now: its outcome is its own, not the new query's.
    finish?.({ result: { status: 200 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(engine.inspect('next')).toMatchObject({ status: 'active', triggerCount: 0 });
    expect(store.executionsOf('next')).toEqual([]);
    expect(store.runtime.get('next')).toBeUndefined();
    tick('BTC', 104);
    expect(triggersOf('next')).toHaveLength(1);
    expect(engine.inspect('next')?.status).toBe('triggered');
  });

  it('replaces a query from inside a trigger listener, in the middle of the instant', () => {
    const { engine, tick, triggersOf, replaceFromListener } = setup();
    tick('BTC', 100);
    // Two crossings of one tick: the instant's pulses are turned on one after the other, and the first one's
    // listener removes the second (its pulse still to come) and adds another query.
    engine.add({ queryId: 'first', request: request(price('BTC', 'crosses_above', 101)), createdAt: T0 });
    engine.add({ queryId: 'second', request: request(price('BTC', 'crosses_above', 101)), createdAt: T0 });
    replaceFromListener('trigger', 'first', 'second', { queryId: 'third', condition: price('BTC', '<', 90) });
    tick('BTC', 102);
    expect(triggersOf('first')).toHaveLength(1);
    expect(triggersOf('second')).toHaveLength(0);
    expect(triggersOf('third')).toHaveLength(0);
    expect(engine.inspect('third')).toMatchObject({ status: 'active', triggerCount: 0, wouldTriggerNow: false });
    tick('BTC', 89);
    expect(triggersOf('third')).toHaveLength(1);
  });

  it('gives no query away from inside an event listener: an add goes on with the query it announced', () => {
    const { engine, tick, triggersOf, store, replaceFromListener } = setup();
    tick('BTC', 100);
    // A listener of query-added removes the query being added and adds another: the add of the first goes
    // on with its own query (a resumed one saves its state), never with the one added in between.
    replaceFromListener('query-added', 'resumed', 'resumed', { queryId: 'fresh', condition: price('BTC', '>', 105) });
    const resume = { status: 'active' as const, triggerCount: 0, latched: {}, verdicts: {}, cronPulses: {} };
    engine.add({ queryId: 'resumed', request: request(price('BTC', '>', 101)), createdAt: T0 }, resume);
    // A fresh query has nothing to remember yet: nothing of it is saved.
    expect(store.runtime.get('fresh')).toBeUndefined();
    expect(engine.inspect('resumed')).toBeUndefined();
    expect(engine.inspect('fresh')).toMatchObject({ status: 'active', triggerCount: 0 });
    tick('BTC', 102);
    expect(triggersOf('resumed')).toHaveLength(0);
    expect(triggersOf('fresh')).toHaveLength(0);
    tick('BTC', 106);
    expect(triggersOf('fresh')).toHaveLength(1);
  });

  it('fires every replacement exactly as a fresh engine would, over many fires and replacements', () => {
    // One engine that replaces each query as it fires (the reuse path at every fire), against a fresh
    // engine per query that sees the same ticks: the same fires at the same ticks.
    const symbols = ['BTC', 'ETH'];
    const operators = ['>', '>=', '<', '<=', 'crosses_above', 'crosses_below'];
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
    const prices = [100, 100];
    const ticks: Array<[number, number]> = [];
    for (let index = 0; index < 1_000; index += 1) {
      const s = Math.floor(random() * 2);
      // A walk that keeps coming back to 100, so that the queries around it keep firing.
      const previous = prices[s] as number;
      const next = Math.round((previous + (random() - 0.5) * 2 + (100 - previous) * 0.1) * 100) / 100;
      prices[s] = next;
      ticks.push([s, next]);
    }
    /** The price of symbol `s` before tick `from`. */
    const priceBefore = (s: number, from: number) => {
      for (let index = from - 1; index >= 0; index -= 1) if ((ticks[index] as [number, number])[0] === s) return (ticks[index] as [number, number])[1];
      return 100;
    };
    // A threshold within two of the price, so that most queries fire within a few dozen ticks.
    const queryFor = (generation: number, from: number) => {
      const s = generation % 2;
      const operator = operators[generation % operators.length] as string;
      const value = Math.round((priceBefore(s, from) + (random() - 0.5) * 4) * 100) / 100;
      return { symbol: symbols[s] as string, operator, value, holdFor: generation % 5 === 0 ? '30s' : undefined };
    };

    const live = setup();
    const fired: Array<[string, number]> = [];
    const plans = new Map<string, { condition: ReturnType<typeof queryFor>; from: number }>();
    let generation = 0;
    const addNext = (from: number) => {
      const id = `g${generation}`;
      const condition = queryFor(generation++, from);
      plans.set(id, { condition, from });
      live.engine.add({ queryId: id, request: request(price(condition.symbol, condition.operator, condition.value, condition.holdFor)), createdAt: live.scheduler.now() });
    };
    for (let slot = 0; slot < 6; slot += 1) addNext(0);
    ticks.forEach(([s, value], index) => {
      live.advance(10_000);
      live.tick(symbols[s] as string, value);
      for (const event of live.events.splice(0)) {
        if (event.type !== 'trigger') continue;
        fired.push([event.queryId, index]);
        live.engine.remove(event.queryId);
        addNext(index + 1);
      }
    });
    expect(fired.length).toBeGreaterThan(80);

    // Each query alone in an engine of its own, from the tick after the one its predecessor fired at.
    for (const [id, { condition, from }] of plans) {
      const alone = setup();
      for (let index = 0; index < from; index += 1) {
        const [s, value] = ticks[index] as [number, number];
        alone.advance(10_000);
        alone.tick(symbols[s] as string, value);
      }
      alone.engine.add({ queryId: id, request: request(price(condition.symbol, condition.operator, condition.value, condition.holdFor)), createdAt: alone.scheduler.now() });
      let firedAt: number | undefined;
      for (let index = from; index < ticks.length && firedAt === undefined; index += 1) {
        const [s, value] = ticks[index] as [number, number];
        alone.advance(10_000);
        alone.tick(symbols[s] as string, value);
        if (alone.triggersOf(id).length > 0) firedAt = index;
      }
      const expected = firedAt === undefined ? [] : [[id, firedAt]];
      expect(fired.filter(([firedId]) => firedId === id), `${id}: ${JSON.stringify(condition)} from tick ${from}`).toEqual(expected);
    }
  });
});
