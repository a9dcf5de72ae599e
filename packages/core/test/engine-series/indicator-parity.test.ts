import { describe, expect, it } from 'vitest';
import { TA_METHODS, createIndicator, warmupCandles, type Candle, type TaMethod } from '@eql/core';
import * as textbook from '../support/textbook-indicators.js';
import { type Series } from '../support/textbook-indicators.js';

/**
 * Parity of the 25 `ta` methods of the second batch (wma ... ichimoku) with the independent whole-array
 * implementations of test/support/textbook-indicators.ts: the engine's `createIndicator`, fed candle by
 * candle, has a value exactly where the definition has one, within 1e-9 (relative; absolute near 0),
 * with the default parameters and with others, on a trending and oscillating series and on one made of
 * edge cases. `warmupCandles` is the first candle with a value. And the implementations (and the engine)
 * reproduce published worked examples to their printed precision.
 */

type Args = Record<string, number>;

const HOUR = 3_600_000;
/** 2026-01-05T05:00:00Z: the series start in the morning, so that UTC days split them unevenly. */
const START = Date.parse('2026-01-05T05:00:00Z');

/**
 * A deterministic series of hourly candles, trending and oscillating, with real ranges, gaps between one
 * close and the next open, varying volume, and a few missing hours (a candle 3 hours after the previous).
 */
function makeCandles(count: number): Candle[] {
  const candles: Candle[] = [];
  let previousClose = 100;
  let start = START;
  for (let i = 0; i < count; i += 1) {
    const close = 100 + 10 * Math.sin(i / 5) + 3 * Math.cos(i / 3) + 0.2 * i + 4 * Math.sin(i / 17);
    const open = previousClose + 0.5 * Math.sin(i * 1.7);
    const high = Math.max(open, close) + 0.5 + Math.abs(Math.sin(i * 0.9)) * 2;
    const low = Math.min(open, close) - 0.5 - Math.abs(Math.cos(i * 1.3)) * 2;
    const volume = 10 + ((i * 7) % 13) + 5 * Math.abs(Math.sin(i / 4));
    candles.push({ start, open, high, low, close, volume });
    previousClose = close;
    start += i % 37 === 36 ? 3 * HOUR : HOUR;
  }
  return candles;
}

/**
 * A series of edge cases: it starts flat (open = high = low = close = 100) for 40 candles, the first 5
 * without volume; then moves, the first move an outside candle whose high rises exactly as much as its low
 * falls; candles without volume here and there, and at 00:00 and 01:00 UTC (a day that starts without
 * volume); a second flat run (candles 95 to 119) at the close before it; a run of rising closes.
 */
function makeEdgeCandles(count: number): Candle[] {
  const candles: Candle[] = [];
  let previousClose = 100;
  let start = START;
  for (let i = 0; i < count; i += 1) {
    let candle: Omit<Candle, 'start' | 'volume'>;
    if (i < 40) {
      candle = { open: 100, high: 100, low: 100, close: 100 };
    } else if (i === 40) {
      candle = { open: 100, high: 101, low: 99, close: 100.5 };
    } else if (i >= 95 && i < 120) {
      candle = { open: previousClose, high: previousClose, low: previousClose, close: previousClose };
    } else if (i >= 130 && i < 145) {
      const close = previousClose + 0.25 + 0.1 * (i % 3);
      candle = { open: previousClose, high: close + 0.2, low: previousClose - 0.1, close };
    } else {
      const close = 100 + 6 * Math.sin(i / 4) + 2 * Math.cos(i / 2.5);
      const open = previousClose + 0.3 * Math.sin(i * 1.1);
      candle = { open, high: Math.max(open, close) + 0.2 + Math.abs(Math.sin(i)), low: Math.min(open, close) - 0.2 - Math.abs(Math.cos(i * 0.7)), close };
    }
    const hourOfDay = new Date(start).getUTCHours();
    const volume = i < 5 || i % 11 === 0 || hourOfDay <= 1 ? 0 : 1 + (i % 5);
    candles.push({ start, volume, ...candle });
    previousClose = candle.close;
    start += i % 29 === 28 ? 2 * HOUR : HOUR;
  }
  return candles;
}

const CANDLES = makeCandles(220);
const EDGE_CANDLES = makeEdgeCandles(170);

/** Feeds the candles to a fresh engine indicator and collects its value after each. */
function run(method: TaMethod, args: Args, candles: readonly Candle[]): Series {
  const indicator = createIndicator(method, args);
  return candles.map((c) => indicator.update(c));
}

