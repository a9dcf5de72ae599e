import type { Observation } from '@eql/core';
import type { SequencedPriceTick } from '../store/pg/pg-price-history.js';
import type { MarketBus } from './market-bus.js';

/** An observation to publish, with the id that makes a second publication of it a no-op. */
export interface Publication {
  observation: Observation;
  /** Unique per observation and stable across publishers (a recording's digest and line, say). */
  id: string;
}

/** Where published price ticks go as well: the cluster's price history (PgPriceHistory). */
export interface TickRecorder {
  record(ticks: ReadonlyArray<SequencedPriceTick>): Promise<void>;
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
 * Publishes observations to the market bus in order, one at a time (each stored by the server before
 * the next is sent, so the stream keeps the order given), and records the price ticks in the cluster's
 * price history with their stream sequence, so that a partition taken over warms its series exactly up
 * to where it resumes reading.
 */
export class BusPublisher {
  constructor(
    private readonly bus: MarketBus,
    private readonly history?: TickRecorder,
  ) {}

  /** Publishes `items` in order; the price ticks are recorded in the history after each batch of `batchSize`. */
  async publish(items: Iterable<Publication>, options: { batchSize?: number; onProgress?: (done: number) => void } = {}): Promise<PublishOutcome> {
    const outcome: PublishOutcome = { published: 0, duplicates: 0, skipped: 0, lastSeq: 0 };
    const batchSize = options.batchSize ?? 200;
    let ticks: SequencedPriceTick[] = [];
    let done = 0;
    const flush = async () => {
      if (ticks.length > 0 && this.history) await this.history.record(ticks);
      ticks = [];
      options.onProgress?.(done);
    };
    for (const { observation, id } of items) {
      const ack = await this.bus.publish(observation, id);
      done += 1;
      if (!ack) outcome.skipped += 1;
      else {
        if (ack.duplicate) outcome.duplicates += 1;
        else outcome.published += 1;
        outcome.lastSeq = Math.max(outcome.lastSeq, ack.seq);
        if (observation.source === 'price') ticks.push({ seq: ack.seq, observation });
      }
      if (done % batchSize === 0) await flush();
    }
    await flush();
    return outcome;
  }
}
