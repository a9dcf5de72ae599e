/**
 * Rules of the semantic sources, routed strictly (spec 2.2): a post by a named account is a `tweet`
 * condition, a world event reported in the news is `news`, and a fuzzy judgement (sentiment, "an LLM
 * thinks …", "check every 4h whether …") is `llm` with a period of at least 1h.
 */
import { LIMITS, type ConditionNode } from '@eql/core';
import { about, account, article, freeText, symbol } from './common.js';
import { first, map, opt, seq, token, words, type Pattern } from './combinators.js';
import type { ConditionPiece } from './pieces.js';
import { rule, type PhraseRule } from './rule.js';
import { duration, unitAlone } from './values.js';
import { textBetween } from '../text/tokens.js';

const POST_NOUNS = ['a post', 'a tweet', 'post', 'tweet', 'posts', 'tweets', 'a new post', 'a new tweet', 'new post', 'new tweet', 'any post', 'any tweet', 'a reply', 'a message', 'an x post', 'x post'];
const POST_VERBS = ['tweets', 'tweet', 'tweeted', 'posts', 'post', 'posted', 'says', 'said', 'writes', 'wrote', 'mentions', 'mention', 'mentioned', 'replies', 'replied', 'retweets', 'retweeted', 'shills', 'talks', 'talks about', 'announces', 'announced', 'posts something', 'tweets something', 'says something'];

/** A tweet condition for an account and topic. */
export function tweetCondition(username: string, text: string): ConditionNode {
  return { source: 'tweet', args: { username, text, minConfidence: LIMITS.defaultMinConfidence } };
}

/** A news condition for an event. */
export function newsCondition(text: string): ConditionNode {
  return { source: 'news', args: { text, minConfidence: LIMITS.defaultMinConfidence } };
}

/** An llm condition judged every `periodMs` (at least 1h). */
export function llmCondition(query: string, period = '1h'): ConditionNode {
  return { source: 'llm', method: 'athena_condition', args: { query, period } };
}

const handle: Pattern<string> = token((t) => (t.kind === 'handle' && t.text.length <= 16 ? t.text.slice(1) : undefined));

function fixed(node: ConditionNode): ConditionPiece {
  return { kind: 'condition', source: (node as { source: ConditionPiece['source'] }).source, build: () => ({ node }) };
}

function topicless(source: 'tweet' | 'news', what: string): ConditionPiece {
  return { kind: 'condition', source, build: () => ({ question: `What should ${what} be about? For example "… about dogecoin".` }) };
}

/** `@elonmusk tweets about dogecoin`, `@cz_binance says "funds are safu"`. */
const handleFirst: Pattern<ConditionPiece> = map(
  seq(handle, opt(words('on x', 'on twitter')), words(...POST_VERBS), opt(words('on x', 'on twitter', 'a post', 'a tweet', 'something')), about, opt(freeText)),
  ([username, , , , , topic]) => (topic === undefined ? topicless('tweet', `the post by @${username}`) : fixed(tweetCondition(username, topic))),
);

/** `a post by @elonmusk about dogecoin`, `tweet from @saylor mentioning BTC`. */
const nounFirst: Pattern<ConditionPiece> = map(
  seq(words(...POST_NOUNS), opt(words('on x', 'on twitter')), words('by', 'from', 'of'), account, opt(words('on x', 'on twitter')), about, opt(freeText)),
  ([, , , username, , , topic]) => (topic === undefined ? topicless('tweet', `the post by @${username}`) : fixed(tweetCondition(username, topic))),
);

/** `news about the SEC approving a spot ETH ETF`, `if there is news that Binance is hacked`. */
const news: Pattern<ConditionPiece> = map(
  seq(
    words('news', 'a news', 'the news', 'news story', 'a news story', 'news report', 'a news report', 'headline', 'headlines', 'a headline', 'breaking news', 'news breaks', 'news comes out', 'news hits', 'an article', 'article', 'press release', 'a press release', 'reports', 'a report'),
    opt(words('on', 'in the', 'in')),
    about,
    opt(freeText),
  ),
  ([, , , topic]) => (topic === undefined ? topicless('news', 'the news') : fixed(newsCondition(topic))),
);

