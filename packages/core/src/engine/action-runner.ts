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
import type { ActionStep } from './action-steps.js';
import type { EngineEvent, EngineEventType } from './events.js';
import { consume, consumeAnswer, finishedEmpty, isoTime, isPendingAnswer } from './maybe.js';
import type { QueryRuntime } from './query-runtime.js';
import type { EngineSpan, EngineTracer } from './tracing.js';
import { isObservable, Observable } from 'rxjs';

export interface ActionRunnerDeps {
  executors: ReadonlyMap<string, ActionExecutor>;
  store: StateStore;
  now: () => number;
  newId(): string;
  /** Whether anyone listens to events of a type (an event is only built when someone does). */
  listening(type: EngineEventType): boolean;
  emit(event: EngineEvent): void;
  /** Persists the query's runtime state (after each completed step). */
  persist(query: QueryRuntime): MaybePromise<unknown>;
  /**
   * Whether the engine still runs the query. One it no longer runs (removed: deleted, or handed to another
   * host; or its engine disposed) starts no further step and saves nothing: its trigger stays pending in
   * the store as last saved, for whoever runs the query next to resume from the outbox.
   */
  holds(query: QueryRuntime): boolean;
  /** Spans of triggers and steps, when the embedder traces. */
  tracer?: EngineTracer;
}

export type TriggerOutcome = 'succeeded' | 'failed' | 'stopped';

type Next<T> = (value: T) => void;
type Fail = (error: unknown) => void;

/** What a store or executor answer continues: `resume` with its value, or `fail` with what it threw or rejected. */
interface Continuation {
  resume(value: unknown): void;
  fail(error: unknown): void;
  /** The error of an observable answer that completed without a value (by default `finishedEmpty`'s). */
  empty?(): unknown;
}

/**
 * Hands what a store or an executor answered to `to`: at once when it is a plain value (no closure, no
 * observable: the common case of a synchronous store and executor), else when the promise settles or at
 * the observable's first value ({@link consumeAnswer}).
 */
function continueWith(answer: unknown, to: Continuation): void {
  if (!isPendingAnswer(answer)) return to.resume(answer);
  consumeAnswer(
    answer,
    (value) => to.resume(value),
    (error: unknown) => to.fail(error),
    () => (to.empty ? to.empty() : finishedEmpty()),
  );
}

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
 * this returns, with no observable, promise or continuation closure built; a promise or a later
 * observable continues it then.
 */
export function runTrigger(deps: ActionRunnerDeps, query: QueryRuntime, trigger: TriggerContext, completedSteps: string[], resumed: boolean, done: Next<TriggerOutcome>): void {
  new TriggerRun(deps, query, trigger, completedSteps, resumed, done).nextStep();
}

/** One trigger's run through its steps; as a continuation it goes on with the next step once the runtime state is saved. */
class TriggerRun implements Continuation {
  private readonly steps: readonly ActionStep[];
  private index = 0;
  /** Only an llm step's callback reads an analysis: the map is made when the first one comes. */
  private analyses: Map<string, LlmAnalysis> | undefined;
  /** The trigger's span, when the embedder traces. */
  readonly span: EngineSpan | undefined;
  private readonly done: Next<TriggerOutcome>;

  constructor(
    readonly deps: ActionRunnerDeps,
    readonly query: QueryRuntime,
    readonly trigger: TriggerContext,
    private readonly completedSteps: string[],
    private readonly resumed: boolean,
    done: Next<TriggerOutcome>,
  ) {
    this.steps = query.steps;
    const span = deps.tracer?.trigger(trigger);
    this.span = span;
    this.done = span
      ? (outcome) => {
          span.end({ status: outcome });
          done(outcome);
        }
      : done;
  }

  nextStep(): void {
    const { steps, query } = this;
    while (this.index < steps.length) {
      const step = steps[this.index++] as ActionStep;
      // A cancel stops the rest of the chain; an expiry during a re-arming trigger lets it finish.
      if (query.status === 'cancelled' || query.status === 'failed' || !this.deps.holds(query)) return this.done('stopped');
      if (this.completedSteps.includes(step.stepId)) continue;
      const analysis = step.callbackOf === undefined ? undefined : this.analyses?.get(step.callbackOf);
      if (step.callbackOf !== undefined && analysis === undefined) continue;
      this.runStep(step, analysis);
      return;
    }
    this.done('succeeded');
  }

