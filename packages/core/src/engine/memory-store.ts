import type { ExecutionRecord, LlmSession, Notification, NotificationDraft, OutboxEntry, RuntimeState, StateStore } from './interfaces.js';
import { NeverEmptyMap } from './never-empty-map.js';
import { findKept, isStepData, type KeptNotifications, withKept, withoutOldest } from './notification-steps.js';

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
  /** The kept notifications its steps made. */
  notified: KeptNotifications;
}

type RecordKind = 'executions' | 'outbox' | 'sessions';

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
  // Records come and go with their queries: maps that never empty (a Map emptied by a delete costs V8 a new table).
  readonly runtime = new NeverEmptyMap<RuntimeState>();
  readonly executions = new NeverEmptyMap<ExecutionRecord>();
  readonly sessions = new NeverEmptyMap<LlmSession>();
  /**
   * The kept notifications, oldest first, from `feedStart` on (the slots before it are dropped ones, cleared),
   * and at the same index the records of the query whose step made each (undefined for one no step made):
   * two lists, not an entry object a notification, which would outlive its young collection.
   */
  private readonly feed: Array<Notification | undefined> = [];
  private readonly feedSteps: Array<QueryRecords | undefined> = [];
  private feedStart = 0;
  /** The outbox, by idempotency key. */
  readonly outbox = new NeverEmptyMap<OutboxEntry>();
  private readonly maxNotifications: number;
  private nextNotificationId = 1;
  private readonly byQuery = new NeverEmptyMap<QueryRecords>();

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
    this.keep(this.executions, 'executions', record.queryId, record.id, record);
  }

  saveSession(session: LlmSession): void {
    this.keep(this.sessions, 'sessions', session.queryId, session.sessionId, session);
  }

  /**
   * Keeps a notification; a step's second draft gets the first while it is kept and the store keeps its
   * query's records (until `forgetQuery`: a query that takes the id of a removed one notifies anew).
   */
  addNotification(draft: NotificationDraft): Notification {
    const step = isStepData(draft.data) ? draft.data : undefined;
    const records = step === undefined ? undefined : this.recordsOf(step.queryId);
    if (step !== undefined && records !== undefined) {
      const earlier = findKept(records.notified, step);
      if (earlier) return earlier;
    }
    // Written out, not `{ ...draft, id }`: a spread object with a property added costs V8 about 500 bytes more.
    const notification: Notification = {
      type: draft.type,
      category: draft.category,
      title: draft.title,
      body: draft.body,
      data: draft.data,
      priority: draft.priority,
      createdAt: draft.createdAt,
      id: this.nextNotificationId++,
    };
    if (draft.ownerId !== undefined) notification.ownerId = draft.ownerId;
    this.feed.push(notification);
    this.feedSteps.push(records);
    if (step !== undefined && records !== undefined) records.notified = withKept(records.notified, step, notification);
    while (this.feed.length - this.feedStart > this.maxNotifications) this.dropOldestNotification();
    return notification;
  }

  /** The latest notifications (at most `maxNotifications`), oldest first: a copy. */
  get notifications(): Notification[] {
    const kept: Notification[] = [];
    for (let index = this.feedStart; index < this.feed.length; index += 1) kept.push(this.feed[index] as Notification);
    return kept;
  }

  saveOutbox(entry: OutboxEntry): void {
    this.keep(this.outbox, 'outbox', entry.queryId, entry.key, entry);
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
    // Indexed loops: `for...of` over the shared frozen empty list (a query with no sessions) builds an iterator.
    deleteAll(this.executions, records.executions);
    deleteAll(this.outbox, records.outbox);
    deleteAll(this.sessions, records.sessions);
    // Its kept notifications may hold on to the records: they keep nothing else.
    records.executions = NO_KEYS;
    records.outbox = NO_KEYS;
    records.sessions = NO_KEYS;
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

  /**
   * Stores a record by key, and files the key under its query when the record is new: the map's size tells,
   * one lookup instead of `has` and `set` (a fire saves two executions and two outbox entries).
   */
  private keep<V>(map: NeverEmptyMap<V>, kind: RecordKind, queryId: string, key: string, record: V): void {
    const size = map.size;
    if (map.set(key, record).size !== size) this.addKey(queryId, kind, key);
  }

  /** Files a new record's key under its query. */
  private addKey(queryId: string, kind: RecordKind, key: string): void {
    const records = this.recordsOf(queryId);
    records[kind] = withKey(records[kind], key);
  }

  private recordsOf(queryId: string): QueryRecords {
    let records = this.byQuery.get(queryId);
    if (!records) {
      records = { executions: NO_KEYS, outbox: NO_KEYS, sessions: NO_KEYS, notified: undefined };
      this.byQuery.set(queryId, records);
    }
    return records;
  }

  /**
   * Drops the oldest notification in O(1) (amortized): its slot is cleared and the start moves on; the
   * cleared slots are cut off in one splice once they are the larger part of the array. (A `shift()` per
   * drop moves every element of an array that V8 cannot trim in place, as it cannot in old space.)
   */
  private dropOldestNotification(): void {
    const start = this.feedStart;
    if (this.feed[start] === undefined) return;
    // The feed's oldest is the oldest its query's steps made (both keep the order they came in).
    const records = this.feedSteps[start];
    if (records !== undefined) records.notified = withoutOldest(records.notified);
    this.feed[start] = undefined;
    this.feedSteps[start] = undefined;
    this.feedStart = start + 1;
    if (this.feedStart >= 1024 && this.feedStart * 2 >= this.feed.length) {
      this.feed.splice(0, this.feedStart);
      this.feedSteps.splice(0, this.feedStart);
      this.feedStart = 0;
    }
  }
}

/** The list of a kind of record a query has none of yet: shared (and frozen), until its first key. */
const NO_KEYS = Object.freeze([]) as unknown as string[];

/**
 * `keys` with `key` added. A first key gets a list of its own, of exactly one: a list that a `push` starts
 * keeps room for 16, and a query that fires once has one execution and one outbox entry.
 */
function withKey(keys: string[], key: string): string[] {
  if (keys === NO_KEYS) return [key];
  keys.push(key);
  return keys;
}

function deleteAll(map: NeverEmptyMap<unknown>, keys: readonly string[]): void {
  for (let index = 0; index < keys.length; index += 1) map.delete(keys[index] as string);
}
