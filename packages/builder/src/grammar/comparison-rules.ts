/**
 * Comparisons: an operator phrase and what it compares with. Levels (`above`, `drops below`, `at
 * least`), crossings (`crosses above`, `breaks below`, `falls through`, `crosses` either way), percent
 * moves (`up 5%`, `drops 10%`, `moves 5%` either way), ranges (`between 60k and 70k`) and indicator
 * states (`oversold`, `turns positive`).
 */
import type { Operator } from '@eql/core';
import { article } from './common.js';
import { first, longest, map, opt, seq, words, type Pattern } from './combinators.js';
import { measureOperand } from './measure-rules.js';
import type { ComparisonPiece, Threshold } from './pieces.js';
import { amount, amountOrPercent, percent } from './values.js';

/** Verbs that may stand before a preposition without changing it (`drops below` is `below`). */
const LEVEL_VERBS = words(
  'is', 'are', 'goes', 'go', 'gets', 'get', 'rises', 'rise', 'climbs', 'jumps', 'moves', 'trades', 'trading', 'is trading', 'pumps', 'spikes',
  'surges', 'rallies', 'runs', 'pushes', 'drops', 'drop', 'falls', 'fall', 'dips', 'dip', 'sinks', 'slips', 'dumps', 'declines', 'tanks',
  'crashes', 'plunges', 'closes', 'close', 'comes', 'prints', 'sits', 'is still', 'is currently', 'was', 'becomes', 'settles',
);

/** Verbs that ask for a sustained level: a following `for X` is a hold-for. */
const SUSTAIN_VERBS = words('stays', 'stay', 'remains', 'remain', 'holds', 'hold', 'keeps', 'keep', 'is held', 'sustains', 'closes and stays');

const OPERATOR_WORDS: ReadonlyArray<readonly [Operator | 'crosses', string[]]> = [
  ['crosses_above', ['crosses above', 'crosses over', 'cross above', 'cross over', 'crossed above', 'crossing above', 'crosses back above', 'breaks above', 'break above', 'broke above', 'breaks out above', 'breaks out over', 'breaks out past', 'breakout above', 'reclaims', 'crosses up through', 'crosses upward through', 'pierces above', 'cuts above', 'moves back above']],
  ['crosses_below', ['crosses below', 'crosses under', 'cross below', 'cross under', 'crossed below', 'crossing below', 'crosses back below', 'breaks below', 'break below', 'broke below', 'breaks down below', 'breaks down through', 'breakdown below', 'falls through', 'fall through', 'drops through', 'crashes through', 'dips through', 'slices through', 'loses', 'crosses down through', 'cuts below']],
  ['crosses', ['crosses', 'cross', 'crossed', 'crossing', 'breaks', 'break', 'breaks through', 'crosses through', 'at', 'touches', 'touch', 'tags']],
  ['>=', ['at least', '>=', '=>', 'no less than', 'not below', 'not under', 'not less than', 'at or above', 'equal to or above', 'equal or above', 'greater than or equal to', 'hits', 'hit', 'reaches', 'reach', 'gets to', 'goes to', 'is at', 'rises to', 'climbs to', 'pumps to']],
  ['<=', ['at most', '<=', 'no more than', 'not above', 'not over', 'not more than', 'at or below', 'equal to or below', 'equal or below', 'less than or equal to', 'drops to', 'falls to', 'dips to', 'sinks to', 'declines to', 'dumps to', 'crashes to', 'slides to']],
  ['>', ['above', 'over', 'greater than', 'more than', 'higher than', 'bigger than', 'larger than', 'beyond', 'north of', 'exceeds', 'exceed', 'exceeding', 'surpasses', 'surpass', 'tops', 'outside above', '>']],
  ['<', ['below', 'under', 'less than', 'lower than', 'smaller than', 'beneath', 'south of', 'underneath', '<']],
  ['==', ['equals', 'equal to', 'is exactly', 'exactly', 'exactly at', '==', '=']],
  ['!=', ['!=', '<>', 'not equal to', 'is not equal to', 'differs from', 'different from']],
];

const operatorWord: Pattern<Operator | 'crosses'> = longest(...OPERATOR_WORDS.map(([operator, phrases]) => map(words(...phrases), () => operator)));

/** `0`, `zero`: the level of `crosses zero`. */
const zero = map(words('zero', 'the zero line', 'zero line', 'the zero', '0 line'), () => ({ value: 0, dollar: false, percent: false }));

/** The right side: a live measure, a number (with `k`, `$`, `%`), or zero. */
const threshold: Pattern<Threshold> = first<Threshold>(
  map(measureOperand, (measure) => ({ kind: 'measure', measure })),
  map(zero, (value) => ({ kind: 'number', amount: value })),
  map(seq(opt(words('the', 'a', 'level', 'the level', 'level of', 'mark of', 'price of')), amountOrPercent, opt(words('level', 'mark', 'line', 'area', 'zone', 'handle'))), ([, value]) => ({ kind: 'number', amount: value })),
);

/** `above 70k`, `drops below 60,000`, `crosses above the upper band`, `stays above 3k`, `at least 5%`. */
const level: Pattern<ComparisonPiece> = map(
  seq(
    first(
      map(seq(SUSTAIN_VERBS, opt(LEVEL_VERBS), operatorWord), ([, , operator]) => ({ operator, sustained: true })),
      map(seq(LEVEL_VERBS, operatorWord), ([, operator]) => ({ operator, sustained: false })),
      map(operatorWord, (operator) => ({ operator, sustained: false })),
    ),
    opt(article),
    threshold,
  ),
  ([{ operator, sustained }, , value]) => {
    const piece: ComparisonPiece = { kind: 'comparison', operator, threshold: value };
    if (sustained) piece.sustained = true;
    return piece;
  },
);

