import type { AccountStats, StoredNewsItem, StoredPost, TimeRange, TrendingContract, TrendingToken } from '@eql/market-data';
import type { EventSummary, Narrative } from '../analyst.js';
import { excerpt } from '../text/format.js';

/**
 * The local facts an answer is built from, gathered from the market data by FactGatherer and then
 * rendered either as a Markdown reply (offline analyst) or as the context of a model prompt. Posts
 * are referenced by id and link; `excerpt` (a short cut of the text) only ever goes to the model.
 */

export interface PostRef {
  tweetId: string;
  /** For a repost, the link of the original post. */
  link: string;
  username: string;
  type: StoredPost['type'];
  mentionedAt: number;
  viewCount: number;
  likeCount: number;
  repostCount: number;
  smartReposts: number;
  tokens: string[];
  /** At most EXCERPT_CHARS characters of the text: for model prompts, never for API replies. */
  excerpt: string;
}

export interface NewsRef {
  id: string;
  title: string;
  url: string;
  source: string;
  publishedAt: number;
  tokens: string[];
}

export interface Tone {
  positive: number;
  negative: number;
  neutral: number;
}

export interface TokenFacts {
  token: string;
  window: TimeRange;
  mentions: number;
  previousMentions: number;
  uniqueAccounts: number;
  smartAccounts: number;
  totalViews: number;
  topPosts: PostRef[];
  contracts: TrendingContract[];
  news: NewsRef[];
  /** Asked for by contract address: the address and chain given. */
  askedContract?: { address: string; chain?: string };
  /** tokenAnalysis only: mentions per UTC day over the last week (oldest first), tone and most active accounts. */
  daily?: Array<{ day: string; mentions: number }>;
  tone?: Tone;
  topAccounts?: Array<{ username: string; posts: number }>;
}

export interface AccountFacts {
  username: string;
  stats: AccountStats;
  window: TimeRange;
  recentPosts: PostRef[];
  /** Tokens in its posts of the window, most mentioned first. */
  tokens: Array<{ token: string; posts: number }>;
  tone: Tone;
}

export interface MarketFacts {
  window: TimeRange;
  trending: TrendingToken[];
  contracts: { twitter: TrendingContract[]; telegram: TrendingContract[] };
  narratives: Narrative[];
  news: NewsRef[];
  /** Posts of the window the narratives were drawn from (up to the gatherer's cap). */
  postsRead: number;
}

export interface TopicFacts {
  keywords: string[];
  window: TimeRange;
  posts: PostRef[];
  /** All posts of the window that matched (capped by the gatherer). */
  matched: number;
  events: EventSummary[];
  news: NewsRef[];
}

export interface ChatFacts {
  tokens: TokenFacts[];
  accounts: AccountFacts[];
  /** Names asked about that the data does not know. */
  unknown: string[];
  topic?: TopicFacts;
  trending: TrendingToken[];
  window: TimeRange;
}

export const EXCERPT_CHARS = 160;

export function postRef(post: StoredPost): PostRef {
  return {
    tweetId: post.tweetId,
    link: post.link,
    username: post.username,
    type: post.type,
    mentionedAt: post.mentionedAt,
    viewCount: post.viewCount,
    likeCount: post.likeCount,
    repostCount: post.repostCount,
    smartReposts: post.repostBreakdown.smart,
    tokens: post.tokens,
    excerpt: excerpt(post.text, EXCERPT_CHARS),
  };
}

export function newsRef(item: StoredNewsItem): NewsRef {
  return { id: item.id, title: excerpt(item.title, 140), url: item.url, source: item.source, publishedAt: item.publishedAt, tokens: item.tokens };
}
