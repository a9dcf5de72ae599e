import { ATR, BollingerBands, CCI, EMA, MACD, RSI, SMA, StochasticOscillator, WilliamsR } from 'trading-signals';
import { type Timeframe } from '../../generated/eql-types.js';
import { type Candle, isTimeframe } from './candles.js';

/**
 * The indicators of `ta` conditions, computed on closed candles with the `trading-signals` library.
 *
 * **Families and sharing.** Several methods are outputs of one computation: `macd_value`, `macd_signal`
 * and `macd_histogram` come from one MACD; the three Bollinger bands from one BollingerBands; `stoch_k`
 * and `stoch_d` from one StochasticOscillator. A method belongs to a *family* (`familyOf`), and a family
 * with resolved parameters (defaults applied) is one computation. `indicatorKey(method, args)` names it
 * (`macd(12,26,9)`, `rsi(14)`, `bbands(20,2)`), so every condition and live operand with the same key,
 * on the same candle series (symbol, exchange, timeframe: the caller scopes the key by those), can read
 * one shared instance: `createIndicatorFamily(family, params)` gives all the outputs of the family after
 * each closed candle, and `createIndicator(method, args)` is the single-output convenience over it.
 *
 * **Stability.** A value is reported (not undefined) once the indicator is defined on the candles seen
 * so far; `warmupCandles` tells after how many closed candles that happens.
 *
 * **Definitions** (where the library picks one convention among several; the tests check each against
 * an independent textbook implementation):
 * - `ema`: the EMA with weight 2/(period+1) is seeded with the first close (as TradingView's `ta.ema`),
 *   not with the SMA of the first `period` closes (as StockCharts and TA-Lib); it is reported from the
 *   `period`-th candle on. The two conventions converge geometrically, by a factor (period-1)/(period+1)
 *   per candle.
 * - `macd_*`: the fast and slow EMAs are those EMAs (first-close seeds); `macd_value` is reported from
 *   candle `slowPeriod`, when the signal EMA (seeded with the first MACD value) starts; `macd_signal`
 *   and `macd_histogram` once the signal EMA has `signalPeriod` values (candle slowPeriod+signalPeriod-1,
 *   the same first candle as TA-Lib).
 * - `rsi`, `atr`: Wilder smoothing seeded with the simple mean of the first `period` gains/losses or
 *   true ranges (the textbook). The first true range is high - low. RSI is 100 when the average loss is
 *   0, including a flat series (the library's and TradingView's convention; the textbook leaves 0/0 open).
 * - `cci`: typical price (H+L+C)/3, its SMA and mean absolute deviation, constant 0.015. When the mean
 *   deviation is 0 (all typical prices equal) the textbook 0/0 is reported as 0 (the price is at its mean).
 * - `bbands_*`: SMA ± stdDev × population standard deviation (divide by n, as Bollinger specifies).
 * - `willr`: -100 × (highest high - close) / (highest high - lowest low); -100 on a zero range.
 * - `stoch_k`: fast %K = 100 × (close - lowest low) / (highest high - lowest low) over `period` candles
 *   (0 on a zero range); `stoch_d` its SMA over `signalPeriod`. Both are reported together, from candle
 *   period+signalPeriod-1 (the library's output, and TA-Lib's STOCHF convention).
 */

/** The `ta` methods of the language (docs/semantics.md section 2). */
export const TA_METHODS = [
  'rsi',
  'ema',
  'sma',
  'atr',
  'cci',
  'willr',
  'macd_value',
  'macd_signal',
  'macd_histogram',
  'bbands_upper',
  'bbands_middle',
  'bbands_lower',
  'stoch_k',
  'stoch_d',
] as const;

/** A `ta` method of the language, such as `rsi` or `macd_signal`. */
export type TaMethod = (typeof TA_METHODS)[number];

/** One computation of the library, serving one or more methods. */
export type IndicatorFamily = 'rsi' | 'ema' | 'sma' | 'atr' | 'cci' | 'willr' | 'macd' | 'bbands' | 'stoch';

