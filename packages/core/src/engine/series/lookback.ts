import { parseDuration } from '../../language/duration.js';
import { timeframeMs } from './candles.js';
import { resolveIndicator, resolveTimeframe, type TaArgs, warmupCandles } from './indicators.js';

/**
 * How much of the past a `price` or `ta` series needs before its value is defined over its whole
 * look-back, in ms: 0 for the last price, the period of a `change`, `high`, `low` or `volume` window,
 * and for an indicator its warm-up candles (see `warmupCandles`) times the timeframe. Undefined for
 * anything it cannot read (the schema reports those).
 */
export function lookbackMs(source: unknown, method: unknown, args: Record<string, unknown>): number | undefined {
  try {
    if (source === 'price') {
      if (method === 'current') return 0;
      return parseDuration(args.period);
    }
    if (source === 'ta' && typeof method === 'string') return warmupCandles(method, args) * timeframeMs(resolveTimeframe(args));
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The earliest instant a `price` or `ta` series of a query started at `now`, warmed from a history that
 * starts at `since`, can be defined, as the engine computes it: an indicator needs its warm-up candles
 * to close, counted from the first whole candle of the history (buckets aligned to the epoch; a bucket
 * that began before `since` is not whole), or from the candle forming at `now` when that one is earlier
 * (the live feed completes it); a window needs its period after `since`. Undefined for the last price
 * (defined at once) and for anything it cannot read.
 */
export function earliestDefinedAt(source: unknown, method: unknown, args: Record<string, unknown>, since: number, now: number): number | undefined {
  try {
    if (source === 'price') {
      if (method === 'current') return undefined;
      const periodMs = parseDuration(args.period);
      return periodMs === undefined ? undefined : since + periodMs;
    }
    if (source === 'ta' && typeof method === 'string') {
      const candleMs = timeframeMs(resolveTimeframe(args));
      const first = Math.min(Math.ceil(since / candleMs), Math.floor(now / candleMs));
      return (first + warmupCandles(method, args)) * candleMs;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The relative agreement `convergenceCandles` is about (for MACD, relative to the price level: it is a difference of two price EMAs). */
export const CONVERGENCE_TOLERANCE = 1e-9;

/**
 * How far RSI's average move may shrink below the average move where its smoothing started (a factor of
 * 10,000) and still agree with a longer history within the tolerance. RSI is 100·G/(G+L), a ratio of two
 * Wilder averages: what remains of their seeds, r, moves it by up to 100·r/(G+L) points, so its error is
 * relative to the size of the current moves, not to the seed's. A bound in candles alone has to assume
 * one: a market whose moves shrink more than that needs a longer history (docs/semantics.md).
 */
export const RSI_MOVE_CONTRACTION = 10_000;

/** Candles for a decay `factor` per candle to bring a difference below `target` (the tolerance with a margin of 10× by default). */
function decayCandles(factor: number, target = CONVERGENCE_TOLERANCE / 10): number {
  return factor <= 0 ? 1 : Math.ceil(Math.log(target) / Math.log(factor));
}

/**
 * How many closed candles an indicator needs, from the first candle of its history, before its value
 * agrees within 1e-9 (relative) with the value computed on any longer history of the same candles:
 * where its smoothing starts no longer shows. Windowed indicators (sma, bbands, willr, cci, stoch) agree
 * exactly once defined; smoothed ones forget their start geometrically: EMA by (p-1)/(p+1) a candle,
 * Wilder's RSI and ATR by (p-1)/p, MACD by its slow EMA, then its signal EMA. RSI's residue counts 100×
 * (its scale) and `RSI_MOVE_CONTRACTION`× (moves that shrank since its start) more than the others'.
 */
export function convergenceCandles(method: string, args: TaArgs = {}): number {
  const spec = resolveIndicator(method, args);
  const ema = (period: number) => decayCandles((period - 1) / (period + 1));
  const wilder = (period: number, target?: number) => decayCandles((period - 1) / period, target);
  switch (spec.family) {
    case 'ema':
      return Math.max(spec.params.period, ema(spec.params.period));
    case 'rsi':
      return spec.params.period + 1 + wilder(spec.params.period, CONVERGENCE_TOLERANCE / 10 / 100 / RSI_MOVE_CONTRACTION);
    case 'atr':
      return spec.params.period + wilder(spec.params.period);
    case 'macd': {
      const { fastPeriod, slowPeriod, signalPeriod } = spec.params;
      const lines = Math.max(slowPeriod, ema(slowPeriod), ema(fastPeriod));
      return method === 'macd_value' ? lines : lines + ema(signalPeriod);
    }
    default:
      return warmupCandles(method, args);
  }
}
