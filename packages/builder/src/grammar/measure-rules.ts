/**
 * Measures: the series a condition compares. Price statistics (price, change, high, low, volume) and
 * every indicator of the schema, with the windows written around the name: `RSI(14)`, `14-period RSI`,
 * `50-day EMA`, `MACD(12, 26, 9)`, `Bollinger(20, 2)`, `stochastic 14 3`, `4h RSI of SOL`.
 */
import { DAY, HOUR, MINUTE, WEEK } from '@eql/core';
import { article, symbol } from './common.js';
import { first, longest, many, map, opt, seq, token, words, type Pattern } from './combinators.js';
import type { MeasurePiece } from './pieces.js';
import { duration, lookback, plainNumber } from './values.js';

interface MeasureName {
  source: 'price' | 'ta';
  method: string;
  /** Names of the windows a bare list of numbers fills, in order: `MACD(12, 26, 9)`. */
  slots: string[];
}

const PRICE = (method: string): MeasureName => ({ source: 'price', method, slots: [] });
const TA = (method: string, ...slots: string[]): MeasureName => ({ source: 'ta', method, slots });
const MACD = ['fastPeriod', 'slowPeriod', 'signalPeriod'];
const BANDS = ['period', 'stdDev'];
const STOCH = ['period', 'signalPeriod'];

