import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENGINE_EVENT_TYPES, Engine, type EngineEvent, type EngineEventType, EpochVirtualScheduler, MemoryStateStore, PushSource, type QueryRequest } from '@eql/core';

const T0 = Date.parse('2026-01-05T00:00:00Z');
const OPERATORS = ['>', '>=', '<', '<=', '==', 'crosses_above', 'crosses_below'] as const;

type Step =
  | { kind: 'add'; operator: (typeof OPERATORS)[number]; value: number; repeat: boolean; expiresIn: '1h' | '1d' }
  | { kind: 'tick'; price: number }
  | { kind: 'cancel'; index: number }
  | { kind: 'advance'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), operator: fc.constantFrom(...OPERATORS), value: fc.integer({ min: 95, max: 105 }), repeat: fc.boolean(), expiresIn: fc.constantFrom('1h' as const, '1d' as const) }),
  fc.record({ kind: fc.constant('tick' as const), price: fc.integer({ min: 94, max: 106 }) }),
  fc.record({ kind: fc.constant('cancel' as const), index: fc.nat({ max: 9 }) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1_000, max: 2 * 3_600_000 }) }),
);

function request(operator: string, value: number, repeat: boolean, expiresIn: string): QueryRequest {
  return {
    title: 'q',
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator, value }] },
      actions: [
        { stepId: 'n', type: 'notify', params: { message: 'fired' } },
        { stepId: 'm', type: 'notify', params: { message: 'again' } },
      ],
      expiresIn,
      ...(repeat ? { repeat: { cooldown: '1m' } } : {}),
    },
  } as QueryRequest;
}

/** Runs the steps on a fresh engine; `listen` subscribes to it before anything happens. */
function run(steps: readonly Step[], listen: (engine: Engine) => void) {
  const scheduler = new EpochVirtualScheduler(T0, Number.MAX_SAFE_INTEGER);
  const source = new PushSource();
  const store = new MemoryStateStore();
  let ids = 0;
  const engine = new Engine({ scheduler, sources: [source], store, newId: () => `id-${++ids}` });
  listen(engine);
  const added: string[] = [];
  for (const item of steps) {
    if (item.kind === 'add') {
      const queryId = `q${added.length}`;
      added.push(queryId);
      engine.add({ queryId, request: request(item.operator, item.value, item.repeat, item.expiresIn), createdAt: scheduler.now() });
    } else if (item.kind === 'tick') source.push({ at: scheduler.now(), source: 'price', symbol: 'BTC', price: item.price });
    else if (item.kind === 'cancel') {
      const queryId = added[item.index];
      if (queryId !== undefined) engine.cancel(queryId);
    } else scheduler.advanceBy(item.ms);
  }
  const outcome = {
    queries: added.map((queryId) => engine.inspect(queryId)),
    executions: added.flatMap((queryId) => store.executionsOf(queryId)),
    notifications: store.notifications,
  };
  engine.dispose();
  return outcome;
}

describe('engine.eventsOf', () => {
  it('gives exactly the events of its types that events$ gives, in the same order, and listening changes nothing the engine does', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), fc.subarray([...ENGINE_EVENT_TYPES], { minLength: 1 }), (steps, types) => {
        const all: EngineEvent[] = [];
        const allOutcome = run(steps, (engine) => engine.events$.subscribe((event) => all.push(event)));
        const some: EngineEvent[] = [];
        const someOutcome = run(steps, (engine) => engine.eventsOf(...types).subscribe((event) => some.push(event)));
        const noneOutcome = run(steps, () => undefined);
        const wanted = new Set<EngineEventType>(types);
        expect(some).toEqual(all.filter((event) => wanted.has(event.type)));
        expect(someOutcome).toEqual(allOutcome);
        expect(noneOutcome).toEqual(allOutcome);
      }),
      { numRuns: 300 },
    );
  });

  it('types the events it gives, stops at unsubscribe and completes when the engine is disposed', () => {
    const scheduler = new EpochVirtualScheduler(T0, Number.MAX_SAFE_INTEGER);
    const source = new PushSource();
    const engine = new Engine({ scheduler, sources: [source] });
    const triggers: number[] = [];
    let completed = 0;
    const subscription = engine.eventsOf('trigger', 'trigger').subscribe({ next: (event) => triggers.push(event.triggerIndex), complete: () => (completed += 1) });
    const both = engine.eventsOf('trigger', 'notification').subscribe({ complete: () => (completed += 1) });
    engine.add({ queryId: 'a', request: request('>', 100, true, '1d'), createdAt: T0 });
    source.push({ at: T0, source: 'price', symbol: 'BTC', price: 101 });
    expect(triggers).toEqual([1]);
    subscription.unsubscribe();
    scheduler.advanceBy(120_000);
    source.push({ at: scheduler.now(), source: 'price', symbol: 'BTC', price: 102 });
    expect(triggers).toEqual([1]);
    engine.dispose();
    expect(completed).toBe(1);
    expect(both.closed).toBe(true);
    let late = 0;
    engine.eventsOf('problem').subscribe({ complete: () => (late += 1) });
    expect(late).toBe(1);
  });
});
