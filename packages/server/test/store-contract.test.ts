import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionRecord, NotificationDraft, QueryRequest, RuntimeState } from '@eql/core';
import { SecretBox } from '../src/secrets.js';
import type { ChatStore } from '../src/store/chat-store.js';
import { PgChatStore } from '../src/store/pg/pg-chat-store.js';
import { migratePg, PG_MIGRATIONS } from '../src/store/pg/pg-migrations.js';
import { PgPaymentLedger } from '../src/store/pg/pg-payment-ledger.js';
import { PgHostStore } from '../src/store/pg/pg-store.js';
import type { ApiKeyRecord, QueryRecord } from '../src/store/records.js';
import { SqliteChatStore } from '../src/store/sqlite-chat-store.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { type PaymentLedger, SqlitePaymentLedger } from '@eql/x402';
import { type HostStore, StaleNotificationError } from '../src/store/store.js';
import { adminQuery, describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';
import { SECRET_KEY_HEX } from './support/host.js';
import pg from 'pg';

// One contract, two stores (issue 14, point 1): every case below runs against the embedded SQLite store
// and the PostgreSQL store, each test on a store of its own (an in-memory database, or a fresh schema).
// The PostgreSQL cases report themselves skipped by name when no server answers (failed under CI=true).

const box = SecretBox.fromKey(SECRET_KEY_HEX);
const BOT_TOKEN = '987654321:CANARYcontractTokenAAAAbbbbCCCC00';

interface Opened {
  store: HostStore;
  chats: ChatStore;
  /** The x402 payment ledger the host builds on this store. */
  ledger: PaymentLedger;
  /** The stored request text of a query, as at rest. */
  rawRequest(id: string): Promise<string>;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  open(): Promise<Opened>;
}

const sqlite: Backend = {
  name: 'SQLite',
  open: () => {
    const store = new SqliteStore(':memory:', { box });
    return Promise.resolve({
      store,
      chats: new SqliteChatStore(store.db),
      ledger: new SqlitePaymentLedger(store.db),
      rawRequest: (id) => Promise.resolve((store.db.prepare('SELECT request FROM queries WHERE id = ?').get(id) as { request: string }).request),
      close: () => Promise.resolve(store.close()),
    });
  },
};

const postgres: Backend = {
  name: 'PostgreSQL',
  open: async () => {
    const schema = await freshSchema('contract');
    const store = await PgHostStore.open(schema.url, { box });
    return {
      store,
      chats: new PgChatStore(store.pool),
      ledger: new PgPaymentLedger(store.pool),
      rawRequest: async (id) => String((await store.pool.query<{ request: string }>('SELECT request FROM queries WHERE id = $1', [id])).rows[0]?.request),
      close: async () => {
        await store.close();
        await schema.drop();
      },
    };
  },
};

// ---------------------------------------------------------------- records

const request = (title: string): QueryRequest =>
  ({
    title,
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] },
      actions: [{ stepId: 'b', type: 'messenger_bot', params: { botToken: BOT_TOKEN, chatId: '@eql', message: 'hi' } }],
      expiresIn: '24h',
    },
  }) as unknown as QueryRequest;

function keyRecord(hash: string, overrides: Partial<Omit<ApiKeyRecord, 'id'>> = {}): Omit<ApiKeyRecord, 'id'> {
  return {
    keyHash: hash,
    keyPrefix: 'eql_abc',
    name: 'contract',
    email: 'a@example.com',
    project: null,
    plan: 'pro',
    status: 'active',
    autoEnabled: true,
    hmacSecretSealed: box.seal('hmac'),
    createdAt: '2026-01-05T00:00:00.000Z',
    updatedAt: '2026-01-05T00:00:00.000Z',
    expiresAt: null,
    scopes: [],
    webhookSecretSealed: box.seal('whsec'),
    previousWebhookSecretSealed: null,
    previousWebhookSecretUntil: null,
    ...overrides,
  };
}

function queryRecord(id: string, keyId: number, createdAt: string, overrides: Partial<QueryRecord> = {}): QueryRecord {
  return {
    id,
    keyId,
    request: request(id),
    status: 'active',
    tradeFlavoured: false,
    estimatedCredits: 3,
    credits: 3,
    createdAt,
    expiresAt: '2026-02-05T00:00:00.000Z',
    cancelledAt: null,
    deletedAt: null,
    runtime: null,
    fromDraft: null,
    ...overrides,
  };
}

const runtime = (status: RuntimeState['status'], triggerCount: number): RuntimeState => ({ status, triggerCount, latched: {}, verdicts: {}, cronPulses: {} });

const execution = (id: string, queryId: string, createdAt: string, overrides: Partial<ExecutionRecord> = {}): ExecutionRecord => ({
  id,
  queryId,
  stepId: 'notify-1',
  type: 'notify',
  status: 'running',
  triggerIndex: 1,
  createdAt,
  attempts: 1,
  ...overrides,
});

const notification = (queryId: string, data: Record<string, unknown> = {}): NotificationDraft => ({
  type: 'athena_query_notify_only',
  category: 'alerts',
  title: 'BTC moved',
  body: 'BTC is above 1',
  data: { queryId, ...data },
  priority: 'high',
  createdAt: '2026-01-05T00:00:00.000Z',
});

const at = (minute: number, second = 0) => new Date(Date.UTC(2026, 0, 5, 0, minute, second)).toISOString();

// ---------------------------------------------------------------- the contract

