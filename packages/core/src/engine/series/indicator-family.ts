import {
  ATR,
  BollingerBands,
  CCI,
  DEMA,
  DonchianChannels,
  EMA,
  KeltnerChannels,
  MACD,
  MFI,
  RSI,
  SMA,
  StochasticOscillator,
  TEMA,
  VWAP,
  WilliamsR,
  WMA,
  WSMA,
} from 'trading-signals';
import { type Candle } from './candles.js';
import { type FamilyIndicator, type FamilyParams, type FamilySpec, hullRootPeriod, type Indicator, type IndicatorFamily, type IndicatorOutputs, methodsOf, resolveIndicator, type TaArgs, type TaMethod } from './indicators.js';
import { parabolicSar } from './parabolic-sar.js';

/**
 * The computation of each indicator family: `createIndicatorFamily` feeds one step per closed candle,
 * built on the `trading-signals` library. Where the library's convention differs from the charts traders
 * compare with, the family is composed here from the library's building blocks (WMA, WSMA, ATR, RSI, SMA,
 * Donchian channels) to follow TradingView's published definitions; `parabolic-sar.ts` holds the one
 * written out (see docs/decisions.md).
 *
 * **Definitions** (the tests check each against an independent implementation):
 * - `ema`: the EMA with weight 2/(period+1) is seeded with the first close (as TradingView's `ta.ema`),
 *   not with the SMA of the first `period` closes (as StockCharts and TA-Lib); it is reported from the
 *   `period`-th candle on. The two conventions converge geometrically, by (period-1)/(period+1) a candle.
 * - `macd_*`: the fast and slow EMAs are those EMAs (first-close seeds); `macd_value` is reported from
 *   candle `slowPeriod`; `macd_signal` and `macd_histogram` once the signal EMA (seeded with the first
 *   MACD value) has `signalPeriod` values (candle slowPeriod+signalPeriod-1, the first candle of TA-Lib).
 * - `rsi`, `atr`: Wilder smoothing seeded with the simple mean of the first `period` gains/losses or
 *   true ranges. The first true range is high - low. RSI is 100 when the average loss is 0.
 * - `cci`: typical price (H+L+C)/3, its SMA and mean absolute deviation, constant 0.015; 0 when the
 *   mean deviation is 0 (the price sits at its mean).
 * - `bbands_*`: SMA ± stdDev × population standard deviation.
 * - `willr`: -100 × (highest high - close) / (highest high - lowest low); -100 on a zero range.
 * - `stoch_k`: fast %K = 100 × (close - lowest low) / (highest high - lowest low) over `period` (0 on a
 *   zero range); `stoch_d` its SMA over `signalPeriod`. Both reported from candle period+signalPeriod-1.
 * - `wma`: weights 1..period, the newest heaviest.
 * - `hma`: WMA over round(√period) of 2 × WMA(floor(period/2)) - WMA(period) (TradingView's `ta.hma`).
 * - `dema`: 2 × EMA - EMA(EMA), both first-value seeded, reported from candle `period`.
 * - `tema`: 3 × EMA1 - 3 × EMA2 + EMA3, each EMA started on the `period`-th value of the one before
 *   (first value at candle 3·period-2, TA-Lib's look-back).
 * - `vwap`: Σ(typical price × volume) / Σ volume over the candles of the current UTC day (a session
 *   starts at 00:00 UTC); undefined while the day has no volume. On `1d` and longer candles a session is
 *   one candle, so the value is that candle's typical price.
 * - `supertrend`, `supertrend_direction`: TradingView's `ta.supertrend(multiplier, period)`: bands
 *   (H+L)/2 ± multiplier × ATR(period) that only tighten until the close crosses them; the trend starts
 *   down; the value is the lower band in an uptrend (direction 1), the upper band in a downtrend (-1).
 * - `adx`, `plus_di`, `minus_di`: Wilder's directional movement as TradingView's DMI: +DM/-DM from the
 *   second candle, their Wilder averages over `period` divided by the average true range (×100); DX =
 *   |+DI - -DI| / (+DI + -DI) (0 when both are 0); ADX = 100 × the Wilder average of DX over
 *   `smoothPeriod`. The DIs are 0 while the average true range is 0.
 * - `psar`: TradingView's `ta.sar(acceleration, acceleration, maxAcceleration)` (parabolic-sar.ts).
 * - `obv`: the change of On-Balance Volume over the last `period` candles: Σ sign(close - previous
 *   close) × volume. (The cumulative line's level depends on where a chart's data starts, so no rule can
 *   compare it with a number; its change over a window is the same on every history.)
 * - `mfi`: 100 × positive / (positive + negative) money flow (typical price × volume, by the direction
 *   of the typical price) over `period` candles; 50 when both are 0.
 * - `stochrsi_k`, `stochrsi_d`: RSI(period), its stochastic 100 × (RSI - lowest) / (highest - lowest)
 *   over `period` RSI values (50 when the range is 1e-9 points or less, a flat RSI up to rounding: neither
 *   overbought nor oversold), %K its SMA over
 *   `smoothPeriod`, %D the SMA of %K over `signalPeriod` (TradingView's Stoch RSI).
 * - `keltner_*`: EMA(period) ± multiplier × ATR(atrPeriod) (TradingView's Keltner Channels with ATR bands).
 * - `donchian_*`: highest high, lowest low and their midpoint over `period` candles.
 * - `ichimoku_*`: conversion and base lines are the midpoints of the highest high and lowest low over
 *   `conversionPeriod` and `basePeriod`; span A their mean, span B the midpoint over `spanPeriod`. The spans
 *   are read where the chart draws them: the cloud at a candle is the spans of `displacement - 1` candles
 *   before (TradingView's offset).
 */
