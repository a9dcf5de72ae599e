import { familyOf, type TaMethod } from '@eql/core';

/** Small windows drawn by a property: `period` for one-window indicators, the others for families with more. */
export interface SmallWindows {
  period: number;
  fast: number;
  slow: number;
  signal: number;
  /** Band width of Supertrend and Keltner (default derived from the windows). */
  multiplier?: number;
  /** The parabolic SAR's acceleration and its largest value (default derived from the windows). */
  acceleration?: number;
  maxAcceleration?: number;
}

/**
 * Valid args of a `ta` method built from small windows, so that a property test can draw any method and
 * get it defined within a short recording: each family reads the parameters its schema branch allows.
 */
export function smallIndicatorArgs(method: TaMethod, w: SmallWindows): Record<string, unknown> {
  switch (familyOf(method)) {
    case 'macd':
      return { fastPeriod: w.fast, slowPeriod: w.slow, signalPeriod: w.signal };
    case 'stoch':
      return { period: w.period, signalPeriod: w.signal };
    case 'stochrsi':
      return { period: w.period, smoothPeriod: w.fast, signalPeriod: w.signal };
    case 'adx':
      return { period: w.period, smoothPeriod: w.signal };
    case 'supertrend':
      return { period: w.period, multiplier: w.multiplier ?? 1 + w.signal / 4 };
    case 'keltner':
      return { period: w.period, atrPeriod: w.signal, multiplier: w.multiplier ?? 1 + w.fast / 4 };
    case 'psar':
      return { acceleration: w.acceleration ?? w.signal / 100, maxAcceleration: w.maxAcceleration ?? w.slow / 50 };
    case 'ichimoku':
      return { conversionPeriod: w.fast, basePeriod: w.period, spanPeriod: w.slow, displacement: w.signal };
    case 'vwap':
      return {};
    default:
      return { period: w.period };
  }
}
