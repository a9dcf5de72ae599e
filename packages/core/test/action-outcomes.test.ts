import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defer, EMPTY, filter, firstValueFrom, map, Observable, type ObservableInput, of, throwError, timer } from 'rxjs';
import {
  ActionError,
  type ActionExecutor,
  type ActionOutcome,
  Engine,
  type EngineEvent,
  EpochVirtualScheduler,
  MemoryStateStore,
  PushSource,
  type QueryRequest,
  type StateStore,
} from '@eql/core';

// The shapes an executor may answer in (ActionExecutor.execute): an outcome as is, a promise, or an
// observable whose first value counts, synchronously or later in (virtual) time; and a store that
// answers synchronously or with promises. Whatever the shape, a trigger ends the same way: the same
// execution records, the same status.

const T0 = Date.parse('2026-01-05T00:00:00Z');
const QUERY = 'q-shapes';

function request(actions: unknown[]): QueryRequest {
  return { title: 'shapes', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 }] }, actions, expiresIn: '1d' } } as unknown as QueryRequest;
}

const HOOK = (stepId: string) => ({ stepId, type: 'webhook', params: { url: 'https://hooks.example.com/x' } });

/** A store whose every answer is a promise (as a database's would be), kept in memory. */
function promisedStore(memory: MemoryStateStore): StateStore {
  const later = <T>(work: () => T): Promise<T> => Promise.resolve().then(work);
  return {
    saveRuntime: (queryId, state) => later(() => memory.saveRuntime(queryId, state)),
    saveExecution: (record) => later(() => memory.saveExecution(record)),
    saveSession: (session) => later(() => memory.saveSession(session)),
    addNotification: (draft) => later(() => memory.addNotification(draft)),
    saveOutbox: (entry) => later(() => memory.saveOutbox(entry)),
    outboxEntry: (key) => later(() => memory.outboxEntry(key)),
  };
}

function engineWith(execute: ActionExecutor['execute'], memory: MemoryStateStore = new MemoryStateStore(), promised = false) {
  const store = promised ? promisedStore(memory) : memory;
  const scheduler = new EpochVirtualScheduler(T0);
  const source = new PushSource();
  let ids = 0;
  const engine = new Engine({ scheduler, sources: [source], store, newId: () => `id-${++ids}`, executors: { webhook: { execute } } });
  const events: EngineEvent[] = [];
  engine.events$.subscribe((event) => events.push(event));
  engine.add({ queryId: QUERY, request: request([HOOK('one'), HOOK('two')]), createdAt: T0 });
  const tick = (price: number) => source.push({ at: scheduler.now(), source: 'price', symbol: 'BTC', price });
  return { engine, events, tick, scheduler, store: memory };
}

/** What a trigger left: the execution records' statuses and errors, and the query's status. */
function summary(store: MemoryStateStore, engine: Engine) {
  return {
    status: engine.inspect(QUERY)?.status,
    executions: store.executionsOf(QUERY).map((record) => ({ step: record.stepId, status: record.status, code: record.error?.code, result: record.result })),
    outbox: [...store.outbox.values()].map((entry) => `${entry.stepId}:${entry.status}`),
  };
}

const SUCCEEDED = {
  status: 'triggered',
  executions: [
    { step: 'one', status: 'succeeded', code: undefined, result: { status: 200 } },
    { step: 'two', status: 'succeeded', code: undefined, result: { status: 200 } },
  ],
  outbox: ['one:succeeded', 'two:succeeded'],
};

describe('an executor may answer in any shape', () => {
  const outcome: ActionOutcome = { result: { status: 200 } };
  const shapes: Array<[string, () => ActionOutcome | ObservableInput<ActionOutcome>]> = [
    ['an outcome as is', () => outcome],
    ['a promise', () => Promise.resolve(outcome)],
    ['an observable that emits at once', () => of(outcome)],
    ['an observable that emits more than once (the first value counts)', () => of(outcome, { result: { status: 500 } })],
    ['an array', () => [outcome]],
    ['a deferred observable', () => defer(() => of(outcome))],
  ];

  for (const [name, answer] of shapes) {
    it(`${name}: both steps succeed and the query is triggered`, async () => {
      const { engine, tick, store } = engineWith(() => answer());
      tick(101);
      await (engine.inspect(QUERY)?.status === 'triggered' ? Promise.resolve() : firstValueFrom(engine.events$.pipe(filter((event) => event.type === 'status-changed'))));
      expect(summary(store, engine)).toEqual(SUCCEEDED);
    });
  }

  it('synchronous answers (memory store, outcome as is): the whole trigger is done when push returns', () => {
    const { engine, tick, store, events } = engineWith(() => outcome);
    tick(101);
    expect(summary(store, engine)).toEqual(SUCCEEDED);
    expect(events.filter((event) => event.type.startsWith('execution-')).map((event) => event.type)).toEqual([
      'execution-started',
      'execution-succeeded',
      'execution-started',
      'execution-succeeded',
    ]);
  });

  it('an observable that answers later in virtual time: the step runs when the scheduler gets there, within its flush', () => {
    const scheduled: number[] = [];
    const { engine, tick, store, scheduler } = engineWith(() => {
      scheduled.push(scheduler.now());
      return timer(5_000, scheduler).pipe(map(() => outcome));
    });
    tick(101);
    expect(engine.inspect(QUERY)?.status).toBe('active');
    expect(store.executionsOf(QUERY).map((record) => record.status)).toEqual(['running']);
    scheduler.advanceTo(T0 + 5_000);
    expect(store.executionsOf(QUERY).map((record) => record.status)).toEqual(['succeeded', 'running']);
    scheduler.advanceTo(T0 + 10_000);
    expect(summary(store, engine)).toEqual(SUCCEEDED);
    expect(scheduled).toEqual([T0, T0 + 5_000]);
  });

  it('a store that answers with promises: the same records, in the same order', async () => {
    const { engine, tick, store } = engineWith(() => outcome, new MemoryStateStore(), true);
    tick(101);
    await (engine.inspect(QUERY)?.status === 'triggered' ? Promise.resolve() : firstValueFrom(engine.events$.pipe(filter((event) => event.type === 'status-changed'))));
    expect(summary(store, engine)).toEqual(SUCCEEDED);
  });
});