/** `70k or more`, `30 or lower`. */
const suffixed: Pattern<ComparisonPiece> = map(
  seq(amountOrPercent, first(map(words('or more', 'or higher', 'or above', 'and above', 'and up', 'or greater', 'plus'), () => '>=' as const), map(words('or less', 'or lower', 'or below', 'and below', 'and lower'), () => '<=' as const))),
  ([value, operator]) => ({ kind: 'comparison', operator, threshold: { kind: 'number', amount: value } }),
);

/** `between 60k and 70k`, `from 20 to 30`. */
const between: Pattern<ComparisonPiece> = map(
  seq(opt(LEVEL_VERBS), words('between', 'in the range', 'in the range of', 'within the range of'), amountOrPercent, words('and', 'to', '-'), amountOrPercent),
  ([, , low, , high]) => ({
    kind: 'comparison',
    operator: '>=',
    threshold: { kind: 'number', amount: low },
    upper: { operator: '<=', threshold: { kind: 'number', amount: high } },
  }),
);

const UP = ['up', 'is up', 'goes up', 'moves up', 'rises', 'rise', 'rose', 'climbs', 'jumps', 'gains', 'gain', 'pumps', 'pump', 'surges', 'rallies', 'increases', 'grows', 'spikes', 'moons', 'appreciates', 'rallied', 'pumped', 'gained', 'jumped', 'rises by'];
const DOWN = ['down', 'is down', 'goes down', 'moves down', 'drops', 'drop', 'dropped', 'falls', 'fall', 'fell', 'dips', 'dumps', 'dump', 'declines', 'loses', 'lost', 'decreases', 'crashes', 'tanks', 'plunges', 'sinks', 'slides', 'corrects', 'retraces', 'dumped', 'crashed'];
const EITHER = ['moves', 'move', 'swings', 'changes', 'changes by', 'moves by', 'swings by'];

/** A qualifier between the verb and the percentage: `up more than 5%` is strict, `up 5%` is at least 5%. */
const strictness = opt(first(map(words('more than', 'over', 'above', 'by more than', 'by over'), () => 'strict' as const), map(words('at least', 'by at least', 'by', 'another'), () => 'loose' as const)));

/** `up 5%`, `drops more than 10%`, `moves 5% either way`. */
const move: Pattern<ComparisonPiece> = first<ComparisonPiece>(
  map(seq(words(...UP), strictness, percent), ([, strict, value]) => ({ kind: 'comparison', change: true, operator: strict === 'strict' ? '>' : '>=', threshold: number(Math.abs(value)) })),
  map(seq(words(...DOWN), strictness, percent), ([, strict, value]) => ({ kind: 'comparison', change: true, operator: strict === 'strict' ? '<' : '<=', threshold: number(-Math.abs(value)) })),
  map(seq(words(...EITHER), strictness, percent, opt(words('either way', 'in either direction', 'either direction', 'up or down', 'in any direction'))), ([, , value]) => ({
    kind: 'comparison',
    change: true,
    operator: '>=',
    threshold: number(Math.abs(value)),
    upper: { operator: '<=', threshold: number(-Math.abs(value)) },
  })),
);

function number(value: number): Threshold {
  return { kind: 'number', amount: { value, dollar: false, percent: true } };
}

/** `oversold`, `is overbought`, `turns positive`, `goes negative`. */
const state: Pattern<ComparisonPiece> = first<ComparisonPiece>(
  map(seq(opt(LEVEL_VERBS), opt(words('in', 'into', 'enters', 'enters the', 'in the')), words('oversold', 'oversold territory', 'oversold zone')), () => stateOf('<', 'oversold')),
  map(seq(opt(LEVEL_VERBS), opt(words('in', 'into', 'enters', 'enters the', 'in the')), words('overbought', 'overbought territory', 'overbought zone')), () => stateOf('>', 'overbought')),
  map(words('turns positive', 'flips positive', 'crosses into positive', 'turns green'), () => stateOf('crosses_above', 'positive')),
  map(words('turns negative', 'flips negative', 'crosses into negative', 'turns red'), () => stateOf('crosses_below', 'negative')),
  map(words('is positive', 'goes positive', 'positive', 'above zero'), () => stateOf('>', 'positive')),
  map(words('is negative', 'goes negative', 'negative', 'below zero'), () => stateOf('<', 'negative')),
);

function stateOf(operator: Operator, value: 'oversold' | 'overbought' | 'positive' | 'negative'): ComparisonPiece {
  return { kind: 'comparison', operator, threshold: { kind: 'state', state: value } };
}

/** Every comparison form; the scanner keeps the longest. */
export const COMPARISON_PATTERNS: ReadonlyArray<readonly [string, Pattern<ComparisonPiece>]> = [
  ['between', between],
  ['percent move', move],
  ['indicator state', state],
  ['level or crossing', level],
  ['suffixed level', suffixed],
];

/** A bare amount (`70k`, `$65,000`), for amendments and missing slots. */
export const bareAmount = amountOrPercent;
export { amount };
