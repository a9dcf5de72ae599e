import type { NewsObservation, Observation, TweetObservation } from '../observations.js';

/** A condition on posts or news (a tweet or news leaf), offered each new item of its topic. */
export interface ItemWatcher {
  readonly queryId: string;
  offer(item: TweetObservation | NewsObservation): void;
}

/**
 * The shared stream of posts of one account, or of all news: one upstream subscription, every tweet
 * or news condition on it offered each item.
 */
export class ItemChannel {
  readonly leaves = new Set<ItemWatcher>();

  onObservation(observation: Observation): void {
    if (observation.source !== 'tweet' && observation.source !== 'news') return;
    const item: TweetObservation | NewsObservation = observation;
    // A leaf that latches may detach others (a query firing at batch end), so offer to a copy.
    for (const leaf of [...this.leaves]) leaf.offer(item);
  }
}
