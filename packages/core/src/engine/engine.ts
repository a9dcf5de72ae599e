import { asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import { transition, type Transition } from '../lifecycle/query-lifecycle.js';
import { type ActionRunnerDeps, runTrigger, type TriggerOutcome } from './action-runner.js';
import { PaperExchange } from './actions/paper-exchange.js';
import { TopicChannels, type TopicEntry } from './channels/topic-channels.js';
import { defaultExecutors, type EngineOptions } from './engine-options.js';
import type { EngineEvent, EngineEventOf, EngineEventType } from './events.js';
import { EventStreams } from './event-streams.js';
import type {
  ActionExecutor,
  LlmProvider,
  QueryInspection,
  QueryToRun,
  RuntimeState,
  SemanticMatcher,
  StateStore,
  TriggerContext,
} from './interfaces.js';
import type { ConditionNode } from './condition-tree.js';
import { LexicalMatcher } from './lexical-matcher.js';
import { MemoryStateStore } from './memory-store.js';
import { ExpiryQueue } from './expiry-queue.js';
import { InstantTimers, type TimerEntry } from './instant-timers.js';
import { querySecretValues, redactSecrets } from '../util/redact.js';
import type { ConditionFacts } from '../language/message-template.js';
import { randomUuid } from '../util/uuid.js';
import { RuntimeSaves } from './runtime-saves.js';
import type { Observation } from './observations.js';
import { QueryRuntime, type QueryServices } from './query-runtime.js';
import type { SeriesReader, SeriesValue } from './series-value.js';
import { SpareQueries } from './spare-queries.js';

/**
 * The reactive evaluation engine. Queries compile to condition trees whose leaves read shared
 * channels: one upstream subscription per topic (a symbol's prices, an account's posts, the news),
 * one computation per series, thresholds indexed so that a tick visits only the conditions it
 * changes. Every observation is a batch: series update, level conditions flip, then instants
 * (crossings) are judged, then queries whose conditions hold fire. Time comes from the scheduler.
 *
 * Firing runs the actions in order (see action-runner); a query fires at most once per trigger it is
 * allowed (one without `repeat`), across restarts too: the trigger is persisted before any action
 * runs, and `add` with the persisted state resumes it instead of firing again.
 */
export class Engine {
  readonly scheduler: SchedulerLike;
  readonly store: StateStore;
  readonly paper: PaperExchange;
  private readonly traceEvaluations: boolean;
  /** The instant being evaluated inside an observation, NaN outside one (a number field: a tick stores it without allocating). */
  private instantAt = Number.NaN;
  private readonly llm: LlmProvider | undefined;
  private readonly matcher: SemanticMatcher;
  private readonly executors: Map<string, ActionExecutor>;
  /** Writes of runtime state to the store (a failure is a problem of its query). */
  private readonly saves: RuntimeSaves;
  /** What the action runner needs, made once. */
  private readonly actionDeps: ActionRunnerDeps;
  private readonly newId: () => string;
  private readonly queries = new Map<string, QueryRuntime>();
  /** The topics the queries read, each with its channel and upstream subscription. */
  private readonly channels: TopicChannels;
  /** Every event to `events$`, and each to the listeners of its type (`eventsOf`). */
  private readonly streams = new EventStreams();
  private readonly services: QueryServices;
  private readonly expiries: ExpiryQueue<QueryRuntime>;
  /** Every timer of the engine and its queries: the timers due at one instant run as one batch. */
  private readonly timers: InstantTimers;
  /** The clock read once for the batch being run (timers set in one batch count from one time). */
  private clockInBatch: number | undefined;
  private depth = 0;
  /** Pulses of the current instant, turned on together then off together (see ConditionNode.pulseOn). */
  private pulses: ConditionNode[] = [];
  private settlements: ConditionNode[] = [];
  private candidates = new Set<QueryRuntime>();
  private spareCandidates = new Set<QueryRuntime>();
  private touched = new Set<QueryRuntime>();
  private spareTouched = new Set<QueryRuntime>();
  /**
   * Queries that left the engine (removed, or the engine disposed) while their actions ran: their trigger's
   * end lets the store forget them. Kept apart so that a trigger's end needs no lookup of its query.
   */
  private readonly leftWhileFiring = new Set<QueryRuntime>();
  /** Removed queries whose objects the next adds take. */
  private readonly spares = new SpareQueries();
  /** Events being delivered now: a listener may remove a query that the engine goes on with after the event. */
  private deliveringEvents = 0;
  private disposed = false;
  /**
   * The price series held for the paper venue, by base asset: an asset with a resting order or an open exit
   * is fed its ticks whether or not a query still reads it (a stop outlives the query that bought).
   */
  private readonly paperWatch = new Map<string, SeriesValue>();
  /** See {@link intake}. */
  private readonly taken = new Map<string, { count: number; lastAt: number }>();
  private paperWatchChanged = false;

  /** Typed events: evaluations, condition changes, triggers, executions, status changes, problems. */
  readonly events$: Observable<EngineEvent> = this.streams.all;

  /**
   * The events of the given types only, in order. The engine builds an event only when someone listens
   * to its type (here or on `events$`): an embedder that needs triggers and notifications does not pay for
   * evaluations, executions and the rest.
   */
  eventsOf<T extends EngineEventType>(...types: T[]): Observable<EngineEventOf<T>> {
    return this.streams.of(...types);
  }

  constructor(options: EngineOptions = {}) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.store = options.store ?? new MemoryStateStore();
    this.channels = new TopicChannels({
      sources: options.sources ?? [],
      history: options.history ?? [],
      now: () => this.now(),
      observe: (entry, observation) => this.observeAt(entry, observation),
      warmed: (entry, changed) => this.warmed(entry, changed),
      problem: (code, message) => this.emit({ type: 'problem', queryId: '', at: this.instant(), code, message }),
    });
    this.traceEvaluations = options.traceEvaluations ?? false;
    this.llm = options.llm;
    this.matcher = options.matcher ?? new LexicalMatcher();
    this.newId = options.newId ?? randomUuid;
    this.saves = new RuntimeSaves(this.store, (queryId, error) => this.problem(queryId, 'STATE_STORE_ERROR', error));
    this.paper = options.paper ?? new PaperExchange();
    this.paper.onWatchChange(() => {
      this.paperWatchChanged = true;
      // Inside a batch the channels may be mid-update: the batch's end applies it.
      if (this.depth === 0) this.watchPaperAssets();
    });
    this.timers = new InstantTimers(this.scheduler, () => this.batchClock(), (entries) => this.runInstant(entries));
    this.services = this.createServices();
    this.executors = defaultExecutors(options, {
      store: this.store,
      scheduler: this.scheduler,
      llm: this.llm,
      newId: this.newId,
      paper: this.paper,
      announce: (notification) => {
        if (!this.wants('notification')) return;
        const observedAt = typeof notification.data.observedAt === 'string' ? Date.parse(notification.data.observedAt) : this.now();
        this.emit({ type: 'notification', queryId: notification.data.queryId, at: observedAt, notification });
      },
      isFirstStep: (queryId, stepId) => this.queries.get(queryId)?.actions[0]?.stepId === stepId,
    });
    this.actionDeps = {
      executors: this.executors,
      store: this.store,
      now: () => this.now(),
      newId: this.newId,
      listening: (type) => this.wants(type),
      emit: (event: EngineEvent) => this.emit(event),
      persist: (target: QueryRuntime) => (this.holds(target) ? this.store.saveRuntime(target.id, target.runtimeState()) : undefined),
      holds: (target: QueryRuntime) => this.holds(target),
      ...(options.tracer ? { tracer: options.tracer } : {}),
    };
    this.expiries = new ExpiryQueue<QueryRuntime>(() => this.now(), (delayMs, work) => this.services.schedule(delayMs, work), (query) => this.expire(query));
  }

  /** Number of queries the engine holds (active or kept for inspection). */
  get size(): number {
    return this.queries.size;
  }

  /** Number of upstream subscriptions open now (one per topic in use). */
  get openTopics(): number {
    return this.channels.open;
  }

  /** Number of the engine's queries that are active (the others are kept for inspection). */
  activeCount(): number {
    let active = 0;
    for (const query of this.queries.values()) if (query.status === 'active') active += 1;
    return active;
  }

  /**
   * The observations the engine took, by source (`price`, `tweet`, `news`, `llm`): how many, and when it
   * took the last (its clock, epoch ms). For an embedder's metrics and readiness (a silent feed).
   */
  intake(): Map<string, { count: number; lastAt: number }> {
    return new Map([...this.taken].map(([source, taken]) => [source, { ...taken }]));
  }

  /** The current time of the engine's scheduler (epoch ms). */
  now(): number {
    return this.scheduler.now();
  }

  /** Enters a batch (nested or not); the outermost one reads the clock afresh when asked. */
  private enterBatch(): void {
    if (this.depth === 0) this.clockInBatch = undefined;
    this.depth += 1;
  }

  /** The clock, read once per batch: what timers count from. */
  private batchClock(): number {
    if (this.depth === 0) return this.scheduler.now();
    if (this.clockInBatch === undefined) this.clockInBatch = this.scheduler.now();
    return this.clockInBatch;
  }

  /** The timers due at one instant as one batch; a failure of one timer's work does not stop the others. */
  private runInstant(entries: Iterable<TimerEntry>): void {
    this.batch(() => {
      for (const entry of entries) this.batch(entry.work);
    });
  }

  /** The instant being evaluated: the observation's time inside an observation, else the clock. */
  private instant(): number {
    const at = this.instantAt;
    return Number.isNaN(at) ? this.scheduler.now() : at;
  }

  /**
   * Starts evaluating a query. With `resume` (its persisted runtime state) it continues where it
   * stopped: triggers, cooldown, latched matches and verdicts are kept, a trigger whose actions were
   * interrupted is finished (not fired again), and a terminal query is only kept for inspection.
   * Throws `InvalidQueryError` (and adds nothing) when the request does not conform to the EQL schema:
   * run `validate(request)` first for the diagnostics and the rules beyond the schema.
   */
  add(source: QueryToRun, resume?: RuntimeState): void {
    if (this.disposed) throw new Error('the engine is disposed');
    if (this.queries.has(source.queryId)) throw new Error(`query ${source.queryId} is already in the engine`);
    const query = QueryRuntime.checked(this.services, source, resume, this.spares);
    this.queries.set(query.id, query);
    if (this.wants('query-added')) this.emit({ type: 'query-added', queryId: query.id, at: this.now() });
    if (query.status !== 'active') return;
    this.batch(() => {
      const pending = query.pendingTrigger;
      if (pending) {
        // A trigger interrupted by a restart: finish its actions, never fire it again.
        const trigger: TriggerContext = { queryId: query.id, triggerIndex: pending.triggerIndex, firedAt: pending.firedAt, conditionStates: pending.conditionStates };
        if (query.title !== undefined) trigger.title = query.title;
        if (query.templateFacts !== undefined) trigger.templateFacts = query.templateFacts;
        if (pending.prices !== undefined) trigger.prices = pending.prices;
        if (!pending.final) {
          query.attach();
          this.expiries.add(query);
        }
        this.runActions(query, trigger, pending.final, pending.completedSteps, true);
        return;
      }
      if (this.now() >= query.expiresAt) {
        this.expire(query);
        return;
      }
      query.attach();
      this.expiries.add(query);
      // A fresh query has nothing to remember yet; its first change (a latch, a verdict, a trigger) is saved.
      if (resume) this.saves.save(query);
    }, query.id);
  }

  /** Spec 3: cancels an active query (409-style refusal otherwise); its actions in flight stop after the current step. */
  cancel(queryId: string): Transition {
    const query = this.queries.get(queryId);
    if (!query) return { ok: false, httpStatus: 404, code: 'query-not-found', message: `no query ${queryId}` };
    const result = transition({ status: query.status, deleted: false }, { type: 'cancel' });
    if (result.ok) this.setStatus(query, 'cancelled');
    return result;
  }

  /**
   * Forgets a query: stops its evaluation and releases every subscription and timer it held; the store may
   * drop its records (`StateStore.forgetQuery`, once a trigger still running has finished its step).
   */
  remove(queryId: string): boolean {
    const query = this.queries.get(queryId);
    if (!query) return false;
    query.detach();
    query.status = query.status === 'active' ? 'cancelled' : query.status;
    this.queries.delete(queryId);
    this.candidates.delete(query);
    this.touched.delete(query);
    if (query.firing) this.leftWhileFiring.add(query);
    else {
      this.saves.forget(queryId);
      query.dropRunState();
      this.keepSpare(query);
    }
    return true;
  }

  /**
   * Hands a removed query to the spares when nothing of the engine can reach it any more: outside any batch
   * (the lists of an instant being settled may hold its leaf until the batch ends) and not from a listener of
   * an event (the engine may go on with the query after the event: an add with the query it announced). The
   * spares keep it when nothing of its own is left running ({@link QueryRuntime.reusable}).
   */
  private keepSpare(query: QueryRuntime): void {
    if (this.depth === 0 && this.deliveringEvents === 0 && this.pulses.length === 0 && this.settlements.length === 0) this.spares.keep(query);
  }

  /**
   * What the engine knows of a query now (status, triggers, condition states), or undefined when it does not run
   * the query.
   */
  inspect(queryId: string): QueryInspection | undefined {
    const query = this.queries.get(queryId);
    if (!query) return undefined;
    const inspection: QueryInspection = {
      queryId,
      status: query.status,
      triggerCount: query.triggerCount,
      evaluatedAt: query.evaluatedAt(),
      wouldTriggerNow: query.wouldTriggerNow,
      conditionStates: query.conditionStates(),
      expiresAt: query.expiresAt,
    };
    if (query.lastTriggerAt !== undefined) inspection.lastTriggerAt = query.lastTriggerAt;
    return inspection;
  }

  /** Stops everything: every query is detached and every upstream subscription closed. */
  dispose(): void {
    this.disposed = true;
    for (const query of this.queries.values()) {
      query.detach();
      if (query.firing) this.leftWhileFiring.add(query);
    }
    this.queries.clear();
    this.spares.clear();
    this.paperWatch.clear();
    this.channels.dispose();
    this.expiries.clear();
    this.timers.clear();
    this.streams.complete();
  }

  /**
   * Runs `work` as one batch: changes inside it settle before queries fire. Batches nest; the
   * outermost one judges deferred instants, then fires the queries whose conditions hold. A failure of
   * `work` becomes a `problem` event (about `queryId` when the work was one query's).
   */
  batch(work: () => void, queryId = ''): void {
    this.enterBatch();
    try {
      work();
    } catch (error) {
      this.problem(queryId, 'ENGINE_ERROR', error);
    } finally {
      this.depth -= 1;
    }
    if (this.depth === 0) this.flush();
  }

  // ------------------------------------------------------------------ internals

  /**
   * Settles what the batch left (breaks, pulses, firing) with the writes it makes grouped by the store
   * when the store can (`StateStore.together`: a synchronous store commits a storm's writes once).
   */
  private flush(): void {
    if (this.store.together === undefined) this.settleBatch();
    else {
      try {
        this.store.together(this.settleBatchBound);
      } catch (error) {
        this.problem('', 'STATE_STORE_ERROR', error);
      }
    }
    if (this.paperWatchChanged) this.watchPaperAssets();
  }

  /** Holds a price series of each asset the paper venue watches, and lets go of the others (see `paperWatch`). */
  private watchPaperAssets(): void {
    this.paperWatchChanged = false;
    if (this.disposed) return;
    const wanted = this.paper.watchedAssets();
    for (const [asset, series] of this.paperWatch) {
      if (wanted.has(asset)) continue;
      this.paperWatch.delete(asset);
      this.channels.releaseSeries({ source: 'price', symbol: asset }, series);
    }
    for (const asset of wanted) {
      if (this.paperWatch.has(asset)) continue;
      this.paperWatch.set(asset, this.channels.acquireSeries({ source: 'price', symbol: asset }, { source: 'price', method: 'current', args: { symbol: asset } }));
    }
  }

  private readonly settleBatchBound = (): void => this.settleBatch();

  private settleBatch(): void {
    this.enterBatch();
    try {
      while (this.settlements.length > 0 || this.pulses.length > 0 || this.candidates.size > 0) {
        // Breaks in held nodes first (the instant's level updates are done), then instants, then firing. A
        // break can break a held group above it (settled in turn): every break is settled before any pulse.
        while (this.settlements.length > 0) {
          const settlements = this.settlements;
          this.settlements = [];
          for (const node of settlements) node.settle();
        }
        if (this.pulses.length > 0) this.pulseTogether();
        if (this.settlements.length > 0) continue;
        // Two sets in turn: what firing adds goes into the other one, for the next round (no copy a round).
        const candidates = this.candidates;
        this.candidates = this.spareCandidates;
        this.spareCandidates = candidates;
        try {
          for (const query of candidates) if (query.root.effective) this.fire(query);
        } finally {
          candidates.clear();
        }
      }
      if (this.touched.size > 0) {
        const touched = this.touched;
        this.touched = this.spareTouched;
        this.spareTouched = touched;
        try {
          if (this.wants('evaluation')) {
            const at = this.instant();
            for (const query of touched) {
              if (this.queries.get(query.id) !== query || !query.isAttached) continue;
              this.emit({ type: 'evaluation', queryId: query.id, at, wouldTriggerNow: query.wouldTriggerNow, conditionStates: query.conditionStates() });
            }
          }
        } finally {
          touched.clear();
        }
      }
    } finally {
      this.depth -= 1;
    }
  }

  /** The last price of each symbol a query's price and ta conditions read (for `{{price.BTC}}`), those the engine knows. */
  private lastPrices(facts: ConditionFacts): Record<string, number> {
    const prices: Record<string, number> = {};
    for (const fact of facts.values()) {
      if ((fact.source !== 'price' && fact.source !== 'ta') || fact.symbol === undefined || fact.symbol in prices) continue;
      const price = this.channels.lastPrice(fact.exchange === undefined ? { source: 'price', symbol: fact.symbol } : { source: 'price', symbol: fact.symbol, exchange: fact.exchange });
      if (price !== undefined) prices[fact.symbol] = price;
    }
    return prices;
  }

  private fire(query: QueryRuntime): void {
    if (!query.canFire() || !query.root.effective) return;
    const conditionStates = query.conditionStates();
    const firedAt = this.instant();
    const { triggerIndex, final } = query.recordTrigger();
    const trigger: TriggerContext = { queryId: query.id, triggerIndex, firedAt, conditionStates };
    if (query.title !== undefined) trigger.title = query.title;
    query.pendingTrigger = { triggerIndex, final, firedAt, conditionStates, completedSteps: [] };
    if (query.templateFacts !== undefined) {
      trigger.templateFacts = query.templateFacts;
      trigger.prices = query.pendingTrigger.prices = this.lastPrices(query.templateFacts);
    }
    if (final) query.detach();
    if (this.wants('trigger')) this.emit({ type: 'trigger', queryId: query.id, at: firedAt, triggerIndex, final, conditionStates });
    this.runActions(query, trigger, final, query.pendingTrigger.completedSteps);
  }

  /** Runs a trigger's actions; `resumed` when a restart interrupted them (the outbox then settles sends in doubt). */
  private runActions(query: QueryRuntime, trigger: TriggerContext, final: boolean, completedSteps: string[], resumed = false): void {
    query.firing = true;
    // The trigger is on record before any action runs: a restart resumes it, never fires it again.
    this.saves.saveThen(query, () => runTrigger(this.actionDeps, query, trigger, completedSteps, resumed, (outcome) => this.settleTrigger(query, final, outcome)));
  }

  /** Whether the engine runs this query object now (not removed, not replaced by a query of the same id, the engine not disposed). */
  private holds(query: QueryRuntime): boolean {
    return this.queries.get(query.id) === query;
  }

  /** The trigger's outcome, as one batch (batch() spelled out: no closure per fire). */
  private settleTrigger(query: QueryRuntime, final: boolean, outcome: TriggerOutcome): void {
    this.enterBatch();
    try {
      // A query the engine no longer runs records no outcome: its trigger stays pending in the store, and
      // whoever runs the query next (the host its partition went to) resumes it from the outbox.
      if (this.holds(query)) this.recordOutcome(query, final, outcome);
      else {
        query.firing = false;
        query.pendingTrigger = undefined;
      }
      // Removed while its actions ran: its last save is done, the store may forget it (unless its id was taken again).
      if (this.leftWhileFiring.size > 0 && this.leftWhileFiring.delete(query)) {
        if (!this.queries.has(query.id)) this.saves.forget(query.id);
        query.dropRunState();
      }
    } catch (error) {
      this.problem('', 'ENGINE_ERROR', error);
    } finally {
      this.depth -= 1;
    }
    if (this.depth === 0) this.flush();
  }

  private recordOutcome(query: QueryRuntime, final: boolean, outcome: TriggerOutcome): void {
    query.firing = false;
    query.pendingTrigger = undefined;
    if (outcome === 'failed') {
      if (query.status === 'active') this.setStatus(query, 'failed');
      else this.saves.save(query);
      return;
    }
    if (outcome === 'succeeded' && final && query.status === 'active') {
      this.setStatus(query, 'triggered');
      return;
    }
    this.saves.save(query);
    // A re-armed query whose conditions still hold may fire again once out of cooldown.
    if (query.status === 'active' && query.root.effective) this.candidates.add(query);
  }

  private setStatus(query: QueryRuntime, status: RuntimeState['status']): void {
    const previous = query.status;
    if (previous === status) return;
    query.status = status;
    if (status !== 'active') query.detach();
    this.saves.save(query);
    if (this.wants('status-changed')) this.emit({ type: 'status-changed', queryId: query.id, at: this.instant(), status, previous });
    if (status === 'expired' && this.wants('expired')) this.emit({ type: 'expired', queryId: query.id, at: this.instant() });
  }

  private expire(query: QueryRuntime): void {
    // A final trigger decides the outcome itself; a re-arming one does not hold expiry back.
    if (query.status !== 'active' || (query.firing && query.pendingTrigger?.final === true)) return;
    const result = transition({ status: query.status, deleted: false }, { type: 'expire' });
    if (result.ok) this.setStatus(query, 'expired');
  }

  /** Whether anyone listens to events of `type` (on `events$` or `eventsOf`): if not, the event is not built. */
  private wants(type: EngineEventType): boolean {
    return this.streams.wants(type);
  }

  private emit(event: EngineEvent): void {
    if (!this.streams.wants(event.type)) return;
    // A problem about a query never repeats one of its secrets (bot tokens, webhook headers).
    if (event.type === 'problem' && event.queryId !== '') {
      const query = this.queries.get(event.queryId);
      if (query) event.message = redactSecrets(event.message, querySecretValues({ actions: query.actions }));
    }
    const clock = this.scheduler.now();
    if (event.at !== clock && event.receivedAt === undefined) event.receivedAt = clock;
    this.deliveringEvents += 1;
    try {
      this.streams.publish(event);
    } finally {
      this.deliveringEvents -= 1;
    }
  }

  private problem(queryId: string, code: string, error: unknown): void {
    this.emit({ type: 'problem', queryId, at: this.instant(), code, message: error instanceof Error ? error.message : String(error) });
  }

  /** History arrived for a price topic, as one batch: the changed series propagate, and every series of the topic may have changed readiness. */
  private warmed(entry: TopicEntry, changed: readonly SeriesValue[]): void {
    this.batch(() => {
      for (const series of changed) this.propagate(series);
      for (const series of entry.price?.allSeries() ?? []) series.forEachReader(this.touchReader);
    });
  }

  /**
   * The pulses of one instant: all on, then all off, so that pulses of one instant hold together (an
   * AND of two crossings of one tick fires; a root that holds fires while they are on). Pulses deferred
   * meanwhile (by a fire's effects) are a later round.
   */
  private pulseTogether(): void {
    const pulses = this.pulses;
    this.pulses = [];
    let on = 0;
    for (let index = 0; index < pulses.length; index += 1) {
      const node = pulses[index] as ConditionNode;
      // Kept in the array's front part while on; a node already holding (pulsed twice) is not turned off.
      if (node.pulseOn()) pulses[on++] = node;
    }
    for (let index = 0; index < on; index += 1) (pulses[index] as ConditionNode).pulseOff();
  }

  /** One observation as one batch, evaluated at the observation's instant (batch() spelled out: no closure per tick). */
  private observeAt(entry: TopicEntry, observation: Observation): void {
    const taken = this.taken.get(observation.source);
    if (taken === undefined) this.taken.set(observation.source, { count: 1, lastAt: this.scheduler.now() });
    else {
      taken.count += 1;
      taken.lastAt = this.scheduler.now();
    }
    const outer = this.instantAt;
    // A nested observation (a source emitting from inside a batch) keeps the outer instant.
    if (Number.isNaN(outer)) this.instantAt = Number.isFinite(observation.at) ? observation.at : Number.NaN;
    this.enterBatch();
    try {
      this.observe(entry, observation);
    } catch (error) {
      this.problem('', 'ENGINE_ERROR', error);
    } finally {
      this.depth -= 1;
    }
    try {
      if (this.depth === 0) this.flush();
    } finally {
      this.instantAt = outer;
    }
  }

  private observe(entry: TopicEntry, observation: Observation): void {
    if (this.traceEvaluations) for (const query of this.queries.values()) this.touch(query.id);
    if (entry.items) {
      entry.items.onObservation(observation);
      for (const leaf of entry.items.leaves) this.touch(leaf.queryId);
      return;
    }
    if (!entry.price || observation.source !== 'price') return;
    this.paper.onPrice(observation.symbol, observation.price, entry);
    // Every series takes the tick before any condition is judged (a condition may compare two series).
    const changed = entry.price.update(observation);
    for (let i = 0; i < changed.length; i += 1) this.propagate(changed[i] as SeriesValue);
    entry.price.recycle(changed);
    const ready = entry.price.takeReadinessChanges();
    if (ready !== undefined) for (const series of ready) series.forEachReader(this.touchReader);
  }

  /** A series changed: flip the level conditions it crosses, re-judge live operands, watch held crossings. */
  private propagate(series: SeriesValue): void {
    series.index.update(series.previous, series.value as number, this.flipLeaf, this.crossLeaf);
    // Most series have neither (the fields are then undefined: no set read on every tick).
    const dynamic = series.dynamic;
    if (dynamic !== undefined) {
      for (const leaf of dynamic) {
        leaf.evaluateDynamic();
        this.touch(leaf.queryId);
      }
    }
    const watching = series.watching;
    if (watching !== undefined) for (const leaf of watching) leaf.checkPendingCrossing();
  }

  /** The threshold index's callbacks, made once (a tick must not allocate them). */
  private readonly flipLeaf = (leaf: SeriesReader, holds: boolean): void => {
    leaf.flip(holds);
    this.touch(leaf.queryId);
  };

  private readonly crossLeaf = (leaf: SeriesReader): void => {
    leaf.crossed();
    this.touch(leaf.queryId);
  };

  /** A series' readiness changed: each condition reading it is evaluated again (for `evaluation` events). */
  private readonly touchReader = (leaf: SeriesReader): void => this.touch(leaf.queryId);

  private touch(queryId: string): void {
    if (!this.wants('evaluation')) return;
    const query = this.queries.get(queryId);
    if (query) this.touched.add(query);
  }

  private createServices(): QueryServices {
    return {
      now: () => this.now(),
      schedule: (delayMs, work) => this.timers.schedule(delayMs, work),
      acquireSeries: (topic, description) => this.channels.acquireSeries(topic, description),
      releaseSeries: (topic, series) => this.channels.releaseSeries(topic, series),
      watchItems: (topic, leaf) => this.channels.watchItems(topic, leaf),
      unwatchItems: (topic, leaf) => this.channels.unwatchItems(topic, leaf),
      topicLastAt: (topic) => this.channels.lastAt(topic),
      topicUnavailable: (topic) => this.channels.unavailable(topic),
      matcher: this.matcher,
      llm: this.llm,
      persist: (queryId) => {
        const query = this.queries.get(queryId);
        if (query) this.saves.save(query);
        this.touch(queryId);
      },
      report: (queryId, code, message) => this.emit({ type: 'problem', queryId, at: this.instant(), code, message }),
      deferPulse: (node) => {
        this.pulses.push(node);
        if (this.depth === 0) this.flush();
      },
      settleLater: (node) => {
        this.settlements.push(node);
        if (this.depth === 0) this.flush();
      },
      rootHolds: (query, pulse) => {
        if (pulse) this.fire(query);
        else {
          this.candidates.add(query);
          if (this.depth === 0) this.flush();
        }
      },
      detached: (query) => this.expiries.remove(query),
      conditionChanged: (query, node) => {
        if (this.wants('condition-changed')) this.emit({ type: 'condition-changed', queryId: query.id, at: this.instant(), path: node.path, holds: node.effective });
      },
    };
  }
}
