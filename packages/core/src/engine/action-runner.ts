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
  type MaybePromise,
  type OutboxEntry,
  type StateStore,
  type TriggerContext,
} from './interfaces.js';
import type { EngineEvent } from './events.js';
import { consume, isoTime } from './maybe.js';
import type { QueryRuntime } from './query-runtime.js';

export interface ActionRunnerDeps {
  executors: ReadonlyMap<string, ActionExecutor>;
  store: StateStore;
  now: () => number;
  newId(): string;
  /** Whether anyone listens to events (an event is only built when someone does). */
  listening(): boolean;
  emit(event: EngineEvent): void;
  /** Persists the query's runtime state (after each completed step). */
  persist(query: QueryRuntime): MaybePromise<unknown>;
}

export type TriggerOutcome = 'succeeded' | 'failed' | 'stopped';

interface Step {
  stepId: string;
  action: Action | CallbackAction;
  /** For a callback: needs the analysis of the step before. */
  callbackOf?: string;
}

type Next<T> = (value: T) => void;
type Fail = (error: unknown) => void;

/**
 * Runs the actions of one trigger, in order, each as an execution record (spec 2.6): `running`, then
 * `succeeded` with its result or `failed` with `{code, message}`. An llm step's callback runs right
 * after it as its own execution (stepId `<step>.callback`) with the analysis. The first failure stops
 * the chain. If the query is cancelled between steps, the remaining steps do not run (an expiry lets
 * the trigger finish). `done` gets the outcome once.
 *
 * **Once across restarts.** Before a step runs, its outbox entry (keyed by the step's idempotency key
 * `<queryId>:<triggerIndex>:<stepId>`) is written `pending`; its outcome completes it. When a restart
 * resumes the trigger (`resumed`), steps already completed are skipped, and for each other step the
 * outbox decides: no entry, the step never started and runs; an outcome recorded, it is taken as is
 * (nothing runs again); still `pending`, the send is in doubt and the executor settles it under the same
 * execution id and idempotency key (`ActionExecutor.resume`, else `execute` again: see docs/semantics.md
 * for the rule of each action type).
 *
 * **Synchronous when it can be.** Each stage continues as soon as the store or the executor answers: a
 * store and executors that answer synchronously (the memory store, notify) run the whole trigger before
 * this returns, with no observable or promise built; a promise or a later observable continues it then.
 */
export function runTrigger(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, completedSteps: string[], resumed: boolean, done: Next<TriggerOutcome>): void {
  const steps = stepsOf(query);
  // Only an llm step's callback reads an analysis: the map is made when the first one comes.
  let analyses: Map<string, LlmAnalysis> | undefined;
  let index = 0;
  const failed: Fail = () => done('failed');
  const nextStep = (): void => {
    while (index < steps.length) {
      const step = steps[index++] as Step;
      // A cancel stops the rest of the chain; an expiry during a re-arming trigger lets it finish.
      if (query.status === 'cancelled' || query.status === 'failed') return done('stopped');
      if (completedSteps.includes(step.stepId)) continue;
      const analysis = step.callbackOf === undefined ? undefined : analyses?.get(step.callbackOf);
      if (step.callbackOf !== undefined && analysis === undefined) continue;
      const stepDone = (outcome: ActionOutcome): void => {
        if (outcome.analysis) (analyses ??= new Map()).set(step.stepId, outcome.analysis);
        completedSteps.push(step.stepId);
        consume(() => deps.persist(query), nextStep, failed);
      };
      runStep(deps, query, trigger, step, analysis, resumed, stepDone, failed);
      return;
    }
    done('succeeded');
  };
  nextStep();
}

/** The steps of a query's actions, made once per query (every trigger runs the same). */
const stepsByActions = new WeakMap<readonly (Action | CallbackAction)[], Step[]>();

function stepsOf(query: QueryRuntime): Step[] {
  const known = stepsByActions.get(query.actions);
  if (known) return known;
  const steps: Step[] = [];
  stepsByActions.set(query.actions, steps);
  for (const action of query.actions) {
    steps.push({ stepId: action.stepId, action });
    if (action.type === 'llm' && isRecord(action.params.callback) && isRecord(action.params.callback.action)) {
      steps.push({ stepId: `${action.stepId}.callback`, action: action.params.callback.action, callbackOf: action.stepId });
    }
  }
  return steps;
}

function runStep(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, step: Step, analysis: LlmAnalysis | undefined, resumed: boolean, next: Next<ActionOutcome>, fail: Fail): void {
  const key = `${query.id}:${trigger.triggerIndex}:${step.stepId}`;
  const store = deps.store;
  // Only a resumed trigger can find an entry: a fresh trigger's keys are new.
  if (!resumed || !store.outboxEntry) return sendStep(deps, query, trigger, step, analysis, key, undefined, next, fail);
  consume(
    () => (store.outboxEntry as NonNullable<StateStore['outboxEntry']>)(key),
    (entry) => (entry !== undefined && entry.status !== 'pending' ? recordedStep(deps, query, trigger, step, entry, next, fail) : sendStep(deps, query, trigger, step, analysis, key, entry, next, fail)),
    fail,
  );
}

