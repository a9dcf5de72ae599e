import type { ExecutionRecord, LlmSession, Notification, NotificationDraft, OutboxEntry, RuntimeState, StateStore } from './interfaces.js';

/** Options of {@link MemoryStateStore}. */
export interface MemoryStateStoreOptions {
  /** How many notifications the store keeps, the latest (default 10,000; `Infinity` keeps all). */
  maxNotifications?: number;
}

/** What the store keeps of one query, by key, so that `forgetQuery` and `executionsOf` need no scan. */
interface QueryRecords {
  executions: string[];
  outbox: string[];
  sessions: string[];
}

const DEFAULT_MAX_NOTIFICATIONS = 10_000;

/**
 * The default state store: everything in memory, synchronous. Good for previews, tests and embedders
 * that persist elsewhere; the HTTP host uses its durable store instead.
 *
 * Bounded: it forgets a query's records when the engine removes the query (`forgetQuery`), and keeps the
 * latest `maxNotifications` notifications. A process that runs queries for ever, adding and removing
 * them, holds what its live queries need, not everything they ever did.
 */
export class MemoryStateStore implements StateStore {
  readonly runtime = new Map<string, RuntimeState>();
  readonly executions = new Map<string, ExecutionRecord>();
  readonly sessions = new Map<string, LlmSession>();
  /** The latest notifications, oldest first. */
  readonly notifications: Notification[] = [];
  /** The outbox, by idempotency key. */
  readonly outbox = new Map<string, OutboxEntry>();
  private readonly maxNotifications: number;
  private nextNotificationId = 1;
  /** Notifications by the step that made them (`queryId`, `triggerIndex`, `stepId`): a repeat returns the first. */
  private readonly notificationsByStep = new Map<string, Notification>();
  private readonly byQuery = new Map<string, QueryRecords>();

  constructor(options: MemoryStateStoreOptions = {}) {
    const max = options.maxNotifications ?? DEFAULT_MAX_NOTIFICATIONS;
    if (!(max >= 0)) throw new RangeError(`maxNotifications must be a number >= 0, not ${String(options.maxNotifications)}`);
    this.maxNotifications = max;
  }

  // The engine hands over fresh objects and never changes them afterwards, so they are kept as given.
  saveRuntime(queryId: string, state: RuntimeState): void {
    this.runtime.set(queryId, state);
  }

  saveExecution(record: ExecutionRecord): void {
    if (!this.executions.has(record.id)) this.recordsOf(record.queryId).executions.push(record.id);
    this.executions.set(record.id, record);
  }

  saveSession(session: LlmSession): void {
    if (!this.sessions.has(session.sessionId)) this.recordsOf(session.queryId).sessions.push(session.sessionId);
    this.sessions.set(session.sessionId, session);
  }

  addNotification(draft: NotificationDraft): Notification {
    const step = stepKey(draft);
    const earlier = step === undefined ? undefined : this.notificationsByStep.get(step);
    if (earlier) return earlier;
    const notification: Notification = { ...draft, id: this.nextNotificationId++ };
    this.notifications.push(notification);
    if (step !== undefined) this.notificationsByStep.set(step, notification);
    while (this.notifications.length > this.maxNotifications) this.dropOldestNotification();
    return notification;
  }

  saveOutbox(entry: OutboxEntry): void {
    if (!this.outbox.has(entry.key)) this.recordsOf(entry.queryId).outbox.push(entry.key);
    this.outbox.set(entry.key, entry);
  }

  outboxEntry(key: string): OutboxEntry | undefined {
    return this.outbox.get(key);
  }

  /** Drops a removed query's runtime state, executions, outbox entries and sessions (its notifications stay in the feed). */
  forgetQuery(queryId: string): void {
    this.runtime.delete(queryId);
    const records = this.byQuery.get(queryId);
    if (!records) return;
    this.byQuery.delete(queryId);
    for (const id of records.executions) this.executions.delete(id);
    for (const key of records.outbox) this.outbox.delete(key);
    for (const id of records.sessions) this.sessions.delete(id);
  }

  /** Executions of one query, oldest first. */
  executionsOf(queryId: string): ExecutionRecord[] {
    const records = this.byQuery.get(queryId);
    if (!records) return [];
    const executions: ExecutionRecord[] = [];
    for (const id of records.executions) {
      const record = this.executions.get(id);
      if (record) executions.push(record);
    }
    return executions;
  }

  private recordsOf(queryId: string): QueryRecords {
    let records = this.byQuery.get(queryId);
    if (!records) {
      records = { executions: [], outbox: [], sessions: [] };
      this.byQuery.set(queryId, records);
    }
    return records;
  }

  private dropOldestNotification(): void {
    // shift() on a large array moves its start, not its elements (V8 trims the backing store in place).
    const oldest = this.notifications.shift();
    if (oldest === undefined) return;
    const step = stepKey(oldest);
    if (step !== undefined && this.notificationsByStep.get(step) === oldest) this.notificationsByStep.delete(step);
  }
}

/** The step a notification belongs to, as one key; undefined for a notification no step made. */
function stepKey(draft: NotificationDraft): string | undefined {
  const { queryId, triggerIndex, stepId } = draft.data;
  return typeof triggerIndex === 'number' && typeof stepId === 'string' ? `${String(queryId)}\u0000${triggerIndex}\u0000${stepId}` : undefined;
}
