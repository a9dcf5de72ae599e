import { readFileSync } from 'node:fs';
import type { Tracer } from '@opentelemetry/api';
import { engineTracer, tracedExchange, tracedTransport } from '../observability/tracing.js';
import { asyncScheduler, type SchedulerLike, type Subscription, tap } from 'rxjs';
import { UndiciHttpTransport } from '@eql/adapters';
import {
  type ConditionState,
  type DataSource,
  Engine,
  type EngineEvent,
  type Exchange,
  type ExecutionRecord,
  type HttpTransport,
  type LlmProvider,
  type LlmSession,
  type NotificationDraft,
  type OutboxEntry,
  PaperExchange,
  type PaperOrderRecord,
  type QueryInspection,
  parseRecording,
  type PriceHistory,
  RecordedLlmProvider,
  RecordingHistory,
  type Recording,
  ReplaySource,
  type RuntimeState,
  type ServedData,
  type StateStore,
  pricedAssets,
} from '@eql/core';
import type { HostConfig } from '../config.js';
import { CcxtFeed, CcxtFeedHistory, connectCcxtExchange } from './ccxt-venue.js';
import { composeProvider } from '@eql/llm';
import type { SecretBox } from '../secrets.js';
import type { QueryRecord, StoredNotification } from '../store/records.js';
import type { SqlitePriceHistory } from '../store/sqlite-price-history.js';
import type { HostStore } from '../store/store.js';
import type { ConditionStatesChange, HostActivity, HostProblem, HostReadiness, HostStats, QueryRunner, StatusChange } from './query-runner.js';

export type { ConditionStatesChange } from './query-runner.js';

/** Connects an exchange with credentials and proves they work (the venue adapter's job). */
export type ExchangeConnector = (exchangeId: string, credentialType: string, credentials: Record<string, string>) => Promise<Exchange>;

/** Connects through `@eql/venue-ccxt`, imported on the first connection (a host without real venues never loads it). */
export const ccxtConnector: ExchangeConnector = (exchangeId, _credentialType, credentials) => connectCcxtExchange(exchangeId, credentials);

/** What a {@link ProcessRunner} runs on: the host's configuration, store and secret box, and optional wiring that replaces its defaults. */
export interface ProcessRunnerOptions {
  config: HostConfig;
  store: HostStore;
  box: SecretBox;
  scheduler?: SchedulerLike;
  /** Data sources (default: from `config.feed`). */
  sources?: DataSource[];
  /** The LLM provider (default: the recording's verdicts where it has them, else `analyst`). */
  llm?: LlmProvider;
  /** The analyst's provider: llm conditions the recording has no verdicts for, and llm actions. */
  analyst?: LlmProvider;
  http?: HttpTransport;
  connectExchange?: ExchangeConnector;
  /**
   * OpenTelemetry's tracer when the host traces (observability/tracing.ts): triggers, steps, webhook and bot
   * requests and connected venues' calls become spans. Without it the engine makes none.
   */
  tracer?: Tracer;
  /** The recording of the replay feed and previews (default: read from `config.recordingPath`). */
  recording?: Recording;
  /**
   * Past prices that warm series when a query starts. Default: on the replay feed, the replayed
   * recording's past; on a ccxt feed, the venue's candles; with other sources, `prices`.
   */
  history?: PriceHistory[];
  /** The host's record of the prices its feeds gave (written as they come; read as history with custom sources). */
  prices?: SqlitePriceHistory;
  /**
   * Where the replay's timeline starts (epoch ms: the recording's first instant plays then). Default:
   * the scheduler's time at construction. A cluster fixes it once for every host.
   */
  replayOrigin?: number;
  /** The paper orders to take back at start (default: every paper order of the store). */
  paperOrders?: (store: HostStore) => Promise<PaperOrderRecord[]>;
}

/**
 * The engine of the host: one Engine over the store. Runtime state, executions, sessions and
 * notifications go to the store as they happen; at boot every active query is added back with its
 * persisted state (so nothing fires twice and cooldowns and latches hold). Owners are API key ids.
 */