/** `an LLM thinks BTC will pump`, `the AI says the market is euphoric`, `ask an LLM whether …`. */
const llmJudges: Pattern<ConditionPiece> = map(
  seq(
    first(
      map(seq(words('an llm', 'the llm', 'llm', 'ai', 'an ai', 'the ai', 'the model', 'a model', 'gpt', 'chatgpt', 'athena', 'an llm agent', 'the agent'), words('thinks', 'think', 'says', 'judges', 'believes', 'decides', 'determines', 'reckons', 'considers', 'finds', 'confirms', 'agrees', 'sees', 'detects', 'concludes', 'judge')), () => true),
      map(words('ask an llm', 'ask the llm', 'ask ai', 'ask an ai', 'ask the ai', 'ask athena', 'ask the model', 'have an llm check', 'have an llm judge', 'let an llm judge', 'use an llm to check', 'use an llm to judge', 'use ai to check', 'ask gpt', 'llm check', 'llm judges'), () => true),
    ),
    opt(words('that', 'whether', 'if', 'it is', 'it\'s')),
    freeText,
  ),
  ([, , question]) => fixed(llmCondition(question)),
);

/** `check every 4h whether the funding rates are extreme`. */
const checkEvery: Pattern<ConditionPiece> = map(
  seq(
    words('check', 'judge', 'evaluate', 'assess', 'ask', 'look', 'verify', 'see'),
    opt(seq(words('every', 'each', 'once every', 'once an', 'once a'), first(duration, unitAlone))),
    words('whether', 'if', 'whether or not'),
    freeText,
    opt(seq(words('every', 'each'), first(duration, unitAlone))),
  ),
  ([, before, , question, after]) => {
    const periodMs = before?.[1] ?? after?.[1];
    return fixed(llmCondition(question, periodMs === undefined ? '1h' : periodOf(periodMs)));
  },
);

function periodOf(ms: number): string {
  const hours = Math.max(1, Math.round(ms / 3_600_000));
  return hours % 24 === 0 ? `${hours / 24}d` : `${hours}h`;
}

const MOODS = ['bullish', 'bearish', 'very bullish', 'very bearish', 'euphoric', 'fearful', 'greedy', 'extremely bullish', 'extremely bearish', 'extreme fear', 'extreme greed', 'risk on', 'risk-on', 'risk off', 'risk-off', 'optimistic', 'pessimistic', 'panicky', 'capitulating', 'frothy', 'positive', 'negative'];

/** An llm condition asking the words a pattern read, as written. */
function judgedAsWritten(pattern: Pattern<unknown>): Pattern<ConditionPiece> {
  return (tokens, at) => {
    const match = pattern(tokens, at);
    return match ? { value: fixed(llmCondition(textBetween(tokens, at, match.next))), next: match.next } : undefined;
  };
}

/** `the market sentiment turns bullish`, `sentiment on SOL is bearish`, `crypto twitter is euphoric`. */
const sentiment: Pattern<ConditionPiece> = judgedAsWritten(
  seq(
    opt(words('the', 'overall', 'general')),
    opt(words('market', 'crypto', 'overall', 'social', 'social media', 'twitter', 'crypto twitter', 'investor', 'trader', 'retail', 'news')),
    first(words('sentiment', 'mood', 'vibe', 'vibes', 'feeling', 'crowd'), words('crypto twitter', 'ct', 'the crowd', 'the market')),
    opt(seq(words('on', 'for', 'around', 'about', 'of', 'toward', 'towards'), symbol)),
    opt(words('turns', 'is', 'becomes', 'gets', 'flips', 'goes', 'shifts', 'turn', 'become', 'shifts to', 'turns to', 'is very', 'gets very', 'is extremely', 'is getting')),
    words(...MOODS),
  ),
);

/** `BTC looks bullish`, `ETH turns bearish`: a judgement, not a level. */
const looks: Pattern<ConditionPiece> = judgedAsWritten(
  seq(article, symbol, words('looks', 'turns', 'becomes', 'is looking', 'seems', 'appears', 'starts looking', 'gets'), words(...MOODS.filter((mood) => mood !== 'positive' && mood !== 'negative'))),
);

/** The rules of this module. */
export const SOURCE_RULES: PhraseRule[] = [
  rule('post by account', handleFirst, true),
  rule('post noun by account', nounFirst, true),
  rule('news', news, true),
  rule('llm judges', llmJudges, true),
  rule('check every', checkEvery, true),
  rule('sentiment', sentiment, true),
  rule('looks', looks, true),
];