/** Names of measures; each phrase is matched as whole words, longest first. */
const NAMES: ReadonlyArray<readonly [string[], MeasureName]> = [
  [['price', 'prices', 'spot price', 'mark price', 'last price', 'price level', 'trading price'], PRICE('current')],
  [['change', 'percent change', '% change', 'percentage change', 'price change', 'performance', 'return'], PRICE('change')],
  [['high', 'highest price', 'high price', 'max price', 'top price'], PRICE('high')],
  [['low', 'lowest price', 'low price', 'min price', 'bottom price'], PRICE('low')],
  [['volume', 'trading volume', 'vol', 'traded volume'], PRICE('volume')],
  [['rsi', 'relative strength index', 'relative strength'], TA('rsi', 'period')],
  [['ema', 'exponential moving average', 'exp moving average'], TA('ema', 'period')],
  [['sma', 'simple moving average', 'moving average', 'ma'], TA('sma', 'period')],
  [['atr', 'average true range'], TA('atr', 'period')],
  [['cci', 'commodity channel index'], TA('cci', 'period')],
  [['williams %r', 'williams % r', 'williams r', 'williams percent r', 'williams pct r', 'williams', 'willr', '%r', '% r'], TA('willr', 'period')],
  [['macd histogram', 'macd hist', 'histogram', 'macd histo'], TA('macd_histogram', ...MACD)],
  [['macd signal line', 'macd signal', 'signal line', 'macd signal value'], TA('macd_signal', ...MACD)],
  [['macd line', 'macd value', 'macd'], TA('macd_value', ...MACD)],
  [
    ['upper bollinger band', 'upper bollinger', 'bollinger upper band', 'bollinger band upper', 'top bollinger band', 'upper band', 'upper bb', 'bb upper', 'upper bands', 'top band'],
    TA('bbands_upper', ...BANDS),
  ],
  [
    ['lower bollinger band', 'lower bollinger', 'bollinger lower band', 'bollinger band lower', 'bottom bollinger band', 'lower band', 'lower bb', 'bb lower', 'bottom band'],
    TA('bbands_lower', ...BANDS),
  ],
  [
    ['middle bollinger band', 'middle bollinger', 'bollinger middle band', 'bollinger basis', 'bollinger mid', 'middle band', 'mid band', 'bb middle', 'bb basis'],
    TA('bbands_middle', ...BANDS),
  ],
  [['bollinger bands', 'bollinger band', 'bollinger', 'bbands', 'bb'], TA('bbands', ...BANDS)],
  [['stochastic %k', 'stochastic % k', 'stochastic k', 'stoch k', 'stoch %k', 'stoch % k', '%k', '% k', 'stochastic oscillator', 'stochastic', 'stoch'], TA('stoch_k', ...STOCH)],
  [['stochastic %d', 'stochastic % d', 'stochastic d', 'stoch d', 'stoch %d', 'stoch % d', '%d', '% d', 'slow stochastic'], TA('stoch_d', ...STOCH)],
  [['stochastic rsi %k', 'stoch rsi %k', 'stochastic rsi k', 'stoch rsi k', 'stochrsi k', 'stochastic rsi', 'stoch rsi', 'stochrsi'], TA('stochrsi_k', 'period', 'smoothPeriod', 'signalPeriod')],
  [['stochastic rsi %d', 'stoch rsi %d', 'stochastic rsi d', 'stoch rsi d', 'stochrsi d'], TA('stochrsi_d', 'period', 'smoothPeriod', 'signalPeriod')],
  [['wma', 'weighted moving average', 'linear weighted moving average'], TA('wma', 'period')],
  [['hma', 'hull moving average', 'hull ma'], TA('hma', 'period')],
  [['dema', 'double exponential moving average', 'double ema'], TA('dema', 'period')],
  [['tema', 'triple exponential moving average', 'triple ema'], TA('tema', 'period')],
  [['vwap', 'volume weighted average price', 'volume-weighted average price'], TA('vwap')],
  [['supertrend direction', 'super trend direction'], TA('supertrend_direction', 'period', 'multiplier')],
  [['supertrend', 'super trend', 'supertrend line'], TA('supertrend', 'period', 'multiplier')],
  [['adx', 'average directional index', 'average directional movement index'], TA('adx', 'period', 'smoothPeriod')],
  [['plus di', 'positive directional indicator', 'di plus'], TA('plus_di', 'period')],
  [['minus di', 'negative directional indicator', 'di minus'], TA('minus_di', 'period')],
  [['parabolic sar', 'psar', 'parabolic stop and reverse'], TA('psar')],
  [['obv', 'on balance volume', 'on-balance volume'], TA('obv', 'period')],
  [['mfi', 'money flow index'], TA('mfi', 'period')],
  [['upper keltner channel', 'upper keltner', 'keltner upper', 'keltner upper band', 'upper keltner band'], TA('keltner_upper', 'period', 'atrPeriod', 'multiplier')],
  [['lower keltner channel', 'lower keltner', 'keltner lower', 'keltner lower band', 'lower keltner band'], TA('keltner_lower', 'period', 'atrPeriod', 'multiplier')],
  [['middle keltner channel', 'middle keltner', 'keltner middle', 'keltner basis', 'keltner channel', 'keltner'], TA('keltner_middle', 'period', 'atrPeriod', 'multiplier')],
  [['upper donchian channel', 'upper donchian', 'donchian upper', 'donchian high'], TA('donchian_upper', 'period')],
  [['lower donchian channel', 'lower donchian', 'donchian lower', 'donchian low'], TA('donchian_lower', 'period')],
  [['middle donchian channel', 'middle donchian', 'donchian middle', 'donchian basis', 'donchian channel', 'donchian'], TA('donchian_middle', 'period')],
  [['ichimoku conversion line', 'ichimoku conversion', 'tenkan sen', 'tenkan-sen', 'tenkan'], TA('ichimoku_conversion', 'conversionPeriod')],
  [['ichimoku base line', 'ichimoku base', 'kijun sen', 'kijun-sen', 'kijun'], TA('ichimoku_base', 'basePeriod')],
  [['ichimoku span a', 'leading span a', 'senkou span a', 'senkou a'], TA('ichimoku_span_a', 'conversionPeriod', 'basePeriod')],
  [['ichimoku span b', 'leading span b', 'senkou span b', 'senkou b'], TA('ichimoku_span_b', 'spanPeriod')],
];

/** `rsi14`, `ema200`, `sma50`, `ma200` written as one word. */
const gluedName: Pattern<{ name: MeasureName; period: number }> = token((t) => {
  const match = t.kind === 'word' ? /^(rsi|ema|sma|ma|atr|cci)(\d{1,3})$/.exec(t.lower) : null;
  if (!match) return undefined;
  const name = NAMES.find(([phrases]) => phrases.includes(match[1] as string))?.[1];
  const period = Number(match[2]);
  return name && period >= 1 && period <= 500 ? { name, period } : undefined;
});

/** Units of a window written before the name: `50-day`, `200 period`, `20-hour`. */
const WINDOW_UNITS: Readonly<Record<string, number | undefined>> = {
  period: undefined, periods: undefined, candle: undefined, candles: undefined, bar: undefined, bars: undefined, length: undefined,
  day: DAY, days: DAY, daily: DAY, hour: HOUR, hours: HOUR, hr: HOUR, hourly: HOUR, week: WEEK, weeks: WEEK, weekly: WEEK, minute: MINUTE, min: MINUTE,
};

interface Prefix {
  period?: number;
  spanMs?: number;
}