/** The textbook value of a method with its args, the defaults of the definitions applied here (not the engine's). */
function reference(method: TaMethod, args: Args, candles: readonly Candle[]): Series {
  const p = (name: string, fallback: number): number => args[name] ?? fallback;
  switch (method) {
    case 'wma':
      return textbook.wma(candles, p('period', 20));
    case 'hma':
      return textbook.hma(candles, p('period', 20));
    case 'dema':
      return textbook.dema(candles, p('period', 20));
    case 'tema':
      return textbook.tema(candles, p('period', 20));
    case 'vwap':
      return textbook.vwap(candles);
    case 'supertrend':
    case 'supertrend_direction': {
      const result = textbook.supertrend(candles, p('period', 10), p('multiplier', 3));
      return method === 'supertrend' ? result.supertrend : result.direction;
    }
    case 'adx':
    case 'plus_di':
    case 'minus_di': {
      const result = textbook.dmi(candles, p('period', 14), p('smoothPeriod', 14));
      return method === 'adx' ? result.adx : method === 'plus_di' ? result.plusDi : result.minusDi;
    }
    case 'psar':
      return textbook.psar(candles, p('acceleration', 0.02), p('maxAcceleration', 0.2));
    case 'obv':
      return textbook.obv(candles, p('period', 20));
    case 'mfi':
      return textbook.mfi(candles, p('period', 14));
    case 'stochrsi_k':
    case 'stochrsi_d': {
      const result = textbook.stochRsi(candles, p('period', 14), p('smoothPeriod', 3), p('signalPeriod', 3));
      return method === 'stochrsi_k' ? result.k : result.d;
    }
    case 'keltner_upper':
    case 'keltner_middle':
    case 'keltner_lower': {
      const result = textbook.keltner(candles, p('period', 20), p('atrPeriod', 10), p('multiplier', 2));
      return method === 'keltner_upper' ? result.upper : method === 'keltner_middle' ? result.middle : result.lower;
    }
    case 'donchian_upper':
    case 'donchian_middle':
    case 'donchian_lower': {
      const result = textbook.donchian(candles, p('period', 20));
      return method === 'donchian_upper' ? result.upper : method === 'donchian_middle' ? result.middle : result.lower;
    }
    case 'ichimoku_conversion':
    case 'ichimoku_base':
    case 'ichimoku_span_a':
    case 'ichimoku_span_b': {
      const result = textbook.ichimoku(candles, p('conversionPeriod', 9), p('basePeriod', 26), p('spanPeriod', 52), p('displacement', 26));
      if (method === 'ichimoku_conversion') return result.conversion;
      if (method === 'ichimoku_base') return result.base;
      return method === 'ichimoku_span_a' ? result.spanA : result.spanB;
    }
    default:
      throw new Error(`no textbook implementation of ${method}`);
  }
}

/** Same definedness everywhere, and values within a relative tolerance (absolute near zero). */
function expectSeriesClose(actual: Series, expected: Series, tolerance = 1e-9): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i += 1) {
    const e = expected[i];
    const a = actual[i];
    if (e === undefined) {
      expect(a, `index ${i}: ${a} where the definition has no value`).toBeUndefined();
      continue;
    }
    expect(a, `index ${i}: no value where the definition has ${e}`).toBeDefined();
    expect(Math.abs((a ?? Number.NaN) - e), `index ${i}: ${a} vs ${e}`).toBeLessThanOrEqual(tolerance * Math.max(1, Math.abs(e)));
  }
}

/** Each published value within `tolerance` (half a unit of its last printed digit, plus rounding noise). */
function expectPublished(actual: Series, published: Series, tolerance: number, label: string): void {
  let checked = 0;
  published.forEach((value, i) => {
    if (value === undefined) return;
    checked += 1;
    expect(Math.abs((actual[i] ?? Number.NaN) - value), `${label} at row ${i}: ${actual[i]} vs published ${value}`).toBeLessThanOrEqual(tolerance);
  });
  expect(checked).toBeGreaterThan(0);
}

const firstDefined = (series: Series): number => series.findIndex((v) => v !== undefined) + 1;


/** Candles from [high, low, close, volume?] rows, one a day (all in one UTC day when `sameDay`). */
function candlesOf(rows: ReadonlyArray<readonly number[]>, sameDay = false): Candle[] {
  return rows.map(([high = 0, low = 0, close = 0, volume = 0], i) => ({ start: i * (sameDay ? 60_000 : 86_400_000), open: close, high, low, close, volume }));
}

// ------------------------------------------------------------------------------------------------

