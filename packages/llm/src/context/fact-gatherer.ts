import type { MarketData, StoredPost, TimeRange } from '@eql/market-data';
import type { AssetMetadata } from '../analyst.js';
import { extractEvents, extractNarratives } from '../offline/summaries.js';
import { polarity } from '../text/sentiment.js';
import { capitalWords, cashtags, contractAddresses, handles, normalizeTicker, significantTerms } from '../text/terms.js';
import { type AccountFacts, type ChatFacts, type MarketFacts, newsRef, postRef, type TokenFacts, type Tone, type TopicFacts } from './local-facts.js';

export interface FactGathererOptions {
  /** "Now" and "before" are windows of this length (default 24h). */
  windowMs?: number;
  /** Posts read for narratives, events, tone and account tokens (default 500). */
  readLimit?: number;
}

const DAY = 86_400_000;

/** Tone of a set of posts by their cue words (text/sentiment.ts). */
export function toneOf(posts: readonly StoredPost[]): Tone {
  const tone: Tone = { positive: 0, negative: 0, neutral: 0 };
  for (const post of posts) {
    const side = polarity(post.text);
    if (side > 0) tone.positive++;
    else if (side < 0) tone.negative++;
    else tone.neutral++;
  }
  return tone;
}

/**
 * Reads the local facts an answer needs from the market data: tokens, accounts, the market, a
 * topic, or everything a chat message names. "Now" is the window before the instant given, "before"
 * the window ahead of it. Reads only; every list is bounded.
 */
export class FactGatherer {
  readonly windowMs: number;
  private readonly readLimit: number;

  constructor(
    private readonly market: MarketData,
    options: FactGathererOptions = {},
  ) {
    this.windowMs = options.windowMs ?? DAY;
    this.readLimit = options.readLimit ?? 500;
  }

  window(now: number): TimeRange {
    return { from: now - this.windowMs, to: now };
  }

  /** The token an asset names: its symbol, else the token posts give its contract; undefined when neither is known. */
  async resolveToken(asset: AssetMetadata): Promise<{ token: string; askedContract?: { address: string; chain?: string } } | undefined> {
    if (asset.symbol !== undefined && normalizeTicker(asset.symbol) !== '') return { token: normalizeTicker(asset.symbol) };
    if (asset.contractAddress === undefined || asset.contractAddress.trim() === '') return undefined;
    const raw = asset.contractAddress.trim();
    const address = raw.startsWith('0x') ? raw.toLowerCase() : raw;
    const token = await this.market.tokenOfContract(address);
    if (token === undefined) return undefined;
    return { token: normalizeTicker(token), askedContract: { address, ...(asset.chain ? { chain: asset.chain } : {}) } };
  }

  /** Stats of a token in the window against the one before; `analysis` adds a week of daily counts, tone and top accounts. */
  async token(token: string, now: number, depth: 'intro' | 'analysis'): Promise<TokenFacts> {
    const window = this.window(now);
    const stats = await this.market.tokenStats(token, window);
    const facts: TokenFacts = {
      token: stats.token,
      window,
      mentions: stats.mentions,
      previousMentions: stats.previousMentions,
      uniqueAccounts: stats.uniqueAccounts,
      smartAccounts: stats.smartAccounts,
      totalViews: stats.totalViews,
      topPosts: stats.topPosts.slice(0, 5).map(postRef),
      contracts: stats.contracts.slice(0, 5),
      news: stats.news.slice(0, 5).map(newsRef),
    };
    if (depth === 'intro') return facts;
    const week = { from: now - 7 * DAY, to: now };
    const posts = await this.market.postsInRange({ range: week, token, limit: this.readLimit * 4 });
    const daily: Array<{ day: string; mentions: number }> = [];
    for (let start = now - 7 * DAY; start < now; start += DAY) {
      daily.push({ day: new Date(start + DAY - 1).toISOString().slice(0, 10), mentions: posts.filter((post) => post.mentionedAt >= start && post.mentionedAt < start + DAY).length });
    }
    const recent = posts.filter((post) => post.mentionedAt >= window.from);
    const byAccount = new Map<string, number>();
    for (const post of recent) byAccount.set(post.username, (byAccount.get(post.username) ?? 0) + 1);
    facts.daily = daily;
    facts.tone = toneOf(recent);
    facts.topAccounts = [...byAccount.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 5)
      .map(([username, count]) => ({ username, posts: count }));
    return facts;
  }

