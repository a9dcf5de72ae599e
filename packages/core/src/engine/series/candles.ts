import { type Timeframe } from '../../generated/eql-types.js';

/** One OHLCV candle. `start` is the epoch-ms start of its bucket; `volume` is the summed tick volume. */
export interface Candle {
  readonly start: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Length in milliseconds of every candle timeframe of the language (docs/semantics.md section 2). */
export const TIMEFRAME_MS = {
  '1m': MINUTE,
  '3m': 3 * MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '1h': HOUR,
  '2h': 2 * HOUR,
  '4h': 4 * HOUR,
  '6h': 6 * HOUR,
  '8h': 8 * HOUR,
  '12h': 12 * HOUR,
  '1d': DAY,
  '3d': 3 * DAY,
  '1w': 7 * DAY,
} as const satisfies Record<Timeframe, number>;

/** Whether `tf` is one of the language's timeframes (`1m` ... `1w`). */
export function isTimeframe(tf: string): tf is Timeframe {
  return Object.hasOwn(TIMEFRAME_MS, tf);
}

/**
 * The length of a timeframe in milliseconds: `timeframeMs('1h') === 3_600_000`.
 * Throws a RangeError for anything that is not a language timeframe (the validator refuses those
 * before a query reaches the engine).
 */
export function timeframeMs(tf: string): number {
  if (!isTimeframe(tf)) throw new RangeError(`unknown timeframe: ${JSON.stringify(tf)}`);
  return TIMEFRAME_MS[tf];
}

/**
 * Where weekly buckets are counted from: Monday 1970-01-05 00:00 UTC, so that a `1w` candle starts on a
 * Monday as charts and exchanges draw them (counted from the epoch, a Thursday, they would start on
 * Thursdays).
 */
export const WEEK_ANCHOR_MS = 4 * DAY;

/**
 * The start of the bucket of `tf` ms that holds instant `at`: `floor(at / tf) * tf` counted from the epoch,
 * weeks (`1w`) counted from {@link WEEK_ANCHOR_MS}. Every timeframe up to `1d` starts on UTC boundaries,
 * `3d` buckets are counted from 1970-01-01, `1w` buckets start on Mondays 00:00 UTC.
 */
export function bucketStartOf(at: number, tf: number): number {
  const anchor = tf === TIMEFRAME_MS['1w'] ? WEEK_ANCHOR_MS : 0;
  return Math.floor((at - anchor) / tf) * tf + anchor;
}

/** The start of the first bucket of `tf` ms that begins at or after `at`. */
export function firstBucketStartFrom(at: number, tf: number): number {
  const start = bucketStartOf(at, tf);
  return start === at ? start : start + tf;
}

interface OpenCandle {
  start: number;
  /** Times of the ticks that set the open and the close. */
  openAt: number;
  closeAt: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/**
 * Builds the candles of one timeframe from a stream of trade ticks.
 *
 * - **Buckets** are aligned to the Unix epoch: a tick at `at` belongs to the bucket starting at
 *   {@link bucketStartOf}`(at, tf)`. Every timeframe up to `1d` therefore starts on UTC boundaries; `3d`
 *   buckets are counted from 1970-01-01, and `1w` buckets start on Mondays 00:00 UTC, as exchanges'
 *   weekly candles do.
 * - **Closing**: a candle is closed, and returned by `add`, by the first tick of a later bucket (or by
 *   `advance` once the clock has passed its end). Only closed candles are final; `current()` shows the
 *   forming one.
 * - **Gaps**: buckets without ticks produce no candle. A tick several buckets after the open candle
 *   closes just that one candle and opens its own bucket; nothing is filled in between (an indicator
 *   then sees consecutive candles with a time gap, as exchanges report them for illiquid markets).
 * - **Out-of-order ticks**: a tick in a bucket before the open candle's (or, after `advance`, before the
 *   end of the last closed candle) is ignored, since candles already emitted are never revised. A late
 *   tick inside the open bucket counts by its time: it becomes the open if it is the earliest so far,
 *   the close only if it is the latest (ties go to the tick added last).
 *   Ticks with a non-finite time or price are ignored too; a non-finite or negative volume counts as 0.
 */
export class CandleBuilder {
  private open: OpenCandle | undefined;
  /** Ticks in buckets starting before this instant are late and ignored. */
  private floor = -Infinity;