/** Every new method, with its defaults ({}) and other parameter sets (small, odd, and degenerate ones). */
const CASES: ReadonlyArray<{ methods: readonly TaMethod[]; argSets: readonly Args[] }> = [
  { methods: ['wma'], argSets: [{}, { period: 7 }, { period: 1 }] },
  { methods: ['hma'], argSets: [{}, { period: 9 }, { period: 2 }, { period: 1 }] },
  { methods: ['dema'], argSets: [{}, { period: 5 }, { period: 1 }] },
  { methods: ['tema'], argSets: [{}, { period: 4 }, { period: 1 }] },
  { methods: ['vwap'], argSets: [{}] },
  { methods: ['supertrend', 'supertrend_direction'], argSets: [{}, { period: 7, multiplier: 1.5 }, { period: 2, multiplier: 0.5 }, { period: 1, multiplier: 2 }] },
  { methods: ['adx', 'plus_di', 'minus_di'], argSets: [{}, { period: 7, smoothPeriod: 3 }, { period: 1, smoothPeriod: 1 }] },
  { methods: ['psar'], argSets: [{}, { acceleration: 0.05, maxAcceleration: 0.3 }, { acceleration: 0.1, maxAcceleration: 0.1 }] },
  { methods: ['obv'], argSets: [{}, { period: 5 }, { period: 1 }] },
  { methods: ['mfi'], argSets: [{}, { period: 5 }, { period: 1 }] },
  { methods: ['stochrsi_k', 'stochrsi_d'], argSets: [{}, { period: 7, smoothPeriod: 2, signalPeriod: 4 }, { period: 5, smoothPeriod: 1, signalPeriod: 1 }] },
  { methods: ['keltner_upper', 'keltner_middle', 'keltner_lower'], argSets: [{}, { period: 8, atrPeriod: 14, multiplier: 1.5 }, { period: 1, atrPeriod: 1, multiplier: 0.5 }] },
  { methods: ['donchian_upper', 'donchian_middle', 'donchian_lower'], argSets: [{}, { period: 5 }, { period: 1 }] },
  {
    methods: ['ichimoku_conversion', 'ichimoku_base', 'ichimoku_span_a', 'ichimoku_span_b'],
    argSets: [{}, { conversionPeriod: 5, basePeriod: 3, spanPeriod: 12, displacement: 4 }, { conversionPeriod: 2, basePeriod: 4, spanPeriod: 6, displacement: 1 }],
  },
];

const NEW_METHODS = CASES.flatMap((family) => family.methods);
const RUNS = CASES.flatMap((family) => family.methods.flatMap((method) => family.argSets.map((args) => ({ method, args, name: `${method} ${JSON.stringify(args)}` }))));

describe('the 25 new ta methods equal the textbook implementations', () => {
  it('covers the 25 methods added to the 14 of the first batch', () => {
    const firstBatch = ['rsi', 'ema', 'sma', 'atr', 'cci', 'willr', 'macd_value', 'macd_signal', 'macd_histogram', 'bbands_upper', 'bbands_middle', 'bbands_lower', 'stoch_k', 'stoch_d'];
    expect(new Set(NEW_METHODS).size).toBe(25);
    expect([...TA_METHODS].filter((method) => !firstBatch.includes(method)).sort()).toEqual([...NEW_METHODS].sort());
  });

  describe.each(RUNS)('$name', ({ method, args }) => {
    it(`on ${CANDLES.length} trending and oscillating hourly candles`, () => {
      const expected = reference(method, args, CANDLES);
      expect(expected.some((v) => v !== undefined)).toBe(true);
      expectSeriesClose(run(method, args, CANDLES), expected);
    });

    it(`on ${EDGE_CANDLES.length} candles of edge cases (flat runs, no volume, ties)`, () => {
      const expected = reference(method, args, EDGE_CANDLES);
      expectSeriesClose(run(method, args, EDGE_CANDLES), expected);
    });

    it('warmupCandles is the first candle with a value', () => {
      expect(warmupCandles(method, args)).toBe(firstDefined(reference(method, args, CANDLES)));
    });
  });

  it('the edge series reaches the conventions it is made for', () => {
    // A flat start: no true range, no move of the closes, no money flow.
    expect(reference('adx', {}, EDGE_CANDLES)[27]).toBe(0);
    expect(reference('plus_di', {}, EDGE_CANDLES)[20]).toBe(0);
    expect(reference('mfi', {}, EDGE_CANDLES)[20]).toBe(50);
    expect(reference('stochrsi_k', {}, EDGE_CANDLES)[30]).toBe(50);
    expect(reference('obv', {}, EDGE_CANDLES)[30]).toBe(0);
    // A day that starts without volume has no VWAP until a candle with volume.
    const dayStarts = EDGE_CANDLES.flatMap((c, i) => (new Date(c.start).getUTCHours() === 0 ? [i] : []));
    expect(dayStarts.length).toBeGreaterThan(3);
    const vwap = reference('vwap', {}, EDGE_CANDLES);
    for (const i of dayStarts) expect(vwap[i]).toBeUndefined();
    expect(vwap.slice(0, 5).every((v) => v === undefined)).toBe(true);
  });
});

