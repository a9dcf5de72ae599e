/**
 * The numeric series layer of the evaluation engine: candles from ticks, rolling price windows, and
 * technical indicators on closed candles. Platform-neutral and synchronous; the engine owns the
 * streams and calls these per observation.
 */
export { bucketStartOf, CandleBuilder, candlesFromTicks, firstBucketStartFrom, TIMEFRAME_MS, isTimeframe, timeframeMs, WEEK_ANCHOR_MS, type Candle } from './candles.js';
export { PriceWindow, type Tick } from './windows.js';
export { CONVERGENCE_TOLERANCE, convergenceCandles, lookbackMs, RSI_MOVE_CONTRACTION, STOCH_RSI_LEAST_RANGE } from './lookback.js';
export {
  DEFAULT_TIMEFRAME,
  TA_METHODS,
  familyKey,
  familyOf,
  indicatorKey,
  isTaMethod,
  methodsOf,
  parametersOf,
  resolveIndicator,
  resolveTimeframe,
  warmupCandles,
  type BbandsParams,
  type FamilyIndicator,
  type FamilyParams,
  type FamilySpec,
  type Indicator,
  type IndicatorFamily,
  type IndicatorOutputs,
  type MacdParams,
  type PeriodParams,
  type StochParams,
  type TaArgs,
  type TaMethod,
} from './indicators.js';
export { createIndicator, createIndicatorFamily } from './indicator-family.js';
