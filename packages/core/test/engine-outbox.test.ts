import { describe, expect, it, vi } from 'vitest';
import { filter, firstValueFrom, of } from 'rxjs';
import {
  type ActionExecutor,
  type ActionOutcome,
  Engine,
  type EngineEvent,
  EpochVirtualScheduler,
  type HttpRequest,
  type HttpTransport,
  type LlmProvider,
  MemoryStateStore,
  type OutboxEntry,
  PaperExchange,
  type PaperOrderRecord,
  PushSource,
  type QueryRequest,
  type RuntimeState,
} from '@eql/core';

// Side effects once across restarts: the outbox entry of a step is written before it runs, and a
// restart that finds it still pending settles the send by the rule of its action type
// (docs/semantics.md, "Once across restarts"). A restart is simulated as in engine-lifecycle.test.ts:
// the state a crash leaves in the store, then a new engine that resumes it.

const T0 = Date.parse('2026-01-05T00:00:00Z');
const QUERY = 'q-outbox';

function request(actions: unknown[]): QueryRequest {
  return { title: 'outbox', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 }] }, actions, expiresIn: '1d' } } as unknown as QueryRequest;
}

/** A transport that records what it is asked to send and answers 200 (a Telegram `ok` body). */
function recordingTransport(): HttpTransport & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return {
    sent,
    send: (request) => {
      sent.push(request);
      return Promise.resolve({ status: 200, headers: {}, body: JSON.stringify({ ok: true, result: { message_id: 7 } }) });
    },
  };
}

function engineOn(store: MemoryStateStore, options: { http?: HttpTransport; paper?: PaperExchange; executors?: Record<string, ActionExecutor>; llm?: LlmProvider; start?: number } = {}) {
  const scheduler = new EpochVirtualScheduler(options.start ?? T0, Number.MAX_SAFE_INTEGER);
  const source = new PushSource();
  let ids = 0;
  const engine = new Engine({
    scheduler,
    sources: [source],
    store,
    newId: () => `id-${(options.start ?? T0) === T0 ? 'first' : 'second'}-${++ids}`,
    ...(options.http ? { http: options.http } : {}),
    ...(options.paper ? { paper: options.paper } : {}),
    ...(options.executors ? { executors: options.executors } : {}),
    ...(options.llm ? { llm: options.llm } : {}),
  });
  const events: EngineEvent[] = [];
  engine.events$.subscribe((event) => events.push(event));
  const tick = (price: number) => source.push({ at: scheduler.now(), source: 'price', symbol: 'BTC', price });
  return { engine, events, tick, scheduler };
}

/** Resolves when the query has the status (now, or at its `status-changed` event): no wall-clock wait. */
function statusOf(engine: Engine, status: string): Promise<unknown> {
  if (engine.inspect(QUERY)?.status === status) return Promise.resolve();
  return firstValueFrom(engine.events$.pipe(filter((event) => event.type === 'status-changed' && event.queryId === QUERY && event.status === status)));
}

/** What a crash in the middle of step `stepId` of trigger 1 leaves: the trigger pending, the step's outbox entry pending, its execution running. */
function crashedIn(store: MemoryStateStore, stepId: string, type: string, completedSteps: string[] = []): OutboxEntry {
  const runtime: RuntimeState = {
    status: 'active',
    triggerCount: 1,
    lastTriggerAt: T0,
    pendingTrigger: { triggerIndex: 1, final: true, firedAt: T0, conditionStates: [], completedSteps },
    latched: {},
    verdicts: {},
    cronPulses: {},
  };
  store.saveRuntime(QUERY, runtime);
  const entry: OutboxEntry = { key: `${QUERY}:1:${stepId}`, queryId: QUERY, triggerIndex: 1, stepId, type, executionId: 'cut-off', status: 'pending', createdAt: new Date(T0).toISOString() };
  store.saveOutbox(entry);
  store.saveExecution({ id: 'cut-off', queryId: QUERY, stepId, type, status: 'running', triggerIndex: 1, createdAt: entry.createdAt, attempts: 1 });
  return entry;
}

