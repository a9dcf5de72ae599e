import { Observable, type SchedulerLike, type Subscriber, type Subscription } from 'rxjs';
import type { DataSource } from './interfaces.js';
import { feedKeyOfObservation, feedKeyOfTopic, type Observation, type Topic } from './observations.js';

/**
 * Options of a {@link ReplaySource}: the scheduler it plays on, and how recorded times are shifted, looped and
 * sped up.
 */
export interface ReplayOptions {
  scheduler: SchedulerLike;
  /** Added to every recorded time: replay a January recording as if it happened now. */
  shiftMs?: number;
  /** Replay again after the end, shifted by the recording's span each lap (a demo feed that never ends). */
  loop?: boolean;
  /**
   * Replay speed: 1 (default) keeps recorded time, 60 plays a recorded minute per second. Times are
   * scaled around the first observation (which stays at its recorded time plus the shift).
   */
  speed?: number;
  /**
   * Give a new price subscriber the latest recorded price at once, stamped now (default true). Set it
   * false when the engine warms its series from a RecordingHistory of the same recording, which gives
   * that price with its recorded time instead of as a new tick.
   */
  latestOnSubscribe?: boolean;
}

/** Whether an observation belongs to a topic: prices by asset (BTC, BTC/USDT and BTC-PERP are one), posts by account. */
export function matchesTopic(observation: Observation, topic: Topic): boolean {
  return feedKeyOfObservation(observation) === feedKeyOfTopic(topic);
}

/**
 * A data source replaying recorded observations at their recorded times on the engine's scheduler:
 * in virtual time for previews and tests (deterministic), in real time (shifted, looping) for a demo
 * host. One cursor walks the recording in order and hands each observation to the subscribers of its
 * topic, so observations at the same time arrive in the recording's order whatever their topics.
 * A new price subscriber first gets the latest recorded price at or before now, so a level condition
 * is judged at once; posts and news are never replayed from the past. `llm` lines are not served
 * here: a RecordedLlmProvider answers llm conditions from them.
 */
export class ReplaySource implements DataSource {
  readonly name = 'replay';
  private readonly observations: readonly Observation[];
  private readonly keys: readonly (string | undefined)[];
  private readonly span: number;
  private readonly subscribers = new Map<string, Set<Subscriber<Observation>>>();
  private cursor = 0;
  private lap = 0;
  private timer: Subscription | undefined;

  constructor(
    observations: readonly Observation[],
    private readonly options: ReplayOptions,
  ) {
    this.observations = observations.filter((observation) => observation.source !== 'llm');
    this.keys = this.observations.map(feedKeyOfObservation);
    const first = this.observations[0]?.at ?? 0;
    const last = this.observations[this.observations.length - 1]?.at ?? first;
    // One minute past the last observation, so a loop does not put two observations at one instant.
    this.span = last - first + 60_000;
  }

  supports(topic: Topic): boolean {
    return this.keys.includes(feedKeyOfTopic(topic));
  }

  observe(topic: Topic): Observable<Observation> {
    const key = feedKeyOfTopic(topic);
    return new Observable<Observation>((subscriber) => {
      if (this.subscribers.size === 0) this.seek();
      if (topic.source === 'price' && this.options.latestOnSubscribe !== false) {
        const latest = this.latestBefore(key);
        if (latest) subscriber.next({ ...latest, at: this.options.scheduler.now() });
      }
      let set = this.subscribers.get(key);
      if (!set) this.subscribers.set(key, (set = new Set()));
      set.add(subscriber);
      this.arm();
      return () => {
        set.delete(subscriber);
        if (set.size === 0) this.subscribers.delete(key);
        if (this.subscribers.size === 0) this.disarm();
      };
    });
  }

  private timeOf(index: number, lap = this.lap): number {
    const origin = (this.observations[0] as Observation).at;
    const recorded = (this.observations[index] as Observation).at - origin + lap * this.span;
    return origin + (this.options.shiftMs ?? 0) + recorded / (this.options.speed ?? 1);
  }

  /** Puts the cursor on the first observation not before now (the replay starts when the first topic is watched). */
  private seek(): void {
    const now = this.options.scheduler.now();
    const count = this.observations.length;
    if (count === 0) return;
    this.lap = this.options.loop ? Math.max(0, Math.floor(((now - this.timeOf(0, 0)) * (this.options.speed ?? 1)) / this.span)) : 0;
    this.cursor = 0;
    while (this.cursor < count && this.timeOf(this.cursor) < now) this.cursor += 1;
    if (this.cursor === count && this.options.loop) {
      this.lap += 1;
      this.cursor = 0;
    }
  }

  /** The latest price of a topic strictly before the cursor (this lap, or the end of the previous one). */
  private latestBefore(key: string): Observation | undefined {
    for (let index = this.cursor - 1; index >= 0; index -= 1) if (this.keys[index] === key) return this.observations[index];
    if (this.options.loop && this.lap > 0) {
      for (let index = this.observations.length - 1; index >= this.cursor; index -= 1) if (this.keys[index] === key) return this.observations[index];
    }
    return undefined;
  }

  /**
   * Schedules the next due observation, while someone listens. Nobody listening means no timer: with
   * `loop` the replay never ends, and a timer left behind would keep the process (a host) alive.
   */
  private arm(): void {
    if (this.timer || this.subscribers.size === 0 || this.cursor >= this.observations.length) return;
    const scheduler = this.options.scheduler;
    this.timer = scheduler.schedule(() => {
      this.timer = undefined;
      this.emitDue();
      // A subscriber may have left during emitDue (a query detaching after it fired): arm() checks.
      this.arm();
    }, Math.max(0, this.timeOf(this.cursor) - scheduler.now()));
  }

  private disarm(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
  }

  /** Hands out every observation due now, in recording order. */
  private emitDue(): void {
    const now = this.options.scheduler.now();
    while (this.cursor < this.observations.length && this.timeOf(this.cursor) <= now) {
      const index = this.cursor;
      const at = this.timeOf(index);
      this.cursor += 1;
      if (this.cursor === this.observations.length && this.options.loop) {
        this.cursor = 0;
        this.lap += 1;
      }
      const key = this.keys[index];
      const set = key === undefined ? undefined : this.subscribers.get(key);
      if (!set) continue;
      const observation = { ...(this.observations[index] as Observation), at };
      for (const subscriber of [...set]) subscriber.next(observation);
    }
    if (this.cursor >= this.observations.length && !this.options.loop) {
      for (const set of this.subscribers.values()) for (const subscriber of [...set]) subscriber.complete();
    }
  }
}
