import { createHash } from 'node:crypto';
import type { DataSource, Observation, Topic } from '@eql/core';
import { canonicalJson, feedKeyOfObservation, feedKeyOfTopic } from '@eql/core';
import type { Subscription } from 'rxjs';
import type { BusPublisher } from './bus-publisher.js';

/** What a {@link VenuePublisher} needs. */
export interface VenuePublisherOptions {
  /** The live feeds (a ccxt venue, an embedder's source): the first that supports a topic serves it. */
  sources: DataSource[];
  /** The topics the cluster's active queries listen to now (read again every `refreshMs`). */
  topics(): Promise<Topic[]>;
  publisher: BusPublisher;
  /** How often the topics are read again (ms, default 2,000). */
  refreshMs?: number;
  warn?: (message: string, error?: unknown) => void;
}

/**
 * A live feed on the market bus, run by the host that holds the feed's lease: it subscribes to the topics
 * the cluster's active queries listen to (read from the store every `refreshMs`: a query created through
 * any host is served within that time), and publishes what the feed gives, in the order it gives it,
 * each observation once: its message id is made of what it says ({@link venueMessageId}), so a tick given
 * again (a feed hands a new subscriber its last tick; a leader that leads again, or one taking over,
 * subscribes anew) is the same message, which the stream stores once. A topic no active query listens
 * to any more is left.
 */
export class VenuePublisher {
  private readonly subscriptions = new Map<string, Subscription>();
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly options: VenuePublisherOptions) {}

  /** Subscribes to the topics of the active queries, then keeps them in line with the store. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs ?? 2_000);
    this.timer.unref();
  }

  /** Subscribes to topics new to the active queries and leaves those no query listens to. */
  async refresh(): Promise<void> {
    let topics: Topic[];
    try {
      topics = await this.options.topics();
    } catch (error) {
      this.options.warn?.('bus: the topics of the active queries could not be read (trying again)', error);
      return;
    }
    if (!this.running) return;
    const wanted = new Map(topics.map((topic) => [feedKeyOfTopic(topic), topic]));
    for (const [key, subscription] of this.subscriptions) {
      if (wanted.has(key)) continue;
      subscription.unsubscribe();
      this.subscriptions.delete(key);
    }
    for (const [key, topic] of wanted) {
      if (this.subscriptions.has(key)) continue;
      const source = this.options.sources.find((candidate) => candidate.supports(topic));
      if (!source) continue;
      this.subscriptions.set(
        key,
        source.observe(topic).subscribe({
          next: (observation) => this.publish(observation),
          error: (error: unknown) => {
            this.subscriptions.delete(key);
            this.options.warn?.(`bus: the feed of ${key} failed (subscribed again at the next refresh)`, error);
          },
        }),
      );
    }
  }

  /** Publishes one observation after those before it (a failed publish is logged; the feed goes on). */
  private publish(observation: Observation): void {
    const id = venueMessageId(observation);
    if (id === undefined || !this.running) return;
    this.queue = this.queue.then(() =>
      this.options.publisher.publish([{ observation, id }]).then(
        () => undefined,
        (error: unknown) => this.options.warn?.(`bus: could not publish ${id}`, error),
      ),
    );
  }

  /** Leaves every topic; resolves when what was received is published. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const subscription of this.subscriptions.values()) subscription.unsubscribe();
    this.subscriptions.clear();
    await this.queue;
  }
}

/**
 * The message id of a live observation: `<feed key>@<instant>#<digest of the observation>`. The same
 * observation has the same id whoever publishes it and however often; two observations of one instant
 * that differ (two trades, two posts) have two. Undefined for what the bus does not carry.
 */
export function venueMessageId(observation: Observation): string | undefined {
  const key = feedKeyOfObservation(observation);
  if (key === undefined) return undefined;
  return `${key}@${observation.at}#${createHash('sha256').update(canonicalJson(observation)).digest('base64url').slice(0, 16)}`;
}