describe('the outbox', () => {
  it('is written pending before the action runs, and completed with its outcome', () => {
    const store = new MemoryStateStore();
    const seen: Array<OutboxEntry | undefined> = [];
    const probe: ActionExecutor = { execute: (_action, context) => (seen.push(store.outboxEntry(context.idempotencyKey)), of({ result: { ok: true } })) };
    const { engine, tick } = engineOn(store, { executors: { webhook: probe } });
    engine.add({ queryId: QUERY, request: request([{ stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } }]), createdAt: T0 });
    tick(101);
    const execution = store.executionsOf(QUERY)[0];
    expect(seen).toEqual([expect.objectContaining({ key: `${QUERY}:1:hook`, status: 'pending', executionId: execution?.id })]);
    expect(store.outboxEntry(`${QUERY}:1:hook`)).toMatchObject({ status: 'succeeded', result: { ok: true }, executionId: execution?.id });
    expect(engine.inspect(QUERY)?.status).toBe('triggered');
  });

  it('records a failure too (its code), and a fresh trigger never reads it', () => {
    const store = new MemoryStateStore();
    const { engine, tick } = engineOn(store, { http: recordingTransport() });
    engine.add({ queryId: QUERY, request: request([{ stepId: 'bot', type: 'messenger_bot', params: { botToken: 'bad token', chatId: 1, message: 'hi' } }]), createdAt: T0 });
    tick(101);
    expect(store.outboxEntry(`${QUERY}:1:bot`)).toMatchObject({ status: 'failed', error: { code: 'MESSENGER_BOT_ERROR' } });
    expect(engine.inspect(QUERY)?.status).toBe('failed');
  });
});

