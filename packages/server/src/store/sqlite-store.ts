import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { ExecutionRecord, LlmSession, NotificationDraft, OutboxEntry, PaperOrderRecord, QueryRequest, RuntimeState } from '@eql/core';
import { migrate } from './migrations.js';
import { judgeSecretKey } from './secret-key-check.js';
import { privateDatabase, privateDatabaseCompanions, privateDir } from './private-files.js';
import { openRequestSecrets, sealRequestSecrets } from './request-secrets.js';
import type { SecretBox } from '../secrets.js';
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
import type { HostStore, KeyPatch } from './store.js';
import { CARRIED_FORWARD, type RetentionKind } from './retention.js';
import { observationOf, sameObservation, StaleNotificationError } from './fence.js';
import { API_KEY_COLUMNS, apiKeyValues } from './key-row.js';
import { storedJson, storedTextOrNull } from './stored-text.js';
import {
  decodeCursor,
  draftOf,
  encodeCursor,
  exchangeOf,
  executionOf,
  KEY_CACHE_MS,
  keyOf,
  NOT_DELETED,
  notificationOf,
  outboxEntryOf,
  pageOf,
  queryOf,
  remember,
  type Row,
  sessionOf,
  str,
} from './rows.js';

/** Options of a {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * The host's secret box: secrets inside query and draft requests (bot tokens, webhook headers and
   * URLs) are stored sealed with it and opened when read (see request-secrets.ts). Without it they are
   * stored as given: for in-memory stores of tests only.
   */
  box?: SecretBox;
}

/**
 * The embedded store: SQLite through better-sqlite3, WAL journal, synchronous writes. A write has
 * reached the database file's WAL before the call returns, so it survives the process being killed
 * (kill -9) at any moment after. Key records are reused for a second (every authenticated request
 * looks its key up); a change through `updateKey` applies at once, one by another process within that.
 * The database file, its `-wal` and `-shm` are created with mode 0600 in a 0700 directory; deleted
 * content is overwritten (`secure_delete`), so a secret replaced by its sealed form does not linger.
 */
export class SqliteStore implements HostStore {
  readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /**
   * Query records by id, as last read (polls read them over and over). Every write to a query drops
   * its entry, so an entry is never stale; callers must not change the records they get.
   */
  private readonly queryCache = new Map<string, QueryRecord>();
  /** The executions of a query, as last read (each poll shows them); every write to an execution drops its query's entry. */
  private readonly executionCache = new Map<string, StoredExecution[]>();
  /** Keys by hash, read at most KEY_CACHE_MS ago (every authenticated request looks its key up). */
  private readonly keyCache = new Map<string, { record: ApiKeyRecord; at: number }>();

