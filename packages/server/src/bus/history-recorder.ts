import type { SequencedPriceTick } from '../store/pg/pg-price-history.js';
import { FEED_PARTITION } from '../cluster/partitions.js';
import type { BusObservation, BusReading, MarketBus } from './market-bus.js';
import type { PartitionPosition, PgPartitionPositions } from './partition-positions.js';

/** Where the recorder writes the ticks it reads: the cluster's price history (PgPriceHistory). */
export interface TickRecorder {
  record(ticks: ReadonlyArray<SequencedPriceTick>): Promise<void>;
}

/** What a {@link HistoryRecorder} needs. */
export interface HistoryRecorderOptions {
  bus: MarketBus;
  history: TickRecorder;
  positions: PgPartitionPositions;
  /** Most ticks written in one statement (default 500). */
  batchSize?: number;
  /** Longest a tick waits for its batch to be written while the stream is quiet (ms, default 50). */
  flushEveryMs?: number;
  warn?: (message: string, error?: unknown) => void;
}

/**
 * Writes the market bus's price ticks into the cluster's price history, with their stream sequences, run
 * by the host that holds the feed's lease. Its position (the last message whose tick is written) is
 * saved like a partition's, under the feed's lease, so that a recorder taking over goes on from there
 * and the history has no gap. A partition taken over warms its series from the history once the
 * recorder has passed the partition's position.
 */
export class HistoryRecorder {
  private reading: BusReading | undefined;
  private batch: SequencedPriceTick[] = [];
  private last: PartitionPosition | undefined;
  private epoch = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(private readonly options: HistoryRecorderOptions) {}

  /** Starts reading after the recorder's saved position, writing under the feed's lease at `epoch`. */
  async start(epoch: number): Promise<void> {
    if (this.reading) return;
    this.epoch = epoch;
    const saved = await this.options.positions.get(FEED_PARTITION);
    this.last = saved;
    this.reading = await this.options.bus.read((saved?.seq ?? 0) + 1, (message) => this.take(message));
    this.timer = setInterval(() => void this.flush(), this.options.flushEveryMs ?? 50);
    this.timer.unref();
  }

  private take(message: BusObservation): Promise<void> | undefined {
    if (message.observation.source === 'price') this.batch.push({ seq: message.seq, observation: message.observation });
    this.last = { seq: message.seq, at: message.observation.at };
    return this.batch.length >= (this.options.batchSize ?? 500) ? this.flush() : undefined;
  }

  /** Writes the batch, then saves the position (one flush at a time; a failed one is tried again). */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    const position = this.last;
    const ticks = this.batch;
    if (position === undefined) return Promise.resolve();
    this.batch = [];
    this.flushing = (async () => {
      try {
        if (ticks.length > 0) await this.options.history.record(ticks);
        await this.options.positions.save(FEED_PARTITION, this.epoch, position);
      } catch (error) {
        this.batch = [...ticks, ...this.batch];
        this.options.warn?.('bus: the price history could not be written (trying again)', error);
      }
    })().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Stops reading and writes what it read. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const reading = this.reading;
    this.reading = undefined;
    await reading?.stop();
    await this.flushing;
    await this.flush();
  }
}
