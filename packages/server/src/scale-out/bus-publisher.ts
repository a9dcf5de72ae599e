import type { Observation } from '@eql/core';
import type { MarketBus } from './market-bus.js';

/** An observation to publish, with the id that makes a second publication of it a no-op. */
export interface Publication {
  observation: Observation;
  /** Unique per observation and stable across publishers (a recording's digest and line, say). */
  id: string;
}

/** What {@link BusPublisher.publish} did. */
export interface PublishOutcome {
  /** Observations stored in the stream now. */
  published: number;
  /** Observations the stream already had (same id within its duplicate window). */
  duplicates: number;
  /** Lines the bus does not carry (recorded LLM verdicts). */
  skipped: number;
  /** The stream sequence of the last observation published (0 when none). */
  lastSeq: number;
}

/** A publication refused because the publisher's lease may be another host's by now (see {@link BusPublisher}'s `leased`). */
export class LeaseLostError extends Error {
  constructor() {
    super("the feed's lease may be another host's by now: nothing more is published until it is renewed");
    this.name = 'LeaseLostError';
  }
}

/**
 * Publishes observations to the market bus in order, one at a time: each is stored by the server before
 * the next is sent, so the stream keeps the order given. (The cluster's price history is written from
 * the stream by the feed's leader: see HistoryRecorder.)
 *
 * A feed's leader publishes under its lease: with `leased`, each observation is sent only while it says
 * the lease is surely still this host's, and the publication stops with a {@link LeaseLostError} when it
 * does not, so that a leader whose renewal is late never publishes beside the next one.
 */
export class BusPublisher {
  constructor(
    private readonly bus: MarketBus,
    private readonly leased: () => boolean = () => true,
  ) {}

  /** Publishes `items` in order (an async iterable may pace them); `onProgress` is told how many are done every `batchSize` (default 200). */
  async publish(items: Iterable<Publication> | AsyncIterable<Publication>, options: { batchSize?: number; onProgress?: (done: number) => void } = {}): Promise<PublishOutcome> {
    const outcome: PublishOutcome = { published: 0, duplicates: 0, skipped: 0, lastSeq: 0 };
    const batchSize = options.batchSize ?? 200;
    let done = 0;
    for await (const { observation, id } of items) {
      if (!this.leased()) throw new LeaseLostError();
      const ack = await this.bus.publish(observation, id);
      done += 1;
      if (!ack) outcome.skipped += 1;
      else {
        if (ack.duplicate) outcome.duplicates += 1;
        else outcome.published += 1;
        outcome.lastSeq = Math.max(outcome.lastSeq, ack.seq);
      }
      if (done % batchSize === 0) options.onProgress?.(done);
    }
    options.onProgress?.(done);
    return outcome;
  }
}