describe('a restart that finds a send in doubt', () => {
  it('messenger_bot: not sent again; the cut-off execution fails with DELIVERY_UNCERTAIN and the query fails', async () => {
    const store = new MemoryStateStore();
    crashedIn(store, 'bot', 'messenger_bot');
    const http = recordingTransport();
    const { engine } = engineOn(store, { http, start: T0 + 60_000 });
    engine.add({ queryId: QUERY, request: request([{ stepId: 'bot', type: 'messenger_bot', params: { botToken: '123456:abcdefghijklmnopqrstuvwxyz0123456789', chatId: 1, message: 'hi' } }]), createdAt: T0 }, store.runtime.get(QUERY));
    await statusOf(engine, 'failed');
    expect(http.sent).toHaveLength(0);
    expect(store.executionsOf(QUERY)).toHaveLength(1);
    expect(store.executionsOf(QUERY)[0]).toMatchObject({ id: 'cut-off', status: 'failed', error: { code: 'DELIVERY_UNCERTAIN' } });
    expect(store.executionsOf(QUERY)[0]?.error?.message).not.toContain('abcdefghijklmnopqrstuvwxyz');
    expect(store.outboxEntry(`${QUERY}:1:bot`)).toMatchObject({ status: 'failed', error: { code: 'DELIVERY_UNCERTAIN' } });
  });

  it('webhook: sent again with the same webhook-id (the receiver drops the duplicate), under the cut-off execution', async () => {
    const store = new MemoryStateStore();
    crashedIn(store, 'hook', 'webhook');
    const http = recordingTransport();
    const { engine } = engineOn(store, { http, start: T0 + 60_000 });
    engine.add({ queryId: QUERY, request: request([{ stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } }]), createdAt: T0 }, store.runtime.get(QUERY));
    await statusOf(engine, 'triggered');
    expect(http.sent.map((sent) => sent.headers['webhook-id'])).toEqual([`${QUERY}:1:hook`]);
    expect(JSON.parse(http.sent[0]?.body ?? '{}')).toMatchObject({ id: `${QUERY}:1:hook` });
    expect(store.executionsOf(QUERY)).toEqual([expect.objectContaining({ id: 'cut-off', status: 'succeeded', result: { status: 200, attempts: 1, recoveredAfterRestart: true } })]);
  });

  it('notify: run again, the notification of that step is not stored twice', () => {
    const store = new MemoryStateStore();
    crashedIn(store, 'n', 'notify');
    store.addNotification({ type: 'athena_query_notify_only', category: 'alerts', title: 't', body: 'fired', data: { queryId: QUERY, stepId: 'n', triggerIndex: 1 }, priority: 'high', createdAt: new Date(T0).toISOString() });
    const { engine } = engineOn(store, { start: T0 + 60_000 });
    engine.add({ queryId: QUERY, request: request([{ stepId: 'n', type: 'notify', params: { message: 'fired' } }]), createdAt: T0 }, store.runtime.get(QUERY));
    expect(engine.inspect(QUERY)?.status).toBe('triggered');
    expect(store.notifications).toHaveLength(1);
    expect(store.executionsOf(QUERY)).toEqual([expect.objectContaining({ id: 'cut-off', status: 'succeeded', result: { notificationId: 1, recoveredAfterRestart: true } })]);
  });

  it('market_order on paper: found by its client order id on the restored venue, not placed again', async () => {
    const store = new MemoryStateStore();
    const saved = new Map<string, PaperOrderRecord>();
    const log = { save: (records: readonly PaperOrderRecord[]) => records.forEach((record) => saved.set(record.request.clientOrderId, record)) };
    const order = { stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', size: 0.5 } };
    const first = engineOn(store, { paper: new PaperExchange(10_000, log) });
    first.engine.add({ queryId: QUERY, request: request([order]), createdAt: T0 });
    first.tick(101);
    await statusOf(first.engine, 'triggered');
    expect(saved.size).toBe(1);
    expect([...saved.values()][0]).toMatchObject({ seq: 1, fillSeq: 1, result: { orderId: 'paper-1', status: 'filled' } });
    first.engine.dispose();

    // The crash came after the venue took the order and before the step's outcome was recorded.
    const entry = store.outboxEntry(`${QUERY}:1:buy`) as OutboxEntry;
    crashedIn(store, 'buy', 'market_order');
    store.saveOutbox({ ...entry, status: 'pending' });
    const paper = new PaperExchange(10_000, log);
    paper.restore([...saved.values()]);
    const second = engineOn(store, { paper, start: T0 + 60_000 });
    second.engine.add({ queryId: QUERY, request: request([order]), createdAt: T0 }, store.runtime.get(QUERY));
    await statusOf(second.engine, 'triggered');
    expect(saved.size).toBe(1);
    expect(paper.position('BTC')).toMatchObject({ size: 0.5, entry: 101 });
    expect(store.executionsOf(QUERY).find((execution) => execution.id === entry.executionId)).toMatchObject({
      status: 'succeeded',
      result: { orderId: 'paper-1', foundByClientOrderId: true, recoveredAfterRestart: true },
    });
  });

  it('an outcome recorded before the restart is taken as is: nothing runs again, an llm callback gets its analysis', async () => {
    const store = new MemoryStateStore();
    crashedIn(store, 'think', 'llm');
    const analysis = { response: 'Buy.', trades: [] };
    store.saveOutbox({ key: `${QUERY}:1:think`, queryId: QUERY, triggerIndex: 1, stepId: 'think', type: 'llm', executionId: 'cut-off', status: 'succeeded', createdAt: new Date(T0).toISOString(), result: { response: 'Buy.' }, analysis });
    const analyze = vi.fn(() => of({ response: 'another answer', trades: [] }));
    const llm: LlmProvider = { judge: () => of({ confidence: 0 }), analyze };
    const { engine } = engineOn(store, { llm, start: T0 + 60_000 });
    engine.add({ queryId: QUERY, request: request([{ stepId: 'think', type: 'llm', params: { prompt: 'Now?', callback: { action: { type: 'notify', params: {} } } } }]), createdAt: T0 }, store.runtime.get(QUERY));
    await statusOf(engine, 'triggered');
    expect(analyze).not.toHaveBeenCalled();
    expect(store.executionsOf(QUERY).map((execution) => [execution.id, execution.stepId, execution.status])).toEqual([
      ['cut-off', 'think', 'succeeded'],
      ['id-second-1', 'think.callback', 'succeeded'],
    ]);
    expect(store.notifications.map((notification) => notification.body)).toEqual(['Buy.']);
  });

  it('a failure recorded before the restart fails the trigger again without running the step', () => {
    const store = new MemoryStateStore();
    crashedIn(store, 'hook', 'webhook');
    store.saveOutbox({ key: `${QUERY}:1:hook`, queryId: QUERY, triggerIndex: 1, stepId: 'hook', type: 'webhook', executionId: 'cut-off', status: 'failed', createdAt: new Date(T0).toISOString(), error: { code: 'WEBHOOK_GONE', message: 'the webhook endpoint answered 410 Gone' } });
    const http = recordingTransport();
    const { engine } = engineOn(store, { http, start: T0 + 60_000 });
    engine.add({ queryId: QUERY, request: request([{ stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } }]), createdAt: T0 }, store.runtime.get(QUERY));
    expect(engine.inspect(QUERY)?.status).toBe('failed');
    expect(http.sent).toHaveLength(0);
    expect(store.executionsOf(QUERY)).toEqual([expect.objectContaining({ id: 'cut-off', status: 'failed', error: { code: 'WEBHOOK_GONE', message: 'the webhook endpoint answered 410 Gone' } })]);
  });

  it('a crash after the last step ended and before the trigger settled: nothing is sent again', async () => {
    // The store's state at the instant each record of the last step is saved: a crash can leave any of them.
    const crashStates: Array<{ what: string; store: MemoryStateStore }> = [];
    class Snapshots extends MemoryStateStore {
      override saveOutbox(entry: OutboxEntry): void {
        super.saveOutbox(entry);
        if (entry.stepId === 'hook' && entry.status === 'succeeded') crashStates.push({ what: 'outcome in the outbox', store: copyOf(this) });
      }
      override saveExecution(record: Parameters<MemoryStateStore['saveExecution']>[0]): void {
        super.saveExecution(record);
        if (record.stepId === 'hook' && record.status === 'succeeded') crashStates.push({ what: 'execution ended', store: copyOf(this) });
      }
    }
    const copyOf = (from: MemoryStateStore): MemoryStateStore => {
      const copy = new MemoryStateStore();
      for (const [queryId, state] of from.runtime) copy.saveRuntime(queryId, structuredClone(state));
      for (const entry of from.outbox.values()) copy.saveOutbox(structuredClone(entry));
      for (const record of from.executions.values()) copy.saveExecution(structuredClone(record));
      for (const notification of from.notifications) copy.addNotification(structuredClone(notification));
      return copy;
    };
    const actions = [
      { stepId: 'n', type: 'notify', params: { message: 'fired' } },
      { stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } },
    ];
    const first = engineOn(new Snapshots(), { http: recordingTransport() });
    first.engine.add({ queryId: QUERY, request: request(actions), createdAt: T0 });
    first.tick(101);
    await statusOf(first.engine, 'triggered');
    first.engine.dispose();
    expect(crashStates.map((state) => state.what)).toEqual(['outcome in the outbox', 'execution ended']);
    for (const { store } of crashStates) {
      expect(store.runtime.get(QUERY)?.pendingTrigger).toBeDefined();
      const http = recordingTransport();
      const { engine } = engineOn(store, { http, start: T0 + 60_000 });
      engine.add({ queryId: QUERY, request: request(actions), createdAt: T0 }, store.runtime.get(QUERY));
      await statusOf(engine, 'triggered');
      expect(http.sent).toHaveLength(0);
      expect(store.notifications).toHaveLength(1);
      expect(store.executionsOf(QUERY).map((execution) => [execution.stepId, execution.status])).toEqual([
        ['n', 'succeeded'],
        ['hook', 'succeeded'],
      ]);
      expect(store.runtime.get(QUERY)).toMatchObject({ status: 'triggered' });
      expect(store.runtime.get(QUERY)?.pendingTrigger).toBeUndefined();
      engine.dispose();
    }
  });

  it('a step with no outbox entry never started: it runs as usual, as a new execution', async () => {
    const store = new MemoryStateStore();
    crashedIn(store, 'bot', 'messenger_bot');
    store.outbox.clear();
    const http = recordingTransport();
    const { engine } = engineOn(store, { http, start: T0 + 60_000 });
    engine.add({ queryId: QUERY, request: request([{ stepId: 'bot', type: 'messenger_bot', params: { botToken: '123456:abcdefghijklmnopqrstuvwxyz0123456789', chatId: 1, message: 'hi' } }]), createdAt: T0 }, store.runtime.get(QUERY));
    await statusOf(engine, 'triggered');
    expect(http.sent).toHaveLength(1);
    expect(store.executionsOf(QUERY).find((execution) => execution.id !== 'cut-off')).toMatchObject({ status: 'succeeded', result: { messageId: 7 } });
  });
});

