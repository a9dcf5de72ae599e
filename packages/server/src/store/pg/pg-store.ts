import type pg from 'pg';
import type { ExecutionRecord, LlmSession, NotificationDraft, OutboxEntry, PaperOrderRecord, QueryRequest, RuntimeState } from '@eql/core';
import type { SecretBox } from '../../secrets.js';
import { openRequestSecrets, sealRequestSecrets } from '../request-secrets.js';
import type { ApiKeyRecord, DraftRecord, ExchangeRecord, ExecutionFilter, Page, QueryRecord, QueryStatus, StoredExecution, StoredNotification, StoredSession } from '../records.js';
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
} from '../rows.js';
import { API_KEY_COLUMNS, apiKeyValues } from '../key-row.js';
import { storedJson, storedTextOrNull } from '../stored-text.js';
import type { Fence } from '../fence.js';
import type { HostStore, KeyPatch } from '../store.js';
import { CARRIED_FORWARD, type RetentionKind } from '../retention.js';
import { checkFence } from './pg-fence.js';
import { migratePg } from './pg-migrations.js';
import { inTransaction } from './checked-out.js';
import { addNotifications, type NotificationItem } from './batched-notifications.js';
import { claimOutboxes, EXECUTION_COLUMNS, EXECUTION_UPSERT, OUTBOX_COLUMNS, OUTBOX_UPSERT, saveExecutions, saveOutboxes, saveRuntimes } from './batched-writes.js';
import { WriteBatchers } from './write-batcher.js';
import { openPgPool, type PgSessionTimeouts } from './pg-pool.js';
import { judgeSecretKey } from '../secret-key-check.js';

/**
 * The advisory lock class taken per API key (and schema), for the length of a transaction, to add a
 * notification: a key's ids are handed out and committed in the same order, so a reader of the key
 * resuming after id N never misses a notification of the key with a smaller id that committed later
 * (SSE `Last-Event-ID`; every reader reads one key's notifications). Keys do not wait on each other.
 */
export const NOTIFICATION_KEY_LOCK_CLASS = 0x45514c03;

/** Takes a key's notification ordering lock (`$1`: the key id) until the transaction ends. */
export const NOTIFICATION_KEY_LOCK_SQL = `SELECT pg_advisory_xact_lock(${NOTIFICATION_KEY_LOCK_CLASS}, hashtext(COALESCE(current_schema(), '') || ':' || $1::text))`;

/** Options of {@link PgHostStore.open}. */
export interface PgHostStoreOptions {
  /** The host's secret box: secrets inside stored requests are sealed with it (as in the SQLite store). */
  box?: SecretBox;
  /** Most connections of the pool (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection (ms; default 10,000), at boot and under load. */
  connectionTimeoutMs?: number;
  /** The timeouts of every session of the pool (pg-pool.ts; default DEFAULT_PG_SESSION_TIMEOUTS). */
  timeouts?: Partial<PgSessionTimeouts>;
}

/**
 * The host's store on PostgreSQL (node-postgres, pooled): the {@link HostStore} contract with the SQLite
 * store's semantics. Every write is committed (durable: PostgreSQL's `synchronous_commit`) before its
 * promise resolves. Writes to one record (a query, an execution, an outbox entry, ...) are applied in the
 * order they were called, even when the caller does not wait for the first (the engine's runtime saves):
 * each record has a lane its writes queue on. Claims are single statements (`INSERT ... ON CONFLICT DO
 * NOTHING`), so two hosts sharing the database cannot both win one. A key's notification ids increase in
 * commit order (an advisory lock per key). A write with a {@link Fence} is refused once the partition's
 * lease has moved on (pg-fence.ts). Keys are reused for a second, like the SQLite store; queries are
 * read from the database every time (another host may have changed them). The schema is migrated at
 * {@link PgHostStore.open} (pg-migrations.ts); the schema used is the connection's `search_path`.
 */
export class PgHostStore implements HostStore {
  /** Keys by hash, read at most KEY_CACHE_MS ago. */
  private readonly keyCache = new Map<string, { record: ApiKeyRecord; at: number }>();
  /** The tail of the writes queued on each record (see the class comment). */
  private readonly lanes = new Map<string, Promise<unknown>>();
  /** Group commit of the engine's writes (write-batcher.ts): per lease for the fenced ones, per key for notifications. */
  private readonly batchers = new WriteBatchers();
  private closed: Promise<void> | undefined;

  private constructor(
    /** The connection pool (the chat store and the payment ledger of the host share it). */
    readonly pool: pg.Pool,
    private readonly box: SecretBox | undefined,
  ) {}

