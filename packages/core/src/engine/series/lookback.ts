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

/** The relative agreement `convergenceCandles` is about (for MACD, relative to the price level: it is a difference of two price EMAs). */
export const CONVERGENCE_TOLERANCE = 1e-9;

/** Candles for a decay `factor` per candle to bring a difference below the tolerance (a margin of 10×). */
function decayCandles(factor: number): number {
  return factor <= 0 ? 1 : Math.ceil(Math.log(CONVERGENCE_TOLERANCE / 10) / Math.log(factor));
}

/**
 * How many closed candles an indicator needs, from the first candle of its history, before its value
 * agrees within 1e-9 (relative) with the value computed on any longer history of the same candles:
 * where its smoothing starts no longer shows. Windowed indicators (sma, bbands, willr, cci, stoch) agree
 * exactly once defined; smoothed ones forget their start geometrically: EMA by (p-1)/(p+1) a candle,
 * Wilder's RSI and ATR by (p-1)/p, MACD by its slow EMA, then its signal EMA.
 */
export function convergenceCandles(method: string, args: TaArgs = {}): number {
  const spec = resolveIndicator(method, args);
  const ema = (period: number) => decayCandles((period - 1) / (period + 1));
  const wilder = (period: number) => decayCandles((period - 1) / period);
  switch (spec.family) {
    case 'ema':
      return Math.max(spec.params.period, ema(spec.params.period));
    case 'rsi':
      return spec.params.period + 1 + wilder(spec.params.period);
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