function indicatorStep(spec: FamilySpec): (candle: Candle) => IndicatorOutputs {
  switch (spec.family) {
    case 'rsi': {
      const rsi = new RSI(spec.params.period);
      return (candle) => ({ rsi: orUndefined(rsi.add(candle.close)) });
    }
    case 'ema': {
      // EMA.add returns a value from the first input; getResult is null until `period` inputs.
      const ema = new EMA(spec.params.period);
      return (candle) => {
        ema.add(candle.close);
        return { ema: orUndefined(ema.getResult()) };
      };
    }
    case 'sma': {
      const sma = new SMA(spec.params.period);
      return (candle) => ({ sma: orUndefined(sma.add(candle.close)) });
    }
    case 'atr': {
      const atr = new ATR(spec.params.period);
      return (candle) => ({ atr: orUndefined(atr.add(candle)) });
    }
    case 'cci': {
      const cci = new CCI(spec.params.period);
      return (candle) => {
        const value = cci.add(candle);
        return { cci: value === null ? undefined : Number.isNaN(value) ? 0 : value };
      };
    }
    case 'willr': {
      const willr = new WilliamsR(spec.params.period);
      return (candle) => ({ willr: orUndefined(willr.add(candle)) });
    }
    case 'macd': {
      const { fastPeriod, slowPeriod, signalPeriod } = spec.params;
      const macd = new MACD(new EMA(fastPeriod), new EMA(slowPeriod), new EMA(signalPeriod));
      return (candle) => {
        const result = macd.add(candle.close);
        if (result === null) return {};
        // The library returns the signal EMA from its first input; report it once it has signalPeriod.
        if (!macd.signal.isStable) return { macd_value: result.macd };
        return { macd_value: result.macd, macd_signal: result.signal, macd_histogram: result.histogram };
      };
    }
    case 'bbands': {
      const bands = new BollingerBands(spec.params.period, spec.params.stdDev);
      return (candle) => {
        const result = bands.add(candle.close);
        if (result === null) return {};
        return { bbands_upper: result.upper, bbands_middle: result.middle, bbands_lower: result.lower };
      };
    }
    case 'stoch': {
      const stoch = new StochasticOscillator({ kPeriod: spec.params.period, kSlowingPeriod: 1, dPeriod: spec.params.signalPeriod });
      return (candle) => {
        const result = stoch.add(candle);
        if (result === null) return {};
        return { stoch_k: result.stochK, stoch_d: result.stochD };
      };
    }
    case 'wma': {
      const wma = new WMA(spec.params.period);
      return (candle) => ({ wma: orUndefined(wma.add(candle.close)) });
    }
    case 'hma':
      return hullStep(spec.params.period);
    case 'dema': {
      const dema = new DEMA(spec.params.period);
      return (candle) => {
        const value = dema.add(candle.close);
        return { dema: dema.isStable ? orUndefined(value) : undefined };
      };
    }
    case 'tema': {
      const tema = new TEMA(spec.params.period);
      return (candle) => ({ tema: orUndefined(tema.add(candle.close)) });
    }
    case 'vwap':
      return sessionVwapStep();
    case 'supertrend':
      return supertrendStep(spec.params.period, spec.params.multiplier);
    case 'adx':
      return directionalMovementStep(spec.params.period, spec.params.smoothPeriod);
    case 'psar': {
      const sar = parabolicSar(spec.params.acceleration, spec.params.maxAcceleration);
      return (candle) => ({ psar: sar(candle) });
    }
    case 'obv':
      return balanceVolumeStep(spec.params.period);
    case 'mfi': {
      const mfi = new MFI(spec.params.period);
      return (candle) => ({ mfi: orUndefined(mfi.add(candle)) });
    }
    case 'stochrsi':
      return stochRsiStep(spec.params.period, spec.params.smoothPeriod, spec.params.signalPeriod);
    case 'keltner': {
      const channels = new KeltnerChannels({ emaInterval: spec.params.period, atrInterval: spec.params.atrPeriod, multiplier: spec.params.multiplier });
      return (candle) => {
        const result = channels.add(candle);
        if (result === null) return {};
        return { keltner_upper: result.upper, keltner_middle: result.middle, keltner_lower: result.lower };
      };
    }
    case 'donchian': {
      const channels = new DonchianChannels(spec.params.period);
      return (candle) => {
        const result = channels.add(candle);
        if (result === null) return {};
        return { donchian_upper: result.upper, donchian_middle: result.middle, donchian_lower: result.lower };
      };
    }
    case 'ichimoku':
      return ichimokuStep(spec.params);
  }
}

