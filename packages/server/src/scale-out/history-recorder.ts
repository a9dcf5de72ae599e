import { RefusedTickError, type SequencedPriceTick } from '../store/pg/pg-price-history.js';
import { FEED_PARTITION } from './partitions.js';
import type { MalformedBusMessage, MalformedMessageLog } from './malformed-messages.js';
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
  /** Most ticks written in one statement, and most read ahead of what is written (default 500). */
  batchSize?: number;
  /** Longest a tick waits for its batch to be written while the stream is quiet (ms, default 50). */
  flushEveryMs?: number;
  /** Longest wait between two tries to write while the database fails (ms, default 5,000; the first after 50 ms, doubling). */
  maxRetryMs?: number;
  /** The host's log of messages that are no observation (each kind once per host). */
  malformedLog?: MalformedMessageLog;
  warn?: (message: string, error?: unknown) => void;
}

/** What a running recorder has done since it started: shown in `GET /ready` (`bus.history`). */
export interface HistoryRecorderStatus {
  /** The last message read. */
  handled: number;
  /** The position saved: every tick up to it is in the history (or was dropped). */
  saved: number;
  /** Messages skipped as no observation. */
  malformed: number;
  /** Ticks the database refused (see HistoryRecorder), left out of the history. */
  dropped: number;
}

/**
 * Whether the database refused a write for the data it holds, not for being unreachable: PostgreSQL's
 * SQLSTATE classes 22 (data exception: a number out of range, say) and 23
 * (integrity constraint), and the history's own {@link RefusedTickError}. Writing the same rows again
 * fails again. Anything else (a RangeError thrown while a connection breaks included) is a failure to
 * write, tried again: the ticks are kept.
 */