describe('the paper venue across restarts', () => {
  it('a restored venue knows its client order ids, positions, realized profit and resting orders', () => {
    const records = new Map<string, PaperOrderRecord>();
    const log = { save: (saved: readonly PaperOrderRecord[]) => saved.forEach((record) => records.set(record.request.clientOrderId, record)) };
    const first = new PaperExchange(10_000, log);
    first.onPrice('BTC', 100);
    // With a synchronous log the venue answers synchronously.
    void first.placeOrder({ clientOrderId: 'a', symbol: 'BTC', side: 'buy', type: 'market', amount: 2 });
    void first.placeOrder({ clientOrderId: 'b', symbol: 'BTC', side: 'sell', type: 'limit', amount: 1, price: 120 });
    first.onPrice('BTC', 121);
    void first.placeOrder({ clientOrderId: 'c', symbol: 'BTC', side: 'sell', type: 'limit', amount: 1, price: 150 });
    const balance = first.availableBalanceUsd();

    const second = new PaperExchange(10_000, log);
    second.restore([...records.values()].reverse());
    expect(second.position('BTC')).toEqual(first.position('BTC'));
    expect(second.availableBalanceUsd()).toBe(balance);
    expect(second.findOrderByClientId('a')).toEqual(first.findOrderByClientId('a'));
    second.onPrice('BTC', 100);
    // An order already taken is answered, not placed again; the next order id follows the restored ones.
    expect(second.placeOrder({ clientOrderId: 'a', symbol: 'BTC', side: 'buy', type: 'market', amount: 2 })).toMatchObject({ orderId: 'paper-1', filled: 2 });
    expect(second.placeOrder({ clientOrderId: 'd', symbol: 'BTC', side: 'buy', type: 'market', amount: 1 })).toMatchObject({ orderId: 'paper-4' });
    // The resting sell at 150 fills at a later price, and that fill is saved.
    second.onPrice('BTC', 151);
    expect(records.get('c')?.result).toMatchObject({ status: 'filled', averagePrice: 150 });
    expect(second.position('BTC')).toMatchObject({ size: 1 });
  });
});