/** A shared instance computing every output of a family (see the file comment). */
export function createIndicatorFamily<F extends IndicatorFamily>(family: F, params: FamilyParams[F]): FamilyIndicator {
  const spec = { family, params } as FamilySpec;
  const step = indicatorStep(spec);
  const methods = methodsOf(family);
  let outputs: IndicatorOutputs = {};
  return {
    spec,
    methods,
    update(candle: Candle): IndicatorOutputs {
      const raw = step(candle);
      const finite: { [M in TaMethod]?: number } = {};
      for (const method of methods) {
        const value = raw[method];
        if (value !== undefined && Number.isFinite(value)) finite[method] = value;
      }
      outputs = Object.freeze(finite);
      return outputs;
    },
    current(): IndicatorOutputs {
      return outputs;
    },
  };
}

/** One output of a fresh family instance, for a caller that does not share instances. */
export function createIndicator(method: TaMethod, args: TaArgs = {}): Indicator {
  const spec = resolveIndicator(method, args);
  const family = createIndicatorFamily(spec.family, spec.params);
  return {
    method,
    update: (candle) => family.update(candle)[method],
    current: () => family.current()[method],
  };
}

type Step = (candle: Candle) => IndicatorOutputs;

function hullStep(period: number): Step {
  const half = new WMA(Math.max(1, Math.floor(period / 2)));
  const full = new WMA(period);
  const root = new WMA(hullRootPeriod(period));
  return (candle) => {
    const a = half.add(candle.close);
    const b = full.add(candle.close);
    if (a === null || b === null) return {};
    return { hma: orUndefined(root.add(2 * a - b)) };
  };
}

const DAY_MS = 86_400_000;

function sessionVwapStep(): Step {
  let day: number | undefined;
  let vwap = new VWAP();
  let value: number | undefined;
  return (candle) => {
    const candleDay = Math.floor(candle.start / DAY_MS);
    if (candleDay !== day) {
      day = candleDay;
      vwap = new VWAP();
      value = undefined;
    }
    // A candle without volume adds nothing to either sum: the day's VWAP stays what it was.
    if (candle.volume > 0) value = orUndefined(vwap.add(candle)) ?? value;
    return { vwap: value };
  };
}

function supertrendStep(period: number, multiplier: number): Step {
  const atr = new ATR(period);
  // TradingView's nz(band[1]): the bands before the first are 0; the trend starts down.
  let previous: { upper: number; lower: number; value: number } | undefined;
  let lastClose = Number.NaN;
  return (candle) => {
    const range = atr.add(candle);
    const priorClose = lastClose;
    lastClose = candle.close;
    if (range === null) return {};
    const middle = (candle.high + candle.low) / 2;
    const basicUpper = middle + multiplier * range;
    const basicLower = middle - multiplier * range;
    const previousLower = previous?.lower ?? 0;
    const previousUpper = previous?.upper ?? 0;
    const lower = basicLower > previousLower || priorClose < previousLower ? basicLower : previousLower;
    const upper = basicUpper < previousUpper || priorClose > previousUpper ? basicUpper : previousUpper;
    let up: boolean;
    if (previous === undefined) up = false;
    else if (previous.value === previous.upper) up = candle.close > upper;
    else up = candle.close >= lower;
    const value = up ? lower : upper;
    previous = { upper, lower, value };
    return { supertrend: value, supertrend_direction: up ? 1 : -1 };
  };
}