describe('an executor that fails', () => {
  const failures: Array<[string, () => ActionOutcome | ObservableInput<ActionOutcome>, string]> = [
    ['throws an ActionError', () => { throw new ActionError('TARGET_DOWN', 'down'); }, 'TARGET_DOWN'],
    ['throws anything else', () => { throw new TypeError('oops'); }, 'ACTION_FAILED'],
    ['rejects', () => Promise.reject(new ActionError('TARGET_DOWN', 'down')), 'TARGET_DOWN'],
    ['errors an observable', () => throwError(() => new ActionError('TARGET_DOWN', 'down')), 'TARGET_DOWN'],
    ['completes without an outcome', () => EMPTY, 'ACTION_FAILED'],
    ['answers an empty array', () => [], 'ACTION_FAILED'],
  ];

  for (const [name, answer, code] of failures) {
    it(`${name}: the step fails with ${code}, the next step does not run, the query fails`, async () => {
      const { engine, tick, store } = engineWith(() => answer());
      tick(101);
      await (engine.inspect(QUERY)?.status === 'failed' ? Promise.resolve() : firstValueFrom(engine.events$.pipe(filter((event) => event.type === 'status-changed'))));
      expect(summary(store, engine)).toEqual({ status: 'failed', executions: [{ step: 'one', status: 'failed', code, result: undefined }], outbox: ['one:failed'] });
    });
  }

  it('an observable that emits after it was abandoned is not heard: one outcome per step', () => {
    let emitLater: ((value: ActionOutcome) => void) | undefined;
    const { engine, tick, store } = engineWith(
      () =>
        new Observable<ActionOutcome>((subscriber) => {
          subscriber.next({ result: { status: 200 } });
          emitLater = (value) => subscriber.next(value);
        }),
    );
    tick(101);
    emitLater?.({ result: { status: 500 } });
    expect(summary(store, engine)).toEqual(SUCCEEDED);
  });
});

describe('any mix of shapes', () => {
  it('ends the same way as the synchronous run (property)', async () => {
    const shape = fc.constantFrom('plain', 'promise', 'of', 'array', 'throw', 'reject', 'empty');
    await fc.assert(
      fc.asyncProperty(fc.tuple(shape, shape), fc.boolean(), async (steps, promised) => {
        const answers = [...steps];
        const answerOf = (kind: string): ActionOutcome | ObservableInput<ActionOutcome> => {
          const outcome = { result: { status: 200 } };
          if (kind === 'plain') return outcome;
          if (kind === 'promise') return Promise.resolve(outcome);
          if (kind === 'of') return of(outcome);
          if (kind === 'array') return [outcome];
          if (kind === 'throw') throw new ActionError('TARGET_DOWN', 'down');
          if (kind === 'reject') return Promise.reject(new ActionError('TARGET_DOWN', 'down'));
          return EMPTY;
        };
        const expected = (kinds: string[]) => {
          const executions: unknown[] = [];
          const outbox: string[] = [];
          for (const [index, kind] of kinds.entries()) {
            const step = index === 0 ? 'one' : 'two';
            const fails = kind === 'throw' || kind === 'reject' || kind === 'empty';
            executions.push({ step, status: fails ? 'failed' : 'succeeded', code: fails ? (kind === 'empty' ? 'ACTION_FAILED' : 'TARGET_DOWN') : undefined, result: fails ? undefined : { status: 200 } });
            outbox.push(`${step}:${fails ? 'failed' : 'succeeded'}`);
            if (fails) return { status: 'failed', executions, outbox };
          }
          return { status: 'triggered', executions, outbox };
        };
        let call = 0;
        const { engine, tick, store } = engineWith(() => answerOf(answers[call++] as string), new MemoryStateStore(), promised);
        tick(101);
        const final = engine.inspect(QUERY)?.status;
        if (final !== 'triggered' && final !== 'failed') await firstValueFrom(engine.events$.pipe(filter((event) => event.type === 'status-changed')));
        expect(summary(store, engine)).toEqual(expected(answers));
      }),
      { numRuns: 80 },
    );
  });
});
