import { filter, Observable, Subject } from 'rxjs';
import type { DataSource } from './interfaces.js';
import { baseAsset, type Observation, type PriceObservation, type Topic } from './observations.js';
import { matchesTopic } from './replay-source.js';

/**
 * A data source for embedders that have their own feed: `push` observations in, every query on the
 * topic sees them. A new price subscriber gets the last pushed price at once. Serves any topic.
 */
export class PushSource implements DataSource {
  readonly name = 'push';
  private readonly stream = new Subject<Observation>();
  private readonly lastPrices = new Map<string, PriceObservation>();

  push(observation: Observation): void {
    if (observation.source === 'price') this.lastPrices.set(baseAsset(observation.symbol), observation);
    this.stream.next(observation);
  }

  supports(topic: Topic): boolean {
    return topic.source !== undefined;
  }

  observe(topic: Topic): Observable<Observation> {
    return new Observable<Observation>((subscriber) => {
      if (topic.source === 'price') {
        const last = this.lastPrices.get(baseAsset(topic.symbol));
        if (last) subscriber.next(last);
      }
      return this.stream.pipe(filter((observation) => matchesTopic(observation, topic))).subscribe(subscriber);
    });
  }

  /** Whether anything listens (for tests of subscription release). */
  get observed(): boolean {
    return this.stream.observed;
  }
}
