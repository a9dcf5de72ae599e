import { describe, expect, it } from 'vitest';
import { Engine, type EngineEvent, EpochVirtualScheduler, MemoryStateStore, type NotificationDraft, PushSource, type QueryRequest, type RuntimeState } from '@eql/core';

// A store that groups the writes of one instant (`StateStore.together`, issue 47: a synchronous store such
// as SQLite commits a storm's writes once): every write the engine makes while settling an instant is
// inside one call of `together`, a tick that fires nothing opens a group that writes nothing, and a
// group that fails to commit is a problem of the engine, which goes on.

const T0 = Date.parse('2026-01-05T00:00:00Z');

function request(threshold: number): QueryRequest {
  return {
    title: 'grouped',
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '<', value: threshold }] },
      actions: [{ stepId: 'tell', type: 'notify', params: { message: 'fell' } }],
      expiresIn: '1d',
    },
  } as unknown as QueryRequest;
}

/** A memory store that records, for each write, the group it was made in (0: outside any). */
class GroupingStore extends MemoryStateStore {
  groups = 0;
  current = 0;
  failNextCommit = false;
  readonly writesIn: number[] = [];
  together(work: () => void): void {
    this.groups += 1;
    this.current = this.groups;
    try {
      work();
    } finally {
      this.current = 0;
    }
    if (this.failNextCommit) {
      this.failNextCommit = false;
      throw new Error('the commit failed');
    }
  }
  override saveRuntime(queryId: string, state: RuntimeState): void {
    this.writesIn.push(this.current);
    super.saveRuntime(queryId, state);
  }
  override addNotification(draft: NotificationDraft) {
    this.writesIn.push(this.current);
    return super.addNotification(draft);
  }
}

function setup() {
  const scheduler = new EpochVirtualScheduler(T0, Number.MAX_SAFE_INTEGER);
  const source = new PushSource();
  const store = new GroupingStore();
  let ids = 0;
  const engine = new Engine({ scheduler, sources: [source], store, newId: () => `id-${++ids}` });
  const events: EngineEvent[] = [];
  engine.events$.subscribe((event) => events.push(event));
  const tick = (price: number) => source.push({ at: scheduler.now(), source: 'price', symbol: 'BTC', price });
  return { scheduler, store, engine, events, tick };
}

describe('writes grouped by the store', () => {
  it('a tick that fires a storm makes every write of it inside one group', () => {
    const { store, engine, events, tick } = setup();
    for (let index = 0; index < 200; index += 1) engine.add({ queryId: `q${index}`, request: request(100 + index), createdAt: T0 });
    tick(1_000);
    const before = store.writesIn.length;
    const groupsBefore = store.groups;
    tick(50);
    expect(events.filter((event) => event.type === 'trigger')).toHaveLength(200);
    expect(store.notifications).toHaveLength(200);
    const written = store.writesIn.slice(before);
    // Each trigger: its runtime state at the trigger, its notification, its runtime state at the end.
    expect(written.length).toBeGreaterThanOrEqual(600);
    expect(new Set(written)).toEqual(new Set([groupsBefore + 1]));
  });

  it('a commit that fails is a problem of the engine, which goes on with the next tick', () => {
    const { store, engine, events, tick } = setup();
    engine.add({ queryId: 'a', request: request(100), createdAt: T0 });
    engine.add({ queryId: 'b', request: request(90), createdAt: T0 });
    tick(1_000);
    store.failNextCommit = true;
    tick(95);
    expect(events.filter((event) => event.type === 'problem')).toEqual([expect.objectContaining({ code: 'STATE_STORE_ERROR', message: 'the commit failed' })]);
    tick(80);
    expect(events.filter((event) => event.type === 'trigger').map((event) => event.queryId)).toEqual(['a', 'b']);
  });
});