  /** An account's smart stats, its posts of the last week and the tokens it talks about; undefined when unknown. */
  async account(username: string, now: number): Promise<AccountFacts | undefined> {
    const name = username.trim().replace(/^@/, '');
    const stats = await this.market.accountStats(name);
    if (!stats) return undefined;
    const window = { from: now - 7 * DAY, to: now };
    const posts = (await this.market.postsInRange({ range: window, accountName: stats.username, limit: this.readLimit })).sort((a, b) => b.mentionedAt - a.mentionedAt || (a.tweetId < b.tweetId ? -1 : 1));
    const tokens = new Map<string, number>();
    for (const post of posts) for (const token of post.tokens) tokens.set(token, (tokens.get(token) ?? 0) + 1);
    return {
      username: stats.username,
      stats,
      window,
      recentPosts: posts.slice(0, 8).map(postRef),
      tokens: [...tokens.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 10)
        .map(([token, count]) => ({ token, posts: count })),
      tone: toneOf(posts),
    };
  }

  /** The market-wide view: trending tokens and contracts, narratives of the window, news. */
  async marketView(now: number): Promise<MarketFacts> {
    const window = this.window(now);
    const previous = { from: window.from - this.windowMs, to: window.from };
    const trending = await this.market.trendingTokens({ current: window, previous, minMentions: 3, paging: { page: 1, pageSize: 15 } });
    const twitter = await this.market.trendingContracts({ channel: 'twitter', range: window, paging: { page: 1, pageSize: 5 } });
    const telegram = await this.market.trendingContracts({ channel: 'telegram', range: window, paging: { page: 1, pageSize: 5 } });
    const posts = await this.market.postsInRange({ range: window, limit: this.readLimit });
    const news = await this.market.newsInRange({ range: window, limit: 5 });
    return {
      window,
      trending: trending.rows,
      contracts: { twitter: twitter.rows, telegram: telegram.rows },
      narratives: extractNarratives({ posts, range: window, limit: 5, maxIdsPerGroup: 5 }),
      news: news.map(newsRef),
      postsRead: posts.length,
    };
  }

  /** Posts, events and news of the window about some keywords (all posts when there are none). */
  async topic(keywords: string[], now: number): Promise<TopicFacts> {
    const window = this.window(now);
    const filter = keywords.length > 0 ? { keywords } : {};
    const posts = await this.market.postsInRange({ range: window, ...filter, limit: this.readLimit });
    const news = await this.market.newsInRange({ range: window, ...filter, limit: 5 });
    return {
      keywords,
      window,
      posts: posts.slice(0, 8).map(postRef),
      matched: posts.length,
      events: extractEvents({ posts, keywords, limit: 5, maxIdsPerGroup: 5 }),
      news: news.map(newsRef),
    };
  }

  /**
   * What a chat message names: cashtags, capitalized words the data knows as tokens, contract
   * addresses, @handles, and its remaining significant words as a topic; plus the trending tokens.
   */
  async chat(message: string, now: number): Promise<ChatFacts> {
    const window = this.window(now);
    const unknown: string[] = [];
    const tokens = new Set(cashtags(message));
    for (const word of capitalWords(message).slice(0, 6)) {
      if (tokens.has(word)) continue;
      const stats = await this.market.tokenStats(word, window);
      if (stats.mentions + stats.previousMentions > 0) tokens.add(word);
    }
    for (const address of contractAddresses(message).slice(0, 3)) {
      const resolved = await this.resolveToken({ contractAddress: address });
      if (resolved) tokens.add(resolved.token);
      else unknown.push(address);
    }
    const tokenFacts: TokenFacts[] = [];
    for (const token of [...tokens].slice(0, 4)) tokenFacts.push(await this.token(token, now, 'intro'));
    const accounts: AccountFacts[] = [];
    for (const handle of handles(message).slice(0, 3)) {
      const facts = await this.account(handle, now);
      if (facts) accounts.push(facts);
      else unknown.push(`@${handle}`);
    }
    const named = new Set([...tokens].map((token) => token.toLowerCase()));
    const keywords = significantTerms(message.replace(/@[A-Za-z0-9_]+|\$[A-Za-z0-9]+/g, ' '))
      .map((term) => term.surface)
      .filter((word) => !named.has(word))
      .slice(0, 6);
    const trending = await this.market.trendingTokens({ current: window, previous: { from: window.from - this.windowMs, to: window.from }, minMentions: 3, paging: { page: 1, pageSize: 8 } });
    const facts: ChatFacts = { tokens: tokenFacts, accounts, unknown, trending: trending.rows, window };
    if (keywords.length > 0) facts.topic = await this.topic(keywords, now);
    return facts;
  }
}
