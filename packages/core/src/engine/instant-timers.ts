import { type SchedulerLike, Subscription } from 'rxjs';
import { scheduleLong } from './long-timer.js';

/** One timer's work, waiting in the group of its instant. */
export interface TimerEntry {
  readonly work: () => void;
}

/** The timers due at one instant, and the one scheduler action that runs them. */
interface InstantGroup {
  readonly entries: Set<TimerEntry>;
  action: Subscription | undefined;
}

/**
 * Timers grouped by the instant they come due. Every timer due at one instant runs in one call of
 * `runInstant`, in the order the timers were set, so that the engine judges them as one instant (as
 * an observation's updates are judged): a crossing's holdFor and a level's holdFor that end together
 * fire together. One scheduler action serves each instant; a timer cancelled before its instant
 * leaves the group, and the action is cancelled with the group's last timer.
 */
export class InstantTimers {
  private readonly groups = new Map<number, InstantGroup>();

  /**
   * @param scheduler where the instants are scheduled
   * @param clock the time a delay counts from (the engine's clock, one reading for a whole batch)
   * @param runInstant runs the work of one instant (the engine makes it one batch)
   */
  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly clock: () => number,
    private readonly runInstant: (works: Iterable<TimerEntry>) => void,
  ) {}

  /** Runs `work` when `delayMs` has passed from the clock, together with any other work due then. */
  schedule(delayMs: number, work: () => void): Subscription {
    const at = this.clock() + Math.max(0, delayMs);
    let group = this.groups.get(at);
    if (group === undefined) {
      const created: InstantGroup = { entries: new Set(), action: undefined };
      this.groups.set(at, created);
      created.action = scheduleLong(this.scheduler, Math.max(0, at - this.scheduler.now()), () => this.run(at, created));
      group = created;
    }
    const entry: TimerEntry = { work };
    group.entries.add(entry);
    const owner = group;
    return new Subscription(() => this.cancel(at, owner, entry));
  }

  /** Timers waiting (for tests and diagnostics). */
  get pending(): number {
    let count = 0;
    for (const group of this.groups.values()) count += group.entries.size;
    return count;
  }

  /** Cancels every waiting timer. */
  clear(): void {
    for (const group of this.groups.values()) {
      group.entries.clear();
      group.action?.unsubscribe();
    }
    this.groups.clear();
  }

  private run(at: number, group: InstantGroup): void {
    // Out of the map first: work of this instant that sets a timer of delay 0 starts a later group.
    if (this.groups.get(at) === group) this.groups.delete(at);
    if (group.entries.size > 0) this.runInstant(group.entries);
  }

  private cancel(at: number, group: InstantGroup, entry: TimerEntry): void {
    if (!group.entries.delete(entry) || group.entries.size > 0) return;
    if (this.groups.get(at) !== group) return; // running now, or already run
    this.groups.delete(at);
    group.action?.unsubscribe();
  }
}