function contract(backend: Backend): void {
  let opened: Opened;
  let store: HostStore;
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
  });
  afterEach(async () => {
    await opened.close();
  });

  it('keys: create, find by hash and id, update (a change shows at once)', async () => {
    const first = await store.createKey(keyRecord('hash-1'));
    const second = await store.createKey(keyRecord('hash-2', { plan: 'free', scopes: ['ingest'] }));
    expect(second.id).toBeGreaterThan(first.id);
    expect(await store.keyByHash('hash-1')).toEqual(first);
    expect(await store.keyById(second.id)).toEqual(second);
    expect(await store.keyByHash('nope')).toBeUndefined();
    expect(await store.keyById(999_999)).toBeUndefined();
    await store.updateKey(first.id, { plan: 'free', status: 'disabled', autoEnabled: false, scopes: ['ingest'], previousWebhookSecretSealed: 'old', previousWebhookSecretUntil: at(5), updatedAt: at(1) });
    expect(await store.keyByHash('hash-1')).toEqual({ ...first, plan: 'free', status: 'disabled', autoEnabled: false, scopes: ['ingest'], previousWebhookSecretSealed: 'old', previousWebhookSecretUntil: at(5), updatedAt: at(1) });
    await expect(Promise.resolve().then(() => store.createKey(keyRecord('hash-1')))).rejects.toThrow();
    expect((await store.listKeys()).map((key) => key.id)).toEqual([first.id, second.id]);
    // A rotation: the key keeps its id, its old value no longer finds it.
    await store.updateKey(second.id, { keyHash: 'hash-2b', keyPrefix: 'eql_new…' });
    expect(await store.keyByHash('hash-2')).toBeUndefined();
    expect(await store.keyByHash('hash-2b')).toMatchObject({ id: second.id, keyPrefix: 'eql_new…' });
  });

  it('usage and credits: requests by day and month, the credit ledger', async () => {
    expect(await store.countRequest(1, '2026-01-05')).toEqual({ daily: 1, monthly: 1 });
    expect(await store.countRequest(1, '2026-01-05')).toEqual({ daily: 2, monthly: 2 });
    await store.addRequests(1, '2026-01-06', 5);
    await store.addRequests(1, '2026-02-01', 7);
    await store.addRequests(2, '2026-01-05', 100);
    expect(await store.usage(1, '2026-01-06')).toEqual({ daily: 5, monthly: 7 });
    expect(await store.usage(1, '2026-02-01')).toEqual({ daily: 7, monthly: 7 });
    expect(await store.usage(1, '2026-03-01')).toEqual({ daily: 0, monthly: 0 });
    await Promise.all(Array.from({ length: 20 }, () => Promise.resolve(store.countRequest(3, '2026-01-05'))));
    expect(await store.usage(3, '2026-01-05')).toEqual({ daily: 20, monthly: 20 });

    expect(await store.creditsUsed(1, '2026-01-05')).toEqual({ daily: 0, monthly: 0, total: 0 });
    await store.charge(1, 3, 'create', 'q1', '2026-01-05T10:00:00.000Z');
    await store.charge(1, 2, 'chat', 's1', '2026-01-06T10:00:00.000Z');
    await store.charge(1, 10, 'create', 'q2', '2026-02-01T10:00:00.000Z');
    await store.charge(2, 50, 'create', 'q3', '2026-01-05T10:00:00.000Z');
    expect(await store.creditsUsed(1, '2026-01-05')).toEqual({ daily: 3, monthly: 5, total: 15 });
  });

  it('call order: validations and exchange checks since a time', async () => {
    expect(await store.validatedSince(1, 'body', at(0))).toBe(false);
    await store.rememberValidation(1, 'body', at(5));
    expect(await store.validatedSince(1, 'body', at(5))).toBe(true);
    expect(await store.validatedSince(1, 'body', at(6))).toBe(false);
    expect(await store.validatedSince(2, 'body', at(0))).toBe(false);
    await store.rememberValidation(1, 'body', at(10));
    expect(await store.validatedSince(1, 'body', at(6))).toBe(true);

    expect(await store.exchangesCheckedSince(1, at(0))).toBe(false);
    await store.rememberExchangeCheck(1, at(5));
    await store.rememberExchangeCheck(1, at(7));
    expect(await store.exchangesCheckedSince(1, at(6))).toBe(true);
    expect(await store.exchangesCheckedSince(1, at(8))).toBe(false);
  });

  it('used signatures: accepted once, atomically; pruned when expired', async () => {
    expect(await store.useSignature(1, 'sig', 1_000)).toBe(true);
    expect(await store.useSignature(1, 'sig', 1_000)).toBe(false);
    expect(await store.useSignature(2, 'sig', 1_000)).toBe(true);
    const racing = await Promise.all(Array.from({ length: 10 }, () => Promise.resolve(store.useSignature(3, 'raced', 5_000))));
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect(await store.pruneUsedSignatures(1_001)).toBe(2);
    expect(await store.useSignature(1, 'sig', 1_000)).toBe(true);
    expect(await store.pruneUsedSignatures(0)).toBe(0);
  });

  it('queries: insert, read (secrets sealed at rest), idempotency keys, status, soft delete, runtime', async () => {
    const query = queryRecord('q-1', 1, at(1));
    await store.insertQuery(query, 'idem-1');
    expect(await store.queryById('q-1')).toEqual(query);
    expect(await opened.rawRequest('q-1')).not.toContain(BOT_TOKEN);
    expect(await store.queryByIdempotencyKey(1, 'idem-1')).toEqual(query);
    expect(await store.queryByIdempotencyKey(2, 'idem-1')).toBeUndefined();
    expect(await store.queryById('none')).toBeUndefined();
    // A second query with the same key's Idempotency-Key is refused.
    await expect(Promise.resolve().then(() => store.insertQuery(queryRecord('q-2', 1, at(2)), 'idem-1'))).rejects.toThrow();
    await store.insertQuery(queryRecord('q-2', 1, at(2)), 'idem-2');

    await store.saveRuntime('q-1', runtime('triggered', 1));
    expect(await store.queryById('q-1')).toMatchObject({ status: 'triggered', runtime: runtime('triggered', 1) });
    await store.setQueryStatus('q-2', 'cancelled', { cancelledAt: at(3) });
    await store.saveRuntime('q-2', runtime('active', 0));
    // A cancel decided by the API stays whatever the engine saves.
    expect(await store.queryById('q-2')).toMatchObject({ status: 'cancelled', cancelledAt: at(3), runtime: runtime('active', 0) });
    await store.setQueryStatus('q-2', 'expired');
    expect(await store.queryById('q-2')).toMatchObject({ status: 'expired', cancelledAt: at(3) });
    await store.softDeleteQuery('q-2', at(4));
    expect((await store.queryById('q-2'))?.deletedAt).toBe(at(4));
    // Many at once: those that exist, deleted ones included, each as queryById reads it.
    const many = await store.queriesByIds(['q-2', 'none', 'q-1']);
    expect([...many].sort((a, b) => a.id.localeCompare(b.id))).toEqual([await store.queryById('q-1'), await store.queryById('q-2')]);
    expect(await store.queriesByIds([])).toEqual([]);
  });

  it('queries: lists newest first by pages, active ones oldest first, counts', async () => {
    for (let index = 0; index < 5; index += 1) await store.insertQuery(queryRecord(`q-${index}`, 1, at(index)));
    await store.insertQuery(queryRecord('q-same-a', 1, at(9)));
    await store.insertQuery(queryRecord('q-same-b', 1, at(9)));
    await store.insertQuery(queryRecord('other', 2, at(3)));
    await store.setQueryStatus('q-1', 'triggered');
    await store.softDeleteQuery('q-3', at(10));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listQueries(1, { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['q-same-b', 'q-same-a', 'q-4', 'q-2', 'q-1', 'q-0']);
    expect((await store.listQueries(1, { limit: 10, status: 'triggered' })).items.map((item) => item.id)).toEqual(['q-1']);
    const active = await store.activeQueries();
    expect(active.map((item) => item.id).sort()).toEqual(['other', 'q-0', 'q-2', 'q-4', 'q-same-a', 'q-same-b']);
    expect(active.map((item) => item.createdAt)).toEqual(active.map((item) => item.createdAt).sort());
    expect(await store.countActiveQueries(1)).toBe(5);
    expect(await store.countActiveQueries(3)).toBe(0);
    await expect(Promise.resolve().then(() => store.listQueries(1, { limit: 2, cursor: 'bm8tYmFy' }))).rejects.toThrow(RangeError);
  });

  it('queries: writes to one query apply in the order they were called, even when not awaited', async () => {
    await store.insertQuery(queryRecord('q-order', 1, at(1)));
    const writes: Array<Promise<void>> = [];
    for (let count = 1; count <= 30; count += 1) writes.push(Promise.resolve(store.saveRuntime('q-order', runtime('active', count))));
    writes.push(Promise.resolve(store.setQueryStatus('q-order', 'failed')));
    await Promise.all(writes);
    expect(await store.queryById('q-order')).toMatchObject({ status: 'failed', runtime: { triggerCount: 30 } });
  });

  it('drafts: upsert, read, list by pages, convert, delete', async () => {
    const draft = { id: 'd-1', keyId: 1, request: request('draft'), tradeFlavoured: false, createdAt: at(1), updatedAt: at(1), convertedQueryId: null };
    await store.upsertDraft(draft);
    await store.upsertDraft({ ...draft, id: 'd-2', createdAt: at(2), updatedAt: at(2) });
    await store.upsertDraft({ ...draft, id: 'd-3', createdAt: at(3), updatedAt: at(3) });
    await store.upsertDraft({ ...draft, request: request('changed'), tradeFlavoured: true, updatedAt: at(4), createdAt: at(9) });
    expect(await store.draftById('d-1')).toEqual({ ...draft, request: request('changed'), tradeFlavoured: true, updatedAt: at(4) });
    const first = await store.listDrafts(1, { limit: 2 });
    expect(first.items.map((item) => item.id)).toEqual(['d-3', 'd-2']);
    const second = await store.listDrafts(1, { limit: 2, ...(first.nextCursor ? { cursor: first.nextCursor } : {}) });
    expect(second.items.map((item) => item.id)).toEqual(['d-1']);
    expect(second.nextCursor).toBeUndefined();
    await store.markDraftConverted('d-2', 'q-9');
    expect((await store.draftById('d-2'))?.convertedQueryId).toBe('q-9');
    await store.deleteDraft('d-3');
    expect(await store.draftById('d-3')).toBeUndefined();
    expect((await store.listDrafts(2, { limit: 5 })).items).toEqual([]);
  });

  it('executions: save and update, filters and pages, a query’s in order, interrupted at boot', async () => {
    await store.saveExecution(1, execution('e-1', 'q-1', at(1)));
    await store.saveExecution(1, execution('e-3', 'q-1', at(2), { type: 'webhook' }));
    await store.saveExecution(1, execution('e-2', 'q-1', at(2)));
    await store.saveExecution(1, execution('e-4', 'q-2', at(3), { status: 'succeeded', finishedAt: at(3, 1), result: { delivered: true } }));
    await store.saveExecution(2, execution('e-5', 'q-3', at(4)));
    await store.saveExecution(1, execution('e-1', 'q-1', at(1), { status: 'failed', attempts: 3, finishedAt: at(1, 5), error: { code: 'TIMEOUT', message: 'slow' } }));
    expect(await store.executionById('e-1')).toEqual({ ...execution('e-1', 'q-1', at(1)), keyId: 1, status: 'failed', attempts: 3, finishedAt: at(1, 5), error: { code: 'TIMEOUT', message: 'slow' } });
    expect(await store.executionById('e-4')).toMatchObject({ result: { delivered: true }, finishedAt: at(3, 1) });
    expect(await store.executionById('none')).toBeUndefined();
    // Oldest first; among equal times, in the order they were first saved.
    expect((await store.executionsOfQuery('q-1')).map((item) => item.id)).toEqual(['e-1', 'e-3', 'e-2']);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listExecutions({ keyId: 1, limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['e-4', 'e-3', 'e-2', 'e-1']);
    const ids = async (filter: Partial<Parameters<HostStore['listExecutions']>[0]>) => (await store.listExecutions({ keyId: 1, limit: 10, ...filter })).items.map((item) => item.id);
    expect(await ids({ queryId: 'q-2' })).toEqual(['e-4']);
    expect(await ids({ status: 'running' })).toEqual(['e-3', 'e-2']);
    expect(await ids({ type: 'webhook' })).toEqual(['e-3']);
    expect(await ids({ since: at(2), until: at(3) })).toEqual(['e-3', 'e-2']);
    expect(await store.interruptRunningExecutions(at(10))).toBe(3);
    expect(await store.executionById('e-5')).toMatchObject({ status: 'failed', finishedAt: at(10), error: { code: 'HOST_RESTARTED' } });
    expect(await store.executionById('e-4')).toMatchObject({ status: 'succeeded' });
    expect(await store.interruptRunningExecutions(at(11))).toBe(0);
  });

  it('executions: a query’s list read again after each kind of write shows the write', async () => {
    const statuses = async (queryId: string) => (await store.executionsOfQuery(queryId)).map((item) => `${item.id}:${item.status}`);
    await store.saveExecution(1, execution('e-1', 'q-1', at(1)));
    expect(await statuses('q-1')).toEqual(['e-1:running']);
    expect(await statuses('q-2')).toEqual([]);
    await store.saveExecution(1, execution('e-2', 'q-1', at(2)));
    await store.saveExecution(1, execution('e-3', 'q-2', at(2)));
    expect(await statuses('q-1')).toEqual(['e-1:running', 'e-2:running']);
    expect(await statuses('q-2')).toEqual(['e-3:running']);
    await store.saveExecution(1, execution('e-1', 'q-1', at(1), { status: 'succeeded', finishedAt: at(1, 1) }));
    expect(await statuses('q-1')).toEqual(['e-1:succeeded', 'e-2:running']);
    await store.interruptRunningExecutions(at(5));
    expect(await statuses('q-1')).toEqual(['e-1:succeeded', 'e-2:failed']);
    expect(await statuses('q-2')).toEqual(['e-3:failed']);
  });

  it('sessions: save, replace, by query and by id', async () => {
    const session = { sessionId: 's-1', queryId: 'q-1', title: 'why', analysisType: 'general', status: 'completed', createdAt: at(1), executedAt: at(1), messages: [] };
    await store.saveSession(1, session);
    await store.saveSession(1, { ...session, sessionId: 's-2', executedAt: at(2) });
    await store.saveSession(1, { ...session, status: 'failed' });
    expect(await store.sessionById('s-1')).toEqual({ ...session, status: 'failed', keyId: 1 });
    expect((await store.sessionsOfQuery('q-1')).map((item) => item.sessionId)).toEqual(['s-1', 's-2']);
    expect(await store.sessionById('none')).toBeUndefined();
  });

  it('notifications: increasing ids, once per trigger and step, after an id, none of a deleted query', async () => {
    await store.insertQuery(queryRecord('q-1', 1, at(1)));
    await store.insertQuery(queryRecord('q-2', 1, at(2)));
    const first = await store.addNotification(1, notification('q-1', { stepId: 'notify-1', triggerIndex: 1 }));
    expect(first).toMatchObject({ keyId: 1, title: 'BTC moved', data: { queryId: 'q-1' } });
    const again = await store.addNotification(1, notification('q-1', { stepId: 'notify-1', triggerIndex: 1 }));
    expect(again).toEqual(first);
    const many = await Promise.all(Array.from({ length: 20 }, (_, index) => Promise.resolve(store.addNotification(1, notification(index % 2 === 0 ? 'q-1' : 'q-2', { stepId: 'notify-1', triggerIndex: index + 2 })))));
    const ids = many.map((item) => item.id);
    expect(ids.every((id, index) => id > (index === 0 ? first.id : (ids[index - 1] as number)))).toBe(true);
    await store.addNotification(2, notification('q-9'));
    expect((await store.notificationsAfter(1, 0)).map((item) => item.id)).toEqual([first.id, ...ids]);
    expect(await store.notificationsAfter(1, first.id, undefined, 3)).toEqual(many.slice(0, 3));
    expect((await store.notificationsAfter(1, 0, 'q-2')).length).toBe(10);
    expect(await store.countNotificationsAfter(1, 0)).toBe(21);
    expect(await store.countNotificationsAfter(1, first.id, 'q-1')).toBe(10);
    await store.softDeleteQuery('q-2', at(5));
    expect((await store.notificationsAfter(1, 0)).every((item) => item.data.queryId === 'q-1')).toBe(true);
    expect(await store.countNotificationsAfter(1, 0)).toBe(11);
    expect(await store.countNotificationsAfter(1, 0, 'q-2')).toBe(0);
    expect(await store.notificationsAfter(3, 0)).toEqual([]);
  });

  it('notifications: a de-duplicated step is matched on its observation too (a reused trigger index is not answered with the old alert)', async () => {
    await store.insertQuery(queryRecord('q-1', 1, at(1)));
    const first = await store.addNotification(1, notification('q-1', { stepId: 'notify-1', triggerIndex: 3, observedAt: at(1) }));
    expect(await store.addNotification(1, notification('q-1', { stepId: 'notify-1', triggerIndex: 3, observedAt: at(1) }))).toEqual(first);
    // The same trigger index for a crossing at another instant: stale state reused it.
    const stale = Promise.resolve().then(() => store.addNotification(1, notification('q-1', { stepId: 'notify-1', triggerIndex: 3, observedAt: at(2) })));
    await expect(stale).rejects.toBeInstanceOf(StaleNotificationError);
    await expect(stale).rejects.toMatchObject({ code: 'STALE_STATE' });
    expect(await store.notificationsAfter(1, 0)).toEqual([first]);
    // One stored without an observation (before notifications carried one) cannot be told apart: answered as before.
    const older = await store.addNotification(1, notification('q-1', { stepId: 'notify-1', triggerIndex: 4 }));
    expect(await store.addNotification(1, notification('q-1', { stepId: 'notify-1', triggerIndex: 4, observedAt: at(3) }))).toEqual(older);
  });

  it('outbox claims: a fresh step’s entry is written once; a second claim of its key loses and changes nothing', async () => {
    const entry = { key: 'q-1:1:w', queryId: 'q-1', triggerIndex: 1, stepId: 'w', type: 'webhook', executionId: 'e-1', status: 'pending' as const, createdAt: at(1) };
    expect(await store.claimOutbox(1, entry)).toBe(true);
    expect(await store.claimOutbox(1, { ...entry, executionId: 'e-2', createdAt: at(2) })).toBe(false);
    expect(await store.outboxEntry('q-1:1:w')).toEqual(entry);
    const done = { ...entry, status: 'succeeded' as const, finishedAt: at(3), result: { status: 200 } };
    await store.saveOutbox(1, done);
    expect(await store.claimOutbox(1, entry)).toBe(false);
    expect(await store.outboxEntry('q-1:1:w')).toEqual(done);
  });

  it('outbox and paper orders: replaced by key, in placing order', async () => {
    const entry = { key: 'q-1:1:m', queryId: 'q-1', triggerIndex: 1, stepId: 'm', type: 'market_order', executionId: 'e-1', status: 'pending' as const, createdAt: at(1) };
    expect(await store.outboxPending()).toEqual({ count: 0 });
    await store.saveOutbox(1, entry);
    expect(await store.outboxEntry('q-1:1:m')).toEqual(entry);
    await store.saveOutbox(1, { ...entry, key: 'q-2:1:m', queryId: 'q-2', createdAt: at(3) });
    expect(await store.outboxPending()).toEqual({ count: 2, oldestAt: at(1) });
    const done = { ...entry, status: 'succeeded' as const, finishedAt: at(2), result: { orderId: 'paper-1' } };
    await store.saveOutbox(1, done);
    expect(await store.outboxEntry('q-1:1:m')).toEqual(done);
    expect(await store.outboxPending()).toEqual({ count: 1, oldestAt: at(3) });
    expect(await store.outboxEntry('none')).toBeUndefined();

    const order = (clientOrderId: string, seq: number, status: 'open' | 'filled') => ({
      request: { clientOrderId, symbol: 'BTC', side: 'buy' as const, type: 'limit' as const, amount: 0.01, price: 50_000 },
      result: { orderId: `paper-${seq}`, clientOrderId, status, filled: status === 'filled' ? 0.01 : 0 },
      seq,
    });
    await store.savePaperOrders([order('c-2', 2, 'open')]);
    await store.savePaperOrders([order('c-1', 1, 'open')]);
    await store.savePaperOrders([order('c-2', 2, 'filled')]);
    // An exit the venue attached, with its trailing state: it comes back as it was saved.
    const exit = {
      request: { clientOrderId: 'c-2:trailing_stop', symbol: 'BTC', side: 'sell' as const, type: 'market' as const, amount: 0.01, reduceOnly: true },
      result: { orderId: 'paper-3', clientOrderId: 'c-2:trailing_stop', status: 'open' as const, filled: 0 },
      seq: 3,
      exit: { kind: 'trailing_stop' as const, parent: 'c-2', trigger: 51_450, percent: 2, best: 52_500 },
    };
    await store.savePaperOrders([exit]);
    expect(await store.paperOrders()).toEqual([order('c-1', 1, 'open'), order('c-2', 2, 'filled'), exit]);
    // Saved together, all or none: a batch whose second record cannot be stored leaves the first as it was.
    const unstorable = { ...order('c-4', 4, 'open'), request: { ...order('c-4', 4, 'open').request, amount: 1n as unknown as number } };
    await expect(Promise.resolve().then(() => store.savePaperOrders([order('c-1', 1, 'filled'), unstorable]))).rejects.toThrow();
    expect(await store.paperOrders()).toEqual([order('c-1', 1, 'open'), order('c-2', 2, 'filled'), exit]);
  });

  it('exchanges: upsert replaces, listed by id, deleted once', async () => {
    const record = { keyId: 1, exchange: 'okx', credentialType: 'api_key', credentialsSealed: box.seal('{}'), connectedAt: at(1) };
    await store.upsertExchange(record);
    await store.upsertExchange({ ...record, exchange: 'binance' });
    await store.upsertExchange({ ...record, connectedAt: at(2) });
    expect((await store.exchangesOf(1)).map((item) => item.exchange)).toEqual(['binance', 'okx']);
    expect(await store.exchangeOf(1, 'okx')).toEqual({ ...record, connectedAt: at(2) });
    expect(await store.exchangeOf(2, 'okx')).toBeUndefined();
    expect(await store.deleteExchange(1, 'okx')).toBe(true);
    expect(await store.deleteExchange(1, 'okx')).toBe(false);
    expect(await store.exchangesOf(1)).toHaveLength(1);
  });

  it('text from outside (error messages, model replies, facilitator answers): a U+0000 is kept as U+FFFD, in text and at any depth of JSON, names included', async () => {
    // PostgreSQL's text refuses a NUL; SQLite keeps it. The contract: both keep U+FFFD in its place,
    // so what one store reads back the other does too, and no write fails on it.
    const nul = (text: string) => `${text}\u0000!`;
    const kept = (text: string) => `${text}\uFFFD!`;
    // A backslash followed by "u0000" is text, not a NUL: kept as it is, in JSON as in a column.
    const literal = 'C:\\u0000 \\\\u0000';

    await store.insertQuery(queryRecord('q-1', 1, at(1)));
    const failed = execution('e-1', 'q-1', at(1), {
      status: 'failed',
      finishedAt: at(2),
      error: { code: nul('EXCHANGE_ERROR'), message: nul(`okx: ${literal}`) },
      result: { [nul('refused')]: [nul('value'), { deep: nul('deeper'), literal }] },
    });
    await store.saveExecution(1, failed);
    const readBack = {
      ...failed,
      keyId: 1,
      error: { code: kept('EXCHANGE_ERROR'), message: kept(`okx: ${literal}`) },
      result: { [kept('refused')]: [kept('value'), { deep: kept('deeper'), literal }] },
    };
    expect(await store.executionById('e-1')).toEqual(readBack);
    expect(await store.executionsOfQuery('q-1')).toEqual([readBack]);

    const message = { query: 'why', response: nul('because'), status: 'completed', analysisType: 'general', timestamp: at(1), trades: [] };
    const session = { sessionId: 's-1', queryId: 'q-1', title: null, analysisType: 'general', status: 'completed', createdAt: at(1), executedAt: at(1), messages: [message] };
    await store.saveSession(1, session);
    expect(await store.sessionById('s-1')).toEqual({ ...session, keyId: 1, messages: [{ ...message, response: kept('because') }] });

    // What addNotification answers is what the stream sends live: the same as a replay reads.
    const added = await store.addNotification(1, { ...notification('q-1', { stepId: 'n', triggerIndex: 1 }), title: nul('title'), body: nul('analysis') });
    expect(added).toMatchObject({ title: kept('title'), body: kept('analysis') });
    expect(await store.notificationsAfter(1, 0)).toEqual([added]);

    const entry = { key: 'q-1:1:m', queryId: 'q-1', triggerIndex: 1, stepId: 'm', type: 'llm', executionId: 'e-1', status: 'failed' as const, createdAt: at(1), finishedAt: at(2) };
    await store.saveOutbox(1, { ...entry, analysis: { response: nul('analysis'), trades: [] }, error: { code: 'EXCHANGE_ERROR', message: nul('okx') } });
    expect(await store.outboxEntry('q-1:1:m')).toEqual({ ...entry, analysis: { response: kept('analysis'), trades: [] }, error: { code: 'EXCHANGE_ERROR', message: kept('okx') } });

    const draft = { id: 'd-1', keyId: 1, request: request(nul('built')), tradeFlavoured: false, createdAt: at(1), updatedAt: at(1), convertedQueryId: null };
    await store.upsertDraft(draft);
    expect((await store.draftById('d-1'))?.request).toEqual(request(kept('built')));

    const chats = opened.chats;
    await chats.createSession({ id: 'c-1', keyId: 1, kind: 'builder', analysisType: nul('general'), state: { [nul('query')]: nul('draft') }, createdAt: at(1), updatedAt: at(1) });
    expect(await chats.session('c-1')).toMatchObject({ analysisType: kept('general'), state: { [kept('query')]: kept('draft') } });
    await chats.appendTurn('c-1', [{ role: 'assistant', content: nul(literal), credits: 1, createdAt: at(2) }], { query: nul('next') }, at(2));
    expect(await chats.session('c-1')).toMatchObject({ state: { query: kept('next') } });
    expect((await chats.messages('c-1', 5)).map((item) => item.content)).toEqual([kept(literal)]);

    const claim = { network: 'eip155:84532', payer: '0xabc', nonce: '0xdef', validBefore: 2_000n, route: 'POST /x402/v2/chat', amount: '10000', createdAt: at(1) };
    expect(await opened.ledger.claim(claim)).toBe(true);
    await opened.ledger.markSettled(claim, nul('0xhash'));
    expect((await opened.ledger.lookup(claim))?.settlement).toBe(kept('0xhash'));
  });

  // ---------------------------------------------------------------- retention (store/retention.ts)

  /** Prunes a kind in batches of `limit` until one comes back short, as the retention job does; returns the total. */
  const pruneAll = async (kind: Parameters<HostStore['prune']>[0], before: string, limit: number): Promise<number> => {
    let total = 0;
    for (;;) {
      const count = await store.prune(kind, before, limit);
      expect(count).toBeLessThanOrEqual(limit);
      total += count;
      if (count < limit) return total;
    }
  };

  it('retention: notifications, finished executions and LLM sessions, settled outbox entries older than the cutoff go, in batches', async () => {
    await store.insertQuery(queryRecord('q-1', 1, at(0)));
    for (let minute = 1; minute <= 7; minute += 1) await store.addNotification(1, { ...notification('q-1', { stepId: 'n', triggerIndex: minute }), createdAt: at(minute) });
    await store.saveExecution(1, execution('e-old', 'q-1', at(1), { status: 'succeeded', finishedAt: at(2) }));
    await store.saveExecution(1, execution('e-old-2', 'q-1', at(1), { status: 'failed', finishedAt: at(3), error: { code: 'WEBHOOK_FAILED', message: 'no' } }));
    await store.saveExecution(1, execution('e-running', 'q-1', at(1)));
    await store.saveExecution(1, execution('e-new', 'q-1', at(8), { status: 'succeeded', finishedAt: at(9) }));
    const session = { sessionId: 's-old', queryId: 'q-1', title: 'why', analysisType: 'general', status: 'completed', createdAt: at(1), executedAt: at(1), messages: [] };
    await store.saveSession(1, session);
    await store.saveSession(1, { ...session, sessionId: 's-new', executedAt: at(9) });
    const entry = (key: string, status: 'pending' | 'succeeded', finishedAt?: string) => ({
      key, queryId: 'q-1', triggerIndex: 1, stepId: key, type: 'webhook', executionId: 'e-old', status, createdAt: at(1), ...(finishedAt ? { finishedAt, result: { status: 200 } } : {}),
    });
    await store.saveOutbox(1, entry('settled-old', 'succeeded', at(2)));
    await store.saveOutbox(1, entry('pending-old', 'pending'));
    await store.saveOutbox(1, entry('settled-new', 'succeeded', at(9)));
    const before = at(5);

    expect(await pruneAll('notifications', before, 2)).toBe(4);
    expect((await store.notificationsAfter(1, 0)).map((item) => item.createdAt)).toEqual([at(5), at(6), at(7)]);
    expect(await pruneAll('executions', before, 1)).toBe(3);
    expect((await store.executionsOfQuery('q-1')).map((item) => item.id).sort()).toEqual(['e-new', 'e-running']);
    expect(await store.executionById('e-old')).toBeUndefined();
    expect(await store.sessionById('s-old')).toBeUndefined();
    expect((await store.sessionsOfQuery('q-1')).map((item) => item.sessionId)).toEqual(['s-new']);
    expect(await pruneAll('outbox', before, 10)).toBe(1);
    expect(await store.outboxEntry('settled-old')).toBeUndefined();
    expect(await store.outboxEntry('pending-old')).toMatchObject({ status: 'pending' });
    expect(await store.outboxEntry('settled-new')).toMatchObject({ status: 'succeeded' });
    // Nothing older is left: a second run deletes nothing.
    for (const kind of ['notifications', 'executions', 'outbox'] as const) expect(await store.prune(kind, before, 10)).toBe(0);
  });

  it('retention: validations and exchange listings older than the cutoff go', async () => {
    await store.rememberValidation(1, 'old', at(1));
    await store.rememberValidation(1, 'new', at(9));
    await store.rememberExchangeCheck(1, at(1));
    await store.rememberExchangeCheck(2, at(9));
    expect(await pruneAll('validations', at(5), 1)).toBe(2);
    expect(await store.validatedSince(1, 'old', at(0))).toBe(false);
    expect(await store.validatedSince(1, 'new', at(0))).toBe(true);
    expect(await store.exchangesCheckedSince(1, at(0))).toBe(false);
    expect(await store.exchangesCheckedSince(2, at(0))).toBe(true);
  });

  it('retention: old ledger lines fold into one line per key, totals and this month unchanged; old daily counts go', async () => {
    const day = (month: number, date: number, hour = 10) => new Date(Date.UTC(2026, month - 1, date, hour)).toISOString();
    for (let date = 1; date <= 5; date += 1) await store.charge(1, date, 'create', `q${date}`, day(1, date));
    await store.charge(2, 50, 'chat', 's1', day(1, 2));
    await store.charge(1, 100, 'create', 'q-now', day(4, 20));
    await store.addRequests(1, '2026-01-03', 4);
    await store.addRequests(1, '2026-04-20', 6);
    const now = '2026-04-20';
    const beforeFold = await store.creditsUsed(1, now);
    expect(beforeFold).toEqual({ daily: 100, monthly: 100, total: 115 });
    // Two runs with a growing cutoff, in batches of 2: still one carried line per key.
    await pruneAll('ledger', day(1, 3, 0), 2);
    await pruneAll('ledger', day(2, 1), 2);
    expect(await store.creditsUsed(1, now)).toEqual(beforeFold);
    expect(await store.creditsUsed(2, now)).toEqual({ daily: 0, monthly: 0, total: 50 });
    expect(await store.usage(1, now)).toEqual({ daily: 6, monthly: 6 });
    expect(await store.usage(1, '2026-01-03')).toEqual({ daily: 0, monthly: 0 });
    // The folded lines are gone; nothing older is left to fold.
    expect(await store.prune('ledger', day(2, 1), 10)).toBe(0);
    await store.charge(1, 7, 'create', 'q-late', day(2, 5));
    expect(await pruneAll('ledger', day(3, 1), 10)).toBe(1);
    expect((await store.creditsUsed(1, now)).total).toBe(122);
  });

  it('retention: chat sessions unused since the cutoff go with their messages', async () => {
    const chats = opened.chats;
    await chats.createSession({ id: 'c-old', keyId: 1, kind: 'chat', analysisType: null, state: undefined, createdAt: at(1), updatedAt: at(1) });
    await chats.appendTurn('c-old', [{ role: 'user', content: 'old', credits: 0, createdAt: at(2) }], undefined, at(2));
    await chats.createSession({ id: 'c-new', keyId: 1, kind: 'chat', analysisType: null, state: undefined, createdAt: at(1), updatedAt: at(1) });
    await chats.appendTurn('c-new', [{ role: 'user', content: 'new', credits: 0, createdAt: at(8) }], undefined, at(8));
    expect(await pruneAll('chat', at(5), 1)).toBe(1);
    expect(await chats.session('c-old')).toBeUndefined();
    expect(await chats.messages('c-old', 10)).toEqual([]);
    expect((await chats.messages('c-new', 10)).map((message) => message.content)).toEqual(['new']);
  });

  it('retention: a query deleted before the cutoff goes with its executions, sessions, notifications and outbox; others stay', async () => {
    for (const id of ['q-gone', 'q-recent', 'q-kept']) {
      await store.insertQuery(queryRecord(id, 1, at(0)));
      await store.saveExecution(1, execution(`e-${id}`, id, at(1), { status: 'succeeded', finishedAt: at(1) }));
      await store.saveSession(1, { sessionId: `s-${id}`, queryId: id, title: 'why', analysisType: 'general', status: 'completed', createdAt: at(1), executedAt: at(1), messages: [] });
      await store.addNotification(1, notification(id, { stepId: 'n', triggerIndex: 1 }));
      await store.saveOutbox(1, { key: `${id}:1:w`, queryId: id, triggerIndex: 1, stepId: 'w', type: 'webhook', executionId: `e-${id}`, status: 'pending', createdAt: at(1) });
    }
    await store.softDeleteQuery('q-gone', at(2));
    await store.softDeleteQuery('q-recent', at(8));
    expect(await pruneAll('deletedQueries', at(5), 1)).toBe(1);
    expect(await store.queryById('q-gone')).toBeUndefined();
    expect(await store.executionsOfQuery('q-gone')).toEqual([]);
    expect(await store.sessionById('s-q-gone')).toBeUndefined();
    expect(await store.outboxEntry('q-gone:1:w')).toBeUndefined();
    expect(await store.countNotificationsAfter(1, 0, 'q-gone')).toBe(0);
    for (const id of ['q-recent', 'q-kept']) {
      expect(await store.queryById(id)).toMatchObject({ id });
      expect((await store.executionsOfQuery(id)).length).toBe(1);
      expect(await store.outboxEntry(`${id}:1:w`)).toMatchObject({ status: 'pending' });
    }
    expect(await store.countNotificationsAfter(1, 0, 'q-kept')).toBe(1);
  });

  it('chat sessions: a turn with its state, the last messages oldest first', async () => {
    const chats = opened.chats;
    await chats.createSession({ id: 'c-1', keyId: 1, kind: 'builder', analysisType: null, state: { step: 1 }, createdAt: at(1), updatedAt: at(1) });
    await chats.appendTurn(
      'c-1',
      [
        { role: 'user', content: 'q1', credits: 0, createdAt: at(2) },
        { role: 'assistant', content: 'a1', credits: 2, createdAt: at(2) },
      ],
      { step: 2 },
      at(2),
    );
    await chats.appendTurn('c-1', [{ role: 'user', content: 'q2', credits: 0, createdAt: at(3) }], undefined, at(3));
    expect(await chats.session('c-1')).toEqual({ id: 'c-1', keyId: 1, kind: 'builder', analysisType: null, state: undefined, createdAt: at(1), updatedAt: at(3) });
    expect((await chats.messages('c-1', 2)).map((message) => [message.role, message.content, message.credits])).toEqual([
      ['assistant', 'a1', 2],
      ['user', 'q2', 0],
    ]);
    expect(await chats.session('none')).toBeUndefined();
  });
}

describe('HostStore contract: SQLite', () => contract(sqlite));

await describeWithPostgres('HostStore contract: PostgreSQL', () => {
  contract(postgres);

  describe('PostgreSQL only', () => {
    const schemas: TestSchema[] = [];
    afterAll(async () => {
      for (const schema of schemas) await schema.drop();
    });

    it('migrates once when several hosts boot at once (advisory lock), and records every version', async () => {
      const schema = await freshSchema('migrate');
      schemas.push(schema);
      const stores = await Promise.all(Array.from({ length: 4 }, () => PgHostStore.open(schema.url, { box })));
      try {
        const rows = await adminQuery<{ version: number }>(`SELECT version FROM ${schema.name}.schema_migrations ORDER BY version`);
        expect(rows.map((row) => row.version)).toEqual(PG_MIGRATIONS.map((migration) => migration.version));
        // Opening again applies nothing.
        const pool = new pg.Pool({ connectionString: schema.url, max: 1 });
        try {
          expect(await migratePg(pool)).toEqual([]);
        } finally {
          await pool.end();
        }
      } finally {
        for (const store of stores) await store.close();
      }
    });

    it('a later migration is applied in order, in one transaction: a failing one leaves nothing behind', async () => {
      const schema = await freshSchema('migrate_fail');
      schemas.push(schema);
      const pool = new pg.Pool({ connectionString: schema.url, max: 2 });
      try {
        await migratePg(pool);
        const next = Math.max(...PG_MIGRATIONS.map((migration) => migration.version)) + 1;
        await expect(migratePg(pool, [...PG_MIGRATIONS, { version: next, name: 'broken', sql: 'CREATE TABLE half_done (id INTEGER); SELECT no_such_function();' }])).rejects.toThrow();
        expect(await adminQuery(`SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'half_done'`, [schema.name])).toEqual([]);
        expect(await migratePg(pool, [...PG_MIGRATIONS, { version: next, name: 'fine', sql: 'CREATE TABLE later_table (id INTEGER)' }])).toEqual([next]);
      } finally {
        await pool.end();
      }
    });

    it('the x402 payment ledger: a nonce is claimed once, released unless settled, pruned when expired', async () => {
      const schema = await freshSchema('ledger');
      schemas.push(schema);
      const store = await PgHostStore.open(schema.url, { box });
      try {
        const ledger = new PgPaymentLedger(store.pool);
        const claim = { network: 'eip155:84532', payer: '0xABC', nonce: '0xDEF', validBefore: 2_000n, route: 'POST /x402/v2/chat', amount: '10000', createdAt: at(1) };
        const claims = await Promise.all(Array.from({ length: 5 }, () => ledger.claim(claim)));
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(await ledger.lookup({ ...claim, payer: '0xabc' })).toEqual({ ...claim, payer: '0xabc', nonce: '0xdef', settlement: null });
        await ledger.release(claim);
        expect(await ledger.claim(claim)).toBe(true);
        await ledger.markSettled(claim, '0xhash');
        await ledger.release(claim);
        expect((await ledger.lookup(claim))?.settlement).toBe('0xhash');
        expect(await ledger.claim({ ...claim, nonce: '0x1', validBefore: 2n ** 70n })).toBe(true);
        expect(await ledger.prune(3_000)).toBe(1);
        expect(await ledger.lookup(claim)).toBeUndefined();
      } finally {
        await store.close();
      }
    });
  });
});
