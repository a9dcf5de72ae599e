import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { baseAsset, type Candle, type PriceHistory, type PriceObservation, type PriceTick, type PriceTopic } from '@eql/core';

/** A minute of one asset as stored: its candle and the time of its last trade. */
interface Minute {
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

export interface SqlitePriceHistoryOptions {
  /** Minutes kept per asset (older ones are pruned as new ones are written). Default 60 days. */
  retentionMs?: number;
}

/**
 * The host's own record of the prices it observed, as one-minute candles per asset in SQLite, and a
 * PriceHistory over it: after a restart (or for a symbol first watched by an earlier query) windows and
 * indicators start warm from what the host saw before.
 *
 * - `record(observation)` folds a price into the minute it falls in; a minute is written when a later
 *   one starts (and by `flush()`, at shutdown), so a write per asset per minute, in one transaction per
 *   flush, whatever the tick rate. A crash loses at most the minute in progress.
 * - Candles of every timeframe are built from the minutes (every timeframe is a whole number of minutes
 *   and its buckets start on minute boundaries). Ticks for price windows come at minute resolution: each
 *   minute gives its open at its first trade, its low and high just after, and its close at its last
 *   trade with the minute's volume (exact for a minute of one or two trades).
 * - The origin of smoothing of an asset is its first stored minute: fixed while retention keeps it.
 */
export class SqlitePriceHistory implements PriceHistory {
  readonly name = 'store';
  readonly db: Database.Database;
  private readonly open = new Map<string, Minute>();
  private readonly assets = new Set<string>();
  private readonly retentionMs: number;
  private readonly insert: Database.Statement;
  private readonly prune: Database.Statement;
  private readonly range: Database.Statement;
  private readonly before: Database.Statement;
  private readonly first: Database.Statement;
  private readonly writeMinutes: (minutes: Array<[string, Minute]>) => void;