export class ProcessRunner implements QueryRunner {
  readonly engine: Engine;
  readonly recording: Recording;
  private readonly owners = new Map<string, number>();
  private readonly exchangeCache = new Map<string, Promise<Exchange>>();
  /** Webhook secrets per key, opened, with the instant the list changes (the previous secret's grace ends). */
  private readonly secretCache = new Map<number, { secrets: string[]; until: number }>();
  private readonly listeners = new Set<(notification: StoredNotification) => void>();
  private readonly stateListeners = new Set<(change: ConditionStatesChange) => void>();
  private readonly statusListeners = new Set<(change: StatusChange) => void>();
  private readonly activityListeners = new Set<(activity: HostActivity) => void>();
  private readonly problemListeners = new Set<(problem: HostProblem) => void>();
  /** The last readiness signature told per query (status and reason of each condition). */
  private readonly toldReadiness = new Map<string, string>();
  private readonly subscription: Subscription;
  /** The engine's sources (the feeds, recording what they give). */
  private readonly sources: DataSource[];
  /** The feeds as configured. */
  private readonly feeds: DataSource[];
  private readonly servedData: ServedData;

  constructor(private readonly options: ProcessRunnerOptions) {
    const { config } = options;
    this.recording = options.recording ?? parseRecording(readFileSync(config.recordingPath, 'utf8'));
    const scheduler = options.scheduler ?? asyncScheduler;
    const sources = options.sources ?? this.defaultSources(scheduler);
    // What the feeds give is recorded (the replay is its own record), so a restart starts warm.
    const prices = options.prices;
    const replayOnly = options.sources === undefined && !config.feed.startsWith('ccxt:');
    this.feeds = sources;
    this.sources = prices && !replayOnly ? sources.map((source) => recordingPrices(source, prices)) : sources;
    const history = options.history ?? (options.sources ? (prices ? [prices] : []) : this.defaultHistory(scheduler));
    this.servedData = this.describeServed(history);
    this.engine = new Engine({
      scheduler,
      sources: this.sources,
      history,
      store: this.stateStore(),
      llm: options.llm ?? this.defaultLlm(scheduler),
      http: this.traced(options.http ?? new UndiciHttpTransport({ allowPrivate: config.allowPrivateWebhooks })),
      allowPrivateWebhooks: config.allowPrivateWebhooks,
      webhookSecret: (ownerId) => this.secretOf(ownerId),
      exchanges: { get: (exchangeId, ownerId) => this.exchangeOf(exchangeId, ownerId) },
      // The paper venue keeps its orders in the store: a restarted host knows every client order id it took.
      paper: new PaperExchange(undefined, { save: (records) => options.store.savePaperOrders(records) }),
      ...(config.messengerBaseUrl ? { messengerBaseUrl: config.messengerBaseUrl } : {}),
      ...(options.tracer ? { tracer: engineTracer(options.tracer) } : {}),
    });
    // Only the events the host acts on are built (see onEvent).
    this.subscription = this.engine.eventsOf('evaluation', 'status-changed', 'problem', 'notification', 'trigger', 'execution-succeeded', 'execution-failed').subscribe((event) => this.onEvent(event));
  }

  /**
   * Takes back the paper venue's orders, then adds back every active query with its persisted state
   * (those `include` accepts: a cluster host runs the queries of its partitions only).
   */
  async start(include: (query: QueryRecord) => boolean = () => true): Promise<number> {
    this.engine.paper.restore(await (this.options.paperOrders ?? ((store: HostStore) => Promise.resolve(store.paperOrders())))(this.options.store));
    const active = (await this.options.store.activeQueries()).filter(include);
    for (const query of active) this.add(query);
    return active.length;
  }

  /** Starts running a stored query in the engine, from its persisted runtime state when it has one. */
  add(query: QueryRecord): void {
    this.owners.set(query.id, query.keyId);
    this.engine.add({ queryId: query.id, request: query.request, createdAt: Date.parse(query.createdAt), ownerId: String(query.keyId) }, query.runtime ?? undefined);
    const inspection = this.engine.inspect(query.id);
    if (inspection?.status === 'active') this.tellReadiness(query.id, inspection.evaluatedAt, inspection.conditionStates);
  }

