/**
 * The values each numeric series can take, so a threshold outside them is caught before it sits
 * unmet for the query's whole life (`rsi > 100`) or fires at once for nothing (`rsi >= 0`).
 */
export interface ValueRange {
  min: number;
  max: number;
  /** When true, the bound itself cannot be reached (price > 0, not >= 0). */
  minOpen: boolean;
  maxOpen: boolean;
  /** What the value is, for messages. */
  unit: string;
}

const range = (min: number, max: number, minOpen: boolean, maxOpen: boolean, unit: string): ValueRange => ({
  min,
  max,
  minOpen,
  maxOpen,
  unit,
});

const POSITIVE_PRICE = range(0, Infinity, true, true, 'a price above 0');
const OSCILLATOR = range(0, 100, false, false, 'between 0 and 100');

/** Range of each series, by source then method. */
export const VALUE_RANGES: Readonly<Record<string, Readonly<Record<string, ValueRange>>>> = {
  price: {
    current: POSITIVE_PRICE,
    high: POSITIVE_PRICE,
    low: POSITIVE_PRICE,
    volume: range(0, Infinity, false, true, 'a volume of 0 or more'),
    change: range(-100, Infinity, false, true, 'a percent change of -100 or more'),
  },
  ta: {
    rsi: OSCILLATOR,
    stoch_k: OSCILLATOR,
    stoch_d: OSCILLATOR,
    willr: range(-100, 0, false, false, 'between -100 and 0'),
    atr: range(0, Infinity, false, true, 'an average true range of 0 or more'),
    ema: POSITIVE_PRICE,
    sma: POSITIVE_PRICE,
    bbands_upper: POSITIVE_PRICE,
    bbands_middle: POSITIVE_PRICE,
    bbands_lower: POSITIVE_PRICE,
    mfi: OSCILLATOR,
    stochrsi_k: OSCILLATOR,
    stochrsi_d: OSCILLATOR,
    adx: OSCILLATOR,
    plus_di: OSCILLATOR,
    minus_di: OSCILLATOR,
    supertrend_direction: range(-1, 1, false, false, '1 (uptrend) or -1 (downtrend)'),
    wma: POSITIVE_PRICE,
    vwap: POSITIVE_PRICE,
    psar: POSITIVE_PRICE,
    keltner_upper: POSITIVE_PRICE,
    keltner_middle: POSITIVE_PRICE,
    donchian_upper: POSITIVE_PRICE,
    donchian_middle: POSITIVE_PRICE,
    donchian_lower: POSITIVE_PRICE,
    ichimoku_conversion: POSITIVE_PRICE,
    ichimoku_base: POSITIVE_PRICE,
    ichimoku_span_a: POSITIVE_PRICE,
    ichimoku_span_b: POSITIVE_PRICE,
  },
};

/** VALUE_RANGES as maps, for lookups by any string without reaching inherited properties. */
const RANGES_BY_SOURCE: ReadonlyMap<string, ReadonlyMap<string, ValueRange>> = new Map(
  Object.entries(VALUE_RANGES).map(([source, byMethod]) => [source, new Map(Object.entries(byMethod))]),
);

/** The range of a series, or undefined when it is unbounded or unknown. */
export function valueRangeOf(source: unknown, method: unknown): ValueRange | undefined {
  if (typeof source !== 'string' || typeof method !== 'string') return undefined;
  return RANGES_BY_SOURCE.get(source)?.get(method);
}

function above(x: number, r: ValueRange): 'never' | 'always' | 'maybe' {
  // Can a value in r be > x? Is every value in r > x?
  if (x >= r.max) return 'never';
  if (x < r.min || (x === r.min && r.minOpen)) return 'always';
  return 'maybe';
}

function atLeast(x: number, r: ValueRange): 'never' | 'always' | 'maybe' {
  if (x > r.max || (x === r.max && r.maxOpen)) return 'never';
  if (x <= r.min) return 'always';
  return 'maybe';
}

function below(x: number, r: ValueRange): 'never' | 'always' | 'maybe' {
  if (x < r.min || x === r.min) return 'never';
  if (x > r.max || (x === r.max && r.maxOpen)) return 'always';
  return 'maybe';
}

function atMost(x: number, r: ValueRange): 'never' | 'always' | 'maybe' {
  if (x < r.min || (x === r.min && r.minOpen)) return 'never';
  if (x >= r.max) return 'always';
  return 'maybe';
}

function outside(x: number, r: ValueRange): boolean {
  return x < r.min || x > r.max || (x === r.min && r.minOpen) || (x === r.max && r.maxOpen);
}

/** Whether `series <operator> threshold` can hold, for a series confined to `r`. */
export function comparisonOutlook(operator: string, threshold: number, r: ValueRange): 'never' | 'always' | 'maybe' {
  switch (operator) {
    case '>':
      return above(threshold, r);
    case '>=':
      return atLeast(threshold, r);
    case '<':
      return below(threshold, r);
    case '<=':
      return atMost(threshold, r);
    case '==':
      return outside(threshold, r) ? 'never' : 'maybe';
    case '!=':
      return outside(threshold, r) ? 'always' : 'maybe';
    case 'crosses_above':
      // Needs a value at or below the threshold, then one above it.
      return above(threshold, r) !== 'never' && atMost(threshold, r) !== 'never' ? 'maybe' : 'never';
    case 'crosses_below':
      return below(threshold, r) !== 'never' && atLeast(threshold, r) !== 'never' ? 'maybe' : 'never';
    default:
      return 'maybe';
  }
}
