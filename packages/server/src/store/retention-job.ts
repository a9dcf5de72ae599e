import type { MaybePromise } from '@eql/core';
import { RETENTION_KINDS, type RetentionKind, type RetentionPolicy } from './retention.js';
import type { HostStore } from './store.js';

/** A price history the job prunes (SqlitePriceHistory, PgPriceHistory), and how long it keeps prices (ms). */
export interface PrunedHistory {
  /** Its name in reports and metrics (`prices`, `price_ticks`). */
  name: string;
  keepMs: number;
  /** Deletes at most `limit` prices older than `before` (epoch ms); returns how many. */
  prune(before: number, limit: number): MaybePromise<number>;
}

/** What one run pruned, by kind (and by price history name), and how long it took (ms of real time). */
export interface RetentionReport {
  /** The instant the cutoffs were counted back from (epoch ms). */
  at: number;
  pruned: Record<string, number>;
  durationMs: number;
}

/** Options of a {@link RetentionJob}. */
export interface RetentionJobOptions {
  store: Pick<HostStore, 'prune'>;
  policy: RetentionPolicy;
  histories?: readonly PrunedHistory[];
  /** The clock (epoch ms): cutoffs are counted back from it. */
  now: () => number;
  /** Whether this host runs the job now (on a cluster, the holder of partition 0's lease); default always. */
  leads?: () => boolean;
  /** Told each run's report (the log, the metrics). */
  onRun?: (report: RetentionReport) => void;
  /** Told a run's failure; the next run tries again. */
  onError?: (error: unknown) => void;
  /** Lets other work run between two batches (default: a turn of the event loop). */
  pause?: () => Promise<void>;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The first run comes this long after start at most: a host restarted more often than its interval still prunes. */
const FIRST_RUN_MAX_DELAY_MS = 60_000;

/**
 * Keeps the host's records bounded (docs/operations.md, "Retention"): every `policy.intervalMs` it deletes
 * what each kind keeps no longer, `policy.batch` rows per transaction, a turn of the event loop between
 * two, until a batch comes back short. One run at a time; a kind kept for ever (0) is skipped.
 */
export class RetentionJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionReport | undefined> | undefined;
  private stopped = false;

  constructor(private readonly options: RetentionJobOptions) {}

  /** Runs the job on a timer (unref'd: it never keeps the process alive). */
  start(): void {
    if (this.timer || this.stopped) return;
    const every = this.options.policy.intervalMs;
    const schedule = (delay: number) => {
      this.timer = setTimeout(() => {
        void this.runOnce().finally(() => {
          if (!this.stopped) schedule(every);
        });
      }, delay);
      this.timer.unref();
    };
    schedule(Math.min(every, FIRST_RUN_MAX_DELAY_MS));
  }

  /** Stops the timer, and a run in progress after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One run now (or the one in progress); undefined when this host does not lead or the job is stopped. */
  runOnce(): Promise<RetentionReport | undefined> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<RetentionReport | undefined> {
    const { store, policy, histories = [], now, leads = () => true, pause = nextTurn } = this.options;
    if (this.stopped || !leads()) return undefined;
    const started = now();
    const clock = performance.now();
    const pruned: Record<string, number> = {};
    const drain = async (name: string, batch: () => MaybePromise<number>) => {
      let total = 0;
      for (;;) {
        if (this.stopped) break;
        const count = await batch();
        total += count;
        if (count < policy.batch) break;
        await pause();
      }
      if (total > 0) pruned[name] = total;
    };
    try {
      for (const kind of RETENTION_KINDS) {
        const keepMs = policy[kind satisfies RetentionKind];
        if (keepMs <= 0) continue;
        const before = new Date(started - keepMs).toISOString();
        await drain(kind, () => store.prune(kind, before, policy.batch));
      }
      for (const history of histories) {
        if (history.keepMs <= 0 || !Number.isFinite(history.keepMs)) continue;
        await drain(history.name, () => history.prune(started - history.keepMs, policy.batch));
      }
    } catch (error) {
      this.options.onError?.(error);
      return undefined;
    }
    const report = { at: started, pruned, durationMs: performance.now() - clock };
    this.options.onRun?.(report);
    return report;
  }
}
