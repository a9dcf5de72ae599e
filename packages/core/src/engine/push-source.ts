import { Observable, Subject } from 'rxjs';
import type { DataSource } from './interfaces.js';
import { feedKeyOfObservation, feedKeyOfTopic, type Observation, type PriceObservation, type Topic } from './observations.js';

/**
 * A data source for embedders that have their own feed: `push` observations in, every query on the
 * topic sees them. Each push goes straight to its topic's stream (prices by asset, posts by account,
 * news), so its cost does not grow with the number of topics. A new price subscriber gets the last
 * pushed price of its asset at once. Serves any topic.
 */
export class PushSource implements DataSource {
  readonly name = 'push';
  private readonly streams = new Map<string, Subject<Observation>>();
  private readonly lastPrices = new Map<string, PriceObservation>();

  /** Delivers an observation to every query listening to its topic now. */
  push(observation: Observation): void {
    const key = feedKeyOfObservation(observation);
    if (key === undefined) return;
    if (observation.source === 'price') this.lastPrices.set(key, observation);
    this.streams.get(key)?.next(observation);
  }

  supports(topic: Topic): boolean {
    return topic.source === 'price' || topic.source === 'tweet' || topic.source === 'news';
  }

  observe(topic: Topic): Observable<Observation> {
    const key = feedKeyOfTopic(topic);
    return new Observable<Observation>((subscriber) => {
      let stream = this.streams.get(key);
      if (!stream) {
        stream = new Subject<Observation>();
        this.streams.set(key, stream);
      }
      const last = this.lastPrices.get(key);
      if (last) subscriber.next(last);
      const subscription = stream.subscribe(subscriber);
      const current = stream;
      return () => {
        subscription.unsubscribe();
        if (!current.observed && this.streams.get(key) === current) this.streams.delete(key);
      };
    });
  }

  /** Whether anything listens (for tests of subscription release). */
  get observed(): boolean {
    for (const stream of this.streams.values()) if (stream.observed) return true;
    return false;
  }
}
