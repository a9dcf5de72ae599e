import type { ExecutionRecord, LlmSession, MaybePromise, NotificationDraft, RuntimeState } from '@eql/core';
import type { Plan } from '../config.js';
import type {
  ApiKeyRecord,
  DraftRecord,
  ExchangeRecord,
  ExecutionFilter,
  Page,
  QueryRecord,
  QueryStatus,
  StoredExecution,
  StoredNotification,
  StoredSession,
} from './records.js';

/**
 * Everything the host keeps. The SQLite store answers synchronously; a store over a remote database
 * (PostgreSQL) may answer with promises: callers await every call, and the engine keeps synchronous
 * answers synchronous. Every write is durable when the call returns (or its promise resolves).
 */
export interface HostStore {
  // keys
  createKey(key: Omit<ApiKeyRecord, 'id'>): MaybePromise<ApiKeyRecord>;
  keyByHash(keyHash: string): MaybePromise<ApiKeyRecord | undefined>;
  keyById(id: number): MaybePromise<ApiKeyRecord | undefined>;
  updateKey(id: number, patch: Partial<Pick<ApiKeyRecord, 'hmacSecretSealed' | 'plan' | 'status' | 'autoEnabled' | 'updatedAt' | 'scopes'>>): MaybePromise<void>;

  // usage and credits
  /** Counts one request; returns the counts of the day and the month after it. */
  countRequest(keyId: number, day: string): MaybePromise<{ daily: number; monthly: number }>;
  usage(keyId: number, day: string): MaybePromise<{ daily: number; monthly: number }>;
  /** Adds several counted requests of a key on a day at once. */
  addRequests(keyId: number, day: string, requests: number): MaybePromise<void>;
  charge(keyId: number, credits: number, reason: string, ref: string, at: string): MaybePromise<void>;
  creditsUsed(keyId: number, day: string): MaybePromise<{ daily: number; monthly: number; total: number }>;

  // call order
  rememberValidation(keyId: number, bodyHash: string, at: string): MaybePromise<void>;
  validatedSince(keyId: number, bodyHash: string, since: string): MaybePromise<boolean>;
  rememberExchangeCheck(keyId: number, at: string): MaybePromise<void>;
  exchangesCheckedSince(keyId: number, since: string): MaybePromise<boolean>;

  // queries
  insertQuery(query: QueryRecord, idempotencyKey?: string): MaybePromise<void>;
  queryById(id: string): MaybePromise<QueryRecord | undefined>;
  queryByIdempotencyKey(keyId: number, idempotencyKey: string): MaybePromise<QueryRecord | undefined>;
  listQueries(keyId: number, filter: { status?: QueryStatus; limit: number; cursor?: string }): MaybePromise<Page<QueryRecord>>;
  activeQueries(): MaybePromise<QueryRecord[]>;
  countActiveQueries(keyId: number): MaybePromise<number>;
  setQueryStatus(id: string, status: QueryStatus, patch?: { cancelledAt?: string }): MaybePromise<void>;
  softDeleteQuery(id: string, at: string): MaybePromise<void>;
  saveRuntime(id: string, state: RuntimeState): MaybePromise<void>;

  // drafts
  upsertDraft(draft: DraftRecord): MaybePromise<void>;
  draftById(id: string): MaybePromise<DraftRecord | undefined>;
  listDrafts(keyId: number, filter: { limit: number; cursor?: string }): MaybePromise<Page<DraftRecord>>;
  deleteDraft(id: string): MaybePromise<void>;
  markDraftConverted(id: string, queryId: string): MaybePromise<void>;

  // records of the engine
  saveExecution(keyId: number, record: ExecutionRecord): MaybePromise<void>;
  /**
   * At boot: executions still `running` were cut off by the previous process (a resumed trigger runs
   * the step again as a new execution); they become `failed` with code `HOST_RESTARTED`. Returns how many.
   */
  interruptRunningExecutions(at: string): MaybePromise<number>;
  executionById(id: string): MaybePromise<StoredExecution | undefined>;
  listExecutions(filter: ExecutionFilter): MaybePromise<Page<StoredExecution>>;
  executionsOfQuery(queryId: string): MaybePromise<StoredExecution[]>;
  saveSession(keyId: number, session: LlmSession): MaybePromise<void>;
  sessionsOfQuery(queryId: string): MaybePromise<StoredSession[]>;
  sessionById(id: string): MaybePromise<StoredSession | undefined>;
  addNotification(keyId: number, draft: NotificationDraft): MaybePromise<StoredNotification>;
  /** Notifications of a key (optionally one query) with id > afterId, oldest first. */
  notificationsAfter(keyId: number, afterId: number, queryId?: string, limit?: number): MaybePromise<StoredNotification[]>;
  countNotificationsAfter(keyId: number, afterId: number, queryId?: string): MaybePromise<number>;

  // exchanges
  upsertExchange(record: ExchangeRecord): MaybePromise<void>;
  exchangesOf(keyId: number): MaybePromise<ExchangeRecord[]>;
  exchangeOf(keyId: number, exchange: string): MaybePromise<ExchangeRecord | undefined>;
  deleteExchange(keyId: number, exchange: string): MaybePromise<boolean>;

  close(): void;
}

export type { Plan };