describe('Stoch RSI on flat closes', () => {
  // There RSI is constant in exact arithmetic (both of its Wilder averages shrink by (n − 1)/n), but in
  // floating point it moves in its last bit (52.631578947368425, then 52.63157894736841 here); a literal
  // stochastic turns that into 0 or 100, so a flat market would cross any level of stochrsi_k. A range of
  // 1e-9 points or less counts as flat: 50.
  it('stochrsi_k(3, 1, 1) is 50 after the closes 1, 1, 2, 1.1, 1.1, 1.1', () => {
    const candles = [1, 1, 2, 1.1, 1.1, 1.1].map((close, i) => ({ start: i * HOUR, open: close, high: close, low: close, close, volume: 1 }));
    expect(run('stochrsi_k', { period: 3, smoothPeriod: 1, signalPeriod: 1 }, candles).at(-1)).toBe(50);
  });
});

// ------------------------------------------------------------------------------------------------
// Published worked examples, all from the test data of the `ta` Python library
// (https://github.com/bukosabino/ta/tree/master/test/data): StockCharts ChartSchool's spreadsheets for ADX,
// MFI and the Parabolic SAR exported to CSV (cs-adx.csv, cs-mfi.csv, cs-psar.csv, with the spreadsheets'
// columns), and tables of values of the library itself (cs-obv.csv, cs-kc.csv and cs-dc.csv on
// StockCharts' QQQ data of April 2010, cs-vwap.csv on the MFI spreadsheet's data, cs-wma.csv). Inputs and
// values are copied as printed there.

