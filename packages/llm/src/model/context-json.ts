import type { ConditionState, TriggerContext } from '@eql/core';
import type { AccountFacts, ChatFacts, MarketFacts, NewsRef, PostRef, TokenFacts, TopicFacts } from '../context/local-facts.js';
import type { QuoteSource } from '../text/quote-guard.js';

/**
 * The local facts as the JSON context of a model prompt: numbers, ids, links, times in ISO 8601 and
 * short excerpts of posts (the model may read them; replies are checked by the quote guard). Each
 * builder also lists the texts the model saw, for that guard.
 */

export interface PromptContext {
  context: Record<string, unknown>;
  sources: QuoteSource[];
}

const iso = (at: number) => new Date(at).toISOString();
const window = (range: { from: number; to: number }) => ({ from: iso(range.from), to: iso(range.to) });

class Collector {
  readonly sources: QuoteSource[] = [];

  post(post: PostRef) {
    this.sources.push({ text: post.excerpt, link: post.link });
    return { id: post.tweetId, link: post.link, user: post.username, type: post.type, at: iso(post.mentionedAt), views: post.viewCount, likes: post.likeCount, reposts: post.repostCount, smartReposts: post.smartReposts, excerpt: post.excerpt };
  }

  news(item: NewsRef) {
    return { title: item.title, url: item.url, source: item.source, at: iso(item.publishedAt), tokens: item.tokens };
  }

  token(facts: TokenFacts) {
    return {
      token: facts.token,
      window: window(facts.window),
      mentions: facts.mentions,
      mentionsInWindowBefore: facts.previousMentions,
      uniqueAccounts: facts.uniqueAccounts,
      smartAccounts: facts.smartAccounts,
      totalViews: facts.totalViews,
      contracts: facts.contracts,
      ...(facts.askedContract ? { askedContract: facts.askedContract } : {}),
      topPosts: facts.topPosts.map((post) => this.post(post)),
      news: facts.news.map((item) => this.news(item)),
      ...(facts.daily ? { postsPerDay: facts.daily } : {}),
      ...(facts.tone ? { toneByCueWords: facts.tone } : {}),
      ...(facts.topAccounts ? { mostActiveAccounts: facts.topAccounts } : {}),
    };
  }

  account(facts: AccountFacts) {
    const { stats } = facts;
    return {
      username: facts.username,
      profile: { followers: stats.profile.followers, verified: stats.profile.isVerified, smart: stats.profile.isSmart, cryptoSocial: stats.profile.isCt, news: stats.profile.isNews },
      smartStats: { averageReach: stats.averageReach, averageEngagement: stats.averageEngagement, smartFollowingCount: stats.smartFollowingCount, storedPosts: stats.posts },
      window: window(facts.window),
      tokensMentioned: facts.tokens,
      toneByCueWords: facts.tone,
      recentPosts: facts.recentPosts.map((post) => this.post(post)),
    };
  }

  topic(facts: TopicFacts) {
    return {
      keywords: facts.keywords,
      window: window(facts.window),
      matchingPosts: facts.matched,
      groupsBySharedWords: facts.events,
      mostViewedPosts: facts.posts.map((post) => this.post(post)),
      news: facts.news.map((item) => this.news(item)),
    };
  }

  market(facts: MarketFacts) {
    return {
      window: window(facts.window),
      trendingTokens: facts.trending,
      trendingContracts: facts.contracts,
      narrativesBySharedWords: facts.narratives,
      news: facts.news.map((item) => this.news(item)),
    };
  }
}

export function tokenContext(facts: TokenFacts): PromptContext {
  const collector = new Collector();
  return { context: { token: collector.token(facts) }, sources: collector.sources };
}

export function accountContext(facts: AccountFacts): PromptContext {
  const collector = new Collector();
  return { context: { account: collector.account(facts) }, sources: collector.sources };
}

export function topicContext(facts: TopicFacts): PromptContext {
  const collector = new Collector();
  return { context: { recent: collector.topic(facts) }, sources: collector.sources };
}

export function marketContext(facts: MarketFacts): PromptContext {
  const collector = new Collector();
  return { context: { market: collector.market(facts) }, sources: collector.sources };
}

export function chatContext(facts: ChatFacts): PromptContext {
  const collector = new Collector();
  const context: Record<string, unknown> = {
    window: window(facts.window),
    tokensNamed: facts.tokens.map((token) => collector.token(token)),
    accountsNamed: facts.accounts.map((account) => collector.account(account)),
    trendingTokens: facts.trending,
  };
  if (facts.unknown.length > 0) context.unknownToTheData = facts.unknown;
  if (facts.topic) context.topic = collector.topic(facts.topic);
  return { context, sources: collector.sources };
}

/** The trigger of an llm action: conditions with their values; matched items by id, without text. */
export function triggerContext(trigger: TriggerContext): Record<string, unknown> {
  return {
    queryId: trigger.queryId,
    title: trigger.title ?? null,
    triggerIndex: trigger.triggerIndex,
    firedAt: iso(trigger.firedAt),
    conditions: trigger.conditionStates.map((state: ConditionState) => ({
      path: state.path,
      source: state.source,
      ...(state.method ? { method: state.method } : {}),
      holds: state.holds,
      ...(state.value !== undefined ? { value: state.value } : {}),
      ...(state.threshold !== undefined ? { threshold: state.threshold } : {}),
      ...(state.since !== undefined ? { since: iso(state.since) } : {}),
      ...(state.match ? { matched: { id: state.match.id ?? null, at: iso(state.match.at), confidence: state.match.confidence } } : {}),
    })),
  };
}

export function postsForPrompt(posts: ReadonlyArray<{ tweetId: string; link: string; username: string; mentionedAt: number; viewCount: number; text: string }>, excerptChars: number): PromptContext {
  const sources: QuoteSource[] = [];
  const list = posts.map((post) => {
    sources.push({ text: post.text, link: post.link });
    const flat = post.text.replace(/\s+/g, ' ').trim();
    return { id: post.tweetId, user: post.username, at: iso(post.mentionedAt), views: post.viewCount, excerpt: flat.length > excerptChars ? `${flat.slice(0, excerptChars)}…` : flat };
  });
  return { context: { posts: list }, sources };
}
