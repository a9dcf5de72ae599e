import { catchError, concatMap, defer, EMPTY, from, map, type Observable, of, switchMap, take, throwError, toArray } from 'rxjs';
import type { Action, CallbackAction } from '../generated/eql-types.js';
import { isRecord } from '../util/json-pointer.js';
import { querySecretValues, secretRedactor } from '../util/redact.js';
import { ActionError, type ActionContext, type ActionExecutor, type ActionOutcome, type ExecutionRecord, type LlmAnalysis, type StateStore, type TriggerContext } from './interfaces.js';
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
 * the chain. Steps already completed before a restart are skipped; the rest run with the same
 * idempotency keys, so nothing is delivered or ordered twice. If the query is cancelled between
 * steps, the remaining steps do not run (an expiry lets the trigger finish).
 */
export function runTrigger(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, completedSteps: string[]): Observable<TriggerOutcome> {
  const steps = stepsOf(query);
  const analyses = new Map<string, LlmAnalysis>();
  return from(steps).pipe(
    concatMap((step) => {
      // A cancel stops the rest of the chain; an expiry during a re-arming trigger lets it finish.
      if (query.status === 'cancelled' || query.status === 'failed') return throwError(() => new StopChain());
      if (completedSteps.includes(step.stepId)) return EMPTY;
      const analysis = step.callbackOf === undefined ? undefined : analyses.get(step.callbackOf);
      if (step.callbackOf !== undefined && analysis === undefined) return EMPTY;
      return runStep(deps, query, trigger, step, analysis).pipe(
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

function runStep(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, step: Step, analysis: LlmAnalysis | undefined): Observable<ActionOutcome> {
  return defer(() => {
    const record: ExecutionRecord = {
      id: deps.newId(),
      queryId: query.id,
      stepId: step.stepId,
      type: step.action.type,
      status: 'running',
      triggerIndex: trigger.triggerIndex,
      createdAt: isoTime(deps.now()),
      observedAt: isoTime(trigger.firedAt),
      attempts: 1,
    };
    const context: ActionContext = {
      trigger,
      stepId: step.stepId,
      executionId: record.id,
      idempotencyKey: `${query.id}:${trigger.triggerIndex}:${step.stepId}`,
      now: () => deps.now(),
      ...(query.ownerId === undefined ? {} : { ownerId: query.ownerId }),
      ...(analysis === undefined ? {} : { analysis }),
    };
    const finish = (patch: Partial<ExecutionRecord>, type: 'execution-succeeded' | 'execution-failed') => {
      Object.assign(record, patch, { finishedAt: isoTime(deps.now()) });
      return settle(deps.store.saveExecution({ ...record })).pipe(
        map(() => deps.emit({ type, queryId: query.id, at: deps.now(), execution: { ...record } })),
      );
    };
    const executor = deps.executors.get(step.action.type);
    return settle(deps.store.saveExecution({ ...record })).pipe(
      switchMap(() => {
        deps.emit({ type: 'execution-started', queryId: query.id, at: deps.now(), execution: { ...record } });
        if (!executor) throw new ActionError('ACTION_NOT_CONFIGURED', `no executor is configured for ${step.action.type} actions`);
        return from(executor.execute(step.action, context)).pipe(take(1));
      }),
      switchMap((outcome) => {
        const attempts = typeof outcome.result?.attempts === 'number' ? outcome.result.attempts : record.attempts;
        const patch: Partial<ExecutionRecord> = { status: 'succeeded', attempts };
        if (outcome.result) patch.result = outcome.result;
        return finish(patch, 'execution-succeeded').pipe(map(() => outcome));
      }),
      catchError((error: unknown) => {
        // No error text repeats a secret of the query (a bot token in a URL, a webhook's Authorization).
        const redact = secretRedactor(querySecretValues(query.query));
        const failure =
          error instanceof ActionError
            ? { code: error.code, message: redact(error.message) }
            : { code: 'ACTION_FAILED', message: redact(error instanceof Error ? error.message : String(error)) };
        return finish({ status: 'failed', error: failure }, 'execution-failed').pipe(switchMap(() => throwError(() => error)));
      }),
    );
  });
}
