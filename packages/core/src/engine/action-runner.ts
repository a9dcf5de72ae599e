import { catchError, concatMap, defer, EMPTY, from, map, type Observable, of, switchMap, take, throwError, toArray } from 'rxjs';
import type { Action, CallbackAction } from '../generated/eql-types.js';
import { isRecord } from '../util/json-pointer.js';
import { querySecretValues, secretRedactor } from '../util/redact.js';
import {
  ActionError,
  type ActionContext,
  type ActionExecutor,
  type ActionOutcome,
  type ExecutionRecord,
  type LlmAnalysis,
  type OutboxEntry,
  type StateStore,
  type TriggerContext,
} from './interfaces.js';
import type { EngineEvent } from './events.js';
import { isoTime, settle } from './maybe.js';
import type { QueryRuntime } from './query-runtime.js';

export interface ActionRunnerDeps {
  executors: ReadonlyMap<string, ActionExecutor>;
  store: StateStore;
  now(): number;
  newId(): string;
  emit(event: EngineEvent): void;
  /** Persists the query's runtime state (after each completed step). */
  persist(query: QueryRuntime): Observable<unknown>;
}

export type TriggerOutcome = 'succeeded' | 'failed' | 'stopped';

interface Step {
  stepId: string;
  action: Action | CallbackAction;
  /** For a callback: needs the analysis of the step before. */
  callbackOf?: string;
}

/**
 * Runs the actions of one trigger, in order, each as an execution record (spec 2.6): `running`, then
 * `succeeded` with its result or `failed` with `{code, message}`. An llm step's callback runs right
 * after it as its own execution (stepId `<step>.callback`) with the analysis. The first failure stops
 * the chain. If the query is cancelled between steps, the remaining steps do not run (an expiry lets
 * the trigger finish).
 *
 * **Once across restarts.** Before a step runs, its outbox entry (keyed by the step's idempotency key
 * `<queryId>:<triggerIndex>:<stepId>`) is written `pending`; its outcome completes it. When a restart
 * resumes the trigger (`resumed`), steps already completed are skipped, and for each other step the
 * outbox decides: no entry, the step never started and runs; an outcome recorded, it is taken as is
 * (nothing runs again); still `pending`, the send is in doubt and the executor settles it under the same
 * execution id and idempotency key (`ActionExecutor.resume`, else `execute` again: see docs/semantics.md
 * for the rule of each action type).
 */
export function runTrigger(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, completedSteps: string[], resumed = false): Observable<TriggerOutcome> {
  const steps = stepsOf(query);
  const analyses = new Map<string, LlmAnalysis>();
  return from(steps).pipe(
    concatMap((step) => {
      // A cancel stops the rest of the chain; an expiry during a re-arming trigger lets it finish.
      if (query.status === 'cancelled' || query.status === 'failed') return throwError(() => new StopChain());
      if (completedSteps.includes(step.stepId)) return EMPTY;
      const analysis = step.callbackOf === undefined ? undefined : analyses.get(step.callbackOf);
      if (step.callbackOf !== undefined && analysis === undefined) return EMPTY;
      return runStep(deps, query, trigger, step, analysis, resumed).pipe(
        switchMap((outcome) => {
          if (outcome.analysis) analyses.set(step.stepId, outcome.analysis);
          completedSteps.push(step.stepId);
          return deps.persist(query);
        }),
      );
    }),
    toArray(),
    map((): TriggerOutcome => 'succeeded'),
    catchError((error: unknown) => of<TriggerOutcome>(error instanceof StopChain ? 'stopped' : 'failed')),
  );
}

class StopChain extends Error {}

function stepsOf(query: QueryRuntime): Step[] {
  const steps: Step[] = [];
  for (const action of query.query.actions) {
    steps.push({ stepId: action.stepId, action });
    if (action.type === 'llm' && isRecord(action.params.callback) && isRecord(action.params.callback.action)) {
      steps.push({ stepId: `${action.stepId}.callback`, action: action.params.callback.action, callbackOf: action.stepId });
    }
  }
  return steps;
}

function runStep(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, step: Step, analysis: LlmAnalysis | undefined, resumed: boolean): Observable<ActionOutcome> {
  const key = `${query.id}:${trigger.triggerIndex}:${step.stepId}`;
  // Only a resumed trigger can find an entry: a fresh trigger's keys are new.
  const earlier = resumed && deps.store.outboxEntry ? settle(deps.store.outboxEntry(key)) : of(undefined);
  return earlier.pipe(
    switchMap((entry) => (entry !== undefined && entry.status !== 'pending' ? recordedStep(deps, query, trigger, step, entry) : sendStep(deps, query, trigger, step, analysis, key, entry))),
  );
}

function writeOutbox(store: StateStore, entry: OutboxEntry): Observable<void> {
  return store.saveOutbox ? settle(store.saveOutbox(entry)) : of(undefined);
}

