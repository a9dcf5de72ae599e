import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { baseAsset, bucketStartOf, type Candle, firstBucketStartFrom, type PriceHistory, type PriceObservation, type PriceTick, type PriceTopic } from '@eql/core';
import { storedText } from './stored-text.js';

/** A minute of one asset as stored: its candle and the times of its first and last trades. */
export interface StoredMinute {
  start: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /** Times of the trades that set the open and the close. */
  openAt: number;
  closeAt: number;
}

const MINUTE = 60_000;
/** The resolutions kept: minutes, and rollups so that a long timeframe reads few rows (1h candles from 1h rows). */
const RESOLUTIONS = [MINUTE, 15 * MINUTE, 60 * MINUTE, 1440 * MINUTE] as const;

/** Options of a {@link SqlitePriceHistory}: how long prices are kept, how many candles a series may need, and its clock. */
export interface SqlitePriceHistoryOptions {
  /** What is kept per asset (older rows are pruned as new ones are written). Default 60 days. */
  retentionMs?: number;
  /** Most candles of a timeframe an indicator is smoothed over (see `origin`). Default 1000. */
  maxCandles?: number;
  /** The clock (epoch ms), read once: the origins are fixed from it. */
  now?: () => number;
}

/**
 * The host's own record of the prices it observed, as one-minute candles per asset in SQLite, and a
 * PriceHistory over it: after a restart (or for a symbol first watched by an earlier query) windows and
 * indicators start warm from what the host saw before.
 *
 * - `record(observation)` folds a price into the minute it falls in; a minute is written when a later
 *   one starts (and by `flush()`, at shutdown), so a write per asset per minute, in one transaction per
 *   flush, whatever the tick rate. A crash loses at most the minute in progress.
 * - Candles of every timeframe are built from the stored candles of the largest resolution that divides
 *   it (1m, 15m, 1h, 1d: every timeframe is a whole number of those and buckets align), so a 4h series
 *   reads 1h rows. Ticks for price windows come at minute resolution: each minute gives its open at its
 *   first trade, its low and high just after, and its close at its last trade with the minute's volume
 *   (exact for a minute of one or two trades).
 * - The origin of smoothing of a timeframe is the later of the asset's first stored minute and
 *   `maxCandles` candles before this instance was made (the host's start): fixed for the life of the
 *   process, so every query on a series agrees; across restarts values agree to 1e-9 once `maxCandles`
 *   covers the method's convergence look-back (at most 404 candles with default parameters).
 */
export class SqlitePriceHistory implements PriceHistory {
  readonly name = 'store';
  readonly db: Database.Database;
  private readonly open = new Map<string, StoredMinute>();
  /** Whether an asset has prices, as last looked up (recording one makes it true). */
  private readonly assets = new Map<string, boolean>();
  private readonly hasAsset: Database.Statement;
  /** How long minutes are kept (ms). */
  readonly retentionMs: number;
  private readonly maxCandles: number;
  private readonly createdAt: number;
  private readonly insert: Database.Statement;
  private readonly pruneOld: Database.Statement;
  /** The statements of {@link SqlitePriceHistory.prune}, prepared at its first call. */
  private pruning: { nextAsset: Database.Statement; doomed: Database.Statement } | undefined;
  private readonly range: Database.Statement;
  private readonly before: Database.Statement;
  private readonly first: Database.Statement;
  private readonly writeMinutes: (minutes: Array<[string, StoredMinute]>) => void;