/** A store whose outbox claims a fresh step's entry (as the host's stores do): only the first claim of a key wins. */
class ClaimingStore extends MemoryStateStore {
  claims = 0;
  claimOutbox(entry: OutboxEntry): boolean {
    this.claims += 1;
    if (this.outboxEntry(entry.key) !== undefined) return false;
    this.saveOutbox(entry);
    return true;
  }
}

describe('a fresh step claims its outbox entry (a host that lost the query may have claimed it first)', () => {
  const hook = { stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } };
  const entryOf = (status: OutboxEntry['status'], extra: Partial<OutboxEntry> = {}): OutboxEntry => ({
    key: `${QUERY}:1:hook`,
    queryId: QUERY,
    triggerIndex: 1,
    stepId: 'hook',
    type: 'webhook',
    executionId: 'other-owner',
    status,
    createdAt: new Date(T0).toISOString(),
    ...extra,
  });

  it('won: the step runs as usual', async () => {
    const store = new ClaimingStore();
    const http = recordingTransport();
    const { engine, tick } = engineOn(store, { http });
    engine.add({ queryId: QUERY, request: request([hook]), createdAt: T0 });
    tick(101);
    await statusOf(engine, 'triggered');
    expect(store.claims).toBe(1);
    expect(http.sent).toHaveLength(1);
    expect(store.outboxEntry(`${QUERY}:1:hook`)).toMatchObject({ status: 'succeeded', executionId: store.executionsOf(QUERY)[0]?.id });
  });

  it('lost to an entry with its outcome: nothing is sent, the execution says the recorded outcome', async () => {
    const store = new ClaimingStore();
    store.saveOutbox(entryOf('succeeded', { finishedAt: new Date(T0).toISOString(), result: { status: 200, attempts: 1 } }));
    const http = recordingTransport();
    const { engine, tick } = engineOn(store, { http });
    engine.add({ queryId: QUERY, request: request([hook]), createdAt: T0 });
    tick(101);
    await statusOf(engine, 'triggered');
    expect(http.sent).toHaveLength(0);
    expect(store.executionsOf(QUERY)).toEqual([expect.objectContaining({ id: 'other-owner', status: 'succeeded', result: { status: 200, attempts: 1 } })]);
  });

  it('lost to a pending entry: a send in doubt, settled under the other run’s execution and webhook-id', async () => {
    const store = new ClaimingStore();
    store.saveOutbox(entryOf('pending'));
    const http = recordingTransport();
    const { engine, tick } = engineOn(store, { http });
    engine.add({ queryId: QUERY, request: request([hook]), createdAt: T0 });
    tick(101);
    await statusOf(engine, 'triggered');
    expect(http.sent.map((sent) => sent.headers['webhook-id'])).toEqual([`${QUERY}:1:hook`]);
    expect(store.executionsOf(QUERY)).toEqual([expect.objectContaining({ id: 'other-owner', status: 'succeeded' })]);
  });
});

