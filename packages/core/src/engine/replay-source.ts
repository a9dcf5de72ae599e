import { Observable, type SchedulerLike } from 'rxjs';
import type { DataSource } from './interfaces.js';
import { baseAsset, type Observation, type Topic } from './observations.js';

export interface ReplayOptions {
  scheduler: SchedulerLike;
  /** Added to every recorded time: replay a January recording as if it happened now. */
  shiftMs?: number;
  /** Replay again after the end, shifted by the recording's span each lap (a demo feed that never ends). */
  loop?: boolean;
}

/** Whether an observation belongs to a topic: prices by asset (BTC, BTC/USDT and BTC-PERP are one), posts by account. */
export function matchesTopic(observation: Observation, topic: Topic): boolean {
  switch (topic.source) {
    case 'price':
      return observation.source === 'price' && baseAsset(observation.symbol) === baseAsset(topic.symbol);
    case 'tweet':
      return observation.source === 'tweet' && observation.username.toLowerCase() === topic.username.toLowerCase();
    case 'news':
      return observation.source === 'news';
  }
}

/**
 * A data source replaying recorded observations at their recorded times on the engine's scheduler:
 * in virtual time for previews and tests (deterministic), in real time (shifted, looping) for a demo
 * host. A new price subscriber first gets the latest recorded price at or before now, so a level
 * condition is judged at once; posts and news are never replayed from the past. `llm` lines are not
 * served here: a RecordedLlmProvider answers llm conditions from them.
 */
export class ReplaySource implements DataSource {
  readonly name = 'replay';
  private readonly observations: readonly Observation[];
  private readonly span: number;

  constructor(
    observations: readonly Observation[],
    private readonly options: ReplayOptions,
  ) {
    this.observations = observations.filter((observation) => observation.source !== 'llm');
    const first = this.observations[0]?.at ?? 0;
    const last = this.observations[this.observations.length - 1]?.at ?? first;
    // One minute past the last observation, so a loop does not put two observations at one instant.
    this.span = last - first + 60_000;
  }

  supports(topic: Topic): boolean {
    return this.observations.some((observation) => matchesTopic(observation, topic));
  }

  observe(topic: Topic): Observable<Observation> {
    const matching = this.observations.filter((observation) => matchesTopic(observation, topic));
    const { scheduler } = this.options;
    const shift = this.options.shiftMs ?? 0;
    return new Observable<Observation>((subscriber) => {
      if (matching.length === 0) {
        subscriber.complete();
        return undefined;
      }
      const now = scheduler.now();
      let lap = this.options.loop ? Math.max(0, Math.floor((now - shift - (matching[0] as Observation).at) / this.span)) : 0;
      const timeOf = (index: number) => (matching[index] as Observation).at + shift + lap * this.span;
      let index = 0;
      while (index < matching.length && timeOf(index) < now) index += 1;
      if (topic.source === 'price' && index > 0) subscriber.next({ ...(matching[index - 1] as Observation), at: now });
      const emitNext = (): void => {
        if (subscriber.closed) return;
        if (index >= matching.length) {
          if (!this.options.loop) {
            subscriber.complete();
            return;
          }
          lap += 1;
          index = 0;
        }
        const at = timeOf(index);
        const delay = Math.max(0, at - scheduler.now());
        subscription.add(
          scheduler.schedule(() => {
            const observation = matching[index] as Observation;
            index += 1;
            subscriber.next({ ...observation, at });
            emitNext();
          }, delay),
        );
      };
      const subscription = subscriber;
      emitNext();
      return undefined;
    });
  }
}
