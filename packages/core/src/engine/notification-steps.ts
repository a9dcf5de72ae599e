import type { Notification, NotificationDraft } from './interfaces.js';

/** The `data` of a notification a step made: its query, trigger and step id. */
export interface StepData {
  queryId: string;
  triggerIndex: number;
  stepId: string;
}

/** Whether a draft's (or notification's) `data` names the step that made it; one no step made does not. */
export function isStepData(data: NotificationDraft['data']): data is NotificationDraft['data'] & StepData {
  return typeof data.triggerIndex === 'number' && typeof data.stepId === 'string';
}

/**
 * The kept notifications of a query whose steps made several, oldest first: with {@link KeptNotifications},
 * what lets a store give a step's second draft the notification stored first (`StateStore.addNotification`)
 * with no index of its own.
 *
 * A store keeps them with the query's other records, which a fire has already looked up: a key of
 * query, trigger and step for each notification, in an index over every kept notification, would be a new
 * string to hash and a lookup in a table far larger than the caches at each fire. A query's triggers come
 * in order, so a search from the latest stops at an earlier trigger; notifications leave in the order they
 * came (`dropOldest`).
 */
export class StepNotifications {
  private readonly list: Array<Notification | undefined>;
  /** Slots before it were dropped (cleared); cut off once they are half the list. */
  private head = 0;
  /** Every notification came with a trigger index not below the one before (as the engine's do). */
  private ordered: boolean;

  /** The first two (a query that makes one notification needs no list). */
  constructor(first: Notification, second: Notification) {
    this.list = [first, second];
    this.ordered = (first.data.triggerIndex as number) <= (second.data.triggerIndex as number);
  }

  get empty(): boolean {
    return this.head === this.list.length;
  }

  /** The kept notification of a step (a draft's `data`), if any. */
  find(step: StepData): Notification | undefined {
    const { list, head, ordered } = this;
    for (let index = list.length - 1; index >= head; index -= 1) {
      const notification = list[index] as Notification;
      if (isOf(notification, step)) return notification;
      if (ordered && (notification.data.triggerIndex as number) < step.triggerIndex) return undefined;
    }
    return undefined;
  }

  /** Files a notification of a step that `find` did not find. */
  add(step: StepData, notification: Notification): void {
    const { list } = this;
    if (((list[list.length - 1] as Notification).data.triggerIndex as number) > step.triggerIndex) this.ordered = false;
    list.push(notification);
  }

  /** Forgets the oldest kept notification (it left the store's feed). */
  dropOldest(): void {
    const { list } = this;
    if (this.head < list.length) list[this.head++] = undefined;
    if (this.head === list.length) return;
    if (this.head >= 16 && this.head * 2 >= list.length) {
      list.splice(0, this.head);
      this.head = 0;
    }
  }
}

/**
 * What a query's steps made that is kept: nothing, the one notification most queries make, or several.
 * The functions below read and change it; a store keeps it with the query's records.
 */
export type KeptNotifications = Notification | StepNotifications | undefined;

/** The kept notification of a step (a draft's `data`), if any. */
export function findKept(kept: KeptNotifications, step: StepData): Notification | undefined {
  if (kept === undefined) return undefined;
  if (kept instanceof StepNotifications) return kept.find(step);
  return isOf(kept, step) ? kept : undefined;
}

/** Whether a notification is the one a step made. */
function isOf(notification: Notification, step: StepData): boolean {
  return notification.data.triggerIndex === step.triggerIndex && notification.data.stepId === step.stepId;
}

/** `kept` with a notification of a step that {@link findKept} did not find. */
export function withKept(kept: KeptNotifications, step: StepData, notification: Notification): KeptNotifications {
  if (kept === undefined) return notification;
  if (kept instanceof StepNotifications) {
    kept.add(step, notification);
    return kept;
  }
  return new StepNotifications(kept, notification);
}

/** `kept` without its oldest notification (it left the store's feed). */
export function withoutOldest(kept: KeptNotifications): KeptNotifications {
  if (!(kept instanceof StepNotifications)) return undefined;
  kept.dropOldest();
  return kept.empty ? undefined : kept;
}
