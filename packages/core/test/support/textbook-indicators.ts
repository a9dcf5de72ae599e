/**
 * Independent, whole-array implementations of the indicators added to the engine with the second batch
 * of `ta` methods (wma ... ichimoku), written from their definitions (docs/semantics.md section 2, the
 * TradingView Pine scripts they follow) and not from the engine's code. Each function takes the closed
 * candles in order and returns one entry per candle: the value after that candle, or undefined where the
 * indicator is not defined yet. Plain loops, meant to be read next to the definition.
 */
import { type Candle } from '@eql/core';

/** One value per candle, undefined where the indicator has none. */
export type Series = (number | undefined)[];

const DAY_MS = 86_400_000;

/** `values[i]`, for an index known to be inside the array. */
function at<T>(values: readonly T[], i: number): T {
  return values[i] as T;
}

/** A series of `length` entries, all undefined. */
function empty(length: number): Series {
  return new Array<number | undefined>(length).fill(undefined);
}

// ------------------------------------------------------------------------------------------------
// Building blocks.

/**
 * Wilder's average (RMA) of `n` over a series that may start with undefined entries: the first value is
 * the simple mean of the first `n` defined inputs (which must be consecutive), then prev + (x − prev)/n.
 */
export function rma(values: Series, n: number): Series {
  const out = empty(values.length);
  let count = 0;
  let sum = 0;
  let previous = 0;
  for (let i = 0; i < values.length; i += 1) {
    const x = values[i];
    if (x === undefined) continue;
    count += 1;
    if (count < n) {
      sum += x;
    } else if (count === n) {
      sum += x;
      previous = sum / n;
      out[i] = previous;
    } else {
      previous = previous + (x - previous) / n;
      out[i] = previous;
    }
  }
  return out;
}

/**
 * The EMA of `n` (weight 2/(n+1)) of a series from its first defined entry on, seeded with that entry, at
 * every candle from there (no reporting delay: callers decide from when it counts).
 */
function emaFromFirst(values: Series, n: number): Series {
  const k = 2 / (n + 1);
  const out = empty(values.length);
  let previous: number | undefined;
  for (let i = 0; i < values.length; i += 1) {
    const x = values[i];
    if (x === undefined) continue;
    previous = previous === undefined ? x : previous + k * (x - previous);
    out[i] = previous;
  }
  return out;
}

/** EMA of `n` of the closes, seeded with the first close, reported from the n-th close on. */
export function ema(candles: readonly Candle[], n: number): Series {
  const all = emaFromFirst(candles.map((c) => c.close), n);
  return all.map((v, i) => (i >= n - 1 ? v : undefined));
}

/** True range: max(H − L, |H − prevC|, |L − prevC|); the first candle's is H − L. */
export function trueRange(candles: readonly Candle[]): number[] {
  return candles.map((c, i) => {
    if (i === 0) return c.high - c.low;
    const previousClose = at(candles, i - 1).close;
    return Math.max(c.high - c.low, Math.abs(c.high - previousClose), Math.abs(c.low - previousClose));
  });
}

/** ATR(n): Wilder's average of the true range, the first candle's included; defined from candle n. */
export function atr(candles: readonly Candle[], n: number): Series {
  return rma(trueRange(candles), n);
}

/** Wilder's RSI(n) of the closes: RMA of the gains and of the losses from the 2nd close; from candle n+1. */
export function rsi(candles: readonly Candle[], n: number): Series {
  const gains: Series = candles.map((c, i) => (i === 0 ? undefined : Math.max(c.close - at(candles, i - 1).close, 0)));
  const losses: Series = candles.map((c, i) => (i === 0 ? undefined : Math.max(at(candles, i - 1).close - c.close, 0)));
  const averageGain = rma(gains, n);
  const averageLoss = rma(losses, n);
  return candles.map((_, i) => {
    const g = averageGain[i];
    const l = averageLoss[i];
    if (g === undefined || l === undefined) return undefined;
    return l === 0 ? 100 : 100 - 100 / (1 + g / l);
  });
}

/** Highest high of the `n` candles ending at `i`. */
function highestHigh(candles: readonly Candle[], i: number, n: number): number {
  let highest = -Infinity;
  for (let j = i - n + 1; j <= i; j += 1) highest = Math.max(highest, at(candles, j).high);
  return highest;
}

