import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ActionExecutor, type ActionOutcome, Engine, EpochVirtualScheduler, MemoryStateStore, type NotificationDraft, PushSource, type QueryRequest } from '@eql/core';

// The default store is bounded (docs/embedding.md, "Persist it"): it forgets a removed query's records
// once its last save is done, and keeps the latest `maxNotifications` notifications. An embedder that
// adds and removes queries for ever holds what its live queries need.

const T0 = Date.parse('2026-01-05T00:00:00Z');

function request(actions: unknown[], value = 100): QueryRequest {
  return { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value }] }, actions, expiresIn: '1d' } } as unknown as QueryRequest;
}

const notify = (message = 'fired') => ({ stepId: 'n', type: 'notify', params: { message } });

function setup(store: MemoryStateStore, executors: Record<string, ActionExecutor> = {}) {
  const scheduler = new EpochVirtualScheduler(T0, Number.MAX_SAFE_INTEGER);
  const source = new PushSource();
  const engine = new Engine({ scheduler, sources: [source], store, executors });
  const tick = (price: number) => source.push({ at: scheduler.now(), source: 'price', symbol: 'BTC', price });
  return { engine, tick };
}

function draft(queryId: string, triggerIndex: number): NotificationDraft {
  return { type: 'athena_query_notify_only', category: 'alerts', title: 't', body: 'b', data: { queryId, stepId: 'n', triggerIndex }, priority: 'high', createdAt: new Date(T0).toISOString() };
}

