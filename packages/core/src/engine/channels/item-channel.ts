import type { NewsObservation, Observation, TweetObservation } from '../observations.js';
import type { SemanticLeaf } from '../leaves/semantic-leaf.js';

/**
 * The shared stream of posts of one account, or of all news: one upstream subscription, every tweet
 * or news condition on it offered each item.
 */
export class ItemChannel {
  readonly leaves = new Set<SemanticLeaf>();

  onObservation(observation: Observation): void {
    if (observation.source !== 'tweet' && observation.source !== 'news') return;
    const item: TweetObservation | NewsObservation = observation;
    // A leaf that latches may detach others (a query firing at batch end), so offer to a copy.
    for (const leaf of [...this.leaves]) leaf.offer(item);
  }
}
