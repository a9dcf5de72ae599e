import type { LlmSession, NotificationDraft, OutboxEntry, QueryRequest, RuntimeState } from '@eql/core';
import type { ApiKeyRecord, DraftRecord, ExchangeRecord, KeyScope, Page, QueryRecord, QueryStatus, StoredExecution, StoredNotification, StoredSession } from './records.js';

/**
 * Rows as the database drivers return them, read into the host's records: shared by the SQLite store
 * (sqlite-store.ts) and the PostgreSQL store (pg/pg-store.ts), which keep the same columns. Also the
 * page cursors, the small caches both keep, and the SQL both use to hide deleted queries' notifications.
 */

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

export const str = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' ? String(value) : JSON.stringify(value));
export const strOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : str(value));

/** A cursor names the last row of a page: its sort time and id. */
export function encodeCursor(time: string, id: string | number): string {
  return Buffer.from(`${time}|${id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): { time: string; id: string } | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  if (bar < 0) throw new RangeError('invalid cursor');
  return { time: text.slice(0, bar), id: text.slice(bar + 1) };
}

/** Keeps the notifications (`n`) of queries that are not deleted. */
export const NOT_DELETED = 'AND NOT EXISTS (SELECT 1 FROM queries q WHERE q.id = n.query_id AND q.deleted_at IS NOT NULL)';

/** How long a key read from the database is reused (a change made by another process shows after this). */
export const KEY_CACHE_MS = 1_000;
/** Entries kept in a cache of the store (the oldest go first). */
const CACHE_LIMIT = 10_000;

export function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
}

export function pageOf<T>(rows: T[], limit: number, cursorOf: (last: T) => string): Page<T> {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, nextCursor: cursorOf(items[items.length - 1] as T) };
}

export function keyOf(row: Row): ApiKeyRecord {
  return {
    id: Number(row.id),
    keyHash: str(row.key_hash),
    keyPrefix: str(row.key_prefix),
    name: str(row.name),
    email: strOrNull(row.email),
    project: strOrNull(row.project),
    plan: str(row.plan),
    status: row.status === 'disabled' ? 'disabled' : 'active',
    autoEnabled: Number(row.auto_enabled) === 1,
    hmacSecretSealed: str(row.hmac_secret_sealed),
    createdAt: str(row.created_at),
    updatedAt: str(row.updated_at),
    expiresAt: strOrNull(row.expires_at),
    scopes: str(row.scopes ?? '').split(' ').filter((scope): scope is KeyScope => scope === 'ingest'),
    webhookSecretSealed: strOrNull(row.webhook_secret_sealed),
    previousWebhookSecretSealed: strOrNull(row.previous_webhook_secret_sealed),
    previousWebhookSecretUntil: strOrNull(row.previous_webhook_secret_until),
  };
}

export function queryOf(row: Row, request: QueryRequest): QueryRecord {
  return {
    id: str(row.id),
    keyId: Number(row.key_id),
    request,
    status: str(row.status) as QueryStatus,
    tradeFlavoured: Number(row.trade_flavoured) === 1,
    estimatedCredits: Number(row.estimated_credits),
    credits: Number(row.credits),
    createdAt: str(row.created_at),
    expiresAt: str(row.expires_at),
    cancelledAt: strOrNull(row.cancelled_at),
    deletedAt: strOrNull(row.deleted_at),
    runtime: row.runtime === null || row.runtime === undefined ? null : (JSON.parse(str(row.runtime)) as RuntimeState),
    fromDraft: strOrNull(row.from_draft),
  };
}

export function draftOf(row: Row, request: QueryRequest): DraftRecord {
  return {
    id: str(row.id),
    keyId: Number(row.key_id),
    request,
    tradeFlavoured: Number(row.trade_flavoured) === 1,
    createdAt: str(row.created_at),
    updatedAt: str(row.updated_at),
    convertedQueryId: strOrNull(row.converted_query_id),
  };
}

export function executionOf(row: Row): StoredExecution {
  const execution: StoredExecution = {
    id: str(row.id),
    keyId: Number(row.key_id),
    queryId: str(row.query_id),
    stepId: str(row.step_id),
    type: str(row.type),
    status: str(row.status) as StoredExecution['status'],
    triggerIndex: Number(row.trigger_index),
    createdAt: str(row.created_at),
    attempts: Number(row.attempts),
  };
  if (row.finished_at !== null && row.finished_at !== undefined) execution.finishedAt = str(row.finished_at);
  if (row.result !== null && row.result !== undefined) execution.result = JSON.parse(str(row.result)) as Record<string, unknown>;
  if (row.error_code !== null && row.error_code !== undefined) execution.error = { code: str(row.error_code), message: str(row.error_message ?? '') };
  return execution;
}

export function outboxEntryOf(row: Row): OutboxEntry {
  const entry: OutboxEntry = {
    key: str(row.idempotency_key),
    queryId: str(row.query_id),
    triggerIndex: Number(row.trigger_index),
    stepId: str(row.step_id),
    type: str(row.type),
    executionId: str(row.execution_id),
    status: row.status === 'succeeded' || row.status === 'failed' ? row.status : 'pending',
    createdAt: str(row.created_at),
  };
  if (row.finished_at !== null && row.finished_at !== undefined) entry.finishedAt = str(row.finished_at);
  if (row.outcome !== null && row.outcome !== undefined) {
    const outcome = JSON.parse(str(row.outcome)) as Pick<OutboxEntry, 'result' | 'analysis' | 'error'>;
    if (outcome.result !== undefined) entry.result = outcome.result;
    if (outcome.analysis !== undefined) entry.analysis = outcome.analysis;
    if (outcome.error !== undefined) entry.error = outcome.error;
  }
  return entry;
}

export function sessionOf(row: Row): StoredSession {
  return { ...(JSON.parse(str(row.body)) as LlmSession), keyId: Number(row.key_id) };
}

export function notificationOf(row: Row): StoredNotification {
  return { ...(JSON.parse(str(row.body)) as NotificationDraft), id: Number(row.id), keyId: Number(row.key_id) };
}

export function exchangeOf(row: Row): ExchangeRecord {
  return {
    keyId: Number(row.key_id),
    exchange: str(row.exchange),
    credentialType: str(row.credential_type),
    credentialsSealed: strOrNull(row.credentials_sealed),
    connectedAt: str(row.connected_at),
  };
}
