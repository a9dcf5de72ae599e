import { readFileSync } from 'node:fs';
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { CcxtExchange, CcxtPriceSource, UndiciHttpTransport } from '@eql/adapters';
import {
  type DataSource,
  Engine,
  type EngineEvent,
  type Exchange,
  type ExecutionRecord,
  type HttpTransport,
  type LlmProvider,
  type LlmSession,
  type NotificationDraft,
  parseRecording,
  RecordedLlmProvider,
  type Recording,
  ReplaySource,
  type RuntimeState,
  type StateStore,
} from '@eql/core';
import type { HostConfig } from '../config.js';
import { composeProvider } from '../llm/create-analyst.js';
import type { SecretBox } from '../secrets.js';
import type { QueryRecord, StoredNotification } from '../store/records.js';
import type { HostStore } from '../store/store.js';

/** Connects an exchange with credentials and proves they work (the venue adapter's job). */
export type ExchangeConnector = (exchangeId: string, credentialType: string, credentials: Record<string, string>) => Promise<Exchange>;

export const ccxtConnector: ExchangeConnector = (exchangeId, _credentialType, credentials) => CcxtExchange.connect(exchangeId, credentials);

export interface HostEngineOptions {
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
  /** The recording of the replay feed and previews (default: read from `config.recordingPath`). */
  recording?: Recording;
}

/**
 * The engine of the host: one Engine over the store. Runtime state, executions, sessions and
 * notifications go to the store as they happen; at boot every active query is added back with its
 * persisted state (so nothing fires twice and cooldowns and latches hold). Owners are API key ids.
 */
export class HostEngine {
  readonly engine: Engine;
  readonly recording: Recording;
  private readonly owners = new Map<string, number>();
  private readonly exchangeCache = new Map<string, Promise<Exchange>>();
  private readonly secretCache = new Map<number, string>();
  private readonly listeners = new Set<(notification: StoredNotification) => void>();
  private readonly subscription: Subscription;
  private readonly sources: DataSource[];

  constructor(private readonly options: HostEngineOptions) {
    const { config } = options;
    this.recording = options.recording ?? parseRecording(readFileSync(config.recordingPath, 'utf8'));
    const scheduler = options.scheduler ?? asyncScheduler;
    this.sources = options.sources ?? this.defaultSources(scheduler);
    this.engine = new Engine({
      scheduler,
      sources: this.sources,
      store: this.stateStore(),
      llm: options.llm ?? this.defaultLlm(scheduler),
      http: options.http ?? new UndiciHttpTransport({ allowPrivate: config.allowPrivateWebhooks }),
      allowPrivateWebhooks: config.allowPrivateWebhooks,
      webhookSecret: (ownerId) => this.secretOf(ownerId),
      exchanges: { get: (exchangeId, ownerId) => this.exchangeOf(exchangeId, ownerId) },
      ...(config.messengerBaseUrl ? { messengerBaseUrl: config.messengerBaseUrl } : {}),
    });
    this.subscription = this.engine.events$.subscribe((event) => this.onEvent(event));
  }

  /** Adds back every active query with its persisted state. */
  async start(): Promise<number> {
    const active = await this.options.store.activeQueries();
    for (const query of active) this.add(query);
    return active.length;
  }

  add(query: QueryRecord): void {
    this.owners.set(query.id, query.keyId);
    this.engine.add({ queryId: query.id, request: query.request, createdAt: Date.parse(query.createdAt), ownerId: String(query.keyId) }, query.runtime ?? undefined);
  }

  /** Called on every stored notification (the SSE hub listens). */
  onNotification(listener: (notification: StoredNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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

  dispose(): void {
    this.subscription.unsubscribe();
    this.engine.dispose();
  }

  private onEvent(event: EngineEvent): void {
    if (event.type === 'notification') {
      const keyId = this.owners.get(event.queryId);
      if (keyId === undefined) return;
      const stored: StoredNotification = { ...event.notification, keyId };
      for (const listener of this.listeners) listener(stored);
    }
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
    const shiftMs = scheduler.now() - this.recording.start;
    const speed = this.options.config.replaySpeed;
    const toRecordingTime = (at: number): number => origin + ((((at - origin - shiftMs) * speed) % span) + span) % span;
    return composeProvider(recorded, this.options.analyst, { toRecordingTime });
  }

  private defaultSources(scheduler: SchedulerLike): DataSource[] {
    const { config } = this.options;
    const replay = new ReplaySource(this.recording.observations, {
      scheduler,
      shiftMs: scheduler.now() - this.recording.start,
      loop: true,
      speed: config.replaySpeed,
    });
    if (config.feed.startsWith('ccxt:')) return [new CcxtPriceSource(config.feed.slice(5), { scheduler }), replay];
    return [replay];
  }

  /** An owner's webhook signing secret: the key's HMAC secret (opened once, then cached). */
  private async secretOf(ownerId: string | undefined): Promise<string | undefined> {
    const keyId = Number(ownerId);
    if (!Number.isInteger(keyId)) return undefined;
    const cached = this.secretCache.get(keyId);
    if (cached !== undefined) return cached;
    const key = await this.options.store.keyById(keyId);
    if (!key) return undefined;
    const secret = this.options.box.open(key.hmacSecretSealed);
    this.secretCache.set(keyId, secret);
    return secret;
  }

  /** Forgets a cached secret (after a key's secret changed). */
  forgetSecret(keyId: number): void {
    this.secretCache.delete(keyId);
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
      exchange = (this.options.connectExchange ?? ccxtConnector)(exchangeId, record.credentialType, credentials);
      this.exchangeCache.set(cacheKey, exchange);
      exchange.catch(() => this.exchangeCache.delete(cacheKey));
    }
    return exchange;
  }
}
