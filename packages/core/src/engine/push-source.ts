import { Observable } from 'rxjs';
import { FanOut } from './fan-out.js';
import type { DataSource } from './interfaces.js';
import { feedKeyOfObservation, feedKeyOfTopic, type Observation, type PriceObservation, type Topic } from './observations.js';

/** One feed key's stream (while someone listens) and last price. */
interface Feed {
  stream: FanOut<Observation> | undefined;
  last: PriceObservation | undefined;
}

/** Feeds of price symbols as pushed (`BTC/USDT`, `btc`): bounded like the feed key cache it saves a lookup of. */
const MAX_SYMBOL_ROUTES = 10_000;

/**
 * A data source for embedders that have their own feed: `push` observations in, every query on the
 * topic sees them. Each push goes straight to its topic's stream (prices by asset, posts by account,
 * news), so its cost does not grow with the number of topics. A new price subscriber gets the last
 * pushed price of its asset at once. Serves any topic.
 */
export class PushSource implements DataSource {
  readonly name = 'push';
  private readonly feeds = new Map<string, Feed>();
  /** A price symbol's feed, so that a tick costs one lookup. */
  private readonly symbolFeeds = new Map<string, Feed>();

  /** Delivers an observation to every query listening to its topic now. */
  push(observation: Observation): void {
    if (observation.source === 'price') {
      const feed = this.symbolFeeds.get(observation.symbol) ?? this.routeSymbol(observation.symbol);
      feed.last = observation;
      feed.stream?.next(observation);
      return;
    }
    const key = feedKeyOfObservation(observation);
    if (key !== undefined) this.feeds.get(key)?.stream?.next(observation);
  }

  supports(topic: Topic): boolean {
    return topic.source === 'price' || topic.source === 'tweet' || topic.source === 'news';
  }

  observe(topic: Topic): Observable<Observation> {
    const key = feedKeyOfTopic(topic);
    return new Observable<Observation>((subscriber) => {
      const feed = this.feed(key);
      const stream = (feed.stream ??= new FanOut<Observation>());
      if (feed.last) subscriber.next(feed.last);
      const subscription = stream.observable.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        if (!stream.observed && feed.stream === stream) feed.stream = undefined;
      };
    });
  }

  /** Whether anything listens (for tests of subscription release). */
  get observed(): boolean {
    for (const feed of this.feeds.values()) if (feed.stream?.observed) return true;
    return false;
  }

  private feed(key: string): Feed {
    let feed = this.feeds.get(key);
    if (!feed) {
      feed = { stream: undefined, last: undefined };
      this.feeds.set(key, feed);
    }
    return feed;
  }

  private routeSymbol(symbol: string): Feed {
    const feed = this.feed(feedKeyOfObservation({ at: 0, source: 'price', symbol, price: 0 }) as string);
    if (this.symbolFeeds.size >= MAX_SYMBOL_ROUTES) this.symbolFeeds.clear();
    this.symbolFeeds.set(symbol, feed);
    return feed;
  }
}