  /** A step succeeded: it is on record as completed (the runtime state saved) before the next one starts. */
  stepDone(step: ActionStep, outcome: ActionOutcome): void {
    if (outcome.analysis) (this.analyses ??= new Map()).set(step.stepId, outcome.analysis);
    this.completedSteps.push(step.stepId);
    // After the last step the engine saves the trigger's outcome at once, and the outbox already has this
    // step's outcome on record: a state saved in between would be replaced straight away. (A restart in
    // between finds the outcome in the outbox, and the step is not run again.) Without an outbox it is saved.
    const { store } = this.deps;
    if (this.index >= this.steps.length && store.saveOutbox && store.outboxEntry) return this.nextStep();
    let answer: unknown;
    try {
      answer = this.deps.persist(this.query);
    } catch {
      return this.fail();
    }
    continueWith(answer, this);
  }

  /** The runtime state is saved: on with the next step. */
  resume(): void {
    this.nextStep();
  }

  fail(): void {
    this.done('failed');
  }

  private runStep(step: ActionStep, analysis: LlmAnalysis | undefined): void {
    const key = `${this.query.id}:${this.trigger.triggerIndex}:${step.stepId}`;
    // Only a resumed trigger can find an entry: a fresh trigger's keys are new (its claim says when not).
    if (!this.resumed || !this.deps.store.outboxEntry) return new StepRun(this, step, analysis, key, undefined).start();
    this.settleFromOutbox(step, analysis, key);
  }

  /**
   * A fresh step's claim was lost: another run of this trigger wrote its outbox entry first (the previous
   * owner of the query, before its lease was taken over). The entry decides, as after a restart.
   */
  claimLost(step: ActionStep, analysis: LlmAnalysis | undefined, key: string): void {
    if (!this.deps.store.outboxEntry) return this.fail();
    this.settleFromOutbox(step, analysis, key);
  }

  /** The step as its outbox entry says: an outcome is taken as is, `pending` (in doubt) is settled, none runs it. */
  private settleFromOutbox(step: ActionStep, analysis: LlmAnalysis | undefined, key: string): void {
    const store = this.deps.store;
    const next = (outcome: ActionOutcome): void => this.stepDone(step, outcome);
    const failed = (): void => this.fail();
    consume(
      () => (store.outboxEntry as NonNullable<StateStore['outboxEntry']>)(key),
      (entry) => (entry !== undefined && entry.status !== 'pending' ? recordedStep(this, step, entry, next, failed) : new StepRun(this, step, analysis, key, entry).start()),
      failed,
    );
  }
}

function writeOutbox(store: StateStore, entry: OutboxEntry): MaybePromise<void> {
  return store.saveOutbox ? store.saveOutbox(entry) : undefined;
}

/** Tells listeners about an execution record as saved (the same object: records are never changed once saved). */
function emitExecution(deps: ActionRunnerDeps, type: 'execution-started' | 'execution-succeeded' | 'execution-failed', record: ExecutionRecord): void {
  if (deps.listening(type)) deps.emit({ type, queryId: record.queryId, at: deps.now(), execution: record });
}

