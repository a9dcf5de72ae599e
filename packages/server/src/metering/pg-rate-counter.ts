import type pg from 'pg';
import { MemoryWindowCounter, type WindowCount, type WindowCounter } from '@eql/x402';

/** Where {@link PgRateCounter} reports that PostgreSQL failed (pino's argument order: a Fastify logger fits). */
export interface RateLimitLog {
  /** Logs a warning with structured `fields`. */
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Options of {@link PgRateCounter}. */
export interface PgRateCounterOptions {
  /** Where a failure of PostgreSQL is reported (at most once a minute, with the number of failures since). */
  log?: RateLimitLog;
  /** What every key of this counter starts with in the table (`request:`, `x402:`); default none. */
  prefix?: string;
  /** How often ended windows are deleted, at most (ms; default 60000): by a hit, in the background. */
  pruneEveryMs?: number;
}

/** What the views of one counter share: the pool, the log, when it last pruned and warned. */
interface Shared {
  pool: pg.Pool;
  log: RateLimitLog | undefined;
  pruneEveryMs: number;
  lastPrune: number;
  lastWarning: number;
  /** Failures not reported yet (they came within a minute of the last warning). */
  unreported: number;
}

const WARN_EVERY_MS = 60_000;

// One statement per hit: the upsert takes the row's lock, so hits of one key from several hosts are
// counted one after another. Times are the database's (`now()`), so the hosts' clocks do not matter.
// `now()` is when the statement began: one that waited for the row's lock may find a window opened
// after it began, so its time left is capped at the window.
const TTL_MS = 'GREATEST(0, CEIL(EXTRACT(EPOCH FROM (expires_at - now())) * 1000))::float8';
const HIT = `INSERT INTO rate_limits AS r (key, count, expires_at) VALUES ($1, 1, now() + $2::float8 * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN r.expires_at <= now() THEN 1 ELSE r.count + 1 END,
    expires_at = CASE WHEN r.expires_at <= now() THEN EXCLUDED.expires_at ELSE r.expires_at END
  RETURNING count::float8 AS count, LEAST($2::float8, ${TTL_MS}) AS ttl`;
const UNHIT = 'UPDATE rate_limits SET count = GREATEST(count - 1, 0) WHERE key = $1 AND expires_at > now()';
const PEEK = `SELECT count::float8 AS count, ${TTL_MS} AS ttl FROM rate_limits WHERE key = $1 AND expires_at > now()`;
const PRUNE = 'DELETE FROM rate_limits WHERE expires_at <= now()';

interface CountRow {
  count: number;
  ttl: number;
}

/**
 * Fixed-window rate counters in the `rate_limits` table of the PostgreSQL store (migration 4), shared by
 * every host on the database: one atomic statement per hit (an upsert that opens a new window when the
 * last one ended), timed by the database's clock. The host's request limits (`requestLimits`,
 * metering/request-limits.ts) and the x402 limit on refused signatures (`PaymentRateLimiter`, as
 * its `counter`) count here, under the prefixes `request:` and `x402:` ({@link PgRateCounter.withPrefix}).
 * The table is UNLOGGED: counters of a minute need no durability, and a crash of PostgreSQL only
 * restarts the windows. Ended windows are deleted in the background by a hit, at most once a minute.
 *
 * When PostgreSQL fails (unreachable, a statement refused), the request is not failed: it is counted
 * in this process's memory instead (a {@link MemoryWindowCounter}, the bound per process as on SQLite)
 * and a warning is logged, at most once a minute. Counting returns to the table when it answers again.
 */
export class PgRateCounter implements WindowCounter {
  private shared: Shared;
  private readonly prefix: string;
  /** Counts while PostgreSQL fails, in memory (per process). */
  private readonly fallback = new MemoryWindowCounter();

  constructor(pool: pg.Pool, options: PgRateCounterOptions = {}) {
    this.shared = { pool, log: options.log, pruneEveryMs: options.pruneEveryMs ?? 60_000, lastPrune: -Infinity, lastWarning: -Infinity, unreported: 0 };
    this.prefix = options.prefix ?? '';
  }

  /** A counter on the same table, log and pruning whose keys start with `prefix` (instead of this one's). */
  withPrefix(prefix: string): PgRateCounter {
    const view = new PgRateCounter(this.shared.pool, { prefix });
    view.shared = this.shared;
    return view;
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    this.pruneInBackground();
    return this.guarded(
      'hit',
      async () => countOf((await this.shared.pool.query<CountRow>(HIT, [this.prefix + key, windowMs])).rows[0]),
      () => this.fallback.hit(key, windowMs),
    );
  }

  async unhit(key: string): Promise<void> {
    await this.guarded(
      'unhit',
      async () => {
        await this.shared.pool.query(UNHIT, [this.prefix + key]);
      },
      () => this.fallback.unhit(key),
    );
  }

  async peek(key: string): Promise<WindowCount> {
    return this.guarded('peek', async () => countOf((await this.shared.pool.query<CountRow>(PEEK, [this.prefix + key])).rows[0]), () => this.fallback.peek(key));
  }

  /** Deletes the ended windows (of every prefix); returns how many. A hit calls it, at most once per `pruneEveryMs`. */
  async prune(): Promise<number> {
    this.shared.lastPrune = Date.now();
    return (await this.shared.pool.query(PRUNE)).rowCount ?? 0;
  }

  private pruneInBackground(): void {
    if (Date.now() - this.shared.lastPrune < this.shared.pruneEveryMs) return;
    // A failure here is one of the table: the hit reports it.
    this.prune().catch(() => undefined);
  }

  private async guarded<T>(operation: string, inTable: () => Promise<T>, inMemory: () => T): Promise<T> {
    try {
      return await inTable();
    } catch (error) {
      this.warn(operation, error);
      return inMemory();
    }
  }

  private warn(operation: string, error: unknown): void {
    const { shared } = this;
    shared.unreported += 1;
    const now = Date.now();
    if (now - shared.lastWarning < WARN_EVERY_MS) return;
    shared.lastWarning = now;
    const failures = shared.unreported;
    shared.unreported = 0;
    shared.log?.warn(
      { operation, failures, error: error instanceof Error ? error.message : String(error) },
      'rate limits: PostgreSQL failed; counting in this process only (the limits hold per process) until it answers',
    );
  }
}

function countOf(row: CountRow | undefined): WindowCount {
  return row ? { count: Number(row.count), ttlMs: Number(row.ttl) } : { count: 0, ttlMs: 0 };
}
