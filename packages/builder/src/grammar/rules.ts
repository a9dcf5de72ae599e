/**
 * The rule table of the offline grammar, in priority order for readings of equal length. Each
 * module contributes the rules of one kind of phrase.
 */
import { ACTION_RULES } from './action-rules.js';
import { setClauseBoundary, symbol } from './common.js';
import { first, map, opt, seq, type Pattern } from './combinators.js';
import { COMPARISON_PATTERNS } from './comparison-rules.js';
import { MARKET_RULES } from './market-rules.js';
import { measure } from './measure-rules.js';
import { OPTION_RULES } from './option-rules.js';
import { ORDER_RULES } from './order-rules.js';
import type { Token } from '../text/tokens.js';
import type { PhraseRule } from './rule.js';
import { SCHEDULE_RULES } from './schedule-rules.js';
import { SOURCE_RULES } from './source-rules.js';

/** Every phrase rule. */
export const PHRASE_RULES: readonly PhraseRule[] = [...SOURCE_RULES, ...SCHEDULE_RULES, ...ACTION_RULES, ...ORDER_RULES, ...OPTION_RULES, ...MARKET_RULES];

const boundaryRules = PHRASE_RULES.filter((candidate) => candidate.boundary).map((candidate) => candidate.pattern);

/** Any comparison phrase. */
const comparison = first(...COMPARISON_PATTERNS.map(([, pattern]) => pattern));
/** A comparison within a few words: `BTC is above`, `the 4h RSI of SOL drops below`. */
const comparisonSoon: Pattern<unknown> = (tokens, at) => {
  for (let index = at; index < Math.min(tokens.length, at + 8); index += 1) if (comparison(tokens, index)) return { value: true, next: at };
  return undefined;
};

/** Memoized per token list: free text asks the same positions again and again. */
function memoized(pattern: Pattern<unknown>): Pattern<unknown> {
  const cache = new WeakMap<readonly Token[], Map<number, boolean>>();
  return (tokens, at) => {
    let known = cache.get(tokens);
    if (!known) cache.set(tokens, (known = new Map<number, boolean>()));
    let hit = known.get(at);
    if (hit === undefined) known.set(at, (hit = pattern(tokens, at) !== undefined));
    return hit ? { value: true, next: at } : undefined;
  };
}

const here = memoized(first(...boundaryRules));
const afterConnector = memoized(first(here, map(seq(opt(symbol), opt(measure), comparisonSoon), () => true)));
setClauseBoundary(here, afterConnector);