function directionalMovementStep(period: number, smoothPeriod: number): Step {
  const trueRange = new WSMA(period);
  const plusMove = new WSMA(period);
  const minusMove = new WSMA(period);
  const adx = new WSMA(smoothPeriod);
  let previous: Candle | undefined;
  return (candle) => {
    const before = previous;
    previous = candle;
    if (before === undefined) return {};
    const up = candle.high - before.high;
    const down = before.low - candle.low;
    const range = Math.max(candle.high - candle.low, Math.abs(candle.high - before.close), Math.abs(candle.low - before.close));
    const averageRange = trueRange.add(range);
    const plusAverage = plusMove.add(up > down && up > 0 ? up : 0);
    const minusAverage = minusMove.add(down > up && down > 0 ? down : 0);
    if (averageRange === null || plusAverage === null || minusAverage === null) return {};
    const plus = averageRange === 0 ? 0 : (100 * plusAverage) / averageRange;
    const minus = averageRange === 0 ? 0 : (100 * minusAverage) / averageRange;
    const sum = plus + minus;
    const dx = Math.abs(plus - minus) / (sum === 0 ? 1 : sum);
    const smoothed = adx.add(dx);
    return { adx: smoothed === null ? undefined : 100 * smoothed, plus_di: plus, minus_di: minus };
  };
}

function balanceVolumeStep(period: number): Step {
  const signed: number[] = [];
  let previousClose: number | undefined;
  return (candle) => {
    const before = previousClose;
    previousClose = candle.close;
    if (before === undefined) return {};
    signed.push(Math.sign(candle.close - before) * candle.volume);
    if (signed.length > period) signed.shift();
    if (signed.length < period) return {};
    // Summed afresh over the window, so the value depends only on its candles, not on rounding carried from earlier ones.
    let sum = 0;
    for (const volume of signed) sum += volume;
    return { obv: sum };
  };
}

/** The least range of RSI (in points) over a Stoch RSI window that counts as a move. */
const FLAT_RSI_RANGE = 1e-9;

function stochRsiStep(period: number, smoothPeriod: number, signalPeriod: number): Step {
  const rsi = new RSI(period);
  const recent: number[] = [];
  const k = new SMA(smoothPeriod);
  const d = new SMA(signalPeriod);
  return (candle) => {
    const value = rsi.add(candle.close);
    if (value === null) return {};
    recent.push(value);
    if (recent.length > period) recent.shift();
    if (recent.length < period) return {};
    const lowest = Math.min(...recent);
    const highest = Math.max(...recent);
    // A range within rounding is no range: on flat closes RSI is constant but moves in its last bits.
    const stochastic = highest - lowest <= FLAT_RSI_RANGE ? 50 : (100 * (value - lowest)) / (highest - lowest);
    const smoothed = k.add(stochastic);
    if (smoothed === null) return {};
    return { stochrsi_k: smoothed, stochrsi_d: orUndefined(d.add(smoothed)) };
  };
}

function ichimokuStep(params: { conversionPeriod: number; basePeriod: number; spanPeriod: number; displacement: number }): Step {
  const conversion = new DonchianChannels(params.conversionPeriod);
  const base = new DonchianChannels(params.basePeriod);
  const spanB = new DonchianChannels(params.spanPeriod);
  // The spans of the last `displacement` candles, oldest first: the oldest is the cloud drawn at this candle.
  const spans: Array<{ a: number | undefined; b: number | undefined }> = [];
  return (candle) => {
    const conversionLine = conversion.add(candle)?.middle;
    const baseLine = base.add(candle)?.middle;
    const a = conversionLine === undefined || baseLine === undefined ? undefined : (conversionLine + baseLine) / 2;
    spans.push({ a, b: spanB.add(candle)?.middle });
    if (spans.length > params.displacement) spans.shift();
    const cloud = spans.length === params.displacement ? spans[0] : undefined;
    return { ichimoku_conversion: conversionLine, ichimoku_base: baseLine, ichimoku_span_a: cloud?.a, ichimoku_span_b: cloud?.b };
  };
}

function orUndefined(value: number | null): number | undefined {
  return value ?? undefined;
}