describe('MemoryStateStore', () => {
  it('forgets the records of a removed query and keeps those of the others', () => {
    const store = new MemoryStateStore();
    const { engine, tick } = setup(store);
    engine.add({ queryId: 'gone', request: request([notify()]), createdAt: T0 });
    engine.add({ queryId: 'kept', request: request([notify()]), createdAt: T0 });
    tick(101);
    expect(store.executionsOf('gone')).toEqual([expect.objectContaining({ stepId: 'n', status: 'succeeded' })]);
    expect(store.runtime.has('gone')).toBe(true);
    expect(store.outbox.size).toBe(2);

    expect(engine.remove('gone')).toBe(true);
    expect(store.executionsOf('gone')).toEqual([]);
    expect(store.runtime.has('gone')).toBe(false);
    expect([...store.executions.values()].map((record) => record.queryId)).toEqual(['kept']);
    expect([...store.outbox.values()].map((entry) => entry.queryId)).toEqual(['kept']);
    // The feed is a feed: both notifications stay in it.
    expect(store.notifications.map((notification) => notification.data.queryId)).toEqual(['gone', 'kept']);
    expect(store.executionsOf('kept')).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  it('waits for a trigger still running when its query is removed, then forgets what it saved', async () => {
    let release: (outcome: ActionOutcome) => void = () => undefined;
    const slow: ActionExecutor = { execute: () => new Promise<ActionOutcome>((resolve) => (release = resolve)) };
    const store = new MemoryStateStore();
    const { engine, tick } = setup(store, { webhook: slow });
    engine.add({ queryId: 'q', request: request([{ stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } }, notify()]), createdAt: T0 });
    tick(101);
    expect(store.executionsOf('q')).toEqual([expect.objectContaining({ stepId: 'hook', status: 'running' })]);
    engine.remove('q');
    // Its step is in flight: its records stay until it ends.
    expect(store.executionsOf('q')).toHaveLength(1);
    release({ result: { status: 200 } });
    await Promise.resolve();
    await Promise.resolve();
    expect(store.executionsOf('q')).toEqual([]);
    expect(store.runtime.has('q')).toBe(false);
    expect(store.outbox.size).toBe(0);
    // The removal stopped the chain: the notify step never ran.
    expect(store.notifications).toEqual([]);
  });

  it('leaves a query that took the id of a removed one alone', async () => {
    let release: (outcome: ActionOutcome) => void = () => undefined;
    const slow: ActionExecutor = { execute: () => new Promise<ActionOutcome>((resolve) => (release = resolve)) };
    const store = new MemoryStateStore();
    const { engine, tick } = setup(store, { webhook: slow });
    engine.add({ queryId: 'q', request: request([{ stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } }]), createdAt: T0 });
    tick(101);
    engine.remove('q');
    engine.add({ queryId: 'q', request: request([notify()], 200), createdAt: T0 });
    tick(201);
    expect(store.executionsOf('q').map((record) => record.stepId)).toEqual(['hook', 'n']);
    release({ result: { status: 200 } });
    await Promise.resolve();
    await Promise.resolve();
    expect(store.executionsOf('q').map((record) => [record.stepId, record.status])).toEqual([
      ['hook', 'succeeded'],
      ['n', 'succeeded'],
    ]);
  });

  it('keeps the latest maxNotifications notifications, and a repeat of a kept step returns the first', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 6 })), { maxLength: 60 }), (max, steps) => {
        const store = new MemoryStateStore({ maxNotifications: max });
        // The reference: every distinct step once, in order, with its id; a repeat of a step still kept returns it.
        const reference: Array<{ key: string; id: number }> = [];
        let nextId = 1;
        for (const [query, triggerIndex] of steps) {
          const key = `q${query}:${triggerIndex}`;
          const kept = reference.find((entry) => entry.key === key);
          const stored = store.addNotification(draft(`q${query}`, triggerIndex));
          if (kept) expect(stored.id).toBe(kept.id);
          else {
            expect(stored.id).toBe(nextId);
            reference.push({ key, id: nextId++ });
            if (reference.length > max) reference.splice(0, reference.length - max);
          }
          expect(store.notifications.map((notification) => notification.id)).toEqual(reference.map((entry) => entry.id));
        }
      }),
    );
  });

  it('gives a repeat of a kept step the first notification until the query is forgotten, in any order of triggers (property)', () => {
    type Op = ['add', number, number, string] | ['forget', number];
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 12, arbitrary: fc.tuple(fc.constant('add' as const), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 40 }), fc.constantFrom('a', 'b')) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('forget' as const), fc.integer({ min: 0, max: 2 })) },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.boolean(), fc.array(op, { maxLength: 200 }), (max, inOrder, ops) => {
        const store = new MemoryStateStore({ maxNotifications: max });
        // The reference: the kept notifications with the number of times their query had been forgotten when each came.
        const kept: Array<{ query: number; triggerIndex: number; stepId: string; lives: number; id: number }> = [];
        const lives = [0, 0, 0];
        const latest = [0, 0, 0];
        let nextId = 1;
        for (const [kind, query, ...rest] of ops) {
          if (kind === 'forget') {
            store.forgetQuery(`q${query}`);
            lives[query] = (lives[query] as number) + 1;
            continue;
          }
          const [drawn, stepId] = rest as [number, string];
          // As the engine does (a query's triggers in order), or in any order.
          const triggerIndex = inOrder ? (latest[query] = Math.max(latest[query] as number, drawn)) : drawn;
          const first = kept.find((entry) => entry.query === query && entry.triggerIndex === triggerIndex && entry.stepId === stepId && entry.lives === lives[query]);
          const stored = store.addNotification({ ...draft(`q${query}`, triggerIndex), data: { queryId: `q${query}`, stepId, triggerIndex } });
          if (first) expect(stored.id).toBe(first.id);
          else {
            expect(stored.id).toBe(nextId);
            kept.push({ query, triggerIndex, stepId, lives: lives[query] as number, id: nextId++ });
            if (kept.length > max) kept.splice(0, kept.length - max);
          }
        }
        expect(store.notifications.map((notification) => notification.id)).toEqual(kept.map((entry) => entry.id));
      }),
      { numRuns: 300 },
    );
  });

  it('notifies anew for a query that takes the id of a removed one', () => {
    const store = new MemoryStateStore();
    const { engine, tick } = setup(store);
    engine.add({ queryId: 'q', request: request([notify('first')]), createdAt: T0 });
    tick(101);
    engine.remove('q');
    engine.add({ queryId: 'q', request: request([notify('second')], 200), createdAt: T0 });
    tick(201);
    expect(store.notifications.map((notification) => [notification.data.queryId, notification.data.triggerIndex, notification.body])).toEqual([
      ['q', 1, 'first'],
      ['q', 1, 'second'],
    ]);
  });

  it('keeps the latest notifications through many drops (the dropped slots are cut off in batches)', () => {
    for (const max of [0, 1, 7, 1500]) {
      const store = new MemoryStateStore({ maxNotifications: max });
      const total = 5000;
      for (let index = 0; index < total; index += 1) store.addNotification(draft(`q${index}`, 1));
      const kept = store.notifications;
      expect(kept.map((notification) => notification.id)).toEqual(Array.from({ length: max }, (_, offset) => total - max + offset + 1));
      // A repeat of a kept step returns the first; a dropped step is stored again, with a new id.
      if (max > 0) expect(store.addNotification(draft(`q${total - 1}`, 1)).id).toBe(total);
      // The step dropped last (after the cut-offs) and the first one dropped are both stored again.
      expect(store.addNotification(draft(`q${total - max - 1}`, 1)).id).toBe(total + 1);
      expect(store.addNotification(draft('q0', 1)).id).toBe(total + 2);
      expect(store.notifications).toHaveLength(max);
      // The getter hands out a copy: changing it does not change the store.
      kept.length = 0;
      expect(store.notifications).toHaveLength(max);
    }
  });

  it('holds a bounded heap over many fired and removed queries', () => {
    const store = new MemoryStateStore({ maxNotifications: 100 });
    const { engine, tick } = setup(store);
    for (let round = 0; round < 500; round += 1) {
      const queryId = `q${round}`;
      engine.add({ queryId, request: request([notify()], 100 + round), createdAt: T0 });
      tick(101 + round);
      expect(engine.inspect(queryId)?.status).toBe('triggered');
      engine.remove(queryId);
    }
    expect(store.executions.size).toBe(0);
    expect(store.outbox.size).toBe(0);
    expect(store.runtime.size).toBe(0);
    expect(store.notifications).toHaveLength(100);
    expect(store.notifications[0]?.data.queryId).toBe('q400');
  });

  it('refuses a maxNotifications that is not a number >= 0', () => {
    expect(() => new MemoryStateStore({ maxNotifications: -1 })).toThrow(RangeError);
    expect(() => new MemoryStateStore({ maxNotifications: Number.NaN })).toThrow(RangeError);
    expect(new MemoryStateStore({ maxNotifications: Number.POSITIVE_INFINITY }).notifications).toEqual([]);
  });
});