function refusesData(error: unknown): boolean {
  if (error instanceof RefusedTickError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}

/**
 * Writes the market bus's price ticks into the cluster's price history, with their stream sequences, run
 * by the host that holds the feed's lease. Its position (the last message whose tick is written) is
 * saved like a partition's, under the feed's lease, so that a recorder taking over goes on from there
 * and the history has no gap. A partition taken over warms its series from the history once the
 * recorder has passed the partition's position.
 *
 * It never stops on a message: one that is no observation is skipped and counted, and a tick the
 * database refuses for what it holds is found (the batch split in halves until it is) and dropped,
 * counted and logged (the first), so that the position moves on. A database that cannot be reached is
 * tried again, the wait doubling up to `maxRetryMs`, with the batch kept and the reading held while the
 * batch is full: no tick is lost, the stream keeps what is not read yet.
 */
export class HistoryRecorder {
  private reading: BusReading | undefined;
  private running = false;
  private batch: SequencedPriceTick[] = [];
  private last: PartitionPosition | undefined;
  private saved: PartitionPosition | undefined;
  private epoch = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Ticks of the flush in flight: read ahead of what is written as much as the batch is. */
  private writing = 0;
  private malformed = 0;
  private dropped = 0;
  /** Failed writes in a row, when the next may be tried, and when the last failure was logged. */
  private failures = 0;
  private retryAt = 0;
  private loggedFailureAt = 0;
  private wake: (() => void) | undefined;

  constructor(private readonly options: HistoryRecorderOptions) {}

  /** Starts reading after the recorder's saved position, writing under the feed's lease at `epoch`. */
  async start(epoch: number): Promise<void> {
    if (this.reading || this.running) return;
    this.running = true;
    this.epoch = epoch;
    try {
      const saved = await this.options.positions.get(FEED_PARTITION);
      this.last = saved;
      this.saved = saved;
      this.batch = [];
      this.malformed = 0;
      this.dropped = 0;
      this.reading = await this.options.bus.read((saved?.seq ?? 0) + 1, (message) => this.take(message), {
        onMalformed: (message) => this.skip(message),
        onError: (error, { seq, delayMs }) => this.options.warn?.(`bus: the history recorder failed to read message ${seq} (reading again from there in ${delayMs} ms)`, error),
      });
    } catch (error) {
      this.running = false;
      throw error;
    }
    this.timer = setInterval(() => void this.flush(), this.options.flushEveryMs ?? 50);
    this.timer.unref();
  }

  /** What it has done since it started, or undefined when it is not running (another host leads the feed). */
  status(): HistoryRecorderStatus | undefined {
    if (!this.running) return undefined;
    return { handled: this.last?.seq ?? 0, saved: this.saved?.seq ?? 0, malformed: this.malformed, dropped: this.dropped };
  }

  private take(message: BusObservation): Promise<void> | undefined {
    if (message.observation.source === 'price') this.batch.push({ seq: message.seq, observation: message.observation });
    this.last = { seq: message.seq, at: message.observation.at };
    return this.unwritten() >= this.batchSize ? this.drain() : undefined;
  }

  private unwritten(): number {
    return this.batch.length + this.writing;
  }

  /** A message that is no observation: nothing to write; the position passes it (at the instant of the last observation). */
  private skip(message: MalformedBusMessage): undefined {
    this.malformed += 1;
    this.options.malformedLog?.report(message);
    this.last = { seq: message.seq, at: this.last?.at ?? Date.now() };
    return undefined;
  }

  private get batchSize(): number {
    return this.options.batchSize ?? 500;
  }

  /**
   * Holds the reading while a batch's worth of ticks is read and not written (the database is slow or
   * away): the stream keeps the rest, and no more than `batchSize` ticks wait in memory.
   */
  private async drain(): Promise<void> {
    while (this.running && this.unwritten() >= this.batchSize) {
      await this.flush();
      if (this.unwritten() >= this.batchSize) await this.pause(this.retryAt - Date.now());
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * Writes the batch, then saves the position (one flush at a time). A failed one keeps its ticks for the
   * next, which waits for the retry delay unless `force`d.
   */
  private flush(force = false): Promise<void> {
    if (this.flushing) return this.flushing;
    const position = this.last;
    if (position === undefined || (!force && Date.now() < this.retryAt)) return Promise.resolve();
    const ticks = this.batch;
    if (ticks.length === 0 && position.seq <= (this.saved?.seq ?? 0)) return Promise.resolve();
    this.batch = [];
    this.writing = ticks.length;
    this.flushing = (async () => {
      try {
        const refused: Array<SequencedPriceTick & { error?: unknown }> = [];
        if (ticks.length > 0) await this.write(ticks, refused);
        if (await this.options.positions.save(FEED_PARTITION, this.epoch, position)) this.saved = position;
        // Counted once the position passed them (a batch tried again meets them again).
        if (refused.length > 0 && this.dropped === 0) this.options.warn?.(`bus: the price history refused the tick of message ${refused[0]!.seq}: left out (further ones are counted in GET /ready, bus.history.dropped)`, refused[0]!.error);
        this.dropped += refused.length;
        if (this.failures > 0) this.options.warn?.(`bus: the price history is written again (after ${this.failures} failed attempts)`);
        this.failures = 0;
        this.retryAt = 0;
      } catch (error) {
        this.batch = [...ticks, ...this.batch];
        this.failures += 1;
        const delay = Math.min(this.options.maxRetryMs ?? 5_000, 50 * 2 ** Math.min(this.failures - 1, 20));
        this.retryAt = Date.now() + delay;
        // The first failure, then one line a minute while it lasts.
        if (this.failures === 1 || Date.now() - this.loggedFailureAt >= 60_000) {
          this.loggedFailureAt = Date.now();
          this.options.warn?.(`bus: the price history could not be written (${this.failures} failed attempts in a row; trying again in ${delay} ms)`, error);
        }
      }
    })().finally(() => {
      this.flushing = undefined;
      this.writing = 0;
    });
    return this.flushing;
  }

  /**
   * Writes ticks; a batch the database refuses for what it holds is split in halves until the ticks it
   * refuses are found, which are left out (added to `refused`). Any other failure is thrown (the whole
   * batch is tried again: the halves written already are written once, the history being idempotent on
   * the sequence).
   */
  private async write(ticks: SequencedPriceTick[], refused: Array<SequencedPriceTick & { error?: unknown }>): Promise<void> {
    try {
      await this.options.history.record(ticks);
    } catch (error) {
      if (!refusesData(error)) throw error;
      if (ticks.length === 1) {
        refused.push({ ...ticks[0]!, error });
        return;
      }
      const half = Math.ceil(ticks.length / 2);
      await this.write(ticks.slice(0, half), refused);
      await this.write(ticks.slice(half), refused);
    }
  }

  /** Stops reading and writes what it read. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const reading = this.reading;
    this.reading = undefined;
    this.running = false;
    this.wake?.();
    await reading?.stop();
    await this.flushing;
    await this.flush(true);
  }
}
