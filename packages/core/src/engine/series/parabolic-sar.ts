import { type Candle } from './candles.js';

/**
 * Wilder's Parabolic SAR as TradingView computes it (`ta.sar(start, increment, maximum)` with start =
 * increment = `acceleration`): the trend of the second candle is up when its close is above the first's;
 * the SAR moves toward the extreme point by the acceleration factor, which grows by `acceleration` at each
 * new extreme up to `maxAcceleration`; a SAR that crosses the candle's range reverses the trend to the
 * extreme point of the trend that ended; and the SAR never enters the range of the two candles before.
 *
 * Written out rather than taken from `trading-signals`: its PSAR decides the first trend by the candles'
 * midpoints, clamps by the candle before last only when the current one breaks through, and puts a
 * reversed SAR at `low - 0.01` (a price-scale constant), so its values differ from every chart's.
 * Returns a step giving the SAR after each closed candle, undefined on the first.
 */
export function parabolicSar(acceleration: number, maxAcceleration: number): (candle: Candle) => number | undefined {
  let index = 0;
  let beforeLast: Candle | undefined;
  let last: Candle | undefined;
  let sar = 0;
  let extreme = 0;
  let factor = acceleration;
  let rising = false;
  return (candle) => {
    const previous = last;
    const second = beforeLast;
    beforeLast = last;
    last = candle;
    index += 1;
    if (previous === undefined) return undefined;
    let firstOfTrend = false;
    if (index === 2) {
      rising = candle.close > previous.close;
      extreme = rising ? candle.high : candle.low;
      sar = rising ? previous.low : previous.high;
      factor = acceleration;
      firstOfTrend = true;
    }
    sar += factor * (extreme - sar);
    if (rising && sar > candle.low) {
      firstOfTrend = true;
      rising = false;
      sar = Math.max(candle.high, extreme);
      extreme = candle.low;
      factor = acceleration;
    } else if (!rising && sar < candle.high) {
      firstOfTrend = true;
      rising = true;
      sar = Math.min(candle.low, extreme);
      extreme = candle.high;
      factor = acceleration;
    }
    if (!firstOfTrend) {
      if (rising && candle.high > extreme) {
        extreme = candle.high;
        factor = Math.min(factor + acceleration, maxAcceleration);
      } else if (!rising && candle.low < extreme) {
        extreme = candle.low;
        factor = Math.min(factor + acceleration, maxAcceleration);
      }
    }
    if (rising) {
      sar = Math.min(sar, previous.low);
      if (second !== undefined) sar = Math.min(sar, second.low);
    } else {
      sar = Math.max(sar, previous.high);
      if (second !== undefined) sar = Math.max(sar, second.high);
    }
    return sar;
  };
}
