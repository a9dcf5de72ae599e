import { config, Observable } from 'rxjs';
import type { DataSource, ObservationListener } from './interfaces.js';
import { feedKeyOfObservation, feedKeyOfTopic, type Observation, type PriceObservation, type Topic } from './observations.js';

/** One feed key's listeners and last price. */
interface Feed {
  /**
   * Who gets the feed's observations, in the order they came: `listen` callers as given, `observe`
   * subscribers each behind a closure of its own. No function is in it twice. Replaced, never changed in
   * place, when one comes or goes, so a push walks the list as it was when the push began.
   */
  listeners: readonly ObservationListener[];
  last: PriceObservation | undefined;
}

/** Feeds of price symbols as pushed (`BTC/USDT`, `btc`): bounded like the feed key cache it saves a lookup of. */
const MAX_SYMBOL_ROUTES = 10_000;

const NO_LISTENERS: readonly ObservationListener[] = Object.freeze([]);

/**
 * A data source for embedders that have their own feed: `push` observations in, every query on the
 * topic sees them. Each push goes straight to its topic's listeners (prices by asset, posts by account,
 * news), so its cost does not grow with the number of topics. A new price subscriber or listener gets the
 * last pushed price of its asset at once. Serves any topic.
 *
 * It has {@link DataSource.listen}: the engine's tick then reaches it through a plain call, with no
 * Observable or Subscriber in between.
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
      if (feed.listeners.length > 0) deliver(feed, observation);
      return;
    }
    const key = feedKeyOfObservation(observation);
    const feed = key === undefined ? undefined : this.feeds.get(key);
    if (feed !== undefined && feed.listeners.length > 0) deliver(feed, observation);
  }

  supports(topic: Topic): boolean {
    return topic.source === 'price' || topic.source === 'tweet' || topic.source === 'news';
  }

  observe(topic: Topic): Observable<Observation> {
    return new Observable<Observation>((subscriber) => this.listen(topic, (observation) => subscriber.next(observation)));
  }

  listen(topic: Topic, listener: ObservationListener): () => void {
    const feed = this.feed(feedKeyOfTopic(topic));
    // The same function twice is two listeners: the second gets a closure of its own, so that each stop removes one.
    const entry: ObservationListener = feed.listeners.includes(listener) ? (observation) => listener(observation) : listener;
    feed.listeners = [...feed.listeners, entry];
    if (feed.last) deliverTo(entry, feed.last);
    let listening = true;
    return () => {
      if (!listening) return;
      listening = false;
      const left = feed.listeners.filter((candidate) => candidate !== entry);
      feed.listeners = left.length > 0 ? left : NO_LISTENERS;
    };
  }

  /** Whether anything listens (for tests of subscription release). */
  get observed(): boolean {
    for (const feed of this.feeds.values()) if (feed.listeners.length > 0) return true;
    return false;
  }

  private feed(key: string): Feed {
    let feed = this.feeds.get(key);
    if (!feed) {
      feed = { listeners: NO_LISTENERS, last: undefined };
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

/** Hands an observation to the feed's listeners; one that stopped during this push gets nothing more. */
function deliver(feed: Feed, observation: Observation): void {
  const listeners = feed.listeners;
  for (let index = 0; index < listeners.length; index += 1) {
    const listener = listeners[index] as ObservationListener;
    if (feed.listeners !== listeners && !feed.listeners.includes(listener)) continue;
    deliverTo(listener, observation);
  }
}

/** One listener's call: what it throws does not reach the others, and is reported later (as RxJS reports a subscriber's error). */
function deliverTo(listener: ObservationListener, observation: Observation): void {
  try {
    listener(observation);
  } catch (error) {
    reportLater(error);
  }
}

function reportLater(error: unknown): void {
  setTimeout(() => {
    const { onUnhandledError } = config;
    if (onUnhandledError) onUnhandledError(error);
    else throw error;
  });
}