/** `50-day`, `200 period`, `14`, `4h`, `4h 50` before the name. */
const prefix: Pattern<Prefix> = first<Prefix>(
  map(seq(lookback, opt(words('-')), token((t) => (t.kind === 'word' && t.lower in WINDOW_UNITS ? t.lower : undefined))), ([period, , unit]) => {
    const spanMs = WINDOW_UNITS[unit];
    return spanMs === undefined ? { period } : { period, spanMs };
  }),
  map(seq(duration, opt(lookback)), ([spanMs, period]) => (period === undefined ? { spanMs } : { spanMs, period })),
  map(lookback, (period) => ({ period })),
);

/** `(14)`, `(12, 26, 9)`, `14`, `12 26 9`, `period 14`, `length 20`, `with 2 std`, after the name. */
const suffix: Pattern<{ numbers: number[]; bare: boolean }> = first<{ numbers: number[]; bare: boolean }>(
  map(seq(words('('), plainNumber, many(map(seq(opt(words(',')), plainNumber), ([, value]) => value)), words(')')), ([, head, rest]) => ({ numbers: [head, ...rest], bare: false })),
  map(seq(words('period', 'length', 'periods', 'window', 'with period', 'with length', 'of length'), lookback), ([, value]) => ({ numbers: [value], bare: false })),
  map(seq(lookback, many(map(seq(opt(words(',')), lookback), ([, value]) => value))), ([head, rest]) => ({ numbers: [head, ...rest].slice(0, 3), bare: true })),
);

/** `2 std`, `2 standard deviations`, `2 sigma`: the width of Bollinger bands. */
const stdDev: Pattern<number> = map(seq(opt(words('with', ',')), plainNumber, words('std', 'stdev', 'std dev', 'standard deviations', 'standard deviation', 'sigma', 'sd', 'deviations')), ([, value]) => value);

/** `of BTC`, `for ETH`, `on SOL`. */
const ofSymbol: Pattern<string> = map(seq(words('of', 'for', 'on', 'in'), symbol), ([, name]) => name);

const priceName: Pattern<MeasureName> = longest(...NAMES.filter(([, name]) => name.source === 'price').map(([phrases, name]) => map(words(...phrases), () => name)));
const taName: Pattern<{ name: MeasureName; period?: number }> = first<{ name: MeasureName; period?: number }>(
  gluedName,
  longest(...NAMES.filter(([, name]) => name.source === 'ta').map(([phrases, name]) => map(words(...phrases), () => ({ name })))),
);

/** An indicator with its windows: `4h RSI(14) of SOL`, `50-day EMA`, `Bollinger(20, 2)`. */
const indicator: Pattern<MeasurePiece> = map(
  seq(opt(symbol), opt(prefix), taName, opt(suffix), opt(stdDev), opt(ofSymbol)),
  ([before, pre, { name, period: glued }, written, width, after]) => {
    const numbers = written?.numbers;
    const params: Record<string, number> = {};
    const fill = (slot: string | undefined, value: number | undefined): void => {
      if (slot !== undefined && value !== undefined) params[slot] = value;
    };
    const leading = pre?.period ?? glued;
    fill(name.slots[0], leading);
    numbers?.forEach((value, index) => fill(name.slots[leading !== undefined ? index + 1 : index], value));
    fill(name.slots.includes('stdDev') ? 'stdDev' : undefined, width);
    const result = piece(name, params, pre?.spanMs, after ?? before);
    if (written?.bare === true && numbers?.length === 1 && leading === undefined) result.trailing = numbers[0];
    return result;
  },
);

/** A price statistic: `BTC price`, `24h change`, `the daily volume of ETH`. */
const statistic: Pattern<MeasurePiece> = map(seq(opt(symbol), opt(duration), priceName, opt(ofSymbol)), ([before, spanMs, name, after]) =>
  piece(name, {}, spanMs, after ?? before),
);

function piece(name: MeasureName, params: Record<string, number>, spanMs: number | undefined, named: string | undefined): MeasurePiece {
  const result: MeasurePiece = { kind: 'measure', source: name.source, method: name.method, params };
  if (spanMs !== undefined) result.spanMs = spanMs;
  if (named !== undefined) result.symbol = named;
  return result;
}

/** A measure with its windows and, when written beside it, its symbol (`BTC price`, `RSI of ETH`). */
export const measure: Pattern<MeasurePiece> = longest(indicator, statistic);

/** A measure as the other side of a comparison: `the upper Bollinger band`, `its 200-day moving average`. */
export const measureOperand: Pattern<MeasurePiece> = map(seq(article, measure), ([, piece]) => piece);