  constructor(path: string, options: SqlitePriceHistoryOptions = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS price_minutes (
      asset TEXT NOT NULL, start INTEGER NOT NULL, open REAL NOT NULL, high REAL NOT NULL, low REAL NOT NULL,
      close REAL NOT NULL, volume REAL NOT NULL, open_at INTEGER NOT NULL, close_at INTEGER NOT NULL, PRIMARY KEY (asset, start)) WITHOUT ROWID`);
    this.retentionMs = options.retentionMs ?? 60 * 86_400_000;
    this.insert = this.db.prepare(
      `INSERT INTO price_minutes (asset, start, open, high, low, close, volume, open_at, close_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (asset, start) DO UPDATE SET high = max(high, excluded.high), low = min(low, excluded.low),
         open = CASE WHEN excluded.open_at < open_at THEN excluded.open ELSE open END, open_at = min(open_at, excluded.open_at),
         close = CASE WHEN excluded.close_at >= close_at THEN excluded.close ELSE close END,
         close_at = max(close_at, excluded.close_at), volume = volume + excluded.volume`,
    );
    this.prune = this.db.prepare('DELETE FROM price_minutes WHERE asset = ? AND start < ?');
    this.range = this.db.prepare('SELECT start, open, high, low, close, volume, open_at AS openAt, close_at AS closeAt FROM price_minutes WHERE asset = ? AND start >= ? AND start < ? ORDER BY start');
    this.before = this.db.prepare('SELECT start, open, high, low, close, volume, open_at AS openAt, close_at AS closeAt FROM price_minutes WHERE asset = ? AND start < ? ORDER BY start DESC LIMIT 1');
    this.first = this.db.prepare('SELECT min(start) AS start FROM price_minutes WHERE asset = ?');
    for (const row of this.db.prepare('SELECT DISTINCT asset FROM price_minutes').all() as Array<{ asset: string }>) this.assets.add(row.asset);
    this.writeMinutes = this.db.transaction((minutes: Array<[string, Minute]>) => {
      for (const [asset, m] of minutes) {
        this.insert.run(asset, m.start, m.open, m.high, m.low, m.close, m.volume, m.openAt, m.closeAt);
        this.prune.run(asset, m.start - this.retentionMs);
      }
    });
  }

  /** Folds an observed price into its minute; the previous minute of the asset is written when a later one starts. */
  record(observation: PriceObservation): void {
    const { at, price } = observation;
    if (!Number.isFinite(at) || !(price > 0) || !Number.isFinite(price)) return;
    const asset = baseAsset(observation.symbol);
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
    this.assets.add(asset);
    this.open.set(asset, { start, open: price, high: price, low: price, close: price, volume, openAt: at, closeAt: at });
  }

  /** Writes every minute in progress (at shutdown). */
  flush(): void {
    const minutes = [...this.open.entries()];
    this.open.clear();
    if (minutes.length > 0) this.writeMinutes(minutes);
  }

  close(): void {
    this.flush();
    this.db.close();
  }

  supports(topic: PriceTopic): boolean {
    return this.assets.has(baseAsset(topic.symbol));
  }

  origin(topic: PriceTopic): number | undefined {
    const asset = baseAsset(topic.symbol);
    const stored = (this.first.get(asset) as { start: number | null } | undefined)?.start ?? undefined;
    const open = this.open.get(asset)?.start;
    if (stored === undefined) return open;
    return open === undefined ? stored : Math.min(stored, open);
  }

  candles(topic: PriceTopic, timeframeMs: number, from: number, to: number): Candle[] {
    const first = Math.ceil(from / timeframeMs) * timeframeMs;
    const candles: Candle[] = [];
    let bucket: { start: number; open: number; high: number; low: number; close: number; volume: number } | undefined;
    for (const minute of this.minutes(baseAsset(topic.symbol), first, to)) {
      const start = Math.floor(minute.start / timeframeMs) * timeframeMs;
      if (bucket && bucket.start === start) {
        if (minute.high > bucket.high) bucket.high = minute.high;
        if (minute.low < bucket.low) bucket.low = minute.low;
        bucket.close = minute.close;
        bucket.volume += minute.volume;
        continue;
      }
      if (bucket) candles.push(bucket);
      bucket = { start, open: minute.open, high: minute.high, low: minute.low, close: minute.close, volume: minute.volume };
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
  private minutes(asset: string, from: number, to: number): Minute[] {
    const rows = this.range.all(asset, from, to) as Minute[];
    const open = this.open.get(asset);
    if (open && open.start >= from && open.start < to && (rows.length === 0 || (rows[rows.length - 1] as Minute).start < open.start)) rows.push({ ...open });
    return rows;
  }

  /** The last minute (stored or in progress) that starts before `start`. */
  private minuteBefore(asset: string, start: number): Minute | undefined {
    const open = this.open.get(asset);
    const stored = this.before.get(asset, start) as Minute | undefined;
    if (open && open.start < start && (!stored || open.start > stored.start)) return { ...open };
    return stored;
  }
}

/**
 * The ticks a stored minute stands for: its open at the first trade's time, its low and high between,
 * its close at the last trade's time with the minute's volume; one tick for a minute of one trade.
 */
function minuteTicks(minute: Minute): PriceTick[] {
  if (minute.openAt >= minute.closeAt) return [{ at: minute.closeAt, price: minute.close, volume: minute.volume }];
  const inside = Math.min(minute.openAt + 1, minute.closeAt);
  const ticks: PriceTick[] = [{ at: minute.openAt, price: minute.open }];
  if (minute.low !== minute.open && minute.low !== minute.close) ticks.push({ at: inside, price: minute.low });
  if (minute.high !== minute.open && minute.high !== minute.close) ticks.push({ at: inside, price: minute.high });
  ticks.push({ at: minute.closeAt, price: minute.close, volume: minute.volume });
  return ticks;
}
