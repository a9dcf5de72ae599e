import { stem } from './terms.js';

/**
 * Sentiment cue words for the offline analyst: a fixed lexicon of market language. A cue preceded
 * (within two words) by a negation counts for the other side: "not approved" is negative.
 */

const POSITIVE = [
  'bullish', 'bull', 'pump', 'pumping', 'moon', 'mooning', 'breakout', 'rally', 'rallies', 'surge', 'surges', 'soar', 'soaring',
  'rise', 'rising', 'gain', 'gains', 'ath', 'high', 'approve', 'approves', 'approved', 'approval', 'adoption', 'partnership', 'launch',
  'launches', 'listing', 'listed', 'accumulate', 'accumulating', 'accumulation', 'strong', 'strength', 'green', 'win', 'growth', 'record',
  'inflow', 'inflows', 'reclaim', 'reclaiming', 'recover', 'recovery', 'resolved', 'upgrade', 'shipping', 'ships', 'lift', 'lifts', 'buy', 'buying',
  'exploding', 'leading', 'outperform', 'outperforming', 'hot', 'heating', 'sending', 'ripping', 'ripped', 'mania', 'bid', 'rallying', 'climb',
  'climbs', 'rises', 'gaining',
];

const NEGATIVE = [
  'bearish', 'bear', 'dump', 'dumps', 'dumping', 'crash', 'crashes', 'crashing', 'plunge', 'plunges', 'drop', 'drops', 'fall', 'falls', 'falling',
  'decline', 'declines', 'sell', 'selling', 'selloff', 'hack', 'hacked', 'exploit', 'exploited', 'rug', 'rugged', 'scam', 'ban', 'banned',
  'reject', 'rejects', 'rejected', 'rejection', 'delay', 'delays', 'delayed', 'lawsuit', 'sue', 'sued', 'outflow', 'outflows', 'liquidation',
  'liquidations', 'fear', 'weak', 'weakness', 'red', 'loss', 'losses', 'fud', 'outage', 'halt', 'halted', 'down', 'bug', 'congestion',
  'degraded', 'shorting', 'capitulation', 'suffer', 'suffering', 'struggle', 'struggling', 'problem', 'problems', 'dead', 'died', 'dying', 'ended',
  'finished', 'collapse', 'insolvent', 'bankrupt', 'bankruptcy', 'sanction', 'sanctions',
];

const NEGATIONS = new Set(['not', 'no', 'never', "isn't", "aren't", "wasn't", "weren't", "won't", "didn't", "doesn't", "don't", 'without', 'hardly', 'denies', 'denied']);

const POSITIVE_KEYS = new Set(POSITIVE.map(stem));
const NEGATIVE_KEYS = new Set(NEGATIVE.map(stem));

export interface Cues {
  positive: number;
  negative: number;
}

/** Counts the positive and negative cues of a text (each occurrence once, negations flip). */
/** Phrases whose words are not cues on their own: "the season is over". */
const NEGATIVE_PHRASES = /\b(?:is|are|was|were|it's|be|looks|feels)\s+(?:[a-z$']+\s+){0,3}over\b(?!\s*[$\d])|\bgame over\b/g;

export function cues(text: string): Cues {
  const lower = text.toLowerCase();
  const words = lower.match(/[a-z][a-z']*/g) ?? [];
  const out: Cues = { positive: 0, negative: lower.match(NEGATIVE_PHRASES)?.length ?? 0 };
  words.forEach((word, index) => {
    const key = stem(word);
    const positive = POSITIVE_KEYS.has(key);
    const negative = NEGATIVE_KEYS.has(key);
    if (positive === negative) return;
    const negated = NEGATIONS.has(words[index - 1] ?? '') || NEGATIONS.has(words[index - 2] ?? '');
    if (positive !== negated) out.positive++;
    else out.negative++;
  });
  return out;
}

/** -1, 0 or 1: which side the cues of a text lean to. */
export function polarity(text: string): -1 | 0 | 1 {
  const { positive, negative } = cues(text);
  return positive > negative ? 1 : negative > positive ? -1 : 0;
}

/** Whether a stem is a sentiment cue (so it is not also counted as a topic word). */
export function isCue(key: string): boolean {
  return POSITIVE_KEYS.has(key) || NEGATIVE_KEYS.has(key);
}