  /**
   * Connects to `url` (postgres://user:password@host:port/database, node-postgres parameters allowed:
   * `?options=-c%20search_path%3Dschema`, `sslmode`, ...), brings the schema to the latest version under
   * an advisory lock, and returns the store. Fails (and closes the pool) when the database cannot be
   * reached or migrated.
   */
  static async open(url: string, options: PgHostStoreOptions = {}): Promise<PgHostStore> {
    const pool = openPgPool(url, options);
    try {
      await migratePg(pool);
      if (options.box) await checkSecretKey(pool, options.box);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return new PgHostStore(pool, options.box);
  }

  /** Finishes the writes under way, then closes the pool; the store cannot be used afterwards. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      while (this.lanes.size > 0) await Promise.all([...this.lanes.values()]);
      await this.pool.end();
    })();
    return this.closed;
  }

  // ------------------------------------------------------------------ plumbing

  private async rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query<Row>(sql, params)).rows;
  }

  private async row(sql: string, params: unknown[] = []): Promise<Row | undefined> {
    return (await this.rows(sql, params))[0];
  }

  private async changes(sql: string, params: unknown[] = []): Promise<number> {
    return (await this.pool.query(sql, params)).rowCount ?? 0;
  }

  /** Runs `work` after the writes queued on `lane` before it (whether they succeeded or not). */
  private inLane<T>(lane: string, work: () => Promise<T>): Promise<T> {
    const previous = this.lanes.get(lane) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.lanes.set(lane, tail);
    void tail.then(() => {
      if (this.lanes.get(lane) === tail) this.lanes.delete(lane);
    });
    return result;
  }

  /** Runs `work` in a transaction on one connection: committed when it resolves, rolled back when it throws. */
  private transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  /**
   * Runs a write on the pool when it has no fence; with one, in a transaction that checks the fence
   * last (pg-fence.ts): the write is refused (rolled back, `FencedWriteError`) when the lease moved on.
   */
  private fencedWrite<T>(fence: Fence | undefined, what: string, write: (db: pg.Pool | pg.PoolClient) => Promise<T>): Promise<T> {
    if (!fence) return write(this.pool);
    return this.transaction(async (client) => {
      const result = await write(client);
      await checkFence(client, fence, what);
      return result;
    });
  }

  private storedRequest(request: QueryRequest): string {
    return storedJson(this.box ? sealRequestSecrets(request, this.box) : request);
  }

  private readRequest(text: unknown): QueryRequest {
    const request = JSON.parse(str(text)) as QueryRequest;
    return this.box ? openRequestSecrets(request, this.box) : request;
  }

  // ------------------------------------------------------------------ keys

  async createKey(key: Omit<ApiKeyRecord, 'id'>): Promise<ApiKeyRecord> {
    const values = apiKeyValues(key);
    const row = await this.row(`INSERT INTO api_keys (${API_KEY_COLUMNS}) VALUES (${values.map((_, index) => `$${index + 1}`).join(', ')}) RETURNING id`, values);
    return { ...key, id: Number(row?.id) };
  }

  async keyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const now = Date.now();
    const cached = this.keyCache.get(keyHash);
    if (cached && now - cached.at < KEY_CACHE_MS && now >= cached.at) return { ...cached.record };
    const row = await this.row('SELECT * FROM api_keys WHERE key_hash = $1', [keyHash]);
    if (!row) {
      this.keyCache.delete(keyHash);
      return undefined;
    }
    const record = keyOf(row);
    remember(this.keyCache, keyHash, { record, at: now });
    return { ...record };
  }

  async keyById(id: number): Promise<ApiKeyRecord | undefined> {
    const row = await this.row('SELECT * FROM api_keys WHERE id = $1', [id]);
    return row ? keyOf(row) : undefined;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query('SELECT * FROM api_keys ORDER BY id');
    return rows.map((row) => keyOf(row as Record<string, unknown>));
  }

  updateKey(id: number, patch: KeyPatch): Promise<void> {
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
    return this.inLane(`key:${id}`, async () => {
      await this.pool.query(`UPDATE api_keys SET ${names.map((name, index) => `${name} = $${index + 1}`).join(', ')} WHERE id = $${names.length + 1}`, [...names.map((name) => columns[name]), id]);
      this.keyCache.clear();
    });
  }

  // ------------------------------------------------------------------ usage and credits