/** The parameter of the single-period indicators (rsi, ema, sma, atr, cci, willr): the number of candles. */
export interface PeriodParams {
  period: number;
}
/** MACD parameters: the fast and slow EMA periods and the period of the signal line. */
export interface MacdParams {
  fastPeriod: number;
  slowPeriod: number;
  signalPeriod: number;
}
/** Bollinger Bands parameters: the period of the middle band and the band width in standard deviations. */
export interface BbandsParams {
  period: number;
  stdDev: number;
}
/** Stochastic oscillator parameters: the period of %K and the period of its %D signal line. */
export interface StochParams {
  period: number;
  signalPeriod: number;
}

/** The resolved parameters of each family. */
export interface FamilyParams {
  rsi: PeriodParams;
  ema: PeriodParams;
  sma: PeriodParams;
  atr: PeriodParams;
  cci: PeriodParams;
  willr: PeriodParams;
  macd: MacdParams;
  bbands: BbandsParams;
  stoch: StochParams;
}

/** A family with its resolved parameters: the unit of sharing. */
export type FamilySpec = { [F in IndicatorFamily]: { family: F; params: FamilyParams[F] } }[IndicatorFamily];

/**
 * The args of a `ta` condition or live operand, as the validated request holds them. Only the
 * numeric parameters and the timeframe are read here; absent ones take their defaults.
 */
export interface TaArgs {
  readonly symbol?: unknown;
  readonly exchange?: unknown;
  readonly timeframe?: unknown;
  readonly period?: unknown;
  readonly fastPeriod?: unknown;
  readonly slowPeriod?: unknown;
  readonly signalPeriod?: unknown;
  readonly stdDev?: unknown;
}

/** The outputs of a family after a candle, by method; a method missing or undefined is not stable yet. */
export type IndicatorOutputs = { readonly [M in TaMethod]?: number };

/** One shared instance of a family: feed it every closed candle of its series, in order. */
export interface FamilyIndicator {
  readonly spec: FamilySpec;
  /** The family's methods, the keys `update` may fill. */
  readonly methods: readonly TaMethod[];
  /** Adds a closed candle and returns the outputs after it. */
  update(candle: Candle): IndicatorOutputs;
  /** The outputs after the last candle (all undefined before the first). */
  current(): IndicatorOutputs;
}

/** One output of a family instance. */
export interface Indicator {
  readonly method: TaMethod;
  /** Adds a closed candle and returns the indicator's value after it, undefined while not stable. */
  update(candle: Candle): number | undefined;
  /** The value after the last candle. */
  current(): number | undefined;
}

/** The default candle timeframe of `ta` conditions. */
export const DEFAULT_TIMEFRAME: Timeframe = '1h';

const FAMILY_OF: Readonly<Record<TaMethod, IndicatorFamily>> = {
  rsi: 'rsi',
  ema: 'ema',
  sma: 'sma',
  atr: 'atr',
  cci: 'cci',
  willr: 'willr',
  macd_value: 'macd',
  macd_signal: 'macd',
  macd_histogram: 'macd',
  bbands_upper: 'bbands',
  bbands_middle: 'bbands',
  bbands_lower: 'bbands',
  stoch_k: 'stoch',
  stoch_d: 'stoch',
};

const DEFAULT_PERIOD: Readonly<Record<'rsi' | 'ema' | 'sma' | 'atr' | 'cci' | 'willr', number>> = {
  rsi: 14,
  atr: 14,
  willr: 14,
  ema: 20,
  sma: 20,
  cci: 20,
};

/** Whether `method` is a `ta` method. */
export function isTaMethod(method: string): method is TaMethod {
  return Object.hasOwn(FAMILY_OF, method);
}

/** The family computing a method: `familyOf('macd_signal') === 'macd'`. */
export function familyOf(method: TaMethod): IndicatorFamily {
  return FAMILY_OF[method];
}

/** The methods a family computes, in the order of `TA_METHODS`. */
export function methodsOf(family: IndicatorFamily): readonly TaMethod[] {
  return TA_METHODS.filter((method) => FAMILY_OF[method] === family);
}

/**
 * The family and resolved parameters of a method with its args (defaults of docs/semantics.md
 * section 2 applied). Throws a RangeError for an unknown method or a parameter that is not a positive
 * whole number (`stdDev`: a positive finite number): the validator refuses those first.
 */