/** A step whose outcome the outbox recorded before a restart: its execution record says it again, nothing runs. */
function recordedStep(run: TriggerRun, step: ActionStep, entry: OutboxEntry, next: Next<ActionOutcome>, fail: Fail): void {
  const { deps, query, trigger } = run;
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
    () => deps.store.saveExecution(record),
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

// The stages of a step: each is entered when the store or executor call before it answered.
const PENDING_WRITTEN = 1;
const RUNNING_SAVED = 2;
const EXECUTED = 3;
const OUTCOME_WRITTEN = 4;
const SUCCEEDED_SAVED = 5;
// From here on the step is failing: a failure in its own records fails it as is.
const FAILURE_WRITTEN = 6;
const FAILED_SAVED = 7;

/**
 * Runs a step: its outbox entry `pending` first (durable before anything is sent), then the execution
 * `running`, the executor, and the outcome into both. With `inDoubt` (an entry a restart left pending) the
 * cut-off execution is continued and the executor settles the send its own way. A failure anywhere records
 * the step failed (outbox and execution) and fails the trigger with the original error.
 *
 * One object per step: its stages are methods, each store or executor answer continues it (`resume`) at
 * the stage it is in, so a synchronous step builds no closure. Each saved record is a new object (the
 * store keeps what it is given; listeners get the same object).
 */
class StepRun implements Continuation {
  private stage = 0;
  /** The execution as last saved. */
  private record: ExecutionRecord;
  private readonly outbox: OutboxEntry;
  private readonly context: ActionContext;
  private outcome: ActionOutcome | undefined;
  /** What failed the step, as recorded (the trigger fails once it is on record). */
  private failure: { code: string; message: string } | undefined;
  /** The step's span from its execution `running` to its outcome, when the embedder traces. */
  private span: EngineSpan | undefined;

  constructor(
    private readonly run: TriggerRun,
    private readonly step: ActionStep,
    private readonly analysis: LlmAnalysis | undefined,
    key: string,
    private readonly inDoubt: OutboxEntry | undefined,
  ) {
    const { deps, query, trigger } = run;
    this.record = {
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
    this.outbox = inDoubt ?? {
      key,
      queryId: query.id,
      triggerIndex: trigger.triggerIndex,
      stepId: step.stepId,
      type: step.action.type,
      executionId: this.record.id,
      status: 'pending',
      createdAt: this.record.createdAt,
    };
    const context: ActionContext = { trigger, stepId: step.stepId, executionId: this.record.id, idempotencyKey: key, now: deps.now };
    if (query.ownerId !== undefined) context.ownerId = query.ownerId;
    if (analysis !== undefined) context.analysis = analysis;
    if (inDoubt !== undefined) context.inDoubt = { executionId: inDoubt.executionId, since: inDoubt.createdAt };
    this.context = context;
  }

  /**
   * The outbox entry is on record before the execution and before anything is sent (an entry in doubt
   * already is); a fresh step claims its entry when the store can, and runs only when it won the claim.
   */
  start(): void {
    this.enter(this.inDoubt ? RUNNING_SAVED : PENDING_WRITTEN);
  }

  resume(value?: unknown): void {
    switch (this.stage) {
      case PENDING_WRITTEN:
        if (value === false) return this.run.claimLost(this.step, this.analysis, this.outbox.key);
        return this.enter(RUNNING_SAVED);
      case RUNNING_SAVED:
        return this.execute();
      case EXECUTED:
        return this.succeeded(value as ActionOutcome);
      case OUTCOME_WRITTEN:
        return this.end('succeeded');
      case SUCCEEDED_SAVED:
        emitExecution(this.run.deps, 'execution-succeeded', this.record);
        return this.run.stepDone(this.step, this.outcome as ActionOutcome);
      case FAILURE_WRITTEN:
        return this.end('failed');
      case FAILED_SAVED:
        emitExecution(this.run.deps, 'execution-failed', this.record);
        return this.run.fail();
    }
  }

  /** Only the first failure is recorded: one in the failure's own records fails the trigger as is. */
  fail(error: unknown): void {
    if (this.failure) {
      this.endSpan('failed');
      return this.run.fail();
    }
    // No error text repeats a secret of the query (a bot token in a URL, a webhook's Authorization).
    const redact = secretRedactor(querySecretValues({ actions: this.run.query.actions }));
    this.failure =
      error instanceof ActionError
        ? { code: error.code, message: redact(error.message) }
        : { code: 'ACTION_FAILED', message: redact(error instanceof Error ? error.message : String(error)) };
    this.enter(FAILURE_WRITTEN);
  }

  empty(): unknown {
    return this.stage === EXECUTED ? new ActionError('ACTION_FAILED', `the ${this.step.action.type} executor finished without an outcome`) : finishedEmpty();
  }

  /** Makes the store or executor call that leads to `stage`, and goes on with its answer there (or fails with what it threw). */
  private enter(stage: number): void {
    this.stage = stage;
    let answer: unknown;
    try {
      answer = this.callFor(stage);
    } catch (error) {
      return this.fail(error);
    }
    continueWith(answer, this);
  }

  private callFor(stage: number): unknown {
    const { store } = this.run.deps;
    switch (stage) {
      case PENDING_WRITTEN:
        return store.claimOutbox ? store.claimOutbox(this.outbox) : writeOutbox(store, this.outbox);
      case EXECUTED:
        return this.callExecutor();
      case OUTCOME_WRITTEN:
        return writeOutbox(store, this.outcomeEntry());
      case FAILURE_WRITTEN:
        return writeOutbox(store, this.failureEntry());
      default:
        // RUNNING_SAVED, SUCCEEDED_SAVED, FAILED_SAVED: the execution as it is now.
        return store.saveExecution(this.record);
    }
  }

  private execute(): void {
    const { deps } = this.run;
    emitExecution(deps, 'execution-started', this.record);
    const executor = deps.executors.get(this.step.action.type);
    if (this.run.span && deps.tracer) {
      const { stepId, executionId, idempotencyKey } = this.context;
      this.span = deps.tracer.step(this.run.span, { stepId, type: this.step.action.type, executionId, idempotencyKey, inDoubt: this.inDoubt !== undefined });
    }
    if (!executor) return this.fail(new ActionError('ACTION_NOT_CONFIGURED', `no executor is configured for ${this.step.action.type} actions`));
    this.enter(EXECUTED);
  }

  /** A send in doubt is settled by the executor's `resume` when it has one; with a span, the executor's work runs inside it. */
  private callExecutor(): unknown {
    const executor = this.run.deps.executors.get(this.step.action.type) as ActionExecutor;
    const call = () => (this.inDoubt && executor.resume ? executor.resume(this.step.action, this.context) : executor.execute(this.step.action, this.context));
    const span = this.span;
    if (!span) return call();
    const answer = span.within(call);
    // An observable does its work when subscribed (later, by continueWith): subscribed inside the span too.
    return isObservable(answer) ? new Observable<unknown>((subscriber) => span.within(() => answer.subscribe(subscriber))) : answer;
  }

  private endSpan(status: 'succeeded' | 'failed'): void {
    this.span?.end(status === 'failed' ? { status, code: this.failure?.code ?? 'ACTION_FAILED' } : { status });
    this.span = undefined;
  }

  private succeeded(given: ActionOutcome): void {
    this.outcome = this.inDoubt ? { ...given, result: { ...given.result, recoveredAfterRestart: true } } : given;
    this.enter(OUTCOME_WRITTEN);
  }

  private outcomeEntry(): OutboxEntry {
    const outcome = this.outcome as ActionOutcome;
    const done = endedEntry(this.outbox, 'succeeded', isoTime(this.run.deps.now()));
    if (outcome.result) done.result = outcome.result;
    if (outcome.analysis) done.analysis = outcome.analysis;
    return done;
  }

  private failureEntry(): OutboxEntry {
    const { code, message } = this.failure as NonNullable<StepRun['failure']>;
    const failed = endedEntry(this.outbox, 'failed', isoTime(this.run.deps.now()));
    failed.error = { code, message };
    return failed;
  }

  /** The execution ends: a new record with its outcome, saved. */
  private end(status: 'succeeded' | 'failed'): void {
    const ended = endedRecord(this.record, status, isoTime(this.run.deps.now()));
    if (status === 'succeeded') {
      const result = (this.outcome as ActionOutcome).result;
      if (typeof result?.attempts === 'number') ended.attempts = result.attempts;
      if (result) ended.result = result;
    } else {
      const { code, message } = this.failure as NonNullable<StepRun['failure']>;
      ended.error = { code, message };
    }
    this.record = ended;
    this.endSpan(status);
    this.enter(status === 'succeeded' ? SUCCEEDED_SAVED : FAILED_SAVED);
  }
}

// Records are built field by field, not spread: V8 gives an object made by `{ ...record, more }` a shape
// of its own, so the spread and each property added after it cost about 500 bytes (measured), against
// about 130 for the same object written out. A fire makes several of these.

/** An execution record as it ends (`result` or `error` added by the caller). */
function endedRecord(record: ExecutionRecord, status: 'succeeded' | 'failed', finishedAt: string): ExecutionRecord {
  const ended: ExecutionRecord = {
    id: record.id,
    queryId: record.queryId,
    stepId: record.stepId,
    type: record.type,
    status,
    triggerIndex: record.triggerIndex,
    createdAt: record.createdAt,
    attempts: record.attempts,
    finishedAt,
  };
  if (record.observedAt !== undefined) ended.observedAt = record.observedAt;
  if (record.result !== undefined) ended.result = record.result;
  return ended;
}

/** An outbox entry completed with its outcome (`result`, `analysis` or `error` added by the caller). */
function endedEntry(entry: OutboxEntry, status: 'succeeded' | 'failed', finishedAt: string): OutboxEntry {
  return {
    key: entry.key,
    queryId: entry.queryId,
    triggerIndex: entry.triggerIndex,
    stepId: entry.stepId,
    type: entry.type,
    executionId: entry.executionId,
    status,
    createdAt: entry.createdAt,
    finishedAt,
  };
}