describe('a query that leaves its engine while a trigger runs (deleted, or its partition handed to another host)', () => {
  it('saves nothing more: its trigger stays pending in the store as last saved, and the engine that runs it next resumes it, each step once', async () => {
    // A host's store keeps a removed query's records (the query may run on another host now).
    const store = new MemoryStateStore();
    store.forgetQuery = () => undefined;
    let finish: ((outcome: ActionOutcome) => void) | undefined;
    const execute = vi.fn(() => new Promise<ActionOutcome>((resolve) => (finish = resolve)));
    const slow: ActionExecutor = { execute };
    const actions = [
      { stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } },
      { stepId: 'n', type: 'notify', params: { message: 'fired' } },
    ];
    const first = engineOn(store, { executors: { webhook: slow } });
    first.engine.add({ queryId: QUERY, request: request(actions), createdAt: T0 });
    first.tick(101);
    expect(execute).toHaveBeenCalledTimes(1);
    first.engine.remove(QUERY);
    // The step under way ends after the query left: its outcome is on record in the outbox, nothing else moves.
    finish?.({ result: { status: 200 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.outboxEntry(`${QUERY}:1:hook`)).toMatchObject({ status: 'succeeded' });
    expect(store.runtime.get(QUERY)).toMatchObject({ status: 'active', triggerCount: 1, pendingTrigger: { triggerIndex: 1, completedSteps: [] } });
    expect(store.notifications).toEqual([]);

    const second = engineOn(store, { executors: { webhook: slow }, start: T0 + 60_000 });
    second.engine.add({ queryId: QUERY, request: request(actions), createdAt: T0 }, store.runtime.get(QUERY));
    await statusOf(second.engine, 'triggered');
    expect(execute).toHaveBeenCalledTimes(1);
    expect(store.notifications.map((notification) => notification.data.triggerIndex)).toEqual([1]);
    expect(store.executionsOf(QUERY).map((execution) => [execution.stepId, execution.status])).toEqual([
      ['hook', 'succeeded'],
      ['n', 'succeeded'],
    ]);
  });
});
