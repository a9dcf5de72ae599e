import { type Timeframe } from '../../generated/eql-types.js';
import { type Candle, isTimeframe } from './candles.js';

/**
 * The indicators of `ta` conditions, computed on closed candles (with the `trading-signals` library, see
 * `indicator-family.ts`): what each method is, its parameters and defaults, and when it has a value.
 *
 * **Families and sharing.** Several methods are outputs of one computation: `macd_value`, `macd_signal`
 * and `macd_histogram` come from one MACD; the three Bollinger bands from one BollingerBands; `adx`,
 * `plus_di` and `minus_di` from one directional movement system. A method belongs to a *family*
 * (`familyOf`), and a family with resolved parameters (defaults applied) is one computation.
 * `indicatorKey(method, args)` names it (`macd(12,26,9)`, `rsi(14)`, `bbands(20,2)`), so every condition
 * and live operand with the same key, on the same candle series (symbol, exchange, timeframe: the caller
 * scopes the key by those), can read one shared instance: `createIndicatorFamily(family, params)` (indicator-family.ts) gives all
 * the outputs of the family after each closed candle, and `createIndicator(method, args)` is the
 * single-output convenience over it.
 *
 * **Stability.** A value is reported (not undefined) once the indicator is defined on the candles seen
 * so far; `warmupCandles` tells after how many closed candles that happens. The definitions (where a
 * library or a chart picks one convention among several) are written in `indicator-family.ts` and in
 * docs/semantics.md, section 2; the tests check each against an independent implementation.
 */

/** How a parameter is read: a whole number of candles, or a positive number. */
type ParamKind = 'whole' | 'positive';

interface ParamRule {
  readonly fallback: number;
  readonly kind: ParamKind;
}

const whole = (fallback: number): ParamRule => ({ fallback, kind: 'whole' });
const positive = (fallback: number): ParamRule => ({ fallback, kind: 'positive' });

/**
 * Every family: the methods it computes and its parameters with their defaults, in the order of the
 * family's key (`macd(12,26,9)`). Defaults follow the charts traders compare with (TradingView's).
 */
const FAMILIES = {
  rsi: { methods: ['rsi'], params: { period: whole(14) } },
  ema: { methods: ['ema'], params: { period: whole(20) } },
  sma: { methods: ['sma'], params: { period: whole(20) } },
  atr: { methods: ['atr'], params: { period: whole(14) } },
  cci: { methods: ['cci'], params: { period: whole(20) } },
  willr: { methods: ['willr'], params: { period: whole(14) } },
  macd: { methods: ['macd_value', 'macd_signal', 'macd_histogram'], params: { fastPeriod: whole(12), slowPeriod: whole(26), signalPeriod: whole(9) } },
  bbands: { methods: ['bbands_upper', 'bbands_middle', 'bbands_lower'], params: { period: whole(20), stdDev: positive(2) } },
  stoch: { methods: ['stoch_k', 'stoch_d'], params: { period: whole(14), signalPeriod: whole(3) } },
  wma: { methods: ['wma'], params: { period: whole(20) } },
  hma: { methods: ['hma'], params: { period: whole(20) } },
  dema: { methods: ['dema'], params: { period: whole(20) } },
  tema: { methods: ['tema'], params: { period: whole(20) } },
  vwap: { methods: ['vwap'], params: {} },
  supertrend: { methods: ['supertrend', 'supertrend_direction'], params: { period: whole(10), multiplier: positive(3) } },
  adx: { methods: ['adx', 'plus_di', 'minus_di'], params: { period: whole(14), smoothPeriod: whole(14) } },
  psar: { methods: ['psar'], params: { acceleration: positive(0.02), maxAcceleration: positive(0.2) } },
  obv: { methods: ['obv'], params: { period: whole(20) } },
  mfi: { methods: ['mfi'], params: { period: whole(14) } },
  stochrsi: { methods: ['stochrsi_k', 'stochrsi_d'], params: { period: whole(14), smoothPeriod: whole(3), signalPeriod: whole(3) } },
  keltner: { methods: ['keltner_upper', 'keltner_middle', 'keltner_lower'], params: { period: whole(20), atrPeriod: whole(10), multiplier: positive(2) } },
  donchian: { methods: ['donchian_upper', 'donchian_middle', 'donchian_lower'], params: { period: whole(20) } },
  ichimoku: {
    methods: ['ichimoku_conversion', 'ichimoku_base', 'ichimoku_span_a', 'ichimoku_span_b'],
    params: { conversionPeriod: whole(9), basePeriod: whole(26), spanPeriod: whole(52), displacement: whole(26) },
  },
} as const satisfies Record<string, { methods: readonly string[]; params: Readonly<Record<string, ParamRule>> }>;

/** One computation of the library, serving one or more methods. */
export type IndicatorFamily = keyof typeof FAMILIES;

/** A `ta` method of the language, such as `rsi` or `macd_signal`. */
export type TaMethod = (typeof FAMILIES)[IndicatorFamily]['methods'][number];

/** The `ta` methods of the language (docs/semantics.md section 2), family by family. */
export const TA_METHODS: readonly TaMethod[] = Object.values(FAMILIES).flatMap((family): readonly TaMethod[] => family.methods);

/** The resolved parameters of each family: every parameter of its catalogue entry, defaults applied. */
export type FamilyParams = { [F in IndicatorFamily]: { [P in keyof (typeof FAMILIES)[F]['params']]: number } };

