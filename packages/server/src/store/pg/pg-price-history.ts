import type pg from 'pg';
import { baseAsset, type Candle, CandleBuilder, type PriceHistory, type PriceObservation, type PriceTick, type PriceTopic } from '@eql/core';
import { storedText } from '../stored-text.js';

/** Options of a {@link PgPriceHistory}. */
export interface PgPriceHistoryOptions {
  /**
   * The cluster's fixed epoch (epoch ms), the same on every host: origins of smoothing are counted back
   * from it (see {@link PgPriceHistory.origin}), so they do not depend on when a host started.
   */
  epoch: number;
  /** Most candles of a timeframe an indicator is smoothed over (see `origin`). Default 1000, as SqlitePriceHistory. */
  maxCandles?: number;
  /** How long ticks are kept by {@link PgPriceHistory.pruneExpired}. Default 7 days. */
  retentionMs?: number;
}

/** A price observation with the sequence number the bus gave its message (strictly increasing). */
export interface SequencedPriceTick {
  /** The message sequence: among ticks of one instant, the order of the feed. A safe integer. */
  seq: number;
  /** The observation as the live feed delivered it. */
  observation: PriceObservation;
}

const DAY = 86_400_000;

/** The bucket start of `at` for a timeframe `$2` (floor, also for negative times), as CandleBuilder aligns. */
const BUCKET = 'at - ((at % $2) + $2) % $2';

/** Ticks with `$2 <= at < $3`, preceded by the last one before `$2`, in (at, seq) order. */
const TICKS_SQL = `
  SELECT at, price, volume FROM (
    (SELECT at, seq, price, volume FROM price_ticks WHERE asset = $1 AND at < $2 ORDER BY at DESC, seq DESC LIMIT 1)
    UNION ALL
    (SELECT at, seq, price, volume FROM price_ticks WHERE asset = $1 AND at >= $2 AND at < $3)
  ) AS ticks ORDER BY at, seq`;

/**
 * Candles of the ticks with `$3 <= at < $4` in buckets of `$2` ms: open and close the first and last
 * price by (at, seq), volumes added in that order (a float sum depends on it) with CandleBuilder's rule
 * that a volume that is not a finite positive number counts as 0 (in PostgreSQL NaN is above Infinity).
 */
const CANDLES_SQL = `
  SELECT start, prices[1] AS open, high, low, prices[cardinality(prices)] AS close, volume FROM (
    SELECT ${BUCKET} AS start, array_agg(price ORDER BY at, seq) AS prices, max(price) AS high, min(price) AS low,
      sum(CASE WHEN volume > 0 AND volume < 'Infinity' THEN volume ELSE 0 END ORDER BY at, seq) AS volume
    FROM price_ticks WHERE asset = $1 AND at >= $3 AND at < $4 GROUP BY 1
  ) AS buckets ORDER BY start`;

/** Deletes at most `$3` ticks of asset `$1` ordered before its last tick before `$2`, oldest first. */
const PRUNE_SQL = `
  WITH kept AS (SELECT at, seq FROM price_ticks WHERE asset = $1 AND at < $2 ORDER BY at DESC, seq DESC LIMIT 1)
  DELETE FROM price_ticks WHERE ctid IN (
    SELECT tick.ctid FROM price_ticks AS tick, kept WHERE tick.asset = $1 AND (tick.at, tick.seq) < (kept.at, kept.seq) ORDER BY tick.at, tick.seq LIMIT $3)`;

/** The assets that have ticks, by a loose scan of the primary key (one probe per asset). */
const ASSETS_SQL = `
  WITH RECURSIVE assets AS (
    (SELECT asset FROM price_ticks ORDER BY asset LIMIT 1)
    UNION ALL
    SELECT (SELECT asset FROM price_ticks WHERE asset > assets.asset ORDER BY asset LIMIT 1) FROM assets WHERE assets.asset IS NOT NULL
  ) SELECT asset FROM assets WHERE asset IS NOT NULL`;