  async countRequest(keyId: number, day: string): Promise<{ daily: number; monthly: number }> {
    const row = await this.row(
      'INSERT INTO usage_days (key_id, day, requests) VALUES ($1, $2, 1) ON CONFLICT (key_id, day) DO UPDATE SET requests = usage_days.requests + 1 RETURNING requests',
      [keyId, day],
    );
    return { daily: Number(row?.requests ?? 0), monthly: await this.monthlyRequests(keyId, day) };
  }

  async addRequests(keyId: number, day: string, requests: number): Promise<void> {
    await this.pool.query('INSERT INTO usage_days (key_id, day, requests) VALUES ($1, $2, $3) ON CONFLICT (key_id, day) DO UPDATE SET requests = usage_days.requests + excluded.requests', [keyId, day, requests]);
  }

  async usage(keyId: number, day: string): Promise<{ daily: number; monthly: number }> {
    const row = await this.row('SELECT requests FROM usage_days WHERE key_id = $1 AND day = $2', [keyId, day]);
    return { daily: Number(row?.requests ?? 0), monthly: await this.monthlyRequests(keyId, day) };
  }

  private async monthlyRequests(keyId: number, day: string): Promise<number> {
    const month = day.slice(0, 7);
    const row = await this.row('SELECT COALESCE(SUM(requests), 0) AS total FROM usage_days WHERE key_id = $1 AND day >= $2 AND day <= $3', [keyId, `${month}-00`, `${month}-99`]);
    return Number(row?.total ?? 0);
  }

  async charge(keyId: number, credits: number, reason: string, ref: string, at: string): Promise<void> {
    await this.pool.query('INSERT INTO ledger (key_id, credits, reason, ref, created_at) VALUES ($1, $2, $3, $4, $5)', [keyId, credits, reason, ref, at]);
  }

  async creditsUsed(keyId: number, day: string): Promise<{ daily: number; monthly: number; total: number }> {
    const row = await this.row(
      `SELECT COALESCE(SUM(credits) FILTER (WHERE substr(created_at, 1, 10) = $2), 0) AS daily,
              COALESCE(SUM(credits) FILTER (WHERE substr(created_at, 1, 7) = $3), 0) AS monthly,
              COALESCE(SUM(credits), 0) AS total
       FROM ledger WHERE key_id = $1`,
      [keyId, day, day.slice(0, 7)],
    );
    return { daily: Number(row?.daily ?? 0), monthly: Number(row?.monthly ?? 0), total: Number(row?.total ?? 0) };
  }

  // ------------------------------------------------------------------ call order

