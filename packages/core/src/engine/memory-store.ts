import type { ExecutionRecord, LlmSession, Notification, NotificationDraft, OutboxEntry, RuntimeState, StateStore } from './interfaces.js';

/**
 * The default state store: everything in memory, synchronous. Good for previews, tests and embedders
 * that persist elsewhere; the HTTP host uses its durable store instead.
 */
export class MemoryStateStore implements StateStore {
  readonly runtime = new Map<string, RuntimeState>();
  readonly executions = new Map<string, ExecutionRecord>();
  readonly sessions = new Map<string, LlmSession>();
  readonly notifications: Notification[] = [];
  /** The outbox, by idempotency key. */
  readonly outbox = new Map<string, OutboxEntry>();
  private nextNotificationId = 1;
  /** Notifications by the step that made them (`queryId`, `triggerIndex`, `stepId`): a repeat returns the first. */
  private readonly notificationsByStep = new Map<string, Notification>();

  // The engine hands over fresh objects and never changes them afterwards, so they are kept as given.
  saveRuntime(queryId: string, state: RuntimeState): void {
    this.runtime.set(queryId, state);
  }

  saveExecution(record: ExecutionRecord): void {
    this.executions.set(record.id, record);
  }

  saveSession(session: LlmSession): void {
    this.sessions.set(session.sessionId, session);
  }

  addNotification(draft: NotificationDraft): Notification {
    const { queryId, triggerIndex, stepId } = draft.data;
    const step = typeof triggerIndex === 'number' && typeof stepId === 'string' ? `${String(queryId)}\u0000${triggerIndex}\u0000${stepId}` : undefined;
    const earlier = step === undefined ? undefined : this.notificationsByStep.get(step);
    if (earlier) return earlier;
    const notification: Notification = { ...draft, id: this.nextNotificationId++ };
    this.notifications.push(notification);
    if (step !== undefined) this.notificationsByStep.set(step, notification);
    return notification;
  }

  saveOutbox(entry: OutboxEntry): void {
    this.outbox.set(entry.key, entry);
  }

  outboxEntry(key: string): OutboxEntry | undefined {
    return this.outbox.get(key);
  }

  /** Executions of one query, oldest first. */
  executionsOf(queryId: string): ExecutionRecord[] {
    return [...this.executions.values()].filter((record) => record.queryId === queryId);
  }
}
