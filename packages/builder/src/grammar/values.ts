/**
 * Patterns of values: amounts (`70k`, `1.5m`, `$65,000`, `70 thousand dollars`), percentages,
 * durations (`24h`, `15 minutes`, `an hour`), integers and clock times.
 */
import { DAY, HOUR, MINUTE, SECOND, WEEK } from '@eql/core';
import { NUMBER_WORDS } from '../text/lexicon.js';
import type { Token } from '../text/tokens.js';
import { first, map, opt, seq, token, words, type Pattern } from './combinators.js';

/** A number as written: its value and whether it carried a currency or a percent sign. */
export interface Amount {
  value: number;
  /** Written with `$` or a currency word. */
  dollar: boolean;
  /** Written with `%` or `percent`. */
  percent: boolean;
}

const MULTIPLIERS: Readonly<Record<string, number>> = {
  k: 1e3, thousand: 1e3, m: 1e6, mm: 1e6, mil: 1e6, mln: 1e6, million: 1e6, b: 1e9, bn: 1e9, billion: 1e9,
};

/** Units of time by the names people write; glued `m` after a number is minutes here. */
export const TIME_UNITS: Readonly<Record<string, number>> = {
  s: SECOND, sec: SECOND, secs: SECOND, second: SECOND, seconds: SECOND,
  m: MINUTE, min: MINUTE, mins: MINUTE, minute: MINUTE, minutes: MINUTE,
  h: HOUR, hr: HOUR, hrs: HOUR, hour: HOUR, hours: HOUR,
  d: DAY, day: DAY, days: DAY,
  w: WEEK, wk: WEEK, wks: WEEK, week: WEEK, weeks: WEEK,
  month: 30 * DAY, months: 30 * DAY,
};

const CURRENCY = words('usd', 'usdt', 'usdc', 'dollars', 'dollar', 'bucks');

const numberWord = token((t) => (t.kind === 'word' ? NUMBER_WORDS.get(t.lower) : undefined));

/** A plain number token (no unit, no `%`), or a number word. */
export const plainNumber: Pattern<number> = first(
  token((t) => (t.kind === 'number' && t.unit === undefined && !t.percent && Number.isFinite(t.value) ? t.value : undefined)),
  numberWord,
);

/** A whole number from 1 to 500 (an indicator window). */
export const lookback: Pattern<number> = map(plainNumber, (value) => (Number.isInteger(value) && value >= 1 && value <= 500 ? value : undefined));

/** A number with an optional multiplier and currency: `70k`, `1.5 million`, `$65,000`, `65000 usd`. Not a percentage. */
export const amount: Pattern<Amount> = first(
  map(
    seq(
      token((t) => (t.kind === 'number' && !t.percent && Number.isFinite(t.value) ? t : undefined)),
      opt(token((t) => (t.kind === 'word' && MULTIPLIERS[t.lower] !== undefined ? MULTIPLIERS[t.lower] : undefined))),
      opt(CURRENCY),
    ),
    ([number, multiplier, currency]) => amountOf(number, multiplier, currency !== undefined),
  ),
  map(seq(token((t) => (t.kind === 'word' && t.lower !== 'a' && t.lower !== 'an' ? NUMBER_WORDS.get(t.lower) : undefined)), opt(CURRENCY)), ([value, currency]) => ({ value, dollar: currency !== undefined, percent: false })),
);

function amountOf(number: Token, multiplier: number | undefined, currency: boolean): Amount | undefined {
  const base = number.value as number;
  const glued = number.unit === undefined ? 1 : MULTIPLIERS[number.unit];
  if (glued === undefined || (glued !== 1 && multiplier !== undefined)) return undefined;
  const value = round(base * glued * (multiplier ?? 1));
  return { value, dollar: number.dollar === true || currency, percent: false };
}

/** Removes floating-point noise of a multiplication (`1.1 * 1e6`). */
function round(value: number): number {
  return Number(value.toPrecision(12));
}

/** `5%`, `5 %`, `5 percent`, `-3.5 pct`. */
export const percent: Pattern<number> = first(
  token((t) => (t.kind === 'number' && t.percent && t.unit === undefined ? t.value : undefined)),
  map(seq(plainNumber, words('%', 'percent', 'pct', 'per cent')), ([value]) => value),
);

/** An amount or a percentage, telling which. */
export const amountOrPercent: Pattern<Amount> = first(
  map(percent, (value) => ({ value, dollar: false, percent: true })),
  amount,
);

/** A duration in milliseconds: `24h`, `4hr`, `15 minutes`, `1.5 hours`, `an hour`, `a day`, `one week`, `half an hour`. */
export const duration: Pattern<number> = first(
  map(words('half an hour', 'half hour'), () => 30 * MINUTE),
  token((t) => (t.kind === 'number' && !t.percent && t.unit !== undefined && TIME_UNITS[t.unit] !== undefined ? ms(t.value, TIME_UNITS[t.unit]) : undefined)),
  map(seq(plainNumber, opt(words('-')), token((t) => (t.kind === 'word' ? TIME_UNITS[t.lower] : undefined))), ([count, , unit]) => ms(count, unit)),
);

/** Candle timeframes by name: `hourly`, `daily`, `weekly`, and trader notation `h4`, `d1`, `m15`. */
export const timeframeWord: Pattern<number> = token((t) => {
  if (t.kind !== 'word') return undefined;
  const named: Record<string, number> = { hourly: HOUR, daily: DAY, weekly: WEEK, day: DAY, hour: HOUR, week: WEEK, minute: MINUTE };
  if (named[t.lower] !== undefined) return named[t.lower];
  const notation = /^([mhdw])(\d{1,2})$/.exec(t.lower);
  return notation ? ms(Number(notation[2]), TIME_UNITS[notation[1] as string]) : undefined;
});

/** A bare unit read as one of it (`the last hour`, `per day`). */
export const unitAlone: Pattern<number> = token((t) => (t.kind === 'word' && t.lower.length > 1 && !/s$/.test(t.lower) ? TIME_UNITS[t.lower] : undefined));

function ms(count: number | undefined, unit: number | undefined): number | undefined {
  if (count === undefined || unit === undefined || !Number.isFinite(count) || count <= 0) return undefined;
  return Math.round(count * unit);
}

/** A time of day: `9:00`, `9am`, `14:30`, optionally followed by `utc`/`gmt`/`z`. */
export const clock: Pattern<{ hour: number; minute: number }> = map(
  seq(
    token((t) => (t.kind === 'time' && (t.hour ?? 99) < 24 && (t.minute ?? 99) < 60 ? { hour: t.hour as number, minute: t.minute as number } : undefined)),
    opt(words('utc', 'gmt', 'z')),
  ),
  ([time]) => time,
);
