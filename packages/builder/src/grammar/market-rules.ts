/**
 * Rules of market conditions: symbols, exchanges, measures, comparisons, timeframes and windows,
 * connectors, and bare values (answers to "how much?" and "which chat?").
 */
import { DAY, HOUR, WEEK } from '@eql/core';
import { exchange, symbol } from './common.js';
import { ahead, first, map, opt, seq, token, words, type Pattern } from './combinators.js';
import { COMPARISON_PATTERNS, bareAmount } from './comparison-rules.js';
import { measure } from './measure-rules.js';
import type { ConnectorPiece, MeasurePiece, Piece, SpanPiece } from './pieces.js';
import { rule, rules, type PhraseRule } from './rule.js';
import { duration, timeframeWord, unitAlone } from './values.js';

const chartNoun = words('chart', 'charts', 'timeframe', 'time frame', 'candle', 'candles', 'candlestick', 'candlesticks', 'tf', 'bars', 'bar', 'candle close', 'close', 'closes', 'interval');
const adjective: Pattern<number> = map(seq(timeframeWord, opt(words('-'))), ([ms]) => ms);

/** `on the 4h chart`, `on the daily`, `4-hour candles`, `timeframe 15m`. */
const chart: Pattern<SpanPiece> = map(
  first(
    map(seq(opt(words('on', 'in', 'using', 'for', 'at', 'from')), opt(words('the', 'a')), first(duration, timeframeWord), opt(words('-')), chartNoun), ([, , ms]) => ms),
    map(seq(words('on the', 'on a', 'on'), first(timeframeWord, duration)), ([, ms]) => ms),
    map(seq(words('timeframe', 'tf', 'time frame', 'interval', 'resolution'), opt(words('of', '=', ':')), first(duration, timeframeWord)), ([, , ms]) => ms),
  ),
  (ms) => ({ kind: 'span', ms, how: 'chart' }),
);

/** `in 1h`, `within 24 hours`, `over the last 7 days`, `in the past hour`. */
const window: Pattern<SpanPiece> = map(
  seq(
    words('in', 'within', 'over', 'during', 'inside', 'across', 'in under', 'in less than', 'in the space of', 'over a', 'in a'),
    opt(words('the last', 'the past', 'last', 'past', 'the', 'a', 'a single', 'one', 'the previous', 'previous')),
    first(duration, unitAlone),
  ),
  ([, , ms]) => ({ kind: 'span', ms, how: 'window' }),
);

/** `today`, `this week`: the last day or week (a rolling window, not the calendar). */
const recent: Pattern<SpanPiece> = map(words('today', 'in a day', 'on the day', 'this week', 'on the week', 'in a week', 'this hour'), (phrase) => ({
  kind: 'span',
  ms: phrase.endsWith('week') ? WEEK : phrase.endsWith('hour') ? HOUR : DAY,
  how: 'window',
}));

/** `4h`, `daily`, `hourly` beside a measure. */
const bare: Pattern<SpanPiece> = map(
  first<number>(duration, token((t) => (t.kind === 'word' ? ADJECTIVES[t.lower] : undefined))),
  (ms) => ({ kind: 'span', ms, how: 'bare' }),
);
const ADJECTIVES: Readonly<Record<string, number>> = { hourly: HOUR, daily: DAY, weekly: WEEK };

const CONNECTORS: ReadonlyArray<readonly [ConnectorPiece['word'], string[]]> = [
  ['then', ['then', 'and then', 'after that', 'and after that', '->', '=>', ', then', 'then also']],
  ['either', ['either', 'whichever comes first', 'whichever happens first']],
  ['or', ['or', 'or if', 'or when', 'or else', 'or whenever']],
  ['and', ['and', '&', '&&', 'and if', 'and when', 'and also if', 'as well as', 'while', 'but only if', 'only if', 'and only if', 'provided that', 'provided', 'assuming', 'plus', 'also if', 'and also when', 'with', 'but', 'both']],
  ['comma', [',']],
  ['stop', [';', '.', '!', '?', ':']],
];

/** `a golden cross on BTC`: the daily 50 SMA crossing the 200 SMA (a death cross: crossing below). */
const namedCross: Pattern<Piece[]> = map(
  seq(opt(words('a', 'the')), words('golden cross', 'death cross'), opt(seq(words('on', 'of', 'for', 'in'), symbol))),
  ([, name, subject]) => {
    const sma = (period: number): MeasurePiece => ({ kind: 'measure', source: 'ta', method: 'sma', params: { period }, spanMs: DAY });
    const fast = sma(50);
    if (subject !== undefined) fast.symbol = subject[1];
    return [fast, { kind: 'comparison', operator: name === 'golden cross' ? 'crosses_above' : 'crosses_below', threshold: { kind: 'measure', measure: sma(200) } }];
  },
);

/** The rules of this module, in priority order for equal lengths. */
export const MARKET_RULES: PhraseRule[] = [
  rule('adjective timeframe', map(adjective, (ms): SpanPiece => ({ kind: 'span', ms, how: 'bare' }))),
  rules('golden or death cross', namedCross),
  rule('measure', measure),
  ...COMPARISON_PATTERNS.map(([name, pattern]) => rule(name, pattern)),
  rule('chart timeframe', chart),
  rule('window', window),
  rule('recent window', recent),
  rule('bare span', bare),
  rule('symbol', map(symbol, (name) => ({ kind: 'symbol', symbol: name }) as const)),
  rule('exchange', map(exchange, (id) => ({ kind: 'exchange', exchange: id }) as const)),
  ...CONNECTORS.map(([word, phrases]) => rule(`connector ${word}`, map(words(...phrases), () => ({ kind: 'connector', word }) as const))),
  rule('chat id', token((t) => (t.kind === 'number' && t.unit === undefined && Number.isInteger(t.value) && ((t.value as number) <= -100_000 || (t.value as number) >= 100_000_000) ? ({ kind: 'chat', chatId: t.text } as const) : undefined))),
  rule('bare amount', map(seq(ahead(token((t) => (t.kind === 'number' ? t : undefined))), bareAmount), ([, amount]) => ({ kind: 'amount', amount }) as const)),
  rules('known filler phrase', map(words('as long as', 'as soon as', 'in case', 'let me', 'go ahead and', 'i want to', 'i would like to', 'i\'d like to', 'can you', 'could you', 'please', 'for me', 'for me please', 'the moment', 'at the moment', 'right now'), () => [])),
];