describe('published tables: StockCharts ChartSchool spreadsheets, and an OBV table', () => {
  // cs-adx.csv: 11-Feb-09 to 13-Apr-09, [high, low, close]; +DI14, -DI14 from the 15th row, ADX from the 28th.
  const ADX_ROWS = [
    [30.1983, 29.4072, 29.872], [30.2776, 29.3182, 30.2381], [30.4458, 29.9611, 30.0996], [29.3478, 28.7443, 28.9028], [29.3477, 28.5566, 28.9225],
    [29.2886, 28.4081, 28.4775], [28.8334, 28.0818, 28.5566], [28.7346, 27.4289, 27.5576], [28.6654, 27.6565, 28.4675], [28.8532, 27.8345, 28.2796],
    [28.6356, 27.3992, 27.4882], [27.6761, 27.0927, 27.231], [27.2112, 26.1826, 26.3507], [26.8651, 26.1332, 26.3309], [27.409, 26.6277, 27.0333],
    [26.9441, 26.1332, 26.2221], [26.5189, 25.4307, 26.0144], [26.5189, 25.3518, 25.4605], [27.0927, 25.876, 27.0333], [27.686, 26.964, 27.4487],
    [28.4477, 27.1421, 28.3586], [28.5267, 28.0123, 28.4278], [28.6654, 27.884, 27.953], [29.0116, 27.9928, 29.0116], [29.872, 28.7643, 29.3776],
    [29.8028, 29.1402, 29.3576], [29.7529, 28.7127, 28.9107], [30.6546, 28.929, 30.6149], [30.5951, 30.0304, 30.0502], [30.7635, 29.3863, 30.189],
    [31.1698, 30.1365, 31.1202], [30.8923, 30.4267, 30.5356], [30.0402, 29.3467, 29.7827], [30.6645, 29.9906, 30.0402], [30.5951, 29.5152, 30.4861],
    [31.9724, 30.9418, 31.467], [32.1011, 31.5364, 32.0515], [32.0317, 31.358, 31.9724], [31.6255, 30.922, 31.1302], [31.8534, 31.1994, 31.6551],
    [32.7055, 32.1308, 32.636], [32.7648, 32.2298, 32.5866],
  ];
  const before = (n: number): Series => new Array<undefined>(n).fill(undefined);
  const PLUS_DI14 = [
    ...before(14), 6.7494187, 6.2919781, 5.7817867, 5.2866653, 8.6988073, 12.4910346, 16.6785194, 16.629245, 16.6937202, 17.9332083, 22.7269847, 21.609939,
    19.9520101, 23.8153238, 22.8134766, 20.6131527, 21.9656407, 20.8748381, 19.1217139, 22.3703123, 20.6576174, 27.9963105, 27.6518997, 26.2680255,
    24.2855302, 24.6685273, 28.9897715, 28.2682748,
  ];
  const MINUS_DI14 = [
    ...before(14), 32.4195605, 33.9457668, 36.4278403, 33.8872739, 30.0160112, 28.4668252, 25.866945, 24.901954, 23.4696294, 21.6526027, 19.9151478,
    18.9363056, 20.6365552, 18.1258276, 17.3633223, 20.1994349, 18.7390828, 17.8085094, 23.9419101, 22.4368271, 24.0894564, 21.6344053, 20.6667053,
    20.9198333, 22.4736591, 21.2826923, 19.6535886, 18.8616603,
  ];
  const ADX14 = [
    ...before(27), 33.5833461, 32.1534947, 29.9292238, 28.3576178, 26.8982694, 25.7764785, 23.9459048, 22.7832985, 22.071526, 21.5275978, 20.7994716,
    19.5905735, 18.7175557, 18.7515253, 18.837766,
  ];

  it('ADX(14), +DI14, -DI14 (cs-adx): the textbook DMI and the engine to the 7 printed decimals', () => {
    const candles = candlesOf(ADX_ROWS);
    const reference = textbook.dmi(candles, 14, 14);
    const tolerance = 0.5e-7 + 1e-9;
    expectPublished(reference.plusDi, PLUS_DI14, tolerance, '+DI14 (textbook)');
    expectPublished(reference.minusDi, MINUS_DI14, tolerance, '-DI14 (textbook)');
    expectPublished(reference.adx, ADX14, tolerance, 'ADX (textbook)');
    expectPublished(run('plus_di', {}, candles), PLUS_DI14, tolerance, '+DI14 (engine)');
    expectPublished(run('minus_di', {}, candles), MINUS_DI14, tolerance, '-DI14 (engine)');
    expectPublished(run('adx', {}, candles), ADX14, tolerance, 'ADX (engine)');
    // Defined exactly where the spreadsheet starts its columns.
    expect(firstDefined(reference.plusDi)).toBe(15);
    expect(firstDefined(reference.adx)).toBe(28);
  });

  // cs-mfi.csv: 3-Dec-10 to 14-Jan-11, [high, low, close, volume]; MFI(14) from the 15th row.
  const MFI_ROWS = [
    [24.8283, 24.3205, 24.7486, 18730.144], [24.7586, 24.5993, 24.7088, 12271.74], [25.1568, 24.7785, 25.0373, 24691.414], [25.5848, 24.9477, 25.545, 18357.606],
    [25.6844, 24.8083, 25.0672, 22964.08], [25.336, 25.0572, 25.107, 15918.948], [25.2862, 24.8482, 24.888, 16067.044], [25.1269, 24.7496, 24.9975, 16568.487],
    [25.2762, 24.9278, 25.0473, 16018.729], [25.3857, 25.0274, 25.336, 9773.569], [25.5351, 25.0473, 25.0572, 22572.712], [25.6048, 25.0622, 25.4455, 12986.669],
    [25.7441, 25.5351, 25.5649, 10906.659], [25.7242, 25.4554, 25.555, 5799.259], [25.6744, 25.2862, 25.4057, 7395.274], [25.4455, 25.1667, 25.3658, 5818.162],
    [25.3161, 24.9178, 25.0373, 7164.726], [25.2563, 24.9079, 24.9178, 5672.914], [25.0373, 24.8283, 24.878, 5624.742], [25.0074, 24.7088, 24.9676, 5023.469],
    [25.3061, 25.0274, 25.0473, 7457.091], [25.117, 24.3404, 24.45, 11798.009], [24.6889, 24.2708, 24.5694, 12366.132], [24.5495, 23.8925, 24.0219, 13294.865],
    [24.2708, 23.778, 23.8825, 9256.87], [24.2708, 23.7232, 24.2011, 9690.604], [24.5993, 24.2011, 24.2807, 8870.318], [24.4798, 24.2409, 24.3305, 7168.965],
    [24.5595, 23.4345, 24.44, 11356.18], [25.16, 24.27, 25, 13379.374],
  ];
  const MFI14 = [
    ...before(14), 49.46631, 45.10974, 36.27215, 28.40665, 31.52806, 33.86815, 41.3001, 42.80337, 31.83048, 23.76012, 26.50618, 24.07266, 22.38329, 22.17875,
    21.53405, 30.83618,
  ];

  it('MFI(14) (cs-mfi): the textbook and the engine to the 5 printed decimals', () => {
    const candles = candlesOf(MFI_ROWS);
    const tolerance = 0.5e-5 + 1e-9;
    expectPublished(textbook.mfi(candles, 14), MFI14, tolerance, 'MFI (textbook)');
    expectPublished(run('mfi', {}, candles), MFI14, tolerance, 'MFI (engine)');
    expect(firstDefined(run('mfi', {}, candles))).toBe(15);
  });

  // cs-psar.csv: 24-Aug-10 to 5-Oct-10, [high, low, close]; SAR(0.02, 0.2) from the 3rd row (a falling SAR
  // at the 2nd high, rising from 3-Sep-10, falling again from 23-Sep-10).
  const PSAR_ROWS = [
    [24.2013, 23.8534, 23.8932], [24.0721, 23.7242, 23.9528], [24.0423, 23.6447, 23.6745], [23.8733, 23.3664, 23.7839], [23.6745, 23.4559, 23.4956],
    [23.5851, 23.1776, 23.3217], [23.8037, 23.3962, 23.754], [23.8036, 23.5652, 23.7938], [24.3007, 24.0522, 24.1417], [24.1516, 23.7739, 23.8137],
    [24.0522, 23.595, 23.7839], [24.0622, 23.8435, 23.8634], [23.8833, 23.6447, 23.7044], [25.1356, 23.9429, 24.9567], [25.1952, 24.738, 24.8771],
    [25.066, 24.7678, 24.9616], [25.2151, 24.897, 25.1753], [25.3741, 24.9268, 25.066], [25.3642, 24.9567, 25.2747], [25.2648, 24.9268, 24.9964],
    [24.8175, 24.2112, 24.4597], [24.4398, 24.2112, 24.2808], [24.6485, 24.4299, 24.6237], [24.8374, 24.4398, 24.5815], [24.7479, 24.2013, 24.5268],
    [24.5094, 24.251, 24.3504], [24.6784, 24.2112, 24.3404], [24.6684, 24.1516, 24.2311], [23.8435, 23.6348, 23.764], [24.3007, 23.764, 24.2013],
  ];
  const PSAR = [
    ...before(2), 24.2013, 24.190168, 24.15721728, 24.12558459, 24.06870551, 24.01523918, 23.1776, 23.200062, 23.22207476, 23.24364726, 23.26478832,
    23.28550655, 23.35951029, 23.46965167, 23.57318457, 23.70453781, 23.87149403, 24.02175462, 24.15698916, 25.3741, 25.350842, 25.32804916, 25.30571218,
    25.26153569, 25.21912626, 25.17841321, 25.11680442, 24.99824407,
  ];

  it('Parabolic SAR(0.02, 0.2) (cs-sar): TradingView’s ta.sar, textbook and engine, to the 8 printed decimals from the first reversal on', () => {
    const candles = candlesOf(PSAR_ROWS);
    const tolerance = 0.5e-8 + 1e-10;
    const reference = textbook.psar(candles, 0.02, 0.2);
    const engine = run('psar', {}, candles);
    // The spreadsheet starts its first (falling) SAR at the 3rd row with the acceleration 0.02. TradingView's
    // start reverses already at the 2nd bar, so its SAR at the 3rd row is the same (24.2013, the 1st high) but
    // its acceleration is 0.04 by the 4th row: rows 4 to 8 differ, by convention. From the first reversal of
    // the sheet (3-Sep-10, row 9) both carry the same extreme point and acceleration.
    const fromReversal = PSAR.map((value, i) => (i >= 8 || i === 2 ? value : undefined));
    expectPublished(reference, fromReversal, tolerance, 'SAR (textbook)');
    expectPublished(engine, fromReversal, tolerance, 'SAR (engine)');
    for (let i = 3; i < 8; i += 1) expect(Math.abs((reference[i] ?? Number.NaN) - (PSAR[i] ?? Number.NaN))).toBeGreaterThan(0.01);
    expectSeriesClose(engine, reference);
  });

  // cs-obv.csv (the `ta` library's worked OBV table): closes and volumes, and the running OBV (0 before the
  // 2nd row). The OBV over `period` candles is the difference of the running one `period` rows apart.
  const OBV_CLOSES = [
    53.26, 53.3, 53.32, 53.72, 54.19, 53.92, 54.65, 54.6, 54.21, 54.53, 53.79, 53.66, 53.56, 53.57, 53.94, 53.27, 53.6, 53.65, 53.62, 53.27, 53.44, 53.28,
    53.14, 53.31, 54.09, 54.08, 54.01, 54.17, 54.24, 54.45,
  ];
  const OBV_VOLUMES = [
    0, 8200, 8100, 8300, 8900, 9200, 13300, 10300, 9900, 10100, 11300, 12600, 10700, 11500, 23800, 14600, 11700, 10400, 9500, 13900, 10400, 4200, 10900,
    17600, 17900, 15800, 10200, 8700, 16000, 12500,
  ];
  const OBV_CUMULATIVE = [
    0, 8200, 16300, 24600, 33500, 24300, 37600, 27300, 17400, 27500, 16200, 3600, -7100, 4400, 28200, 13600, 25300, 35700, 26200, 12300, 22700, 18500, 7600,
    25200, 43100, 27300, 17100, 25800, 41800, 54300,
  ];

  it.each([20, 10, 1])('OBV over %i candles (cs-obv): the difference of the published running total, exactly', (period) => {
    const candles = OBV_CLOSES.map((close, i) => ({ start: i * 86_400_000, open: close, high: close, low: close, close, volume: OBV_VOLUMES[i] ?? 0 }));
    const published: Series = OBV_CUMULATIVE.map((total, i) => (i >= period ? total - (OBV_CUMULATIVE[i - period] ?? Number.NaN) : undefined));
    expectPublished(textbook.obv(candles, period), published, 0, 'OBV (textbook)');
    expectSeriesClose(run('obv', { period }, candles), published, 0);
  });
});