  constructor(path: string, options: SqlitePriceHistoryOptions = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS price_candles (
      asset TEXT NOT NULL, res INTEGER NOT NULL, start INTEGER NOT NULL, open REAL NOT NULL, high REAL NOT NULL, low REAL NOT NULL,
      close REAL NOT NULL, volume REAL NOT NULL, open_at INTEGER NOT NULL, close_at INTEGER NOT NULL, PRIMARY KEY (asset, res, start)) WITHOUT ROWID`);
    this.retentionMs = options.retentionMs ?? 60 * 86_400_000;
    this.maxCandles = options.maxCandles ?? 1000;
    this.createdAt = (options.now ?? Date.now)();
    this.insert = this.db.prepare(
      `INSERT INTO price_candles (asset, res, start, open, high, low, close, volume, open_at, close_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (asset, res, start) DO UPDATE SET high = max(high, excluded.high), low = min(low, excluded.low),
         open = CASE WHEN excluded.open_at < open_at THEN excluded.open ELSE open END, open_at = min(open_at, excluded.open_at),
         close = CASE WHEN excluded.close_at >= close_at THEN excluded.close ELSE close END,
         close_at = max(close_at, excluded.close_at), volume = volume + excluded.volume`,
    );
    this.pruneOld = this.db.prepare('DELETE FROM price_candles WHERE asset = ? AND res = ? AND start < ?');
    const columns = 'start, open, high, low, close, volume, open_at AS openAt, close_at AS closeAt';
    this.range = this.db.prepare(`SELECT ${columns} FROM price_candles WHERE asset = ? AND res = ? AND start >= ? AND start < ? ORDER BY start`);
    this.before = this.db.prepare(`SELECT ${columns} FROM price_candles WHERE asset = ? AND res = ${MINUTE} AND start < ? ORDER BY start DESC LIMIT 1`);
    this.first = this.db.prepare(`SELECT min(start) AS start FROM price_candles WHERE asset = ? AND res = ${MINUTE}`);
    // Looked up per asset when asked (a primary-key probe), not listed at start: the table may hold millions of rows.
    this.hasAsset = this.db.prepare('SELECT 1 FROM price_candles WHERE asset = ? LIMIT 1');
    this.writeMinutes = this.db.transaction((minutes: Array<[string, StoredMinute]>) => {
      for (const [asset, m] of minutes) {
        for (const res of RESOLUTIONS) this.insert.run(asset, res, Math.floor(m.start / res) * res, m.open, m.high, m.low, m.close, m.volume, m.openAt, m.closeAt);
        // Old rows go once an hour per asset (cheap: the primary key orders them).
        if (m.start % (60 * MINUTE) === 0) for (const res of RESOLUTIONS) this.pruneOld.run(asset, res, m.start - this.retentionMs);
      }
    });
  }

  /** Folds an observed price into its minute; the previous minute of the asset is written when a later one starts. */
  record(observation: PriceObservation): void {
    const { at, price } = observation;
    if (!Number.isFinite(at) || !(price > 0) || !Number.isFinite(price)) return;
    // A symbol from a feed or the bus is not the caller's request: a NUL in it is kept as U+FFFD (stored-text.ts).
    const asset = storedText(baseAsset(observation.symbol));
    const volume = observation.volume !== undefined && Number.isFinite(observation.volume) && observation.volume > 0 ? observation.volume : 0;
    const start = Math.floor(at / MINUTE) * MINUTE;
    const current = this.open.get(asset);
    if (current && current.start === start) {
      if (price > current.high) current.high = price;
      if (price < current.low) current.low = price;
      if (at < current.openAt) {
        current.open = price;
        current.openAt = at;
      }
      if (at >= current.closeAt) {
        current.close = price;
        current.closeAt = at;
      }
      current.volume += volume;
      return;
    }
    if (current && start < current.start) return; // late: that minute is written
    if (current) this.writeMinutes([[asset, current]]);
    this.assets.set(asset, true);
    this.open.set(asset, { start, open: price, high: price, low: price, close: price, volume, openAt: at, closeAt: at });
  }

  /** Writes minutes as they are (an import of past prices), in one transaction. */
  importMinutes(minutes: Array<[asset: string, minute: StoredMinute]>): void {
    const stored = minutes.map(([asset, minute]): [string, StoredMinute] => [storedText(baseAsset(asset)), minute]);
    for (const [asset] of stored) this.assets.set(asset, true);
    this.writeMinutes(stored);
  }

  /**
   * Deletes at most `limit` stored candles whose whole bucket ends at or before `before` (epoch ms), oldest
   * first per asset and resolution, and returns how many (the retention job calls again until fewer come
   * back). Assets are walked along the primary key, never by scanning the table.
   */
  prune(before: number, limit: number): number {
    let pruned = 0;
    const { nextAsset, doomed } = (this.pruning ??= {
      nextAsset: this.db.prepare('SELECT asset FROM price_candles WHERE asset > ? ORDER BY asset LIMIT 1').pluck(),
      doomed: this.db.prepare(
        'DELETE FROM price_candles WHERE asset = ? AND res = ? AND start IN (SELECT start FROM price_candles WHERE asset = ? AND res = ? AND start <= ? ORDER BY start LIMIT ?)',
      ),
    });
    let asset = nextAsset.get('') as string | undefined;
    // An asset is walked from '' (every asset sorts after it but the empty one, which storedText never keeps).
    while (asset !== undefined && pruned < limit) {
      for (const res of RESOLUTIONS) {
        if (pruned >= limit) break;
        pruned += doomed.run(asset, res, asset, res, before - res, limit - pruned).changes;
      }
      asset = nextAsset.get(asset) as string | undefined;
    }
    return pruned;
  }

  /** Writes every minute in progress (at shutdown). */
  flush(): void {
    const minutes = [...this.open.entries()];
    this.open.clear();
    if (minutes.length > 0) this.writeMinutes(minutes);
  }

  /** Writes the minutes in progress ({@link SqlitePriceHistory.flush}) and closes the database. */
  close(): void {
    this.flush();
    this.db.close();
  }

  supports(topic: PriceTopic): boolean {
    const asset = baseAsset(topic.symbol);
    let known = this.assets.get(asset);
    if (known === undefined) {
      known = this.hasAsset.get(asset) !== undefined;
      this.assets.set(asset, known);
    }
    return known;
  }

  origin(topic: PriceTopic, timeframeMs: number): number | undefined {
    const asset = baseAsset(topic.symbol);
    const stored = (this.first.get(asset) as { start: number | null } | undefined)?.start ?? undefined;
    const open = this.open.get(asset)?.start;
    const first = stored === undefined ? open : open === undefined ? stored : Math.min(stored, open);
    if (first === undefined) return undefined;
    const anchor = bucketStartOf(this.createdAt - this.maxCandles * timeframeMs, timeframeMs);
    return Math.max(first, anchor);
  }

  candles(topic: PriceTopic, timeframeMs: number, from: number, to: number): Candle[] {
    const first = firstBucketStartFrom(from, timeframeMs);
    const res = [...RESOLUTIONS].reverse().find((candidate) => timeframeMs % candidate === 0) ?? MINUTE;
    const candles: Candle[] = [];
    let bucket: { start: number; open: number; high: number; low: number; close: number; volume: number } | undefined;
    for (const row of this.rows(baseAsset(topic.symbol), res, first, to)) {
      const start = bucketStartOf(row.start, timeframeMs);
      if (bucket && bucket.start === start) {
        if (row.high > bucket.high) bucket.high = row.high;
        if (row.low < bucket.low) bucket.low = row.low;
        bucket.close = row.close;
        bucket.volume += row.volume;
        continue;
      }
      if (bucket) candles.push(bucket);
      bucket = { start, open: row.open, high: row.high, low: row.low, close: row.close, volume: row.volume };
    }
    if (bucket) candles.push(bucket);
    return candles;
  }

  ticks(topic: PriceTopic, from: number, to: number): PriceTick[] {
    const asset = baseAsset(topic.symbol);
    const start = Math.floor(from / MINUTE) * MINUTE;
    const previous = this.minuteBefore(asset, start);
    let reference: PriceTick | undefined;
    const ticks: PriceTick[] = [];
    for (const minute of previous ? [previous, ...this.minutes(asset, start, to)] : this.minutes(asset, start, to)) {
      for (const tick of minuteTicks(minute)) {
        if (tick.at < from) reference = tick;
        else if (tick.at < to) ticks.push(tick);
      }
    }
    return reference ? [reference, ...ticks] : ticks;
  }

  /** The stored minutes with start in [from, to), then the one in progress. */
  private minutes(asset: string, from: number, to: number): StoredMinute[] {
    return this.rows(asset, MINUTE, from, to);
  }

  /** Stored candles of a resolution with start in [from, to), the minute in progress folded into the last. */
  private rows(asset: string, res: number, from: number, to: number): StoredMinute[] {
    const rows = this.range.all(asset, res, from, to) as StoredMinute[];
    const open = this.open.get(asset);
    if (!open || open.start >= to) return rows;
    const start = Math.floor(open.start / res) * res;
    if (start < from) return rows;
    const last = rows[rows.length - 1];
    if (last === undefined || last.start < start) rows.push({ ...open, start });
    else if (last.start === start && open.closeAt >= last.closeAt) {
      rows[rows.length - 1] = { ...last, high: Math.max(last.high, open.high), low: Math.min(last.low, open.low), close: open.close, closeAt: open.closeAt, volume: last.volume + open.volume };
    }
    return rows;
  }

  /** The last minute (stored or in progress) that starts before `start`. */
  private minuteBefore(asset: string, start: number): StoredMinute | undefined {
    const open = this.open.get(asset);
    const stored = this.before.get(asset, start) as StoredMinute | undefined;
    if (open && open.start < start && (!stored || open.start > stored.start)) return { ...open };
    return stored;
  }
}

/**
 * The ticks a stored minute stands for: its open at the first trade's time, its low and high between,
 * its close at the last trade's time with the minute's volume; one tick for a minute of one trade.
 */
function minuteTicks(minute: StoredMinute): PriceTick[] {
  if (minute.openAt >= minute.closeAt) return [{ at: minute.closeAt, price: minute.close, volume: minute.volume }];
  const inside = Math.min(minute.openAt + 1, minute.closeAt);
  const ticks: PriceTick[] = [{ at: minute.openAt, price: minute.open }];
  if (minute.low !== minute.open && minute.low !== minute.close) ticks.push({ at: inside, price: minute.low });
  if (minute.high !== minute.open && minute.high !== minute.close) ticks.push({ at: inside, price: minute.high });
  ticks.push({ at: minute.closeAt, price: minute.close, volume: minute.volume });
  return ticks;
}
