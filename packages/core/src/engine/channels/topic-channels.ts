import { Subscription } from 'rxjs';
import type { PriceHistory } from '../history.js';
import type { DataSource } from '../interfaces.js';
import { describeTopic, type Observation, type Topic, topicKey } from '../observations.js';
import type { SeriesDescription, SeriesValue } from '../series-value.js';
import { ItemChannel, type ItemWatcher } from './item-channel.js';
import { PriceChannel } from './price-channel.js';

/**
 * One topic in use: its channel (prices, or posts and news), its upstream subscription, and how many use it.
 * Every entry has every field from the start (one shape for all), and the time of the last observation is a
 * number field only (NaN for none): a field that also holds undefined would take a new heap number at
 * every tick.
 */
export interface TopicEntry {
  readonly topic: Topic;
  /** `topicKey(topic)`, made once. */
  readonly key: string;
  /** Why no source serves the topic, once connecting found none. */
  unavailable: string | undefined;
  price: PriceChannel | undefined;
  items: ItemChannel | undefined;
  subscription: Subscription | undefined;
  connecting: boolean;
  users: number;
  /** Time of the last observation of the topic (NaN before the first). */
  lastObservedAt: number;
  /**
   * The engine's, for the paper venue: the symbol of the topic's last price and the venue's box for it, so
   * that a tick feeds the venue without a lookup (see `PaperExchange.onPrice`).
   */
  paperSymbol: string | undefined;
  paperBox: { price: number } | undefined;
}

/** What the topics need from the engine that owns them. */
export interface TopicChannelsOptions {
  sources: readonly DataSource[];
  /** Where price series are warmed from when they start. */
  history: readonly PriceHistory[];
  now(): number;
  /** An observation of a topic's upstream (the engine evaluates it as one batch). */
  observe(entry: TopicEntry, observation: Observation): void;
  /** History arrived for a price topic: these series changed, and every series of the topic may have changed readiness. */
  warmed(entry: TopicEntry, changed: readonly SeriesValue[]): void;
  /** A problem of no query in particular (no source serves a topic, a source failed, history could not load). */
  problem(code: string, message: string): void;
}

/**
 * The topics the engine's queries read: one channel and one upstream subscription per topic (a symbol's
 * prices, an account's posts, the news), opened on first use and closed when its last user goes.
 */
export class TopicChannels {
  private readonly entries = new Map<string, TopicEntry>();

  constructor(private readonly options: TopicChannelsOptions) {}

  /** Number of upstream subscriptions open now (one per topic in use). */
  get open(): number {
    let open = 0;
    for (const entry of this.entries.values()) if (entry.subscription && !entry.subscription.closed) open += 1;
    return open;
  }

  /** The shared series for a description on a price topic (created on first use); the topic is connected upstream. */
  acquireSeries(topic: Topic, description: SeriesDescription): SeriesValue {
    const entry = this.entryOf(topic);
    entry.users += 1;
    const series = (entry.price as PriceChannel).acquire(description);
    this.connect(entry);
    return series;
  }

  releaseSeries(topic: Topic, series: SeriesValue): void {
    const entry = this.entries.get(topicKey(topic));
    if (!entry?.price) return;
    entry.price.release(series);
    this.release(entry);
  }

  /** Registers a tweet or news condition on its topic; the topic is connected upstream. */
  watchItems(topic: Topic, leaf: ItemWatcher): void {
    const entry = this.entryOf(topic);
    entry.users += 1;
    entry.items?.leaves.add(leaf);
    this.connect(entry);
  }

  unwatchItems(topic: Topic, leaf: ItemWatcher): void {
    const entry = this.entries.get(topicKey(topic));
    if (!entry?.items?.leaves.delete(leaf)) return;
    this.release(entry);
  }

  /** Time of the last observation of a topic (or of the last tick its history gave). */
  lastAt(topic: Topic): number | undefined {
    const entry = this.entries.get(topicKey(topic));
    if (entry === undefined) return undefined;
    return Number.isNaN(entry.lastObservedAt) ? entry.price?.lastAt : entry.lastObservedAt;
  }

  /** The latest price of a price topic the engine reads (undefined for a topic no query reads). */
  lastPrice(topic: Topic): number | undefined {
    return this.entries.get(topicKey(topic))?.price?.lastPrice;
  }

  /** Why no observation of a topic can come (no data source serves it), or undefined. */
  unavailable(topic: Topic): string | undefined {
    return this.entries.get(topicKey(topic))?.unavailable;
  }

  /** Closes every upstream subscription and forgets every topic. */
  dispose(): void {
    for (const entry of this.entries.values()) entry.subscription?.unsubscribe();
    this.entries.clear();
  }

  private entryOf(topic: Topic): TopicEntry {
    const key = topicKey(topic);
    let entry = this.entries.get(key);
    if (entry) return entry;
    const created: TopicEntry = {
      topic,
      key,
      unavailable: undefined,
      price: undefined,
      items: undefined,
      subscription: undefined,
      connecting: false,
      users: 0,
      lastObservedAt: Number.NaN,
      paperSymbol: undefined,
      paperBox: undefined,
    };
    if (topic.source === 'price') {
      const options = this.options;
      created.price = new PriceChannel({
        topic,
        history: options.history.find((history) => history.supports(topic)),
        now: () => options.now(),
        warmed: (changed) => options.warmed(created, changed),
        problem: (code, message) => options.problem(code, message),
      });
    } else created.items = new ItemChannel();
    entry = created;
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * Subscribes a topic upstream, once. Called after the first series or watcher is registered, so that a
   * source giving its latest value synchronously on subscribe reaches it.
   */
  private connect(entry: TopicEntry): void {
    if (entry.subscription || entry.connecting) return;
    entry.connecting = true;
    const options = this.options;
    const source = options.sources.find((candidate) => candidate.supports(entry.topic));
    if (!source) {
      entry.unavailable = `no data source serves ${describeTopic(entry.topic)}`;
      entry.price?.markUnavailable(entry.unavailable);
      options.problem('NO_DATA_SOURCE', entry.unavailable);
      return;
    }
    const next = (observation: Observation): void => {
      entry.lastObservedAt = observation.at;
      options.observe(entry, observation);
    };
    const failed = (error: unknown): void => options.problem('DATA_SOURCE_ERROR', error instanceof Error ? error.message : String(error));
    // A source that can call the engine directly does (fewer objects between a tick and the engine); one
    // whose `listen` throws is a failed source, as one whose observable errors.
    let subscription: Subscription;
    if (source.listen) {
      try {
        subscription = new Subscription(source.listen(entry.topic, next));
      } catch (error) {
        failed(error);
        return;
      }
    } else subscription = source.observe(entry.topic).subscribe({ next, error: failed });
    // A released topic (all its users gone while subscribing) must not keep the subscription.
    if (this.entries.get(entry.key) === entry) entry.subscription = subscription;
    else subscription.unsubscribe();
  }

  private release(entry: TopicEntry): void {
    entry.users -= 1;
    if (entry.users > 0) return;
    entry.price?.dispose();
    entry.subscription?.unsubscribe();
    this.entries.delete(entry.key);
  }
}