  /** @param tf the timeframe length in milliseconds (see `timeframeMs`): a positive whole number. */
  constructor(readonly tf: number) {
    if (!Number.isSafeInteger(tf) || tf <= 0) throw new RangeError(`invalid timeframe length: ${tf}`);
  }

  /** Start of the bucket holding instant `at`. */
  bucketStart(at: number): number {
    return bucketStartOf(at, this.tf);
  }

  /**
   * Adds a tick and returns the candles it closes: none, or the one open candle when the tick falls
   * in a later bucket (see the class comment for gaps and late ticks).
   */
  add(at: number, price: number, volume = 0): Candle[] {
    if (!Number.isFinite(at) || !Number.isFinite(price)) return [];
    const size = Number.isFinite(volume) && volume > 0 ? volume : 0;
    const start = this.bucketStart(at);
    if (start < this.floor) return [];
    const open = this.open;
    if (open !== undefined && start === open.start) {
      if (price > open.high) open.high = price;
      if (price < open.low) open.low = price;
      if (at < open.openAt) {
        open.open = price;
        open.openAt = at;
      }
      if (at >= open.closeAt) {
        open.close = price;
        open.closeAt = at;
      }
      open.volume += size;
      return [];
    }
    const closed = open === undefined ? [] : [snapshot(open)];
    this.open = { start, openAt: at, closeAt: at, open: price, high: price, low: price, close: price, volume: size };
    this.floor = start;
    return closed;
  }

  /**
   * Closes the open candle if the clock `now` has reached its end (`now >= start + tf`), for a caller
   * that wants candles to close on time rather than on the next tick. Later ticks in that bucket are
   * then late and ignored. Returns the closed candle, if any.
   */
  advance(now: number): Candle[] {
    const open = this.open;
    if (open === undefined || now < open.start + this.tf) return [];
    this.open = undefined;
    this.floor = open.start + this.tf;
    return [snapshot(open)];
  }

  /**
   * Puts the part of a candle seen before (from history) under the open candle of the same bucket, or
   * opens it with that part: the candle forming when a series starts counts the trades before its start.
   * A candle of an earlier bucket than the open one, or of a bucket already closed, is ignored.
   */
  seedEarlier(candle: Candle): void {
    if (candle.start < this.floor) return;
    const open = this.open;
    if (open === undefined) {
      this.open = { ...candle, openAt: candle.start, closeAt: candle.start };
      this.floor = candle.start;
      return;
    }
    if (open.start !== candle.start) return;
    open.open = candle.open;
    open.openAt = candle.start;
    if (candle.high > open.high) open.high = candle.high;
    if (candle.low < open.low) open.low = candle.low;
    open.volume += candle.volume;
  }

  /** The candle forming now (a copy), or undefined before the first tick or after `advance` closed it. */
  current(): Candle | undefined {
    return this.open === undefined ? undefined : snapshot(this.open);
  }
}

function snapshot(candle: OpenCandle): Candle {
  return {
    start: candle.start,
    open: candle.open,
    high: candle.high,
    low: candle.low,
    close: candle.close,
    volume: candle.volume,
  };
}

/**
 * The candles of `tf` ms that ticks make (see CandleBuilder), for histories that keep ticks: candles
 * whose start is at or after `from`, the last one partial when `to` falls inside its bucket. Ticks must
 * be in time order and before `to`; those before `from`'s first whole bucket are skipped.
 */
export function candlesFromTicks(ticks: Iterable<{ at: number; price: number; volume?: number }>, tf: number, from: number, to: number): Candle[] {
  const builder = new CandleBuilder(tf);
  const first = firstBucketStartFrom(from, tf);
  const candles: Candle[] = [];
  for (const tick of ticks) {
    if (tick.at < first || tick.at >= to || !(tick.price > 0)) continue;
    for (const candle of builder.add(tick.at, tick.price, tick.volume ?? 0)) candles.push(candle);
  }
  const open = builder.current();
  if (open) candles.push(open);
  return candles;
}