/** Lowest low of the `n` candles ending at `i`. */
function lowestLow(candles: readonly Candle[], i: number, n: number): number {
  let lowest = Infinity;
  for (let j = i - n + 1; j <= i; j += 1) lowest = Math.min(lowest, at(candles, j).low);
  return lowest;
}

/** Simple mean of the last `n` entries of a series ending at `i`, when all of them are defined. */
function smaAt(values: Series, i: number, n: number): number | undefined {
  if (i - n + 1 < 0) return undefined;
  let sum = 0;
  for (let j = i - n + 1; j <= i; j += 1) {
    const v = values[j];
    if (v === undefined) return undefined;
    sum += v;
  }
  return sum / n;
}

/** WMA of `n` of a series: weights 1..n, the newest n, over n(n+1)/2; defined where its n entries are. */
function wmaOf(values: Series, n: number): Series {
  const out = empty(values.length);
  const divisor = (n * (n + 1)) / 2;
  for (let i = n - 1; i < values.length; i += 1) {
    let sum = 0;
    let complete = true;
    for (let w = 1; w <= n; w += 1) {
      const v = values[i - n + w];
      if (v === undefined) {
        complete = false;
        break;
      }
      sum += w * v;
    }
    if (complete) out[i] = sum / divisor;
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// The indicators, one function per family.

/** `wma`: weighted moving average of the closes (weights 1..n, the newest n); from candle n. */
export function wma(candles: readonly Candle[], period: number): Series {
  return wmaOf(
    candles.map((c) => c.close),
    period,
  );
}

/**
 * `hma`: Hull moving average, TradingView's `ta.hma`: the WMA over m = max(1, round(√n)) of
 * 2·WMA(max(1, floor(n/2))) − WMA(n); from candle n + m − 1.
 */
export function hma(candles: readonly Candle[], period: number): Series {
  const closes = candles.map((c) => c.close);
  const half = wmaOf(closes, Math.max(1, Math.floor(period / 2)));
  const full = wmaOf(closes, period);
  const raw: Series = candles.map((_, i) => {
    const h = half[i];
    const f = full[i];
    return h === undefined || f === undefined ? undefined : 2 * h - f;
  });
  return wmaOf(raw, Math.max(1, Math.round(Math.sqrt(period))));
}

/** `dema`: 2·E1 − E2, E1 the first-close-seeded EMA of the closes, E2 the EMA of E1 seeded with E1's first value; from candle n. */
export function dema(candles: readonly Candle[], period: number): Series {
  const e1 = emaFromFirst(
    candles.map((c) => c.close),
    period,
  );
  const e2 = emaFromFirst(e1, period);
  return candles.map((_, i) => (i >= period - 1 ? 2 * (e1[i] as number) - (e2[i] as number) : undefined));
}

/**
 * `tema`: 3·E1 − 3·E2 + E3. E1 is the first-close-seeded EMA of the closes; E2 an EMA of E1 that starts,
 * seeded with it, at E1's n-th value (candle n); E3 an EMA of E2 that starts at E2's n-th value (candle
 * 2n − 1); TEMA from E3's n-th value (candle 3n − 2).
 */
export function tema(candles: readonly Candle[], period: number): Series {
  const e1 = emaFromFirst(
    candles.map((c) => c.close),
    period,
  );
  const e1Reported = e1.map((v, i) => (i >= period - 1 ? v : undefined));
  const e2 = emaFromFirst(e1Reported, period);
  const e2Reported = e2.map((v, i) => (i >= 2 * period - 2 ? v : undefined));
  const e3 = emaFromFirst(e2Reported, period);
  return candles.map((_, i) => (i >= 3 * period - 3 ? 3 * (e1[i] as number) - 3 * (e2[i] as number) + (e3[i] as number) : undefined));
}

/**
 * `vwap`: per UTC day (floor(start / 1 day)), Σ(TP·V)/ΣV over the day's candles so far, TP = (H+L+C)/3;
 * undefined while the day's volume is 0.
 */
export function vwap(candles: readonly Candle[]): Series {
  const out = empty(candles.length);
  let day = Number.NaN;
  let priceVolume = 0;
  let volume = 0;
  for (let i = 0; i < candles.length; i += 1) {
    const c = at(candles, i);
    const candleDay = Math.floor(c.start / DAY_MS);
    if (candleDay !== day) {
      day = candleDay;
      priceVolume = 0;
      volume = 0;
    }
    priceVolume += ((c.high + c.low + c.close) / 3) * c.volume;
    volume += c.volume;
    if (volume > 0) out[i] = priceVolume / volume;
  }
  return out;
}

/**
 * `supertrend` and `supertrend_direction`: TradingView's `pine_supertrend(factor, atrPeriod)` on hl2 and
 * ATR(period). `direction` here is ours: +1 up (TradingView's −1), −1 down (TradingView's 1). From
 * candle `period`.
 */
export function supertrend(candles: readonly Candle[], period: number, multiplier: number): { supertrend: Series; direction: Series } {
  const atrs = atr(candles, period);
  const line = empty(candles.length);
  const direction = empty(candles.length);
  // The final bands and supertrend of the previous candle (Pine's upperBand[1], ...), undefined = na.
  let previousUpper: number | undefined;
  let previousLower: number | undefined;
  let previousSuperTrend: number | undefined;
  for (let i = 0; i < candles.length; i += 1) {
    const c = at(candles, i);
    const a = atrs[i];
    if (a === undefined) {
      // na ATR: the bands, and so everything after them, are na on this candle.
      previousUpper = undefined;
      previousLower = undefined;
      previousSuperTrend = undefined;
      continue;
    }
    const source = (c.high + c.low) / 2;
    let upper = source + multiplier * a;
    let lower = source - multiplier * a;
    const prevLower = previousLower ?? 0; // nz(lowerBand[1])
    const prevUpper = previousUpper ?? 0; // nz(upperBand[1])
    const previousClose = i > 0 ? at(candles, i - 1).close : undefined; // close[1], na on the first candle
    lower = lower > prevLower || (previousClose !== undefined && previousClose < prevLower) ? lower : prevLower;
    upper = upper < prevUpper || (previousClose !== undefined && previousClose > prevUpper) ? upper : prevUpper;
    let tvDirection: number;
    const previousAtr = i > 0 ? atrs[i - 1] : undefined;
    if (previousAtr === undefined) tvDirection = 1;
    else if (previousSuperTrend === prevUpper) tvDirection = c.close > upper ? -1 : 1;
    else tvDirection = c.close < lower ? 1 : -1;
    const superTrend = tvDirection === -1 ? lower : upper;
    line[i] = superTrend;
    direction[i] = -tvDirection;
    previousUpper = upper;
    previousLower = lower;
    previousSuperTrend = superTrend;
  }
  return { supertrend: line, direction };
}

/**
 * `adx`, `plus_di`, `minus_di`: TradingView's DMI. From the 2nd candle, up = H − prevH, down = prevL − L,
 * +DM = up if up > down and up > 0 else 0, −DM likewise, TR; their RMAs over `period` give
 * ±DI = 100·RMA(±DM)/RMA(TR) (0 when RMA(TR) is 0), DX = |+DI − −DI|/(+DI + −DI, or 1 when that is 0),
 * ADX = 100·RMA(DX, smoothPeriod). DIs from candle period + 1, ADX from candle period + smoothPeriod.
 */
export function dmi(candles: readonly Candle[], period: number, smoothPeriod: number): { adx: Series; plusDi: Series; minusDi: Series } {
  const plusDm = empty(candles.length);
  const minusDm = empty(candles.length);
  const tr = empty(candles.length);
  for (let i = 1; i < candles.length; i += 1) {
    const c = at(candles, i);
    const p = at(candles, i - 1);
    const up = c.high - p.high;
    const down = p.low - c.low;
    plusDm[i] = up > down && up > 0 ? up : 0;
    minusDm[i] = down > up && down > 0 ? down : 0;
    tr[i] = Math.max(c.high - c.low, Math.abs(c.high - p.close), Math.abs(c.low - p.close));
  }
  const trur = rma(tr, period);
  const plusAverage = rma(plusDm, period);
  const minusAverage = rma(minusDm, period);
  const plusDi = empty(candles.length);
  const minusDi = empty(candles.length);
  const dx = empty(candles.length);
  for (let i = 0; i < candles.length; i += 1) {
    const t = trur[i];
    if (t === undefined) continue;
    const plus = t === 0 ? 0 : (100 * (plusAverage[i] as number)) / t;
    const minus = t === 0 ? 0 : (100 * (minusAverage[i] as number)) / t;
    plusDi[i] = plus;
    minusDi[i] = minus;
    const sum = plus + minus;
    dx[i] = Math.abs(plus - minus) / (sum === 0 ? 1 : sum);
  }
  const adx = rma(dx, smoothPeriod).map((v) => (v === undefined ? undefined : 100 * v));
  return { adx, plusDi, minusDi };
}

/**
 * `psar`: TradingView's `ta.sar(start = acceleration, inc = acceleration, max = maxAcceleration)`, a
 * transcription of its Pine definition (pine_sar). The first candle has no value.
 */
export function psar(candles: readonly Candle[], acceleration: number, maxAcceleration: number): Series {
  const start = acceleration;
  const increment = acceleration;
  const out = empty(candles.length);
  let result = Number.NaN;
  let maxMin = Number.NaN;
  let af = Number.NaN;
  let isBelow = false;
  for (let bar = 1; bar < candles.length; bar += 1) {
    const c = at(candles, bar);
    const previous = at(candles, bar - 1);
    let isFirstTrendBar = false;
    if (bar === 1) {
      if (c.close > previous.close) {
        isBelow = true;
        maxMin = c.high;
        result = previous.low;
      } else {
        isBelow = false;
        maxMin = c.low;
        result = previous.high;
      }
      isFirstTrendBar = true;
      af = start;
    }
    result = result + af * (maxMin - result);
    if (isBelow) {
      if (result > c.low) {
        isFirstTrendBar = true;
        isBelow = false;
        result = Math.max(c.high, maxMin);
        maxMin = c.low;
        af = start;
      }
    } else if (result < c.high) {
      isFirstTrendBar = true;
      isBelow = true;
      result = Math.min(c.low, maxMin);
      maxMin = c.high;
      af = start;
    }
    if (!isFirstTrendBar) {
      if (isBelow) {
        if (c.high > maxMin) {
          maxMin = c.high;
          af = Math.min(af + increment, maxAcceleration);
        }
      } else if (c.low < maxMin) {
        maxMin = c.low;
        af = Math.min(af + increment, maxAcceleration);
      }
    }
    if (isBelow) {
      result = Math.min(result, previous.low);
      if (bar > 1) result = Math.min(result, at(candles, bar - 2).low);
    } else {
      result = Math.max(result, previous.high);
      if (bar > 1) result = Math.max(result, at(candles, bar - 2).high);
    }
    out[bar] = result;
  }
  return out;
}

/** `obv`: Σ over the last `period` candles of sign(close − previous close) × volume; from candle period + 1. */
export function obv(candles: readonly Candle[], period: number): Series {
  const out = empty(candles.length);
  for (let i = period; i < candles.length; i += 1) {
    let sum = 0;
    for (let j = i - period + 1; j <= i; j += 1) {
      const c = at(candles, j);
      sum += Math.sign(c.close - at(candles, j - 1).close) * c.volume;
    }
    out[i] = sum;
  }
  return out;
}

/**
 * `mfi`: over the last `period` candles, each compared with the one before it, the raw money flows
 * (TP × volume, TP = (H+L+C)/3) where TP rose (positive) and fell (negative); MFI = 100·pos/(pos + neg),
 * 50 when both are 0. From candle period + 1.
 */
export function mfi(candles: readonly Candle[], period: number): Series {
  const typical = candles.map((c) => (c.high + c.low + c.close) / 3);
  const out = empty(candles.length);
  for (let i = period; i < candles.length; i += 1) {
    let positive = 0;
    let negative = 0;
    for (let j = i - period + 1; j <= i; j += 1) {
      const tp = at(typical, j);
      const flow = tp * at(candles, j).volume;
      if (tp > at(typical, j - 1)) positive += flow;
      else if (tp < at(typical, j - 1)) negative += flow;
    }
    out[i] = positive + negative === 0 ? 50 : (100 * positive) / (positive + negative);
  }
  return out;
}

/**
 * `stochrsi_k` and `stochrsi_d`: the stochastic of RSI(period) over its last `period` values,
 * 100·(rsi − lowest)/(highest − lowest) (50 when highest − lowest ≤ 1e-9 points), %K its SMA over smoothPeriod, %D the
 * SMA of %K over signalPeriod.
 */
export function stochRsi(candles: readonly Candle[], period: number, smoothPeriod: number, signalPeriod: number): { k: Series; d: Series } {
  const r = rsi(candles, period);
  const stoch = empty(candles.length);
  for (let i = 0; i < candles.length; i += 1) {
    let highest = -Infinity;
    let lowest = Infinity;
    let complete = i - period + 1 >= 0;
    for (let j = i - period + 1; complete && j <= i; j += 1) {
      const v = r[j];
      if (v === undefined) complete = false;
      else {
        highest = Math.max(highest, v);
        lowest = Math.min(lowest, v);
      }
    }
    if (!complete) continue;
    const value = r[i] as number;
    // The definition: a range of RSI of 1e-9 points or less is flat (RSI on flat closes moves only in its last bits).
    stoch[i] = highest - lowest <= 1e-9 ? 50 : (100 * (value - lowest)) / (highest - lowest);
  }
  const k = candles.map((_, i) => smaAt(stoch, i, smoothPeriod));
  const d = candles.map((_, i) => smaAt(k, i, signalPeriod));
  return { k, d };
}

/**
 * `keltner_upper/middle/lower`: the first-close-seeded EMA(period) of the closes ± multiplier × ATR(atrPeriod);
 * all three from candle max(period, atrPeriod).
 */
export function keltner(candles: readonly Candle[], period: number, atrPeriod: number, multiplier: number): { upper: Series; middle: Series; lower: Series } {
  const middleAll = emaFromFirst(
    candles.map((c) => c.close),
    period,
  );
  const ranges = atr(candles, atrPeriod);
  const from = Math.max(period, atrPeriod) - 1;
  const upper = empty(candles.length);
  const middle = empty(candles.length);
  const lower = empty(candles.length);
  for (let i = from; i < candles.length; i += 1) {
    const m = middleAll[i] as number;
    const a = ranges[i] as number;
    middle[i] = m;
    upper[i] = m + multiplier * a;
    lower[i] = m - multiplier * a;
  }
  return { upper, middle, lower };
}

/** `donchian_upper/middle/lower`: highest high, lowest low of the last `period` candles, and their mean; from candle period. */
export function donchian(candles: readonly Candle[], period: number): { upper: Series; middle: Series; lower: Series } {
  const upper = empty(candles.length);
  const middle = empty(candles.length);
  const lower = empty(candles.length);
  for (let i = period - 1; i < candles.length; i += 1) {
    const high = highestHigh(candles, i, period);
    const low = lowestLow(candles, i, period);
    upper[i] = high;
    lower[i] = low;
    middle[i] = (high + low) / 2;
  }
  return { upper, middle, lower };
}

/**
 * `ichimoku_*`: conversion and base lines, the Donchian midpoints over conversionPeriod and basePeriod;
 * the leading spans A = (conversion + base)/2 and B = midpoint over spanPeriod, reported at candle t as
 * computed at candle t − (displacement − 1) (the cloud as a chart draws it under candle t).
 */
export function ichimoku(
  candles: readonly Candle[],
  conversionPeriod: number,
  basePeriod: number,
  spanPeriod: number,
  displacement: number,
): { conversion: Series; base: Series; spanA: Series; spanB: Series } {
  const midpoint = (i: number, n: number): number | undefined => (i - n + 1 >= 0 ? (highestHigh(candles, i, n) + lowestLow(candles, i, n)) / 2 : undefined);
  const conversion = candles.map((_, i) => midpoint(i, conversionPeriod));
  const base = candles.map((_, i) => midpoint(i, basePeriod));
  const leadingA = candles.map((_, i) => {
    const c = conversion[i];
    const b = base[i];
    return c === undefined || b === undefined ? undefined : (c + b) / 2;
  });
  const leadingB = candles.map((_, i) => midpoint(i, spanPeriod));
  const shift = displacement - 1;
  const spanA = candles.map((_, i) => (i - shift >= 0 ? leadingA[i - shift] : undefined));
  const spanB = candles.map((_, i) => (i - shift >= 0 ? leadingB[i - shift] : undefined));
  return { conversion, base, spanA, spanB };
}