export function resolveIndicator(method: string, args: TaArgs = {}): FamilySpec {
  if (!isTaMethod(method)) throw new RangeError(`unknown ta method: ${JSON.stringify(method)}`);
  const family = FAMILY_OF[method];
  switch (family) {
    case 'macd':
      return {
        family,
        params: {
          fastPeriod: whole(args.fastPeriod, 12, 'fastPeriod'),
          slowPeriod: whole(args.slowPeriod, 26, 'slowPeriod'),
          signalPeriod: whole(args.signalPeriod, 9, 'signalPeriod'),
        },
      };
    case 'bbands':
      return { family, params: { period: whole(args.period, 20, 'period'), stdDev: positive(args.stdDev, 2, 'stdDev') } };
    case 'stoch':
      return {
        family,
        params: { period: whole(args.period, 14, 'period'), signalPeriod: whole(args.signalPeriod, 3, 'signalPeriod') },
      };
    default:
      return { family, params: { period: whole(args.period, DEFAULT_PERIOD[family], 'period') } };
  }
}

/** The candle timeframe of a `ta` condition: `args.timeframe`, or `1h`. */
export function resolveTimeframe(args: TaArgs = {}): Timeframe {
  const timeframe = args.timeframe;
  if (timeframe === undefined) return DEFAULT_TIMEFRAME;
  if (typeof timeframe !== 'string' || !isTimeframe(timeframe)) {
    throw new RangeError(`invalid timeframe: ${JSON.stringify(timeframe)}`);
  }
  return timeframe;
}

/** The stable text key of a family spec: `rsi(14)`, `macd(12,26,9)`, `bbands(20,2)`, `stoch(14,3)`. */
export function familyKey(spec: FamilySpec): string {
  switch (spec.family) {
    case 'macd':
      return `macd(${spec.params.fastPeriod},${spec.params.slowPeriod},${spec.params.signalPeriod})`;
    case 'bbands':
      return `bbands(${spec.params.period},${spec.params.stdDev})`;
    case 'stoch':
      return `stoch(${spec.params.period},${spec.params.signalPeriod})`;
    default:
      return `${spec.family}(${spec.params.period})`;
  }
}

/**
 * A stable key equal for two `ta` methods with args that one family instance can serve: same family,
 * same parameters after defaults. `indicatorKey('macd_value', {}) === indicatorKey('macd_signal',
 * {fastPeriod: 12})`. Symbol, exchange and timeframe are not part of it: the caller keeps one set of
 * instances per candle series.
 */
export function indicatorKey(method: string, args: TaArgs = {}): string {
  return familyKey(resolveIndicator(method, args));
}

/**
 * How many closed candles `method` needs before its first value: the index (1-based) of the first
 * candle after which `update` returns a number.
 */
export function warmupCandles(method: string, args: TaArgs = {}): number {
  const spec = resolveIndicator(method, args);
  switch (spec.family) {
    case 'rsi':
      return spec.params.period + 1;
    case 'macd':
      return method === 'macd_value'
        ? spec.params.slowPeriod
        : spec.params.slowPeriod + spec.params.signalPeriod - 1;
    case 'stoch':
      return spec.params.period + spec.params.signalPeriod - 1;
    default:
      return spec.params.period;
  }
}

/** A shared instance computing every output of a family (see the file comment). */
export function createIndicatorFamily<F extends IndicatorFamily>(family: F, params: FamilyParams[F]): FamilyIndicator {
  const spec = { family, params } as FamilySpec;
  const step = stepper(spec);
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

/** The library objects of a family, wrapped as one step per closed candle. */
function stepper(spec: FamilySpec): Step {
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
        // 0/0 when every typical price in the window is the same: the price sits at its mean.
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
      const stoch = new StochasticOscillator({
        kPeriod: spec.params.period,
        kSlowingPeriod: 1,
        dPeriod: spec.params.signalPeriod,
      });
      return (candle) => {
        const result = stoch.add(candle);
        if (result === null) return {};
        return { stoch_k: result.stochK, stoch_d: result.stochD };
      };
    }
  }
}

function orUndefined(value: number | null): number | undefined {
  return value ?? undefined;
}

function whole(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive whole number (got ${JSON.stringify(value)})`);
  }
  return value;
}

function positive(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number (got ${JSON.stringify(value)})`);
  }
  return value;
}