const INSERT_SQL = `
  INSERT INTO price_ticks (asset, at, seq, price, volume)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::float8[], $5::float8[])
  ON CONFLICT DO NOTHING`;

/**
 * A tick the history refuses for what it holds (its sequence or time is no safe integer): writing it
 * again fails again. Its own class, so that a RangeError of anything else (a driver reading a broken
 * connection, say) is never taken for a refusal and its ticks dropped.
 */
export class RefusedTickError extends RangeError {
  override name = 'RefusedTickError';
}

/**
 * The cluster's shared, exact record of prices on PostgreSQL (table `price_ticks`, migration 2), and a
 * PriceHistory over it: every host of a cluster warms windows and indicators from the same raw ticks the
 * live feed gave, so a query moved from a killed host to another goes on exactly as if it had not moved.
 *
 * - Ticks are kept raw, per asset (`baseAsset`: BTC, BTC/USDT and BTC-PERP are one), ordered by their
 *   time and then by the bus sequence `seq` (ties at one instant keep the feed's order). Recording is
 *   idempotent on (asset, seq): a publisher that retries writes a tick once.
 * - `ticks` and `candles` answer as RecordingHistory does over the same observations; candles are
 *   built in SQL with CandleBuilder's rules (epoch-aligned buckets, open and close by order, gaps
 *   without candles, the last one partial).
 * - The origin of smoothing is fixed by the cluster's epoch, not by a host's start (see `origin`).
 *
 * The pool is the caller's (the host store's): this class never closes it.
 */
export class PgPriceHistory implements PriceHistory {
  /** The history's name in states and logs. */
  readonly name = 'store';
  /** The cluster's fixed epoch (epoch ms). */
  readonly epoch: number;
  /** Most candles of a timeframe an indicator is smoothed over. */
  readonly maxCandles: number;
  /** How long {@link PgPriceHistory.pruneExpired} keeps ticks (ms). */
  readonly retentionMs: number;

  /**
   * @param pool a pool whose schema (`search_path`) is migrated to version 2 or later (PgHostStore.open does it).
   * @param options the cluster's epoch, and optionally `maxCandles` and `retentionMs`.
   */
  constructor(
    private readonly pool: pg.Pool,
    options: PgPriceHistoryOptions,
  ) {
    if (!Number.isFinite(options.epoch)) throw new RangeError(`invalid epoch: ${options.epoch}`);
    this.epoch = options.epoch;
    this.maxCandles = options.maxCandles ?? 1000;
    this.retentionMs = options.retentionMs ?? 7 * DAY;
  }

  /**
   * Stores ticks in one statement (one transaction), durably once the promise resolves. A tick whose
   * (asset, seq) is stored already is left as it is. Observations the engine ignores (a price that is
   * not a finite positive number, a time that is not finite) are not stored; a missing volume is 0.
   * Throws a {@link RefusedTickError}, storing nothing, for a `seq` or a time that is not a safe integer (ms).
   */
  async record(ticks: ReadonlyArray<SequencedPriceTick>): Promise<void> {
    const assets: string[] = [];
    const times: number[] = [];
    const seqs: number[] = [];
    const prices: number[] = [];
    const volumes: number[] = [];
    for (const { seq, observation } of ticks) {
      const { at, price } = observation;
      if (!Number.isFinite(price) || price <= 0 || !Number.isFinite(at)) continue;
      if (!Number.isSafeInteger(seq)) throw new RefusedTickError(`invalid tick sequence: ${seq}`);
      if (!Number.isSafeInteger(at)) throw new RefusedTickError(`tick ${seq}: time ${at} is not a whole number of ms`);
      // A symbol from the bus is not the caller's request: a NUL in it is kept as U+FFFD (stored-text.ts).
      assets.push(storedText(baseAsset(observation.symbol)));
      times.push(at);
      seqs.push(seq);
      prices.push(price);
      volumes.push(observation.volume ?? 0);
    }
    if (assets.length > 0) await this.pool.query(INSERT_SQL, [assets, times, seqs, prices, volumes]);
  }