  async rememberValidation(keyId: number, bodyHash: string, at: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO validations (key_id, body_hash, validated_at) VALUES ($1, $2, $3) ON CONFLICT (key_id, body_hash) DO UPDATE SET validated_at = excluded.validated_at',
      [keyId, bodyHash, at],
    );
  }

  async validatedSince(keyId: number, bodyHash: string, since: string): Promise<boolean> {
    return (await this.row('SELECT 1 AS ok FROM validations WHERE key_id = $1 AND body_hash = $2 AND validated_at >= $3', [keyId, bodyHash, since])) !== undefined;
  }

  async rememberExchangeCheck(keyId: number, at: string): Promise<void> {
    await this.pool.query('INSERT INTO exchange_checks (key_id, checked_at) VALUES ($1, $2) ON CONFLICT (key_id) DO UPDATE SET checked_at = excluded.checked_at', [keyId, at]);
  }

  async exchangesCheckedSince(keyId: number, since: string): Promise<boolean> {
    return (await this.row('SELECT 1 AS ok FROM exchange_checks WHERE key_id = $1 AND checked_at >= $2', [keyId, since])) !== undefined;
  }

  // ------------------------------------------------------------------ used signatures

  async useSignature(keyId: number, digest: string, expiresAt: number): Promise<boolean> {
    return (await this.changes('INSERT INTO used_signatures (key_id, digest, expires_at) VALUES ($1, $2, $3) ON CONFLICT (key_id, digest) DO NOTHING', [keyId, digest, expiresAt])) === 1;
  }

  pruneUsedSignatures(before: number): Promise<number> {
    return this.changes('DELETE FROM used_signatures WHERE expires_at < $1', [before]);
  }

  // ------------------------------------------------------------------ queries

  insertQuery(query: QueryRecord, idempotencyKey?: string): Promise<void> {
    return this.inLane(`query:${query.id}`, async () => {
      await this.pool.query(
        `INSERT INTO queries (id, key_id, request, status, trade_flavoured, estimated_credits, credits, created_at, expires_at, cancelled_at, deleted_at, runtime, from_draft, idempotency_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
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
        ],
      );
    });
  }

  async queryById(id: string): Promise<QueryRecord | undefined> {
    const row = await this.row('SELECT * FROM queries WHERE id = $1', [id]);
    return row ? queryOf(row, this.readRequest(row.request)) : undefined;
  }

  async queriesByIds(ids: readonly string[]): Promise<QueryRecord[]> {
    if (ids.length === 0) return [];
    return (await this.rows('SELECT * FROM queries WHERE id = ANY($1::text[])', [ids])).map((row) => queryOf(row, this.readRequest(row.request)));
  }

  async queryByIdempotencyKey(keyId: number, idempotencyKey: string): Promise<QueryRecord | undefined> {
    const row = await this.row('SELECT * FROM queries WHERE key_id = $1 AND idempotency_key = $2', [keyId, idempotencyKey]);
    return row ? queryOf(row, this.readRequest(row.request)) : undefined;
  }

  async listQueries(keyId: number, filter: { status?: QueryStatus; limit: number; cursor?: string }): Promise<Page<QueryRecord>> {
    const after = decodeCursor(filter.cursor);
    const params: unknown[] = [keyId];
    const next = (value: unknown) => `$${params.push(value)}`;
    const status = filter.status ? `AND status = ${next(filter.status)}` : '';
    const cursor = after ? `AND (created_at < ${next(after.time)} OR (created_at = $${params.length} AND id < ${next(after.id)}))` : '';
    const rows = await this.rows(`SELECT * FROM queries WHERE key_id = $1 AND deleted_at IS NULL ${status} ${cursor} ORDER BY created_at DESC, id DESC LIMIT ${next(filter.limit + 1)}`, params);
    return pageOf(
      rows.map((row) => queryOf(row, this.readRequest(row.request))),
      filter.limit,
      (query) => encodeCursor(query.createdAt, query.id),
    );
  }

  async activeQueries(): Promise<QueryRecord[]> {
    const rows = await this.rows("SELECT * FROM queries WHERE status = 'active' AND deleted_at IS NULL ORDER BY created_at, id");
    return rows.map((row) => queryOf(row, this.readRequest(row.request)));
  }

  async countActiveQueries(keyId: number): Promise<number> {
    return Number((await this.row("SELECT COUNT(*) AS n FROM queries WHERE key_id = $1 AND status = 'active' AND deleted_at IS NULL", [keyId]))?.n ?? 0);
  }

  setQueryStatus(id: string, status: QueryStatus, patch: { cancelledAt?: string } = {}): Promise<void> {
    return this.inLane(`query:${id}`, async () => {
      if (patch.cancelledAt !== undefined) await this.pool.query('UPDATE queries SET status = $1, cancelled_at = $2 WHERE id = $3', [status, patch.cancelledAt, id]);
      else await this.pool.query('UPDATE queries SET status = $1 WHERE id = $2', [status, id]);
    });
  }

  softDeleteQuery(id: string, at: string): Promise<void> {
    return this.inLane(`query:${id}`, async () => {
      await this.pool.query('UPDATE queries SET deleted_at = $1 WHERE id = $2', [at, id]);
    });
  }

  saveRuntime(id: string, state: RuntimeState, fence?: Fence, version = 0): Promise<void> {
    const runtime = storedJson(state);
    // The status column follows the engine's, except that a cancel decided by the API stays.
    const status = "status = CASE WHEN status = 'cancelled' THEN status ELSE $2 END";
    if (!fence) return this.inLane(`query:${id}`, async () => void (await this.pool.query(`UPDATE queries SET runtime = $1, ${status} WHERE id = $3`, [runtime, state.status, id])));
    // Batched with the other saves of the partition (group commit): the state's version (epoch, version)
    // only moves forward, an older save never replaces a newer state (batched-writes.ts).
    return this.inLane(`query:${id}`, () =>
      this.batchers
        .of(`runtime|${fenceName(fence)}`, () => ({ write: (items: Array<{ id: string; runtime: string; status: string; version: number }>) => this.transaction((client) => saveRuntimes(client, items, fence)) }))
        .add({ id, runtime, status: state.status, version }),
    );
  }

  // ------------------------------------------------------------------ drafts

  upsertDraft(draft: DraftRecord): Promise<void> {
    const request = this.storedRequest(draft.request);
    return this.inLane(`draft:${draft.id}`, async () => {
      await this.pool.query(
        `INSERT INTO drafts (id, key_id, request, trade_flavoured, created_at, updated_at, converted_query_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO UPDATE SET request = excluded.request, trade_flavoured = excluded.trade_flavoured, updated_at = excluded.updated_at`,
        [draft.id, draft.keyId, request, draft.tradeFlavoured ? 1 : 0, draft.createdAt, draft.updatedAt, draft.convertedQueryId],
      );
    });
  }

  async draftById(id: string): Promise<DraftRecord | undefined> {
    const row = await this.row('SELECT * FROM drafts WHERE id = $1', [id]);
    return row ? draftOf(row, this.readRequest(row.request)) : undefined;
  }

  async listDrafts(keyId: number, filter: { limit: number; cursor?: string }): Promise<Page<DraftRecord>> {
    const after = decodeCursor(filter.cursor);
    const rows = after
      ? await this.rows('SELECT * FROM drafts WHERE key_id = $1 AND (created_at < $2 OR (created_at = $2 AND id < $3)) ORDER BY created_at DESC, id DESC LIMIT $4', [keyId, after.time, after.id, filter.limit + 1])
      : await this.rows('SELECT * FROM drafts WHERE key_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2', [keyId, filter.limit + 1]);
    return pageOf(
      rows.map((row) => draftOf(row, this.readRequest(row.request))),
      filter.limit,
      (draft) => encodeCursor(draft.createdAt, draft.id),
    );
  }

  deleteDraft(id: string): Promise<void> {
    return this.inLane(`draft:${id}`, async () => {
      await this.pool.query('DELETE FROM drafts WHERE id = $1', [id]);
    });
  }

  markDraftConverted(id: string, queryId: string): Promise<void> {
    return this.inLane(`draft:${id}`, async () => {
      await this.pool.query('UPDATE drafts SET converted_query_id = $1 WHERE id = $2', [queryId, id]);
    });
  }

  // ------------------------------------------------------------------ engine records

  saveExecution(keyId: number, record: ExecutionRecord, fence?: Fence): Promise<void> {
    const params = [
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
      fence?.nodeId ?? null,
      fence?.epoch ?? null,
    ];
    if (fence) {
      return this.inLane(`execution:${record.id}`, () =>
        this.batchers.of(`execution|${fenceName(fence)}`, () => ({ write: (rows: unknown[][]) => this.transaction((client) => saveExecutions(client, rows, fence)) })).add(params),
      );
    }
    return this.inLane(`execution:${record.id}`, async () => {
      await this.pool.query(
        `INSERT INTO executions (${EXECUTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ${EXECUTION_UPSERT}`,
        params,
      );
    });
  }

  interruptRunningExecutions(at: string): Promise<number> {
    return this.changes("UPDATE executions SET status = 'failed', finished_at = $1, error_code = 'HOST_RESTARTED', error_message = $2 WHERE status = 'running'", [
      at,
      'the host stopped while this step ran; an interrupted trigger runs its unfinished steps again after the restart',
    ]);
  }

  async executionById(id: string): Promise<StoredExecution | undefined> {
    const row = await this.row('SELECT * FROM executions WHERE id = $1', [id]);
    return row ? executionOf(row) : undefined;
  }

  async listExecutions(filter: ExecutionFilter): Promise<Page<StoredExecution>> {
    const params: unknown[] = [filter.keyId];
    const next = (value: unknown) => `$${params.push(value)}`;
    const where: string[] = ['key_id = $1'];
    if (filter.queryId) where.push(`query_id = ${next(filter.queryId)}`);
    if (filter.status) where.push(`status = ${next(filter.status)}`);
    if (filter.type) where.push(`type = ${next(filter.type)}`);
    if (filter.since) where.push(`created_at >= ${next(filter.since)}`);
    if (filter.until) where.push(`created_at < ${next(filter.until)}`);
    const after = decodeCursor(filter.cursor);
    if (after) where.push(`(created_at < ${next(after.time)} OR (created_at = $${params.length} AND id < ${next(after.id)}))`);
    const rows = await this.rows(`SELECT * FROM executions WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${next(filter.limit + 1)}`, params);
    return pageOf(rows.map(executionOf), filter.limit, (execution) => encodeCursor(execution.createdAt, execution.id));
  }

  async executionsOfQuery(queryId: string): Promise<StoredExecution[]> {
    return (await this.rows('SELECT * FROM executions WHERE query_id = $1 ORDER BY created_at, seq', [queryId])).map(executionOf);
  }

  saveSession(keyId: number, session: LlmSession, fence?: Fence): Promise<void> {
    const body = storedJson(session);
    return this.inLane(`session:${session.sessionId}`, () =>
      this.fencedWrite(fence, `session ${session.sessionId}`, async (db) => {
        await db.query(
          'INSERT INTO sessions (id, key_id, query_id, body, executed_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO UPDATE SET body = excluded.body, executed_at = excluded.executed_at',
          [session.sessionId, keyId, session.queryId, body, session.executedAt],
        );
      }),
    );
  }

  async sessionsOfQuery(queryId: string): Promise<StoredSession[]> {
    return (await this.rows('SELECT * FROM sessions WHERE query_id = $1 ORDER BY executed_at, seq', [queryId])).map(sessionOf);
  }

  async sessionById(id: string): Promise<StoredSession | undefined> {
    const row = await this.row('SELECT * FROM sessions WHERE id = $1', [id]);
    return row ? sessionOf(row) : undefined;
  }

  addNotification(keyId: number, draft: NotificationDraft, fence?: Fence): Promise<StoredNotification> {
    const { stepId, triggerIndex } = draft.data;
    const body = storedJson(draft);
    const step = typeof stepId === 'string' && typeof triggerIndex === 'number' && Number.isSafeInteger(triggerIndex) ? { stepId, triggerIndex } : undefined;
    // One batcher per key in this process: a key's ids follow the order of the calls, and the
    // notifications added while the key's last batch was being written go together in the next
    // transaction (batched-notifications.ts: the key's lock, the de-duplication, the fences).
    return this.batchers
      .of(`notifications|${keyId}`, () => ({
        write: (items: NotificationItem[]) => addNotifications((work) => this.transaction(work), NOTIFICATION_KEY_LOCK_SQL, keyId, items),
      }))
      .add({ draft, body, step, fence });
  }

  // A deleted query is gone from every stream: its notifications are neither replayed nor counted.
  async notificationsAfter(keyId: number, afterId: number, queryId?: string, limit = 500): Promise<StoredNotification[]> {
    const rows = queryId
      ? await this.rows(`SELECT n.* FROM notifications n WHERE n.key_id = $1 AND n.query_id = $2 AND n.id > $3 ${NOT_DELETED} ORDER BY n.id LIMIT $4`, [keyId, queryId, afterId, limit])
      : await this.rows(`SELECT n.* FROM notifications n WHERE n.key_id = $1 AND n.id > $2 ${NOT_DELETED} ORDER BY n.id LIMIT $3`, [keyId, afterId, limit]);
    return rows.map(notificationOf);
  }

  async countNotificationsAfter(keyId: number, afterId: number, queryId?: string): Promise<number> {
    const row = queryId
      ? await this.row(`SELECT COUNT(*) AS n FROM notifications n WHERE n.key_id = $1 AND n.query_id = $2 AND n.id > $3 ${NOT_DELETED}`, [keyId, queryId, afterId])
      : await this.row(`SELECT COUNT(*) AS n FROM notifications n WHERE n.key_id = $1 AND n.id > $2 ${NOT_DELETED}`, [keyId, afterId]);
    return Number(row?.n ?? 0);
  }

  // ------------------------------------------------------------------ once across restarts

  saveOutbox(keyId: number, entry: OutboxEntry, fence?: Fence): Promise<void> {
    const params = outboxValues(keyId, entry, fence);
    if (fence) {
      return this.inLane(`outbox:${entry.key}`, () =>
        this.batchers.of(`outbox|${fenceName(fence)}`, () => ({ write: (rows: unknown[][]) => this.transaction((client) => saveOutboxes(client, rows, fence)) })).add(params),
      );
    }
    return this.inLane(`outbox:${entry.key}`, async () => {
      await this.pool.query(
        `INSERT INTO action_outbox (${OUTBOX_COLUMNS}) VALUES (${OUTBOX_PARAMS}) ${OUTBOX_UPSERT}`,
        params,
      );
    });
  }

  claimOutbox(keyId: number, entry: OutboxEntry, fence?: Fence): Promise<boolean> {
    const params = outboxValues(keyId, entry, fence);
    if (fence) {
      return this.inLane(`outbox:${entry.key}`, () =>
        this.batchers.of(`claim|${fenceName(fence)}`, () => ({ write: (rows: unknown[][]) => this.transaction((client) => claimOutboxes(client, rows, fence)) })).add(params),
      );
    }
    return this.inLane(`outbox:${entry.key}`, async () => {
      const { rowCount } = await this.pool.query(`INSERT INTO action_outbox (${OUTBOX_COLUMNS}) VALUES (${OUTBOX_PARAMS}) ON CONFLICT (idempotency_key) DO NOTHING`, params);
      return rowCount === 1;
    });
  }

  // ------------------------------------------------------------------ retention

  prune(kind: RetentionKind, before: string, limit: number): Promise<number> {
    // Rows another host's job is deleting at once are skipped (SKIP LOCKED), never counted or folded twice.
    switch (kind) {
      case 'notifications':
        return this.changes('DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)', [before, limit]);
      case 'executions':
        return this.transaction(async (client) => {
          const executions =
            (await client.query('DELETE FROM executions WHERE id IN (SELECT id FROM executions WHERE finished_at IS NOT NULL AND finished_at < $1 ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED)', [before, limit])).rowCount ?? 0;
          const sessions = (await client.query('DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE executed_at < $1 ORDER BY executed_at LIMIT $2 FOR UPDATE SKIP LOCKED)', [before, limit - executions])).rowCount ?? 0;
          return executions + sessions;
        });
      case 'outbox':
        return this.changes(
          "DELETE FROM action_outbox WHERE idempotency_key IN (SELECT idempotency_key FROM action_outbox WHERE status <> 'pending' AND finished_at < $1 ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED)",
          [before, limit],
        );
      case 'validations':
        return this.transaction(async (client) => {
          const validations =
            (await client.query('DELETE FROM validations WHERE ctid IN (SELECT ctid FROM validations WHERE validated_at < $1 ORDER BY validated_at LIMIT $2 FOR UPDATE SKIP LOCKED)', [before, limit])).rowCount ?? 0;
          const checks = (await client.query('DELETE FROM exchange_checks WHERE key_id IN (SELECT key_id FROM exchange_checks WHERE checked_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)', [before, limit - validations])).rowCount ?? 0;
          return validations + checks;
        });
      case 'ledger':
        return this.transaction(async (client) => {
          // Deleted first and folded from what the delete returned: a line is folded by the transaction that deleted it, once.
          const folded = await client.query<{ key_id: string; credits: string; latest: string; lines: string }>(
            `WITH gone AS (
               DELETE FROM ledger WHERE id IN (
                 SELECT id FROM ledger WHERE reason <> '${CARRIED_FORWARD}' AND created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
               RETURNING key_id, credits, created_at)
             SELECT key_id, sum(credits) AS credits, max(created_at) AS latest, count(*) AS lines FROM gone GROUP BY key_id`,
            [before, limit],
          );
          let lines = 0;
          for (const row of folded.rows) {
            lines += Number(row.lines);
            await client.query(
              `INSERT INTO ledger (key_id, credits, reason, ref, created_at) VALUES ($1, $2, '${CARRIED_FORWARD}', 'older lines', $3)
               ON CONFLICT (key_id) WHERE reason = '${CARRIED_FORWARD}' DO UPDATE SET credits = ledger.credits + excluded.credits, created_at = GREATEST(ledger.created_at, excluded.created_at)`,
              [row.key_id, row.credits, row.latest],
            );
          }
          const days = (await client.query('DELETE FROM usage_days WHERE ctid IN (SELECT ctid FROM usage_days WHERE day < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)', [before.slice(0, 10), limit - lines])).rowCount ?? 0;
          return lines + days;
        });
      case 'chat':
        return this.transaction(async (client) => {
          const { rows } = await client.query<{ id: string }>('SELECT id FROM chat_sessions WHERE updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED', [before, limit]);
          if (rows.length === 0) return 0;
          const ids = rows.map((row) => row.id);
          await client.query('DELETE FROM chat_messages WHERE session_id = ANY($1)', [ids]);
          return (await client.query('DELETE FROM chat_sessions WHERE id = ANY($1)', [ids])).rowCount ?? 0;
        });
      case 'deletedQueries':
        return this.transaction(async (client) => {
          const { rows } = await client.query<{ id: string }>('SELECT id FROM queries WHERE deleted_at IS NOT NULL AND deleted_at < $1 ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED', [before, limit]);
          if (rows.length === 0) return 0;
          const ids = rows.map((row) => row.id);
          for (const table of ['executions', 'sessions', 'notifications', 'action_outbox']) await client.query(`DELETE FROM ${table} WHERE query_id = ANY($1)`, [ids]);
          return (await client.query('DELETE FROM queries WHERE id = ANY($1)', [ids])).rowCount ?? 0;
        });
    }
  }

  async outboxEntry(key: string): Promise<OutboxEntry | undefined> {
    const row = await this.row('SELECT * FROM action_outbox WHERE idempotency_key = $1', [key]);
    return row ? outboxEntryOf(row) : undefined;
  }

  async outboxPending(): Promise<{ count: number; oldestAt?: string }> {
    const row = (await this.row("SELECT count(*) AS count, min(created_at) AS oldest FROM action_outbox WHERE status = 'pending'", [])) as { count: string | number; oldest: string | Date | null };
    if (row.oldest === null) return { count: Number(row.count) };
    return { count: Number(row.count), oldestAt: row.oldest instanceof Date ? row.oldest.toISOString() : new Date(row.oldest).toISOString() };
  }

  savePaperOrders(records: readonly PaperOrderRecord[]): Promise<void> {
    const updatedAt = new Date().toISOString();
    // One lane for the venue's saves (they apply in the order it made them) and one transaction a call
    // (an order is never stored without the exits it got).
    return this.inLane('paper-orders', () =>
      this.transaction(async (client) => {
        for (const record of records) {
          await client.query(
            `INSERT INTO paper_orders (client_order_id, seq, body, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (client_order_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
            [record.request.clientOrderId, record.seq, storedJson(record), updatedAt],
          );
        }
      }),
    );
  }

  async paperOrders(): Promise<PaperOrderRecord[]> {
    return (await this.rows('SELECT body FROM paper_orders ORDER BY seq')).map((row) => JSON.parse(str(row.body)) as PaperOrderRecord);
  }

  // ------------------------------------------------------------------ exchanges

  upsertExchange(record: ExchangeRecord): Promise<void> {
    return this.inLane(`exchange:${record.keyId}:${record.exchange}`, async () => {
      await this.pool.query(
        `INSERT INTO exchanges (key_id, exchange, credential_type, credentials_sealed, connected_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key_id, exchange) DO UPDATE SET credential_type = excluded.credential_type, credentials_sealed = excluded.credentials_sealed, connected_at = excluded.connected_at`,
        [record.keyId, record.exchange, record.credentialType, record.credentialsSealed, record.connectedAt],
      );
    });
  }

  async exchangesOf(keyId: number): Promise<ExchangeRecord[]> {
    return (await this.rows('SELECT * FROM exchanges WHERE key_id = $1 ORDER BY exchange', [keyId])).map(exchangeOf);
  }

  async exchangeOf(keyId: number, exchange: string): Promise<ExchangeRecord | undefined> {
    const row = await this.row('SELECT * FROM exchanges WHERE key_id = $1 AND exchange = $2', [keyId, exchange]);
    return row ? exchangeOf(row) : undefined;
  }

  deleteExchange(keyId: number, exchange: string): Promise<boolean> {
    return this.inLane(`exchange:${keyId}:${exchange}`, async () => (await this.changes('DELETE FROM exchanges WHERE key_id = $1 AND exchange = $2', [keyId, exchange])) > 0);
  }
}

/**
 * Refuses a box that does not open the secrets of the database; stores the check value on the first open
 * (secret-key-check.ts). Of hosts starting at once with different keys, the first insert wins and the
 * others judge their key against it.
 */
async function checkSecretKey(pool: pg.Pool, box: SecretBox): Promise<void> {
  const check = async () => (await pool.query<{ sealed: string }>('SELECT sealed FROM secret_key_check WHERE id = 1')).rows[0]?.sealed;
  const stored = await check();
  const sample = stored === undefined ? (await pool.query<{ sealed: string }>('SELECT hmac_secret_sealed AS sealed FROM api_keys ORDER BY id LIMIT 1')).rows[0]?.sealed : undefined;
  const write = judgeSecretKey(box, { check: stored, sample });
  if (write === undefined) return;
  await pool.query('INSERT INTO secret_key_check (id, sealed, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING', [write, new Date().toISOString()]);
  judgeSecretKey(box, { check: await check(), sample: undefined });
}

/** The name of a lease in a batcher's name: the writes of one lease go together, fenced once. */
function fenceName(fence: Fence): string {
  return `${fence.partition}:${fence.epoch}:${fence.nodeId}`;
}

const OUTBOX_PARAMS = OUTBOX_COLUMNS.split(', ')
  .map((_, index) => `$${index + 1}`)
  .join(', ');

/** The values of an outbox entry's row, in the order of {@link OUTBOX_COLUMNS}. */
function outboxValues(keyId: number, entry: OutboxEntry, fence: Fence | undefined): unknown[] {
  const outcome: Record<string, unknown> = {};
  if (entry.result !== undefined) outcome.result = entry.result;
  if (entry.analysis !== undefined) outcome.analysis = entry.analysis;
  if (entry.error !== undefined) outcome.error = entry.error;
  return [
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
    fence?.nodeId ?? null,
    fence?.epoch ?? null,
  ];
}
