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

/** Candles for a cascade of `stages` EMAs (DEMA 2, TEMA 3) to forget its seeds: their residue decays as t^(stages-1)·factor^t. */
function cascadeDecayCandles(factor: number, stages: number, target = CONVERGENCE_TOLERANCE / 10): number {
  let candles = decayCandles(factor, target);
  while ((candles + 1) ** (stages - 1) * factor ** candles > target) candles += 1;
  return candles;
}

/** How much more a stochastic of RSI magnifies RSI's residue: 100 over the least range of RSI it is taken on (0.01 points). */
export const STOCH_RSI_LEAST_RANGE = 0.01;

/**
 * How many closed candles an indicator needs, from the first candle of its history, before its value
 * agrees within 1e-9 (relative) with the value computed on any longer history of the same candles:
 * where its smoothing starts no longer shows. Windowed indicators (sma, bbands, willr, cci, stoch, wma,
 * hma, obv, mfi, donchian, ichimoku) agree exactly once defined; `vwap` once its history holds the start of
 * the current UTC day; smoothed ones forget their start geometrically: EMA by (p-1)/(p+1) a candle (DEMA
 * and TEMA as cascades of it), Wilder's RSI, ATR and directional movement by (p-1)/p, MACD by its slow
 * EMA, then its signal EMA. Ratios of Wilder averages (RSI, the DIs, ADX) count their residue 100× (their
 * scale) and `RSI_MOVE_CONTRACTION`× (moves that shrank since their start) more than the others; Stoch
 * RSI 100/`STOCH_RSI_LEAST_RANGE`× more again. Supertrend and the parabolic SAR also carry a path (a band
 * held, a trend's extreme): their count holds in markets that reverse (docs/semantics.md).
 */
export function convergenceCandles(method: string, args: TaArgs = {}): number {
  const spec = resolveIndicator(method, args);
  const ema = (period: number) => decayCandles((period - 1) / (period + 1));
  const wilder = (period: number, target?: number) => decayCandles((period - 1) / period, target);
  const ratioTarget = CONVERGENCE_TOLERANCE / 10 / 100 / RSI_MOVE_CONTRACTION;
  switch (spec.family) {
    case 'ema':
      return Math.max(spec.params.period, ema(spec.params.period));
    case 'rsi':
      return spec.params.period + 1 + wilder(spec.params.period, ratioTarget);
    case 'atr':
      return spec.params.period + wilder(spec.params.period);
    case 'macd': {
      const { fastPeriod, slowPeriod, signalPeriod } = spec.params;
      const lines = Math.max(slowPeriod, ema(slowPeriod), ema(fastPeriod));
      return method === 'macd_value' ? lines : lines + ema(signalPeriod);
    }
    case 'dema': {
      const { period } = spec.params;
      return Math.max(period, cascadeDecayCandles((period - 1) / (period + 1), 2));
    }
    case 'tema': {
      const { period } = spec.params;
      return 3 * period - 2 + cascadeDecayCandles((period - 1) / (period + 1), 3);
    }
    case 'vwap':
      return Math.max(1, Math.ceil(86_400_000 / timeframeMs(resolveTimeframe(args))));
    case 'keltner':
      return Math.max(spec.params.period, ema(spec.params.period), spec.params.atrPeriod + wilder(spec.params.atrPeriod));
    case 'supertrend':
      return SUPERTREND_PATH_CANDLES + spec.params.period + wilder(spec.params.period);
    case 'psar':
      return Math.ceil(PSAR_REVERSAL_SCALE / spec.params.acceleration) + PSAR_PATH_CANDLES;
    case 'adx': {
      const { period, smoothPeriod } = spec.params;
      const lines = period + 1 + wilder(period, ratioTarget);
      return method === 'adx' ? lines + smoothPeriod + wilder(smoothPeriod, ratioTarget) : lines;
    }
    case 'stochrsi': {
      const { period, smoothPeriod, signalPeriod } = spec.params;
      const k = period + 1 + wilder(period, ratioTarget / (100 / STOCH_RSI_LEAST_RANGE)) + period - 1 + smoothPeriod - 1;
      return method === 'stochrsi_k' ? k : k + signalPeriod - 1;
    }
    default:
      return warmupCandles(method, args);
  }
}

/** Candles Supertrend's held bands need, beyond its ATR's convergence, to be renewed in a market that reverses. */
const SUPERTREND_PATH_CANDLES = 100;
/**
 * The parabolic SAR forgets its start once both histories went through the same reversals (a reversal puts
 * the SAR at the extreme point of the trend that ended, and a trend's length grows as its acceleration
 * shrinks): on random walks the last disagreement came within 1.2/acceleration + 25 candles (0.005: 226,
 * 0.02: 85 of 400 walks each); the count doubles that.
 */
const PSAR_REVERSAL_SCALE = 2;
const PSAR_PATH_CANDLES = 50;
