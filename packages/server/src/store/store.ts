import type { ExecutionRecord, LlmSession, MaybePromise, NotificationDraft, OutboxEntry, PaperOrderRecord, RuntimeState } from '@eql/core';
import type {
  ApiKeyRecord,
  Plan,
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
import type { Fence } from './fence.js';
import type { RetentionKind } from './retention.js';

export { FencedWriteError, isFencedWrite, StaleNotificationError, type Fence } from './fence.js';

/**
 * Everything the host keeps. The SQLite store answers synchronously; a store over a remote database
 * (PostgreSQL) may answer with promises: callers await every call, and the engine keeps synchronous
 * answers synchronous. Every write is durable when the call returns (or its promise resolves).
 * Secrets inside stored requests (bot tokens, webhook headers and URLs) must not be at rest in clear:
 * the SQLite store seals them with the host's box (`sealRequestSecrets`) and opens them on read.
 * A NUL (U+0000) in any string given to keep, in text or at any depth of a JSON value, is kept as
 * U+FFFD (stored-text.ts): PostgreSQL cannot hold one, and both stores must read back the same.
 *
 * **Fenced writes.** The writes a partition's engine makes (runtime state, executions, sessions,
 * notifications, outbox entries) carry its lease as a {@link Fence}: a store shared by several hosts
 * (PostgreSQL) checks it in the write's transaction and throws a `FencedWriteError` when the lease is no
 * longer that fence's, so a host that lost a partition (a zombie) has no effect on it. A store of one
 * process (SQLite) accepts and ignores fences. Writes without a fence (a host without partitions) are
 * not checked.
 */
export interface HostStore {
  // keys
  /** Stores a new API key (its hash, never the key) and returns its record with the id it was given. */
  createKey(key: Omit<ApiKeyRecord, 'id'>): MaybePromise<ApiKeyRecord>;
  /** The key whose SHA-256 hash this is ({@link hashKey}): how every authenticated request finds its key. */
  keyByHash(keyHash: string): MaybePromise<ApiKeyRecord | undefined>;
  /** The key of an id, or undefined. */
  keyById(id: number): MaybePromise<ApiKeyRecord | undefined>;
  /** Changes a key's value (its hash and prefix: a rotation), HMAC secret, webhook secrets, plan, status, automation flag or scopes; `updatedAt` defaults to now. */
  updateKey(id: number, patch: KeyPatch): MaybePromise<void>;
  /** Every key, by id (`eql keys list`). */
  listKeys(): MaybePromise<ApiKeyRecord[]>;

  // usage and credits
  /** Counts one request; returns the counts of the day and the month after it. */
  countRequest(keyId: number, day: string): MaybePromise<{ daily: number; monthly: number }>;
  /** The requests counted for a key on `day` (YYYY-MM-DD, UTC) and in its month, without counting one. */
  usage(keyId: number, day: string): MaybePromise<{ daily: number; monthly: number }>;
  /** Adds several counted requests of a key on a day at once. */
  addRequests(keyId: number, day: string, requests: number): MaybePromise<void>;
  /** Writes a line of the credit ledger: `credits` spent by a key, why (`create`, `chat`, ...) and on what (`ref`, a query or session id). */
  charge(keyId: number, credits: number, reason: string, ref: string, at: string): MaybePromise<void>;
  /** Credits a key spent on `day` (YYYY-MM-DD), in its month, and in all. */
  creditsUsed(keyId: number, day: string): MaybePromise<{ daily: number; monthly: number; total: number }>;

  // call order
  /** Notes that a key validated a query body (by hash) at `at`: creating that query requires it (409 `validate_first`). */
  rememberValidation(keyId: number, bodyHash: string, at: string): MaybePromise<void>;
  /** Whether the key validated this body (by hash) at or after `since`. */
  validatedSince(keyId: number, bodyHash: string, since: string): MaybePromise<boolean>;
  /** Notes that a key listed its exchanges at `at`: creating a query that trades requires it (409 `check_exchanges_first`). */
  rememberExchangeCheck(keyId: number, at: string): MaybePromise<void>;
  /** Whether the key listed its exchanges at or after `since`. */
  exchangesCheckedSince(keyId: number, since: string): MaybePromise<boolean>;

  // used signatures (spec 5.2: a signature is accepted once)
  /**
   * Records that a key's request signature (a digest of it) was used, until `expiresAt` (epoch ms):
   * true the first time, false when it is already recorded (a replay). Atomic: of two requests with
   * the same signature at once, one gets true.
   */
  useSignature(keyId: number, digest: string, expiresAt: number): MaybePromise<boolean>;
  /** Forgets the used signatures that expired before `before` (epoch ms); returns how many. */
  pruneUsedSignatures(before: number): MaybePromise<number>;

  // queries
  /** Stores a new query, with the Idempotency-Key of the request that created it, if any. */
  insertQuery(query: QueryRecord, idempotencyKey?: string): MaybePromise<void>;
  /** A query by id, deleted ones included; undefined when there is none. Callers must not change the record. */
  queryById(id: string): MaybePromise<QueryRecord | undefined>;
  /** The queries of these ids that exist, deleted ones included, in no set order (one read for many: a partition taken over). */
  queriesByIds(ids: readonly string[]): MaybePromise<QueryRecord[]>;
  /** The query a key created with this Idempotency-Key, to replay the first answer. */
  queryByIdempotencyKey(keyId: number, idempotencyKey: string): MaybePromise<QueryRecord | undefined>;
  /** A key's queries not deleted, newest first, optionally of one status, one page at a time. */
  listQueries(keyId: number, filter: { status?: QueryStatus; limit: number; cursor?: string }): MaybePromise<Page<QueryRecord>>;
  /** Every active query not deleted, of all keys, oldest first: what the engine adds back at boot. */
  activeQueries(): MaybePromise<QueryRecord[]>;
  /** How many active queries a key has (its plan caps them). */
  countActiveQueries(keyId: number): MaybePromise<number>;
  /** Sets a query's status, and when it was cancelled. */
  setQueryStatus(id: string, status: QueryStatus, patch?: { cancelledAt?: string }): MaybePromise<void>;
  /** Marks a query deleted at `at`: lists leave it out, its record stays. */
  softDeleteQuery(id: string, at: string): MaybePromise<void>;
  /**
   * Stores the engine's runtime state of a query; its status follows the state's, except that a cancelled
   * query stays cancelled. A fenced save carries a `version` that grows with every save under its fence:
   * the state's version is `(fence.epoch, version)`, and a save older than the stored one is refused
   * (`FencedWriteError`), never overwriting newer state.
   */
  saveRuntime(id: string, state: RuntimeState, fence?: Fence, version?: number): MaybePromise<void>;

  // drafts
  /** Stores a draft, or updates its request and `updatedAt` when the id exists. */
  upsertDraft(draft: DraftRecord): MaybePromise<void>;
  /** A draft by id, or undefined. */
  draftById(id: string): MaybePromise<DraftRecord | undefined>;
  /** A key's drafts, newest first, one page at a time. */
  listDrafts(keyId: number, filter: { limit: number; cursor?: string }): MaybePromise<Page<DraftRecord>>;
  /** Deletes a draft. */
  deleteDraft(id: string): MaybePromise<void>;
  /** Records the query a draft was converted into. */
  markDraftConverted(id: string, queryId: string): MaybePromise<void>;

  // records of the engine
  /** Stores an execution of an action step, or updates its status, attempts, result and error when its id exists. */
  saveExecution(keyId: number, record: ExecutionRecord, fence?: Fence): MaybePromise<void>;
  /**
   * At boot: executions still `running` were cut off by the previous process; they become `failed` with
   * code `HOST_RESTARTED`. A resumed trigger then settles the step (docs/semantics.md, "Once across
   * restarts"): under the same execution when its outbox entry was written, else as a new one. Returns how many.
   */
  interruptRunningExecutions(at: string): MaybePromise<number>;
  /** An execution by id, or undefined. */
  executionById(id: string): MaybePromise<StoredExecution | undefined>;
  /** A key's executions matching the filter, newest first, one page at a time. */
  listExecutions(filter: ExecutionFilter): MaybePromise<Page<StoredExecution>>;
  /** Every execution of a query, oldest first. */
  executionsOfQuery(queryId: string): MaybePromise<StoredExecution[]>;
  /** Stores the LLM session of an llm action, or replaces it when its id exists. */
  saveSession(keyId: number, session: LlmSession, fence?: Fence): MaybePromise<void>;
  /** The LLM sessions of a query, oldest first. */
  sessionsOfQuery(queryId: string): MaybePromise<StoredSession[]>;
  /** An LLM session by id, or undefined. */
  sessionById(id: string): MaybePromise<StoredSession | undefined>;
  /**
   * Stores a notification and returns it with its id (increasing per key in commit order: the SSE event
   * id); a step run again after a restart gets the one it stored before (same query, trigger index and
   * step, and the same observation `data.observedAt`). One stored for another observation is not answered:
   * the trigger index was reused by stale state, and the call throws a `StaleNotificationError`.
   */
  addNotification(keyId: number, draft: NotificationDraft, fence?: Fence): MaybePromise<StoredNotification>;
  /** Notifications of a key (optionally one query) with id > afterId, oldest first; none of a deleted query. */
  notificationsAfter(keyId: number, afterId: number, queryId?: string, limit?: number): MaybePromise<StoredNotification[]>;
  /** How many notifications of a key (optionally one query) have an id above `afterId`, not counting a deleted query's. */
  countNotificationsAfter(keyId: number, afterId: number, queryId?: string): MaybePromise<number>;

  // once across restarts (docs/semantics.md)
  /** Writes an action step's outbox entry (by its idempotency key), replacing the one with its key; durable when it returns. */
  saveOutbox(keyId: number, entry: OutboxEntry, fence?: Fence): MaybePromise<void>;
  /**
   * Claims an action step for a fresh trigger: writes its `pending` outbox entry only when its key has
   * none (`INSERT ... ON CONFLICT DO NOTHING`) and returns whether this call wrote it. Of two runs of one
   * step (a zombie owner and the new one), one wins; the other must not run the step.
   */
  claimOutbox(keyId: number, entry: OutboxEntry, fence?: Fence): MaybePromise<boolean>;
  /** Runs the engine's settling of one instant with its writes in one transaction (a synchronous store; see `StateStore.together`). */
  together?(work: () => void): void;
  /** The outbox entry of an idempotency key, or undefined. */
  outboxEntry(key: string): MaybePromise<OutboxEntry | undefined>;
  /** How many outbox entries are `pending` (in flight, or in doubt after a crash), and when the oldest was written. */
  outboxPending(): MaybePromise<{ count: number; oldestAt?: string }>;
  /** Saves orders of the paper venue together (all or none), each replacing the one with its client order id; durable when it returns. */
  savePaperOrders(records: readonly PaperOrderRecord[]): MaybePromise<void>;
  /** Every order of the paper venue, in the order they were placed (a restarted venue takes them back). */
  paperOrders(): MaybePromise<PaperOrderRecord[]>;

  // exchanges
  /** Stores a key's connection to an exchange, replacing an earlier one to the same exchange. */
  upsertExchange(record: ExchangeRecord): MaybePromise<void>;
  /** A key's exchange connections, by exchange id. */
  exchangesOf(keyId: number): MaybePromise<ExchangeRecord[]>;
  /** A key's connection to one exchange, or undefined. */
  exchangeOf(keyId: number, exchange: string): MaybePromise<ExchangeRecord | undefined>;
  /** Removes a key's connection to an exchange; false when there was none. */
  deleteExchange(keyId: number, exchange: string): MaybePromise<boolean>;

  // retention (store/retention.ts says what each kind is)
  /**
   * Deletes at most `limit` records of a kind older than `before` (ISO 8601) in one transaction and returns
   * how many went (with `ledger`, the lines folded and the days of counts dropped): the retention job calls
   * again until fewer than `limit` come back, so writers never wait behind more than one batch.
   */
  prune(kind: RetentionKind, before: string, limit: number): MaybePromise<number>;

  /** Closes the store (a remote one after the writes under way); the host calls it last, at shutdown. */
  close(): MaybePromise<void>;
}

/** What {@link HostStore.updateKey} can change. */
export type KeyPatch = Partial<
  Pick<ApiKeyRecord, 'keyHash' | 'keyPrefix' | 'hmacSecretSealed' | 'webhookSecretSealed' | 'previousWebhookSecretSealed' | 'previousWebhookSecretUntil' | 'plan' | 'status' | 'autoEnabled' | 'updatedAt' | 'scopes'>
>;

export type { Plan };