/** A step whose outcome the outbox recorded before a restart: its execution record says it again, nothing runs. */
function recordedStep(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, step: Step, entry: OutboxEntry): Observable<ActionOutcome> {
  const record: ExecutionRecord = {
    id: entry.executionId,
    queryId: query.id,
    stepId: step.stepId,
    type: entry.type,
    status: entry.status === 'succeeded' ? 'succeeded' : 'failed',
    triggerIndex: trigger.triggerIndex,
    createdAt: entry.createdAt,
    observedAt: isoTime(trigger.firedAt),
    finishedAt: entry.finishedAt ?? isoTime(deps.now()),
    attempts: typeof entry.result?.attempts === 'number' ? entry.result.attempts : 1,
  };
  if (entry.result) record.result = entry.result;
  const error = entry.error ?? { code: 'ACTION_FAILED', message: 'the step failed before the restart' };
  if (record.status === 'failed') record.error = error;
  return settle(deps.store.saveExecution({ ...record })).pipe(
    switchMap(() => {
      deps.emit({ type: record.status === 'succeeded' ? 'execution-succeeded' : 'execution-failed', queryId: query.id, at: deps.now(), execution: { ...record } });
      if (record.status === 'failed') return throwError(() => new ActionError(error.code, error.message));
      const outcome: ActionOutcome = {};
      if (entry.result) outcome.result = entry.result;
      if (entry.analysis) outcome.analysis = entry.analysis;
      return of(outcome);
    }),
  );
}

/**
 * Runs a step: its outbox entry `pending` first (durable before anything is sent), then the execution
 * `running`, the executor, and the outcome into both. With `inDoubt` (an entry a restart left pending) the
 * cut-off execution is continued and the executor settles the send its own way.
 */
function sendStep(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, step: Step, analysis: LlmAnalysis | undefined, key: string, inDoubt: OutboxEntry | undefined): Observable<ActionOutcome> {
  return defer(() => {
    const record: ExecutionRecord = {
      id: inDoubt?.executionId ?? deps.newId(),
      queryId: query.id,
      stepId: step.stepId,
      type: step.action.type,
      status: 'running',
      triggerIndex: trigger.triggerIndex,
      createdAt: inDoubt?.createdAt ?? isoTime(deps.now()),
      observedAt: isoTime(trigger.firedAt),
      attempts: 1,
    };
    const outbox: OutboxEntry = inDoubt ?? {
      key,
      queryId: query.id,
      triggerIndex: trigger.triggerIndex,
      stepId: step.stepId,
      type: step.action.type,
      executionId: record.id,
      status: 'pending',
      createdAt: record.createdAt,
    };
    const context: ActionContext = {
      trigger,
      stepId: step.stepId,
      executionId: record.id,
      idempotencyKey: key,
      now: () => deps.now(),
      ...(query.ownerId === undefined ? {} : { ownerId: query.ownerId }),
      ...(analysis === undefined ? {} : { analysis }),
      ...(inDoubt === undefined ? {} : { inDoubt: { executionId: inDoubt.executionId, since: inDoubt.createdAt } }),
    };
    const finish = (patch: Partial<ExecutionRecord>, type: 'execution-succeeded' | 'execution-failed') => {
      Object.assign(record, patch, { finishedAt: isoTime(deps.now()) });
      return settle(deps.store.saveExecution({ ...record })).pipe(
        map(() => deps.emit({ type, queryId: query.id, at: deps.now(), execution: { ...record } })),
      );
    };
    const executor = deps.executors.get(step.action.type);
    // The outbox entry is on record before the execution and before anything is sent.
    return (inDoubt ? of(undefined) : writeOutbox(deps.store, outbox)).pipe(
      switchMap(() => settle(deps.store.saveExecution({ ...record }))),
      switchMap(() => {
        deps.emit({ type: 'execution-started', queryId: query.id, at: deps.now(), execution: { ...record } });
        if (!executor) throw new ActionError('ACTION_NOT_CONFIGURED', `no executor is configured for ${step.action.type} actions`);
        return from(inDoubt && executor.resume ? executor.resume(step.action, context) : executor.execute(step.action, context)).pipe(take(1));
      }),
      switchMap((given) => {
        const outcome: ActionOutcome = inDoubt ? { ...given, result: { ...given.result, recoveredAfterRestart: true } } : given;
        const attempts = typeof outcome.result?.attempts === 'number' ? outcome.result.attempts : record.attempts;
        const patch: Partial<ExecutionRecord> = { status: 'succeeded', attempts };
        if (outcome.result) patch.result = outcome.result;
        const done: OutboxEntry = { ...outbox, status: 'succeeded', finishedAt: isoTime(deps.now()) };
        if (outcome.result) done.result = outcome.result;
        if (outcome.analysis) done.analysis = outcome.analysis;
        return writeOutbox(deps.store, done).pipe(
          switchMap(() => finish(patch, 'execution-succeeded')),
          map(() => outcome),
        );
      }),
      catchError((error: unknown) => {
        // No error text repeats a secret of the query (a bot token in a URL, a webhook's Authorization).
        const redact = secretRedactor(querySecretValues(query.query));
        const failure =
          error instanceof ActionError
            ? { code: error.code, message: redact(error.message) }
            : { code: 'ACTION_FAILED', message: redact(error instanceof Error ? error.message : String(error)) };
        return writeOutbox(deps.store, { ...outbox, status: 'failed', finishedAt: isoTime(deps.now()), error: failure }).pipe(
          switchMap(() => finish({ status: 'failed', error: failure }, 'execution-failed')),
          switchMap(() => throwError(() => error)),
        );
      }),
    );
  });
}
