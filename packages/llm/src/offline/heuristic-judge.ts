import type { LlmJudgement, LlmJudgeRequest } from '@eql/core';
import type { MarketData, TimeRange } from '@eql/market-data';
import { listWords, utcMinute } from '../text/format.js';
import { isCue, polarity } from '../text/sentiment.js';
import { capitalWords, cashtags, significantTerms, stem, termKeys } from '../text/terms.js';

/**
 * The offline judgement of an llm condition: lexical evidence in the posts and news of the window
 * before the evaluation instant, weighed by reach and by agreement with the predicate's lean.
 *
 * 1. Topic terms: the predicate's cashtags and words in capitals (weight 8) and its other
 *    significant words (weight: length up to 8), minus sentiment cues. Its lean (+1, 0, -1) comes
 *    from its cue words ("bullish", "approved", "hacked"; negations flip).
 * 2. Relevance of an item: the weighted share of topic terms it holds (1 for every item when
 *    the predicate has no topic term: a market-wide predicate). Items under 0.5 are not evidence.
 * 3. Weight: relevance × reach; reach is 2 for news and 1 + min(1, log10(1 + views) / 6) (+0.5 when
 *    smart accounts reposted it) for posts.
 * 4. With a lean, an item whose own lean agrees adds its weight to support S, a neutral one to N,
 *    an opposed one to A. Without a lean, every piece of evidence supports (S).
 * 5. confidence = round(100 × (1 − e^(−S/4)) × S / (S + A + N/2)), 0 with no evidence or with
 *    neither a topic nor a lean.
 *
 * So the confidence stays within 0..100, more agreeing evidence never lowers it, opposed or neutral
 * evidence never raises it, and irrelevant items leave it unchanged.
 */

/** A post or news item the offline judge weighs as evidence for an llm condition's predicate. */
export interface EvidenceItem {
  kind: 'post' | 'news';
  id: string;
  text: string;
  views?: number;
  smartReposts?: number;
  at?: number;
  /** A post's author, or a news item's source. */
  author?: string;
  link?: string;
}

/**
 * The result of {@link scoreEvidence}: the confidence (0 to 100) that the predicate holds, how many of the
 * `considered` items were `evidence` and how many of those agreed, were neutral or went against its
 * `lean`, and the predicate's topic words.
 */
export interface EvidenceScore {
  confidence: number;
  /** Items that counted as evidence, and how they leaned against the predicate. */
  evidence: number;
  agree: number;
  neutral: number;
  against: number;
  considered: number;
  topic: string[];
  lean: -1 | 0 | 1;
}

/** How many agreeing weight units bring the confidence to 63%. */
export const SATURATION = 4;

interface QueryShape {
  topic: Array<{ key: string; weight: number }>;
  surfaces: string[];
  lean: -1 | 0 | 1;
}

/** Names (cashtags, words in capitals) weigh the most; other words by length, up to 8. */
function shape(query: string): QueryShape {
  const seen = new Set<string>();
  const topic: QueryShape['topic'] = [];
  const surfaces: string[] = [];
  const add = (key: string, surface: string, weight: number) => {
    if (key === '' || seen.has(key) || isCue(key)) return;
    seen.add(key);
    topic.push({ key, weight });
    surfaces.push(surface);
  };
  for (const tag of cashtags(query)) add(tag.toLowerCase(), `$${tag}`, 8);
  for (const word of capitalWords(query)) if (word.length >= 3) add(stem(word.toLowerCase()), word, 8);
  for (const term of significantTerms(query)) add(term.key, term.surface, Math.min(term.key.length, 8));
  return { topic, surfaces, lean: polarity(query) };
}

function itemWords(text: string): Set<string> {
  return new Set([...termKeys(text), ...cashtags(text).map((tag) => tag.toLowerCase())]);
}

function reach(item: EvidenceItem): number {
  if (item.kind === 'news') return 2;
  return 1 + Math.min(1, Math.log10(1 + Math.max(0, item.views ?? 0)) / 6) + ((item.smartReposts ?? 0) > 0 ? 0.5 : 0);
}

function relevanceOf(shaped: QueryShape, text: string): number {
  if (shaped.topic.length === 0) return 1;
  const total = shaped.topic.reduce((sum, term) => sum + term.weight, 0);
  const words = itemWords(text);
  return shaped.topic.reduce((sum, term) => sum + (words.has(term.key) ? term.weight : 0), 0) / total;
}