  private readonly box: SecretBox | undefined;
  /** Whether the engine's writes are being grouped into one transaction ({@link together}). */
  private grouping = false;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.box = options.box;
    if (path !== ':memory:') {
      privateDir(dirname(path));
      privateDatabase(path);
    }
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('secure_delete = ON');
    privateDatabaseCompanions(path);
    // Migration 6 replaced secrets by their sealed form: the old pages leave the WAL at once.
    if (migrate(this.db, this.box ? { box: this.box } : {}).includes(6)) this.db.pragma('wal_checkpoint(TRUNCATE)');
    if (this.box) {
      try {
        this.checkSecretKey(this.box);
      } catch (error) {
        this.db.close();
        throw error;
      }
    }
  }

  /** Refuses a box that does not open the secrets of this database; stores the check value on the first open (secret-key-check.ts). */
  private checkSecretKey(box: SecretBox): void {
    // Immediate: of two processes opening one file at once, one reads and writes, then the other reads.
    this.db
      .transaction(() => {
        const check = this.db.prepare('SELECT sealed FROM secret_key_check WHERE id = 1').get() as { sealed: string } | undefined;
        const sample = check ? undefined : (this.db.prepare('SELECT hmac_secret_sealed AS sealed FROM api_keys ORDER BY id LIMIT 1').get() as { sealed: string } | undefined);
        const write = judgeSecretKey(box, { check: check?.sealed, sample: sample?.sealed });
        if (write !== undefined) this.db.prepare('INSERT INTO secret_key_check (id, sealed, created_at) VALUES (1, ?, ?)').run(write, new Date().toISOString());
      })
      .immediate();
  }

  /** A stored request: its secrets sealed (with a box). */
  private storedRequest(request: QueryRequest): string {
    return storedJson(this.box ? sealRequestSecrets(request, this.box) : request);
  }

  /** A request as read: its sealed secrets opened (with a box). */
  private readRequest(text: unknown): QueryRequest {
    const request = JSON.parse(str(text)) as QueryRequest;
    return this.box ? openRequestSecrets(request, this.box) : request;
  }

  private queryOf(row: Row): QueryRecord {
    return queryOf(row, this.readRequest(row.request));
  }

  private draftOf(row: Row): DraftRecord {
    return draftOf(row, this.readRequest(row.request));
  }

  /** Closes the database; the store cannot be used afterwards. */
  close(): void {
    this.db.close();
  }

  private prepared(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private run(sql: string, ...params: unknown[]): Database.RunResult {
    // The first write of a group opens its transaction (a group that writes nothing costs nothing).
    if (this.grouping && !this.db.inTransaction) this.db.exec('BEGIN');
    return this.prepared(sql).run(...params);
  }

  /**
   * Runs `work` (the engine settling one instant) with the writes it makes in one transaction, committed
   * once at its end: a tick that fires thousands of queries is one commit instead of several each. Inside
   * a transaction already, the writes are that transaction's.
   */
  together(work: () => void): void {
    if (this.grouping || this.db.inTransaction) return work();
    this.grouping = true;
    try {
      work();
    } finally {
      this.grouping = false;
      if (this.db.inTransaction) {
        try {
          this.db.exec('COMMIT');
        } catch (error) {
          if (this.db.inTransaction) this.db.exec('ROLLBACK');
          // eslint-disable-next-line no-unsafe-finally -- a commit that failed must be told, whatever work did
          throw error;
        }
      }
    }
  }

  private get(sql: string, ...params: unknown[]): Row | undefined {
    return this.prepared(sql).get(...params) as Row | undefined;
  }

  private all(sql: string, ...params: unknown[]): Row[] {
    return this.prepared(sql).all(...params) as Row[];
  }

  // ------------------------------------------------------------------ keys

  createKey(key: Omit<ApiKeyRecord, 'id'>): ApiKeyRecord {
    const values = apiKeyValues(key);
    const result = this.run(`INSERT INTO api_keys (${API_KEY_COLUMNS}) VALUES (${values.map(() => '?').join(', ')})`, ...values);
    return { ...key, id: Number(result.lastInsertRowid) };
  }

  keyByHash(keyHash: string): ApiKeyRecord | undefined {
    const now = Date.now();
    const cached = this.keyCache.get(keyHash);
    if (cached && now - cached.at < KEY_CACHE_MS && now >= cached.at) return { ...cached.record };
    const row = this.get('SELECT * FROM api_keys WHERE key_hash = ?', keyHash);
    if (!row) {
      this.keyCache.delete(keyHash);
      return undefined;
    }
    const record = keyOf(row);
    remember(this.keyCache, keyHash, { record, at: now });
    return { ...record };
  }

  keyById(id: number): ApiKeyRecord | undefined {
    const row = this.get('SELECT * FROM api_keys WHERE id = ?', id);
    return row ? keyOf(row) : undefined;
  }

  listKeys(): ApiKeyRecord[] {
    return this.db.prepare('SELECT * FROM api_keys ORDER BY id').all().map((row) => keyOf(row as Row));
  }

  updateKey(id: number, patch: KeyPatch): void {
    const columns: Record<string, unknown> = {};
    if (patch.keyHash !== undefined) columns.key_hash = patch.keyHash;
    if (patch.keyPrefix !== undefined) columns.key_prefix = patch.keyPrefix;
    if (patch.hmacSecretSealed !== undefined) columns.hmac_secret_sealed = patch.hmacSecretSealed;
    if (patch.webhookSecretSealed !== undefined) columns.webhook_secret_sealed = patch.webhookSecretSealed;
    if (patch.previousWebhookSecretSealed !== undefined) columns.previous_webhook_secret_sealed = patch.previousWebhookSecretSealed;
    if (patch.previousWebhookSecretUntil !== undefined) columns.previous_webhook_secret_until = patch.previousWebhookSecretUntil;
    if (patch.plan !== undefined) columns.plan = patch.plan;
    if (patch.status !== undefined) columns.status = patch.status;
    if (patch.autoEnabled !== undefined) columns.auto_enabled = patch.autoEnabled ? 1 : 0;
    if (patch.scopes !== undefined) columns.scopes = patch.scopes.join(' ');
    columns.updated_at = patch.updatedAt ?? new Date().toISOString();
    const names = Object.keys(columns);
    this.db.prepare(`UPDATE api_keys SET ${names.map((name) => `${name} = ?`).join(', ')} WHERE id = ?`).run(...names.map((name) => columns[name]), id);
    this.keyCache.clear();
  }

  // ------------------------------------------------------------------ usage and credits

  countRequest(keyId: number, day: string): { daily: number; monthly: number } {
    const daily = Number(
      this.get('INSERT INTO usage_days (key_id, day, requests) VALUES (?, ?, 1) ON CONFLICT (key_id, day) DO UPDATE SET requests = requests + 1 RETURNING requests', keyId, day)?.requests ?? 0,
    );
    return { daily, monthly: this.monthlyRequests(keyId, day) };
  }

  addRequests(keyId: number, day: string, requests: number): void {
    this.run('INSERT INTO usage_days (key_id, day, requests) VALUES (?, ?, ?) ON CONFLICT (key_id, day) DO UPDATE SET requests = requests + excluded.requests', keyId, day, requests);
  }

  usage(keyId: number, day: string): { daily: number; monthly: number } {
    const daily = Number(this.get('SELECT requests FROM usage_days WHERE key_id = ? AND day = ?', keyId, day)?.requests ?? 0);
    return { daily, monthly: this.monthlyRequests(keyId, day) };
  }

  /** Requests of the month of `day` (YYYY-MM-DD), by a range of the primary key. */
  private monthlyRequests(keyId: number, day: string): number {
    const month = day.slice(0, 7);
    return Number(this.get('SELECT COALESCE(SUM(requests), 0) AS total FROM usage_days WHERE key_id = ? AND day >= ? AND day <= ?', keyId, `${month}-00`, `${month}-99`)?.total ?? 0);
  }

  charge(keyId: number, credits: number, reason: string, ref: string, at: string): void {
    this.run('INSERT INTO ledger (key_id, credits, reason, ref, created_at) VALUES (?, ?, ?, ?, ?)', keyId, credits, reason, ref, at);
  }

  creditsUsed(keyId: number, day: string): { daily: number; monthly: number; total: number } {
    const sum = (where: string, ...params: unknown[]) =>
      Number(this.get(`SELECT COALESCE(SUM(credits), 0) AS total FROM ledger WHERE key_id = ? ${where}`, keyId, ...params)?.total ?? 0);
    return { daily: sum('AND substr(created_at, 1, 10) = ?', day), monthly: sum('AND substr(created_at, 1, 7) = ?', day.slice(0, 7)), total: sum('') };
  }

  // ------------------------------------------------------------------ call order

  rememberValidation(keyId: number, bodyHash: string, at: string): void {
    this.run('INSERT INTO validations (key_id, body_hash, validated_at) VALUES (?, ?, ?) ON CONFLICT (key_id, body_hash) DO UPDATE SET validated_at = excluded.validated_at', keyId, bodyHash, at);
  }

  validatedSince(keyId: number, bodyHash: string, since: string): boolean {
    return this.get('SELECT 1 AS ok FROM validations WHERE key_id = ? AND body_hash = ? AND validated_at >= ?', keyId, bodyHash, since) !== undefined;
  }

  rememberExchangeCheck(keyId: number, at: string): void {
    this.run('INSERT INTO exchange_checks (key_id, checked_at) VALUES (?, ?) ON CONFLICT (key_id) DO UPDATE SET checked_at = excluded.checked_at', keyId, at);
  }

  exchangesCheckedSince(keyId: number, since: string): boolean {
    return this.get('SELECT 1 AS ok FROM exchange_checks WHERE key_id = ? AND checked_at >= ?', keyId, since) !== undefined;
  }

  // ------------------------------------------------------------------ used signatures

  useSignature(keyId: number, digest: string, expiresAt: number): boolean {
    return this.run('INSERT INTO used_signatures (key_id, digest, expires_at) VALUES (?, ?, ?) ON CONFLICT (key_id, digest) DO NOTHING', keyId, digest, expiresAt).changes === 1;
  }

  pruneUsedSignatures(before: number): number {
    return this.run('DELETE FROM used_signatures WHERE expires_at < ?', before).changes;
  }

  // ------------------------------------------------------------------ queries

  insertQuery(query: QueryRecord, idempotencyKey?: string): void {
    this.queryCache.delete(query.id);
    this.run(
      `INSERT INTO queries (id, key_id, request, status, trade_flavoured, estimated_credits, credits, created_at, expires_at, cancelled_at, deleted_at, runtime, from_draft, idempotency_key)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      query.id,
      query.keyId,
      this.storedRequest(query.request),
      query.status,
      query.tradeFlavoured ? 1 : 0,
      query.estimatedCredits,
      query.credits,
      query.createdAt,
      query.expiresAt,
      query.cancelledAt,
      query.deletedAt,
      query.runtime === null ? null : storedJson(query.runtime),
      query.fromDraft,
      idempotencyKey ?? null,
    );
  }

  queryById(id: string): QueryRecord | undefined {
    const cached = this.queryCache.get(id);
    if (cached) return cached;
    const row = this.get('SELECT * FROM queries WHERE id = ?', id);
    if (!row) return undefined;
    const record = this.queryOf(row);
    remember(this.queryCache, id, record);
    return record;
  }

  queriesByIds(ids: readonly string[]): QueryRecord[] {
    return this.all('SELECT * FROM queries WHERE id IN (SELECT value FROM json_each(?))', JSON.stringify(ids)).map((row) => this.queryById(String(row.id)) ?? this.queryOf(row));
  }

  queryByIdempotencyKey(keyId: number, idempotencyKey: string): QueryRecord | undefined {
    const row = this.get('SELECT * FROM queries WHERE key_id = ? AND idempotency_key = ?', keyId, idempotencyKey);
    return row ? this.queryOf(row) : undefined;
  }

  listQueries(keyId: number, filter: { status?: QueryStatus; limit: number; cursor?: string }): Page<QueryRecord> {
    const after = decodeCursor(filter.cursor);
    const rows = this.db
      .prepare(
        `SELECT * FROM queries WHERE key_id = ? AND deleted_at IS NULL ${filter.status ? 'AND status = ?' : ''}
         ${after ? 'AND (created_at < ? OR (created_at = ? AND id < ?))' : ''}
         ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .all(...[keyId, ...(filter.status ? [filter.status] : []), ...(after ? [after.time, after.time, after.id] : []), filter.limit + 1]) as Row[];
    return pageOf(rows.map((row) => this.queryOf(row)), filter.limit, (query) => encodeCursor(query.createdAt, query.id));
  }

  activeQueries(): QueryRecord[] {
    return this.all("SELECT * FROM queries WHERE status = 'active' AND deleted_at IS NULL ORDER BY created_at").map((row) => this.queryOf(row));
  }

  countActiveQueries(keyId: number): number {
    return Number(this.get("SELECT COUNT(*) AS n FROM queries WHERE key_id = ? AND status = 'active' AND deleted_at IS NULL", keyId)?.n ?? 0);
  }

  setQueryStatus(id: string, status: QueryStatus, patch: { cancelledAt?: string } = {}): void {
    this.queryCache.delete(id);
    if (patch.cancelledAt !== undefined) this.run('UPDATE queries SET status = ?, cancelled_at = ? WHERE id = ?', status, patch.cancelledAt, id);
    else this.run('UPDATE queries SET status = ? WHERE id = ?', status, id);
  }

  softDeleteQuery(id: string, at: string): void {
    this.queryCache.delete(id);
    this.run('UPDATE queries SET deleted_at = ? WHERE id = ?', at, id);
  }

  saveRuntime(id: string, state: RuntimeState): void {
    this.queryCache.delete(id);
    // The status column follows the engine's, except that a cancel decided by the API stays.
    this.run("UPDATE queries SET runtime = ?, status = CASE WHEN status = 'cancelled' THEN status ELSE ? END WHERE id = ?", storedJson(state), state.status, id);
  }

  // ------------------------------------------------------------------ drafts

  upsertDraft(draft: DraftRecord): void {
    this.run(
      `INSERT INTO drafts (id, key_id, request, trade_flavoured, created_at, updated_at, converted_query_id) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET request = excluded.request, trade_flavoured = excluded.trade_flavoured, updated_at = excluded.updated_at`,
      draft.id,
      draft.keyId,
      this.storedRequest(draft.request),
      draft.tradeFlavoured ? 1 : 0,
      draft.createdAt,
      draft.updatedAt,
      draft.convertedQueryId,
    );
  }

  draftById(id: string): DraftRecord | undefined {
    const row = this.get('SELECT * FROM drafts WHERE id = ?', id);
    return row ? this.draftOf(row) : undefined;
  }

  listDrafts(keyId: number, filter: { limit: number; cursor?: string }): Page<DraftRecord> {
    const after = decodeCursor(filter.cursor);
    const rows = this.db
      .prepare(
        `SELECT * FROM drafts WHERE key_id = ? ${after ? 'AND (created_at < ? OR (created_at = ? AND id < ?))' : ''}
         ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .all(...[keyId, ...(after ? [after.time, after.time, after.id] : []), filter.limit + 1]) as Row[];
    return pageOf(rows.map((row) => this.draftOf(row)), filter.limit, (draft) => encodeCursor(draft.createdAt, draft.id));
  }

  deleteDraft(id: string): void {
    this.run('DELETE FROM drafts WHERE id = ?', id);
  }

  markDraftConverted(id: string, queryId: string): void {
    this.run('UPDATE drafts SET converted_query_id = ? WHERE id = ?', queryId, id);
  }

  // ------------------------------------------------------------------ engine records

  saveExecution(keyId: number, record: ExecutionRecord): void {
    this.executionCache.delete(record.queryId);
    this.run(
      `INSERT INTO executions (id, key_id, query_id, step_id, type, status, trigger_index, created_at, finished_at, attempts, result, error_code, error_message)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, finished_at = excluded.finished_at, attempts = excluded.attempts,
         result = excluded.result, error_code = excluded.error_code, error_message = excluded.error_message`,
      record.id,
      keyId,
      record.queryId,
      record.stepId,
      record.type,
      record.status,
      record.triggerIndex,
      record.createdAt,
      record.finishedAt ?? null,
      record.attempts,
      record.result === undefined ? null : storedJson(record.result),
      storedTextOrNull(record.error?.code),
      storedTextOrNull(record.error?.message),
    );
  }

  interruptRunningExecutions(at: string): number {
    this.executionCache.clear();
    return this.run(
      "UPDATE executions SET status = 'failed', finished_at = ?, error_code = 'HOST_RESTARTED', error_message = ? WHERE status = 'running'",
      at,
      'the host stopped while this step ran; an interrupted trigger runs its unfinished steps again after the restart',
    ).changes;
  }

  executionById(id: string): StoredExecution | undefined {
    const row = this.get('SELECT * FROM executions WHERE id = ?', id);
    return row ? executionOf(row) : undefined;
  }

  listExecutions(filter: ExecutionFilter): Page<StoredExecution> {
    const where: string[] = ['key_id = ?'];
    const params: unknown[] = [filter.keyId];
    const and = (clause: string, ...values: unknown[]) => {
      where.push(clause);
      params.push(...values);
    };
    if (filter.queryId) and('query_id = ?', filter.queryId);
    if (filter.status) and('status = ?', filter.status);
    if (filter.type) and('type = ?', filter.type);
    if (filter.since) and('created_at >= ?', filter.since);
    if (filter.until) and('created_at < ?', filter.until);
    const after = decodeCursor(filter.cursor);
    if (after) and('(created_at < ? OR (created_at = ? AND id < ?))', after.time, after.time, after.id);
    const rows = this.db.prepare(`SELECT * FROM executions WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...params, filter.limit + 1) as Row[];
    return pageOf(rows.map(executionOf), filter.limit, (execution) => encodeCursor(execution.createdAt, execution.id));
  }

  /** A query's executions, oldest first (callers must not change the list: it is kept for the next read). */
  executionsOfQuery(queryId: string): StoredExecution[] {
    const cached = this.executionCache.get(queryId);
    if (cached) return cached;
    const executions = this.all('SELECT * FROM executions WHERE query_id = ? ORDER BY created_at, rowid', queryId).map(executionOf);
    remember(this.executionCache, queryId, executions);
    return executions;
  }

  saveSession(keyId: number, session: LlmSession): void {
    this.run(
      'INSERT INTO sessions (id, key_id, query_id, body, executed_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body, executed_at = excluded.executed_at',
      session.sessionId,
      keyId,
      session.queryId,
      storedJson(session),
      session.executedAt,
    );
  }

  sessionsOfQuery(queryId: string): StoredSession[] {
    return this.all('SELECT * FROM sessions WHERE query_id = ? ORDER BY executed_at, rowid', queryId).map(sessionOf);
  }

  sessionById(id: string): StoredSession | undefined {
    const row = this.get('SELECT * FROM sessions WHERE id = ?', id);
    return row ? sessionOf(row) : undefined;
  }

  addNotification(keyId: number, draft: NotificationDraft): StoredNotification {
    // A notify step that a restart interrupted after its notification was stored runs again (the
    // step was not recorded as completed): the notification of that trigger and step is not added twice.
    const { stepId, triggerIndex } = draft.data;
    if (typeof stepId === 'string' && typeof triggerIndex === 'number') {
      const earlier = this.get(
        "SELECT * FROM notifications WHERE query_id = ? AND json_extract(body, '$.data.triggerIndex') = ? AND json_extract(body, '$.data.stepId') = ? ORDER BY id LIMIT 1",
        draft.data.queryId,
        triggerIndex,
        stepId,
      );
      if (earlier) {
        const stored = notificationOf(earlier);
        const given = (JSON.parse(storedJson(draft)) as NotificationDraft).data;
        if (!sameObservation(stored.data, given)) throw new StaleNotificationError(draft.data.queryId, triggerIndex, stepId, observationOf(stored.data), observationOf(given));
        return stored;
      }
    }
    const body = storedJson(draft);
    const result = this.run('INSERT INTO notifications (key_id, query_id, body, created_at) VALUES (?, ?, ?, ?)', keyId, draft.data.queryId, body, draft.createdAt);
    // The notification as stored (stored-text.ts), which the stream sends live: a replay reads the same.
    return { ...(JSON.parse(body) as NotificationDraft), id: Number(result.lastInsertRowid), keyId };
  }

  // A deleted query is gone from every stream: its notifications are neither replayed nor counted.
  notificationsAfter(keyId: number, afterId: number, queryId?: string, limit = 500): StoredNotification[] {
    const rows = queryId
      ? this.all(`SELECT n.* FROM notifications n WHERE n.key_id = ? AND n.query_id = ? AND n.id > ? ${NOT_DELETED} ORDER BY n.id LIMIT ?`, keyId, queryId, afterId, limit)
      : this.all(`SELECT n.* FROM notifications n WHERE n.key_id = ? AND n.id > ? ${NOT_DELETED} ORDER BY n.id LIMIT ?`, keyId, afterId, limit);
    return rows.map(notificationOf);
  }

  countNotificationsAfter(keyId: number, afterId: number, queryId?: string): number {
    const row = queryId
      ? this.get(`SELECT COUNT(*) AS n FROM notifications n WHERE n.key_id = ? AND n.query_id = ? AND n.id > ? ${NOT_DELETED}`, keyId, queryId, afterId)
      : this.get(`SELECT COUNT(*) AS n FROM notifications n WHERE n.key_id = ? AND n.id > ? ${NOT_DELETED}`, keyId, afterId);
    return Number(row?.n ?? 0);
  }

  // ------------------------------------------------------------------ once across restarts

  saveOutbox(keyId: number, entry: OutboxEntry): void {
    const outcome: Record<string, unknown> = {};
    if (entry.result !== undefined) outcome.result = entry.result;
    if (entry.analysis !== undefined) outcome.analysis = entry.analysis;
    if (entry.error !== undefined) outcome.error = entry.error;
    this.run(
      `INSERT INTO action_outbox (idempotency_key, key_id, query_id, trigger_index, step_id, type, execution_id, status, created_at, finished_at, outcome)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (idempotency_key) DO UPDATE SET execution_id = excluded.execution_id, status = excluded.status, finished_at = excluded.finished_at, outcome = excluded.outcome`,
      entry.key,
      keyId,
      entry.queryId,
      entry.triggerIndex,
      entry.stepId,
      entry.type,
      entry.executionId,
      entry.status,
      entry.createdAt,
      entry.finishedAt ?? null,
      Object.keys(outcome).length === 0 ? null : storedJson(outcome),
    );
  }

  claimOutbox(keyId: number, entry: OutboxEntry): boolean {
    if (this.outboxEntry(entry.key) !== undefined) return false;
    this.saveOutbox(keyId, entry);
    return true;
  }

  outboxEntry(key: string): OutboxEntry | undefined {
    const row = this.get('SELECT * FROM action_outbox WHERE idempotency_key = ?', key);
    return row ? outboxEntryOf(row) : undefined;
  }

  outboxPending(): { count: number; oldestAt?: string } {
    const row = this.get("SELECT count(*) AS count, min(created_at) AS oldest FROM action_outbox WHERE status = 'pending'") as { count: number; oldest: string | null };
    return row.oldest === null ? { count: Number(row.count) } : { count: Number(row.count), oldestAt: row.oldest };
  }

  savePaperOrders(records: readonly PaperOrderRecord[]): void {
    // One transaction (a savepoint inside the engine's group): an order is never on disk without the exits it got.
    this.db.transaction(() => {
      for (const record of records) {
        this.run(
          `INSERT INTO paper_orders (client_order_id, seq, body, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (client_order_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
          record.request.clientOrderId,
          record.seq,
          storedJson(record),
          new Date().toISOString(),
        );
      }
    })();
  }

  paperOrders(): PaperOrderRecord[] {
    return this.all('SELECT body FROM paper_orders ORDER BY seq').map((row) => JSON.parse(str(row.body)) as PaperOrderRecord);
  }

  // ------------------------------------------------------------------ retention

  prune(kind: RetentionKind, before: string, limit: number): number {
    const pruned = this.db.transaction(() => this.pruneBatch(kind, before, limit))();
    // What was read before may be gone: the caches are dropped rather than picked through.
    if (pruned > 0 && (kind === 'executions' || kind === 'deletedQueries')) {
      this.executionCache.clear();
      this.queryCache.clear();
    }
    return pruned;
  }

  private pruneBatch(kind: RetentionKind, before: string, limit: number): number {
    switch (kind) {
      case 'notifications':
        return this.run('DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE created_at < ? ORDER BY created_at LIMIT ?)', before, limit).changes;
      case 'executions': {
        const executions = this.run('DELETE FROM executions WHERE id IN (SELECT id FROM executions WHERE finished_at IS NOT NULL AND finished_at < ? ORDER BY finished_at LIMIT ?)', before, limit).changes;
        return executions + this.run('DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE executed_at < ? ORDER BY executed_at LIMIT ?)', before, limit - executions).changes;
      }
      case 'outbox':
        return this.run("DELETE FROM action_outbox WHERE idempotency_key IN (SELECT idempotency_key FROM action_outbox WHERE status <> 'pending' AND finished_at < ? ORDER BY finished_at LIMIT ?)", before, limit).changes;
      case 'validations': {
        const validations = this.run('DELETE FROM validations WHERE rowid IN (SELECT rowid FROM validations WHERE validated_at < ? ORDER BY validated_at LIMIT ?)', before, limit).changes;
        return validations + this.run('DELETE FROM exchange_checks WHERE key_id IN (SELECT key_id FROM exchange_checks WHERE checked_at < ? LIMIT ?)', before, limit - validations).changes;
      }
      case 'ledger':
        return this.foldLedger(before, limit);
      case 'chat': {
        const sessions = this.all('SELECT id FROM chat_sessions WHERE updated_at < ? ORDER BY updated_at LIMIT ?', before, limit).map((row) => str(row.id));
        if (sessions.length === 0) return 0;
        const ids = JSON.stringify(sessions);
        this.run('DELETE FROM chat_messages WHERE session_id IN (SELECT value FROM json_each(?))', ids);
        return this.run('DELETE FROM chat_sessions WHERE id IN (SELECT value FROM json_each(?))', ids).changes;
      }
      case 'deletedQueries': {
        const queries = this.all('SELECT id FROM queries WHERE deleted_at IS NOT NULL AND deleted_at < ? ORDER BY deleted_at LIMIT ?', before, limit).map((row) => str(row.id));
        if (queries.length === 0) return 0;
        const ids = JSON.stringify(queries);
        for (const table of ['executions', 'sessions', 'notifications', 'action_outbox']) this.run(`DELETE FROM ${table} WHERE query_id IN (SELECT value FROM json_each(?))`, ids);
        return this.run('DELETE FROM queries WHERE id IN (SELECT value FROM json_each(?))', ids).changes;
      }
    }
  }

  /** Folds the oldest ledger lines before `before` into each key's carried-forward line, and drops request counts of days before it. */
  private foldLedger(before: string, limit: number): number {
    const lines = this.all(`SELECT id, key_id, credits, created_at FROM ledger WHERE reason <> '${CARRIED_FORWARD}' AND created_at < ? ORDER BY created_at LIMIT ?`, before, limit);
    const byKey = new Map<number, { credits: number; latest: string }>();
    for (const line of lines) {
      const folded = byKey.get(Number(line.key_id)) ?? { credits: 0, latest: '' };
      folded.credits += Number(line.credits);
      if (str(line.created_at) > folded.latest) folded.latest = str(line.created_at);
      byKey.set(Number(line.key_id), folded);
    }
    for (const [keyId, { credits, latest }] of byKey) {
      this.run(
        `INSERT INTO ledger (key_id, credits, reason, ref, created_at) VALUES (?, ?, '${CARRIED_FORWARD}', 'older lines', ?)
         ON CONFLICT (key_id) WHERE reason = '${CARRIED_FORWARD}' DO UPDATE SET credits = credits + excluded.credits, created_at = max(created_at, excluded.created_at)`,
        keyId,
        credits,
        latest,
      );
    }
    if (lines.length > 0) this.run('DELETE FROM ledger WHERE id IN (SELECT value FROM json_each(?))', JSON.stringify(lines.map((line) => Number(line.id))));
    const days = this.run('DELETE FROM usage_days WHERE rowid IN (SELECT rowid FROM usage_days WHERE day < ? LIMIT ?)', before.slice(0, 10), limit - lines.length).changes;
    return lines.length + days;
  }

  // ------------------------------------------------------------------ exchanges

  upsertExchange(record: ExchangeRecord): void {
    this.run(
      `INSERT INTO exchanges (key_id, exchange, credential_type, credentials_sealed, connected_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key_id, exchange) DO UPDATE SET credential_type = excluded.credential_type, credentials_sealed = excluded.credentials_sealed, connected_at = excluded.connected_at`,
      record.keyId,
      record.exchange,
      record.credentialType,
      record.credentialsSealed,
      record.connectedAt,
    );
  }

  exchangesOf(keyId: number): ExchangeRecord[] {
    return this.all('SELECT * FROM exchanges WHERE key_id = ? ORDER BY exchange', keyId).map(exchangeOf);
  }

  exchangeOf(keyId: number, exchange: string): ExchangeRecord | undefined {
    const row = this.get('SELECT * FROM exchanges WHERE key_id = ? AND exchange = ?', keyId, exchange);
    return row ? exchangeOf(row) : undefined;
  }

  deleteExchange(keyId: number, exchange: string): boolean {
    return this.run('DELETE FROM exchanges WHERE key_id = ? AND exchange = ?', keyId, exchange).changes > 0;
  }
}