/** The parameter of the single-period indicators (rsi, ema, sma, atr, cci, willr, ...): the number of candles. */
export type PeriodParams = FamilyParams['rsi'];
/** MACD parameters: the fast and slow EMA periods and the period of the signal line. */
export type MacdParams = FamilyParams['macd'];
/** Bollinger Bands parameters: the period of the middle band and the band width in standard deviations. */
export type BbandsParams = FamilyParams['bbands'];
/** Stochastic oscillator parameters: the period of %K and the period of its %D signal line. */
export type StochParams = FamilyParams['stoch'];

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
  readonly smoothPeriod?: unknown;
  readonly atrPeriod?: unknown;
  readonly stdDev?: unknown;
  readonly multiplier?: unknown;
  readonly acceleration?: unknown;
  readonly maxAcceleration?: unknown;
  readonly conversionPeriod?: unknown;
  readonly basePeriod?: unknown;
  readonly spanPeriod?: unknown;
  readonly displacement?: unknown;
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

const FAMILY_OF: ReadonlyMap<string, IndicatorFamily> = new Map(
  (Object.keys(FAMILIES) as IndicatorFamily[]).flatMap((family) => FAMILIES[family].methods.map((method): [string, IndicatorFamily] => [method, family])),
);

/** Whether `method` is a `ta` method. */
export function isTaMethod(method: string): method is TaMethod {
  return FAMILY_OF.has(method);
}

/** The family computing a method: `familyOf('macd_signal') === 'macd'`. */
export function familyOf(method: TaMethod): IndicatorFamily {
  return FAMILY_OF.get(method) as IndicatorFamily;
}

/** The methods a family computes, in the order of `TA_METHODS`. */
export function methodsOf(family: IndicatorFamily): readonly TaMethod[] {
  return FAMILIES[family].methods;
}

/** The parameters a family reads, in the order of its key, with their defaults. */
export function parametersOf(family: IndicatorFamily): ReadonlyArray<{ name: string; fallback: number }> {
  return Object.entries(FAMILIES[family].params as Readonly<Record<string, ParamRule>>).map(([name, rule]) => ({ name, fallback: rule.fallback }));
}

/**
 * The family and resolved parameters of a method with its args (defaults of docs/semantics.md
 * section 2 applied). Throws a RangeError for an unknown method or a parameter that is not a positive
 * whole number (for a `positive` one: a positive finite number): the validator refuses those first.
 */
export function resolveIndicator(method: string, args: TaArgs = {}): FamilySpec {
  const family = FAMILY_OF.get(method);
  if (family === undefined) throw new RangeError(`unknown ta method: ${JSON.stringify(method)}`);
  const params: Record<string, number> = {};
  for (const [name, rule] of Object.entries(FAMILIES[family].params as Readonly<Record<string, ParamRule>>)) {
    params[name] = readParam((args as Readonly<Record<string, unknown>>)[name], rule, name);
  }
  return { family, params } as FamilySpec;
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

/** The stable text key of a family spec: `rsi(14)`, `macd(12,26,9)`, `bbands(20,2)`, `vwap()`. */
export function familyKey(spec: FamilySpec): string {
  return `${spec.family}(${Object.values(spec.params as Readonly<Record<string, number>>).join(',')})`;
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
 * candle after which `update` returns a number (for `vwap`: on candles with volume).
 */
export function warmupCandles(method: string, args: TaArgs = {}): number {
  const spec = resolveIndicator(method, args);
  switch (spec.family) {
    case 'rsi':
    case 'obv':
    case 'mfi':
      return spec.params.period + 1;
    case 'macd':
      return method === 'macd_value' ? spec.params.slowPeriod : spec.params.slowPeriod + spec.params.signalPeriod - 1;
    case 'stoch':
      return spec.params.period + spec.params.signalPeriod - 1;
    case 'hma':
      return spec.params.period + hullRootPeriod(spec.params.period) - 1;
    case 'tema':
      return 3 * spec.params.period - 2;
    case 'vwap':
      return 1;
    case 'psar':
      return 2;
    case 'adx':
      return method === 'adx' ? spec.params.period + spec.params.smoothPeriod : spec.params.period + 1;
    case 'stochrsi': {
      const k = 2 * spec.params.period + spec.params.smoothPeriod - 1;
      return method === 'stochrsi_k' ? k : k + spec.params.signalPeriod - 1;
    }
    case 'keltner':
      return Math.max(spec.params.period, spec.params.atrPeriod);
    case 'ichimoku': {
      const { conversionPeriod, basePeriod, spanPeriod, displacement } = spec.params;
      if (method === 'ichimoku_conversion') return conversionPeriod;
      if (method === 'ichimoku_base') return basePeriod;
      return (method === 'ichimoku_span_a' ? Math.max(conversionPeriod, basePeriod) : spanPeriod) + displacement - 1;
    }
    default:
      return spec.params.period;
  }
}

/** The length of the Hull moving average's last WMA: √period rounded, as TradingView's `ta.hma`. */
export function hullRootPeriod(period: number): number {
  return Math.max(1, Math.round(Math.sqrt(period)));
}

function readParam(value: unknown, rule: ParamRule, name: string): number {
  if (value === undefined) return rule.fallback;
  if (rule.kind === 'whole') {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`${name} must be a positive whole number (got ${JSON.stringify(value)})`);
    }
    return value;
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number (got ${JSON.stringify(value)})`);
  }
  return value;
}