  /** Every price topic: an asset without ticks answers nothing. */
  supports(topic: PriceTopic): boolean {
    return topic.source === 'price';
  }

  /**
   * The later of the bucket start of the asset's first stored tick and the start of the bucket
   * `maxCandles` candles before the epoch: the same on every host and for every query (while the ticks
   * from it are kept). Undefined when the asset has no tick.
   */
  async origin(topic: PriceTopic, timeframeMs: number): Promise<number | undefined> {
    const builder = new CandleBuilder(timeframeMs);
    const { rows } = await this.pool.query<{ first: string | null }>('SELECT min(at) AS first FROM price_ticks WHERE asset = $1', [baseAsset(topic.symbol)]);
    const first = rows[0]?.first;
    if (first === null || first === undefined) return undefined;
    const anchor = builder.bucketStart(this.epoch - this.maxCandles * timeframeMs);
    return Math.max(builder.bucketStart(Number(first)), anchor);
  }

  /** Ticks with `from <= at < to` in (at, seq) order, preceded by the last tick before `from` (see PriceHistory). */
  async ticks(topic: PriceTopic, from: number, to: number): Promise<PriceTick[]> {
    const { rows } = await this.pool.query<{ at: string; price: number; volume: number }>(TICKS_SQL, [baseAsset(topic.symbol), bound(from), bound(to)]);
    return rows.map((row) => ({ at: Number(row.at), price: row.price, volume: row.volume }));
  }

  /**
   * Candles of `timeframeMs` whose start is in `[from, to)`, built from the ticks before `to` only (the
   * last one partial when `to` falls inside its bucket); buckets without ticks have no candle.
   */
  async candles(topic: PriceTopic, timeframeMs: number, from: number, to: number): Promise<Candle[]> {
    // The first whole bucket at or after `from`, as candlesFromTicks starts (the builder checks the timeframe).
    const start = new CandleBuilder(timeframeMs).bucketStart(from);
    const first = start < from ? start + timeframeMs : start;
    const { rows } = await this.pool.query<{ start: string; open: number; high: number; low: number; close: number; volume: number }>(CANDLES_SQL, [
      baseAsset(topic.symbol),
      timeframeMs,
      bound(first),
      bound(to),
    ]);
    return rows.map((row) => ({ start: Number(row.start), open: row.open, high: row.high, low: row.low, close: row.close, volume: row.volume }));
  }

  /**
   * Deletes the ticks older than `before`, except each asset's last one before it (so `ticks(t, t)` and
   * the reference price of a window starting at `before` still answer), at most `limit` of them, oldest
   * first per asset. Returns how many were deleted: the retention job calls again until fewer than
   * `limit` come back, so the hosts writing ticks never wait behind one long delete.
   */
  async prune(before: number, limit = Number.MAX_SAFE_INTEGER): Promise<number> {
    const cutoff = bound(before);
    // The assets by a walk of the (asset, at, seq) index: a handful of probes, not a scan of the ticks.
    const { rows: assets } = await this.pool.query<{ asset: string }>(ASSETS_SQL);
    let pruned = 0;
    for (const { asset } of assets) {
      if (pruned >= limit) break;
      pruned += (await this.pool.query(PRUNE_SQL, [asset, cutoff, Math.min(limit - pruned, Number.MAX_SAFE_INTEGER)])).rowCount ?? 0;
    }
    return pruned;
  }

  /** Prunes what is older than `retentionMs` before `now` (default the clock). */
  pruneExpired(now: number = Date.now()): Promise<number> {
    return this.prune(now - this.retentionMs);
  }
}

/**
 * A time bound as a BIGINT parameter: ticks have whole-ms times, so `at >= t` and `at < t` are `at >= ceil(t)`
 * and `at < ceil(t)`; infinite bounds become the farthest safe integers.
 */
function bound(at: number): number {
  if (Number.isNaN(at)) throw new RangeError('a time bound is NaN');
  return Math.min(Math.max(Math.ceil(at), Number.MIN_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
}
