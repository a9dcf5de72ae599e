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

/**
 * Publishes observations to the market bus in order, one at a time: each is stored by the server before
 * the next is sent, so the stream keeps the order given. (The cluster's price history is written from
 * the stream by the feed's leader: see HistoryRecorder.)
 */
export class BusPublisher {
  constructor(private readonly bus: MarketBus) {}

  /** Publishes `items` in order (an async iterable may pace them); `onProgress` is told how many are done every `batchSize` (default 200). */
  async publish(items: Iterable<Publication> | AsyncIterable<Publication>, options: { batchSize?: number; onProgress?: (done: number) => void } = {}): Promise<PublishOutcome> {
    const outcome: PublishOutcome = { published: 0, duplicates: 0, skipped: 0, lastSeq: 0 };
    const batchSize = options.batchSize ?? 200;
    let done = 0;
    for await (const { observation, id } of items) {
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