  /** What this process runs: its active queries (no cluster). */
  readiness(): HostReadiness {
    return { queries: this.engine.size };
  }

  /** What the engine runs and took in. */
  stats(): HostStats {
    const now = this.engine.now();
    const intake: HostStats['intake'] = new Map();
    for (const [source, taken] of this.engine.intake()) intake.set(source, { count: taken.count, ageMs: Math.max(0, now - taken.lastAt) });
    return { activeQueries: this.engine.activeCount(), intake };
  }

  /** Called on each trigger and each finished execution (metrics, logs). */
  onActivity(listener: (activity: HostActivity) => void): () => void {
    this.activityListeners.add(listener);
    return () => this.activityListeners.delete(listener);
  }

  /** What the engine knows of a query now, or undefined when it does not run it. */
  inspect(queryId: string): QueryInspection | undefined {
    return this.engine.inspect(queryId);
  }

  /** Cancels a running query. */
  cancel(queryId: string): void {
    this.engine.cancel(queryId);
  }

  /** Stops running a query (deleted, or handed to another host). */
  remove(queryId: string): void {
    // The owner stays known: an action still running may yet write its records.
    this.engine.remove(queryId);
    this.toldReadiness.delete(queryId);
  }

  /** Called when a query leaves the active status. */
  onStatusChange(listener: (change: StatusChange) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Called on what keeps queries from being evaluated as written. */
  onProblem(listener: (problem: HostProblem) => void): () => void {
    this.problemListeners.add(listener);
    return () => this.problemListeners.delete(listener);
  }

  /** Called when the readiness of a query's conditions changes (the SSE hub listens). */
  onConditionStates(listener: (change: ConditionStatesChange) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Called on every stored notification (the SSE hub listens). */
  onNotification(listener: (notification: StoredNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What the feeds serve, for validation (symbols by asset; `symbols` absent when a live venue serves any). */
  served(): ServedData {
    return this.servedData;
  }

  /** Whether the feed has prices of a symbol's asset (the paper venue trades only those). */
  hasPrice(symbol: string): boolean {
    return this.sources.some((source) => source.supports({ source: 'price', symbol }));
  }

  /** The connected exchange of a key. */
  exchangeFor(exchangeId: string, keyId: number): Promise<Exchange | undefined> {
    return this.exchangeOf(exchangeId, String(keyId));
  }

  /** Forgets cached connections of a key's exchange (after a disconnect or a reconnect). */
  forgetExchange(keyId: number, exchangeId: string): void {
    this.exchangeCache.delete(`${keyId}:${exchangeId}`);
  }

  /** Stops the engine and closes the venue connections of the feeds the host opened itself. */
  dispose(): void {
    this.subscription.unsubscribe();
    this.engine.dispose();
    // A live venue's client holds sockets (websockets, keep-alive): close what the host opened.
    for (const source of this.feeds) if (source instanceof CcxtFeed && this.options.sources === undefined) void source.close().catch(() => undefined);
  }

  private onEvent(event: EngineEvent): void {
    if (event.type === 'trigger') {
      const activity: HostActivity = { type: 'trigger', queryId: event.queryId, triggerIndex: event.triggerIndex, final: event.final, at: event.at };
      for (const listener of this.activityListeners) listener(activity);
      return;
    }
    if (event.type === 'execution-succeeded' || event.type === 'execution-failed') {
      const activity: HostActivity = { type: 'execution', queryId: event.queryId, execution: event.execution };
      for (const listener of this.activityListeners) listener(activity);
      return;
    }
    if (event.type === 'evaluation') {
      this.tellReadiness(event.queryId, event.at, event.conditionStates);
      return;
    }
    if (event.type === 'status-changed' && event.status !== 'active') {
      this.toldReadiness.delete(event.queryId);
      for (const listener of this.statusListeners) listener({ queryId: event.queryId, status: event.status });
    }
    if (event.type === 'problem') {
      const problem: HostProblem = { code: event.code, message: event.message, ...(event.queryId ? { queryId: event.queryId } : {}) };
      for (const listener of this.problemListeners) listener(problem);
    }

    if (event.type === 'notification') {
      const keyId = this.owners.get(event.queryId);
      if (keyId === undefined) return;
      const stored: StoredNotification = { ...event.notification, keyId };
      for (const listener of this.listeners) listener(stored);
    }
  }

  private tellReadiness(queryId: string, at: number, conditionStates: ConditionState[]): void {
    const keyId = this.owners.get(queryId);
    if (keyId === undefined || this.stateListeners.size === 0) return;
    const signature = conditionStates.map((state) => `${state.path}:${state.status ?? ''}:${state.reason ?? ''}`).join('|');
    if (this.toldReadiness.get(queryId) === signature) return;
    this.toldReadiness.set(queryId, signature);
    for (const listener of this.stateListeners) listener({ keyId, queryId, at, conditionStates });
  }

  private keyOf(queryId: string): number {
    const keyId = this.owners.get(queryId);
    if (keyId === undefined) throw new Error(`no owner known for query ${queryId}`);
    return keyId;
  }

  /** The engine's StateStore over the host store. */
  private stateStore(): StateStore {
    const store = this.options.store;
    return {
      saveRuntime: (queryId: string, state: RuntimeState) => store.saveRuntime(queryId, state),
      saveExecution: (record: ExecutionRecord) => store.saveExecution(this.keyOf(record.queryId), record),
      saveSession: (session: LlmSession) => store.saveSession(this.keyOf(session.queryId), session),
      addNotification: (draft: NotificationDraft) => store.addNotification(this.keyOf(draft.data.queryId), draft),
      saveOutbox: (entry: OutboxEntry) => store.saveOutbox(this.keyOf(entry.queryId), entry),
      // A fresh step runs only when its claim won (a host that lost the partition may have claimed it first).
      claimOutbox: (entry: OutboxEntry) => store.claimOutbox(this.keyOf(entry.queryId), entry),
      outboxEntry: (key: string) => store.outboxEntry(key),
      ...(store.together ? { together: (work: () => void) => store.together!(work) } : {}),
    };
  }

  /**
   * Recorded verdicts answer the predicates the replayed recording has (so the demo queries behave as
   * recorded), at the recording's instant that the replay is playing; everything else goes to the analyst.
   */
  private defaultLlm(scheduler: SchedulerLike): LlmProvider {
    const recorded = new RecordedLlmProvider(this.recording.observations);
    if (!this.options.analyst) return recorded;
    const played = this.recording.observations.filter((observation) => observation.source !== 'llm');
    const origin = played[0]?.at ?? this.recording.start;
    const span = (played[played.length - 1]?.at ?? origin) - origin + 60_000;
    const shiftMs = (this.options.replayOrigin ?? scheduler.now()) - this.recording.start;
    const speed = this.options.config.replaySpeed;
    const toRecordingTime = (at: number): number => origin + ((((at - origin - shiftMs) * speed) % span) + span) % span;
    return composeProvider(recorded, this.options.analyst, { toRecordingTime });
  }

  /** The replay's timeline: the recording from now on, looping, at the configured speed. */
  private replayTimeline(scheduler: SchedulerLike): { shiftMs: number; loop: true; speed: number } {
    return { shiftMs: (this.options.replayOrigin ?? scheduler.now()) - this.recording.start, loop: true, speed: this.options.config.replaySpeed };
  }

  /**
   * The past of the feeds: the replayed recording's laps before now (so a demo host starts warm), and
   * with a ccxt feed the venue's candles first.
   */
  private defaultHistory(scheduler: SchedulerLike): PriceHistory[] {
    const { config } = this.options;
    const replayed = new RecordingHistory(this.recording.observations, this.replayTimeline(scheduler));
    if (config.feed.startsWith('ccxt:')) return [new CcxtFeedHistory(config.feed.slice(5), { now: () => scheduler.now() }), replayed];
    return [replayed];
  }

  private describeServed(history: PriceHistory[]): ServedData {
    // Only a replay's history has a fixed start (its earliest lap): a series needing more past warms only as
    // the replay plays. A venue's candles reach back as far as series need; the prices the host records grow.
    const since = history.length > 0 && history.every((past) => past instanceof RecordingHistory) ? Math.min(...history.map((past) => past.since)) : undefined;
    const past: ServedData = { history: history.length > 0, ...(since !== undefined ? { historySince: since } : {}) };
    // Only a replay can list what it serves; a live venue or an embedder's feed may serve any symbol.
    if (this.feeds.some((source) => !(source instanceof ReplaySource))) return past;
    const symbols = pricedAssets(this.recording.observations).filter((symbol) => this.hasPrice(symbol));
    return { symbols, ...past };
  }

  private defaultSources(scheduler: SchedulerLike): DataSource[] {
    const { config } = this.options;
    // No made-up tick at subscribe: the history gives the last price with its recorded time.
    const replay = new ReplaySource(this.recording.observations, { scheduler, ...this.replayTimeline(scheduler), latestOnSubscribe: false });
    if (config.feed.startsWith('ccxt:')) return [new CcxtFeed(config.feed.slice(5), { scheduler }), replay];
    return [replay];
  }

  /**
   * An owner's webhook signing secrets: the key's webhook secret, and during the grace period of a
   * rotation the previous one too (opened once, then cached). Never the key's HMAC secret: signing
   * requests and signing webhooks are two jobs with two secrets.
   */
  private async secretOf(ownerId: string | undefined): Promise<string[] | undefined> {
    const keyId = Number(ownerId);
    if (!Number.isInteger(keyId)) return undefined;
    const now = Date.now();
    const cached = this.secretCache.get(keyId);
    if (cached !== undefined && now < cached.until) return cached.secrets;
    const key = await this.options.store.keyById(keyId);
    if (!key) return undefined;
    const secrets: string[] = [];
    if (key.webhookSecretSealed) secrets.push(this.options.box.open(key.webhookSecretSealed));
    const until = key.previousWebhookSecretUntil ? Date.parse(key.previousWebhookSecretUntil) : Number.NaN;
    const graceOn = key.previousWebhookSecretSealed && now < until;
    if (graceOn && key.previousWebhookSecretSealed) secrets.push(this.options.box.open(key.previousWebhookSecretSealed));
    this.secretCache.set(keyId, { secrets, until: graceOn ? until : Number.POSITIVE_INFINITY });
    return secrets;
  }

  /** Forgets a cached secret (after a key's webhook secret changed). */
  forgetSecret(keyId: number): void {
    this.secretCache.delete(keyId);
  }

  /** The transport as given, or its requests traced when the host traces. */
  private traced(transport: HttpTransport): HttpTransport {
    return this.options.tracer ? tracedTransport(transport, this.options.tracer) : transport;
  }

  private async exchangeOf(exchangeId: string, ownerId: string | undefined): Promise<Exchange | undefined> {
    const keyId = Number(ownerId);
    if (!Number.isInteger(keyId)) return undefined;
    const record = await this.options.store.exchangeOf(keyId, exchangeId);
    if (!record || record.credentialsSealed === null) return undefined;
    const cacheKey = `${keyId}:${exchangeId}`;
    let exchange = this.exchangeCache.get(cacheKey);
    if (!exchange) {
      const credentials = JSON.parse(this.options.box.open(record.credentialsSealed)) as Record<string, string>;
      const tracer = this.options.tracer;
      const connecting = (this.options.connectExchange ?? ccxtConnector)(exchangeId, record.credentialType, credentials);
      exchange = tracer ? connecting.then((venue) => tracedExchange(venue, exchangeId, tracer)) : connecting;
      this.exchangeCache.set(cacheKey, exchange);
      exchange.catch(() => this.exchangeCache.delete(cacheKey));
    }
    return exchange;
  }
}

/** A source whose price observations are also written to the host's record of prices. */
function recordingPrices(source: DataSource, prices: SqlitePriceHistory): DataSource {
  return {
    name: source.name,
    supports: (topic) => source.supports(topic),
    observe: (topic) =>
      source.observe(topic).pipe(
        tap((observation) => {
          if (observation.source === 'price') prices.record(observation);
        }),
      ),
  };
}