/** The items that count as evidence for a predicate, most relevant and far-reaching first (ties by id), at most `max`. */
export function rankEvidence(query: string, items: readonly EvidenceItem[], max: number): EvidenceItem[] {
  const shaped = shape(query);
  if (shaped.topic.length === 0 && shaped.lean === 0) return [];
  return items
    .map((item) => ({ item, weight: relevanceOf(shaped, item.text) }))
    .filter((entry) => entry.weight >= 0.5)
    .map((entry) => ({ item: entry.item, weight: entry.weight * reach(entry.item) }))
    .sort((a, b) => b.weight - a.weight || (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0))
    .slice(0, max)
    .map((entry) => entry.item);
}

/** Scores a predicate against items (pure; see the module comment). */
export function scoreEvidence(query: string, items: readonly EvidenceItem[]): EvidenceScore {
  const shaped = shape(query);
  const { topic, surfaces, lean } = shaped;
  const score: EvidenceScore = { confidence: 0, evidence: 0, agree: 0, neutral: 0, against: 0, considered: items.length, topic: surfaces, lean };
  if (topic.length === 0 && lean === 0) return score;
  let support = 0;
  let opposed = 0;
  let neutral = 0;
  for (const item of items) {
    const relevance = relevanceOf(shaped, item.text);
    if (relevance < 0.5) continue;
    score.evidence++;
    const weight = relevance * reach(item);
    if (lean === 0) {
      support += weight;
      score.agree++;
      continue;
    }
    const side = polarity(item.text);
    if (side === lean) {
      support += weight;
      score.agree++;
    } else if (side === 0) {
      neutral += weight;
      score.neutral++;
    } else {
      opposed += weight;
      score.against++;
    }
  }
  if (support > 0) score.confidence = Math.round(100 * (1 - Math.exp(-support / SATURATION)) * (support / (support + opposed + neutral / 2)));
  return score;
}

/** A one-sentence account of a score. */
export function explainScore(score: EvidenceScore, window: TimeRange): string {
  const span = `the ${Math.round((window.to - window.from) / 3_600_000)}h to ${utcMinute(window.to)}`;
  if (score.topic.length === 0 && score.lean === 0) return `Offline heuristic: the predicate has no topic or sentiment word to look for, so confidence is 0.`;
  const about = score.topic.length > 0 ? `match ${listWords(score.topic.map((word) => `"${word}"`), 6)}` : 'were read (a market-wide predicate)';
  const leaning = score.lean === 0 ? '' : ` (${score.agree} lean the predicate's way, ${score.neutral} neutral, ${score.against} the other way)`;
  return `Offline heuristic over ${span}: ${score.evidence} of ${score.considered} posts and news items ${about}${leaning}; confidence ${score.confidence}.`;
}

/** The judge request, possibly with the condition's period (a host may pass it). */
export type JudgeRequest = LlmJudgeRequest & { periodMs?: number };

/** Reads the evidence of the window before `at` and scores it. */
export class HeuristicJudge {
  constructor(
    private readonly market: MarketData,
    private readonly windowMs: number,
    private readonly readLimit = 300,
  ) {}

  /** The window judged: the condition's period when given (1h to 7d), else the configured window. */
  windowOf(request: JudgeRequest): TimeRange {
    const period = request.periodMs !== undefined && Number.isFinite(request.periodMs) ? Math.min(Math.max(request.periodMs, 3_600_000), 7 * 86_400_000) : this.windowMs;
    return { from: request.at - period, to: request.at };
  }

  /** Posts (most viewed, and matching the predicate's words) and news of the window, in a stable order. */
  async evidence(query: string, range: TimeRange): Promise<EvidenceItem[]> {
    const keywords = shape(query).surfaces.slice(0, 8);
    const items = new Map<string, EvidenceItem>();
    const batches = [await this.market.postsInRange({ range, limit: this.readLimit })];
    if (keywords.length > 0) batches.push(await this.market.postsInRange({ range, keywords, limit: this.readLimit }));
    for (const post of batches.flat()) {
      items.set(`post:${post.tweetId}`, { kind: 'post', id: post.tweetId, text: post.text, views: post.viewCount, smartReposts: post.repostBreakdown.smart, at: post.mentionedAt, author: post.username, link: post.link });
    }
    const news = [await this.market.newsInRange({ range, limit: 50 })];
    if (keywords.length > 0) news.push(await this.market.newsInRange({ range, keywords, limit: 50 }));
    for (const item of news.flat()) items.set(`news:${item.id}`, { kind: 'news', id: item.id, text: `${item.title}. ${item.text}`, at: item.publishedAt, author: item.source, link: item.url });
    return [...items.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, item]) => item);
  }

  async judge(request: JudgeRequest): Promise<LlmJudgement> {
    const range = this.windowOf(request);
    const query = typeof request.query === 'string' ? request.query : '';
    const score = scoreEvidence(query, await this.evidence(query, range));
    return { confidence: score.confidence, reasoning: explainScore(score, range) };
  }
}