describe('published tables: the `ta` library’s own values (Keltner, Donchian, VWAP, WMA)', () => {
  // cs-kc.csv: StockCharts' ATR example (QQQ, April 2010) with the `ta` library's Keltner Channel: middle
  // the first-close-seeded EMA(20), bands ± 2 × Wilder ATR(10) (its first true range H − L). Ours from the 20th row.
  const KC_ROWS = [
    [48.7, 47.79, 48.16], [48.72, 48.14, 48.61], [48.9, 48.39, 48.75], [48.87, 48.37, 48.63], [48.82, 48.24, 48.74], [49.05, 48.635, 49.03], [49.2, 48.94, 49.07],
    [49.35, 48.86, 49.32], [49.92, 49.5, 49.91], [50.19, 49.87, 50.13], [50.12, 49.2, 49.53], [49.66, 48.9, 49.5], [49.88, 49.43, 49.75], [50.19, 49.725, 50.03],
    [50.36, 49.26, 50.31], [50.57, 50.09, 50.52], [50.65, 50.3, 50.41], [50.43, 49.21, 49.34], [49.63, 48.98, 49.37], [50.33, 49.61, 50.23], [50.29, 49.2, 49.2375],
    [50.17, 49.43, 49.93], [49.32, 48.08, 48.43], [48.5, 47.64, 48.18], [48.3201, 41.55, 46.57], [46.8, 44.2833, 45.41], [47.8, 47.31, 47.77], [48.39, 47.2, 47.72],
    [48.66, 47.9, 48.62], [48.79, 47.7301, 47.85],
  ];
  const KC_UPPER = [
    50.8510239241124, 50.9089706447231, 50.9954513491755, 51.1141289575707, 50.9986318771918, 51.9228077605291, 51.7921699535273, 51.8723699301732,
    51.6993673403928, 51.5789760188059, 51.4213137900965,
  ];
  const KC_MIDDLE = [
    49.5103137346151, 49.4843314741756, 49.5267760956827, 49.4223212294272, 49.3040049218627, 49.0436235007329, 48.6975641197107, 48.6092246797383,
    48.5245366150013, 48.5336283659535, 48.4685209025294,
  ];
  const KC_LOWER = [
    48.1696035451178, 48.059692303628, 48.0581008421898, 47.7305135012836, 47.6093779665335, 46.1644392409366, 45.6029582858941, 45.3460794293033,
    45.3497058896098, 45.4882807131012, 45.5157280149623,
  ];

  it('Keltner(20, 10, 2) (cs-kc): textbook and engine from the 20th row, to 1e-12', () => {
    const candles = candlesOf(KC_ROWS);
    const pad = new Array<undefined>(19).fill(undefined);
    const reference = textbook.keltner(candles, 20, 10, 2);
    for (const [label, published, mine, engine] of [
      ['upper', KC_UPPER, reference.upper, run('keltner_upper', {}, candles)],
      ['middle', KC_MIDDLE, reference.middle, run('keltner_middle', {}, candles)],
      ['lower', KC_LOWER, reference.lower, run('keltner_lower', {}, candles)],
    ] as const) {
      expectPublished(mine, [...pad, ...published], 1e-12, `${label} (textbook)`);
      expectPublished(engine, [...pad, ...published], 1e-12, `${label} (engine)`);
      expect(firstDefined(engine)).toBe(20);
    }
  });

  it('Donchian(20) (cs-dc): textbook and engine to the 2 printed decimals', () => {
    // cs-dc.csv has the highs and lows of cs-kc.csv (one close differs, which Donchian does not read).
    const candles = candlesOf(KC_ROWS);
    const pad = new Array<undefined>(19).fill(undefined);
    const upper = [...pad, 50.65, 50.65, 50.65, 50.65, 50.65, 50.65, 50.65, 50.65, 50.65, 50.65, 50.65];
    const lower = [...pad, 47.79, 48.14, 48.24, 48.08, 47.64, 41.55, 41.55, 41.55, 41.55, 41.55, 41.55];
    const middle = [...pad, 49.22, 49.4, 49.45, 49.37, 49.15, 46.1, 46.1, 46.1, 46.1, 46.1, 46.1];
    const reference = textbook.donchian(candles, 20);
    const tolerance = 0.005 + 1e-9;
    expectPublished(reference.upper, upper, tolerance, 'upper (textbook)');
    expectPublished(reference.lower, lower, tolerance, 'lower (textbook)');
    expectPublished(reference.middle, middle, tolerance, 'middle (textbook)');
    expectPublished(run('donchian_upper', {}, candles), upper, tolerance, 'upper (engine)');
    expectPublished(run('donchian_lower', {}, candles), lower, tolerance, 'lower (engine)');
    expectPublished(run('donchian_middle', {}, candles), middle, tolerance, 'middle (engine)');
  });

  it('VWAP (cs-vwap, the first 14 rows, before its window of 14 rolls): textbook and engine within one UTC day, to 1e-12', () => {
    const candles = candlesOf(MFI_ROWS_FOR_VWAP, true);
    const published = [
      24.632466666666666, 24.654805154030853, 24.80379676048873, 24.9414758619062, 24.99950623571372, 25.02307824302856, 25.021133824528068, 25.013948032058988,
      25.020869365685463, 25.03392065542907, 25.054787605744554, 25.074623090960745, 25.101664793872967, 25.11402265022072,
    ];
    expectPublished(textbook.vwap(candles), published, 1e-12, 'VWAP (textbook)');
    expectPublished(run('vwap', {}, candles), published, 1e-12, 'VWAP (engine)');
  });

  it('WMA(9) (cs-wma, daily closes of April and May 2020): textbook and engine to the 4 printed decimals from the 9th row', () => {
    const closes = [
      573.0, 650.95, 709.89, 729.83, 745.21, 753.89, 746.36, 686.72, 732.11, 705.63, 725.15, 798.75, 769.12, 800.51, 781.88, 701.32, 761.19, 768.21, 782.58,
      780.04,
    ];
    const published = [
      ...new Array<undefined>(8).fill(undefined), 721.79, 722.2947, 723.756, 738.2884, 744.9202, 756.9569, 764.0387, 754.3864, 757.7091, 760.7809, 765.9244,
      768.85,
    ];
    const candles = candlesOf(closes.map((c) => [c, c, c]));
    expectPublished(textbook.wma(candles, 9), published, 0.5e-4 + 1e-9, 'WMA (textbook)');
    expectPublished(run('wma', { period: 9 }, candles), published, 0.5e-4 + 1e-9, 'WMA (engine)');
  });
});

/** cs-vwap.csv's first 14 rows: the same StockCharts data as cs-mfi, [high, low, close, volume]. */
const MFI_ROWS_FOR_VWAP = [
  [24.8283, 24.3205, 24.7486, 18730.144], [24.7586, 24.5993, 24.7088, 12271.74], [25.1568, 24.7785, 25.0373, 24691.414], [25.5848, 24.9477, 25.545, 18357.606],
  [25.6844, 24.8083, 25.0672, 22964.08], [25.336, 25.0572, 25.107, 15918.948], [25.2862, 24.8482, 24.888, 16067.044], [25.1269, 24.7496, 24.9975, 16568.487],
  [25.2762, 24.9278, 25.0473, 16018.729], [25.3857, 25.0274, 25.336, 9773.569], [25.5351, 25.0473, 25.0572, 22572.712000000003], [25.6048, 25.0622, 25.4455, 12986.669],
  [25.7441, 25.5351, 25.5649, 10906.659], [25.7242, 25.4554, 25.555, 5799.259],
];