function writeOutbox(store: StateStore, entry: OutboxEntry): MaybePromise<void> {
  return store.saveOutbox ? store.saveOutbox(entry) : undefined;
}

function emitExecution(deps: ActionRunnerDeps, type: 'execution-started' | 'execution-succeeded' | 'execution-failed', record: ExecutionRecord): void {
  if (deps.listening()) deps.emit({ type, queryId: record.queryId, at: deps.now(), execution: { ...record } });
}

/** A step whose outcome the outbox recorded before a restart: its execution record says it again, nothing runs. */
function recordedStep(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, step: Step, entry: OutboxEntry, next: Next<ActionOutcome>, fail: Fail): void {
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
  consume(
    () => deps.store.saveExecution({ ...record }),
    () => {
      emitExecution(deps, record.status === 'succeeded' ? 'execution-succeeded' : 'execution-failed', record);
      if (record.status === 'failed') return fail(new ActionError(error.code, error.message));
      const outcome: ActionOutcome = {};
      if (entry.result) outcome.result = entry.result;
      if (entry.analysis) outcome.analysis = entry.analysis;
      next(outcome);
    },
    fail,
  );
}

/**
 * Runs a step: its outbox entry `pending` first (durable before anything is sent), then the execution
 * `running`, the executor, and the outcome into both. With `inDoubt` (an entry a restart left pending) the
 * cut-off execution is continued and the executor settles the send its own way. A failure anywhere records
 * the step failed (outbox and execution) and fails with the original error.
 */
function sendStep(
  deps: ActionRunnerDeps,
  query: QueryRuntime,
  trigger: TriggerContext,
  step: Step,
  analysis: LlmAnalysis | undefined,
  key: string,
  inDoubt: OutboxEntry | undefined,
  next: Next<ActionOutcome>,
  fail: Fail,
): void {
  const store = deps.store;
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
  const context: ActionContext = { trigger, stepId: step.stepId, executionId: record.id, idempotencyKey: key, now: deps.now };
  if (query.ownerId !== undefined) context.ownerId = query.ownerId;
  if (analysis !== undefined) context.analysis = analysis;
  if (inDoubt !== undefined) context.inDoubt = { executionId: inDoubt.executionId, since: inDoubt.createdAt };
  /** Records the end of the execution, changed by `end` (saved as a fresh object: the store keeps what it is given). */
  const finish = (end: (record: ExecutionRecord) => void, type: 'execution-succeeded' | 'execution-failed', then: () => void, failed: Fail) => {
    end(record);
    record.finishedAt = isoTime(deps.now());
    consume(
      () => store.saveExecution({ ...record }),
      () => {
        emitExecution(deps, type, record);
        then();
      },
      failed,
    );
  };
  let failing = false;
  const stepFailed: Fail = (error) => {
    // Only the first failure is recorded: one in the failure's own records fails the step as is.
    if (failing) return fail(error);
    failing = true;
    // No error text repeats a secret of the query (a bot token in a URL, a webhook's Authorization).
    const redact = secretRedactor(querySecretValues({ actions: query.actions }));
    const failure =
      error instanceof ActionError
        ? { code: error.code, message: redact(error.message) }
        : { code: 'ACTION_FAILED', message: redact(error instanceof Error ? error.message : String(error)) };
    consume(
      () => writeOutbox(store, { ...outbox, status: 'failed', finishedAt: isoTime(deps.now()), error: failure }),
      () =>
        finish(
          (ended) => {
            ended.status = 'failed';
            ended.error = failure;
          },
          'execution-failed',
          () => fail(error),
          fail,
        ),
      fail,
    );
  };
  const succeeded = (given: ActionOutcome): void => {
    const outcome: ActionOutcome = inDoubt ? { ...given, result: { ...given.result, recoveredAfterRestart: true } } : given;
    const done: OutboxEntry = { ...outbox, status: 'succeeded', finishedAt: isoTime(deps.now()) };
    if (outcome.result) done.result = outcome.result;
    if (outcome.analysis) done.analysis = outcome.analysis;
    const ended = (ended: ExecutionRecord): void => {
      ended.status = 'succeeded';
      if (typeof outcome.result?.attempts === 'number') ended.attempts = outcome.result.attempts;
      if (outcome.result) ended.result = outcome.result;
    };
    consume(
      () => writeOutbox(store, done),
      () => finish(ended, 'execution-succeeded', () => next(outcome), stepFailed),
      stepFailed,
    );
  };
  const execute = (): void => {
    emitExecution(deps, 'execution-started', record);
    const executor = deps.executors.get(step.action.type);
    if (!executor) return stepFailed(new ActionError('ACTION_NOT_CONFIGURED', `no executor is configured for ${step.action.type} actions`));
    consume<ActionOutcome>(
      () => (inDoubt && executor.resume ? executor.resume(step.action, context) : executor.execute(step.action, context)),
      succeeded,
      stepFailed,
      () => new ActionError('ACTION_FAILED', `the ${step.action.type} executor finished without an outcome`),
    );
  };
  const running = (): void => consume(() => store.saveExecution({ ...record }), execute, stepFailed);
  // The outbox entry is on record before the execution and before anything is sent.
  if (inDoubt) running();
  else consume(() => writeOutbox(store, outbox), running, stepFailed);
}
