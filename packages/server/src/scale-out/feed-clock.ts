import { asyncScheduler, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';

/**
 * The clock of an engine that reads the market bus: the instant of the observation it is handling, or
 * while it catches up on a backlog (a partition taken over from a host that died) just after the last
 * observation handled, so that the backlog is judged at the times it happened (cooldowns, expiry,
 * "at most once per instant", the history read when a query starts); otherwise the wall clock.
 * Timers run on the wall clock.
 */
export class FeedClock implements SchedulerLike {
  /** The instant the clock is held at (undefined: the wall clock). */
  private held: number | undefined;
  /** Whether the engine is catching up (the clock stays at the last observation between observations). */
  private catchingUp = false;

  constructor(private readonly wall: () => number = Date.now) {}

  now(): number {
    return this.held ?? this.wall();
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
    return asyncScheduler.schedule(work, delay, state);
  }

  /**
   * Catching up on a backlog after the observation at `at` (the last whose effects are stored): the
   * clock stands just after it, so history read now includes it.
   */
  catchUpFrom(at: number): void {
    this.catchingUp = true;
    this.held = at + 1;
  }

  /** The backlog is read: the clock is the wall clock again between observations. */
  live(): void {
    this.catchingUp = false;
    this.held = undefined;
  }

  /** Whether the clock is held at a backlog's instants. */
  get isCatchingUp(): boolean {
    return this.catchingUp;
  }

  /** Runs `work` (the handling of one observation) at the observation's instant. */
  at(instant: number, work: () => void): void {
    const before = this.held;
    this.held = instant;
    try {
      work();
    } finally {
      // Catching up, the clock stands just after the observation handled (history read then includes it).
      this.held = this.catchingUp ? instant + 1 : before;
    }
  }
}
