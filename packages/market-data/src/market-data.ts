import type { MaybePromise } from '@eql/core';

/**
 * The market-intelligence data the host keeps beside its own state: posts (mentions), news items,
 * Telegram messages and account profiles, with the tokens and contract addresses found in their text.
 * The text is kept for search and analysis and is never returned by an endpoint (spec 2.11).
 * All instants are epoch milliseconds; a range is half open, [from, to).
 */

export type PostType = 'post' | 'repost' | 'quote' | 'reply';

export interface ContractMention {
  /** EVM addresses are lower-cased; Solana addresses keep their base58 spelling. */
  address: string;
  /** `solana`, or an EVM chain named in the text (`ethereum`, `base`, `bsc`, `arbitrum`, ...), else `evm`. */
  chain: string;
}

export interface StoredPost {
  tweetId: string;
  link: string;
  username: string;
  isVerified: boolean;
  text: string;
  mentionedAt: number;
  type: PostType;
  likeCount: number;
  repostCount: number;
  viewCount: number;
  quoteCount: number;
  replyCount: number;
  bookmarkCount: number;
  repostBreakdown: { smart: number; ct: number };
  /** Upper-case tickers without `$` (cashtags and known names), each once. */
  tokens: string[];
  contracts: ContractMention[];
}

export interface StoredNewsItem {
  id: string;
  url: string;
  title: string;
  text: string;
  source: string;
  publishedAt: number;
  tokens: string[];
}

export interface StoredTelegramMessage {
  id: string;
  channel: string;
  text: string;
  postedAt: number;
  views: number;
  tokens: string[];
  contracts: ContractMention[];
}

export interface AccountProfile {
  username: string;
  displayName?: string;
  isVerified: boolean;
  /** A "smart" account: one whose reposts count in `repostBreakdown.smart`. */
  isSmart: boolean;
  /** A crypto-social account (`repostBreakdown.ct`). */
  isCt: boolean;
  /** A news or media account: its posts feed token-news. */
  isNews: boolean;
  followers: number;
  /** How many smart accounts follow it. */
  smartFollowingCount: number;
}

export interface AccountStats {
  username: string;
  /** Mean views of the account's posts. */
  averageReach: number;
  /** Mean of likes + reposts + replies + quotes + bookmarks over its posts. */
  averageEngagement: number;
  smartFollowingCount: number;
  posts: number;
  profile: AccountProfile;
}

export interface TimeRange {
  from: number;
  to: number;
}

export interface Paging {
  /** 1-based. */
  page: number;
  pageSize: number;
}

export interface TrendingToken {
  token: string;
  current_count: number;
  previous_count: number;
  change_percent: number;
}

export interface TrendingContract {
  contractAddress: string;
  chain: string;
  mentionCount: number;
}

export interface Paged<T> {
  total: number;
  rows: T[];
}

export interface KeywordMentionsRequest {
  /** Any of these (case-insensitive words or cashtags) must occur in the text. */
  keywords?: string[];
  /** Posts of this account only (without `@`). */
  accountName?: string;
  range: TimeRange;
  /** Only posts strictly older than this instant (the previous page's cursor). */
  before?: number;
  limit: number;
}

export interface KeywordMentionsPage {
  /** Newest first. */
  rows: StoredPost[];
  /** All matches in the range (ignoring `before`), capped at `cap`. */
  total: number;
  /** `mentionedAt` to pass as `before` for the next page; absent on the last page. */
  cursor?: number;
}

export interface TokenStats {
  token: string;
  range: TimeRange;
  mentions: number;
  previousMentions: number;
  uniqueAccounts: number;
  smartAccounts: number;
  totalViews: number;
  /** Most viewed posts of the range. */
  topPosts: StoredPost[];
  contracts: TrendingContract[];
  news: StoredNewsItem[];
}

/** One line of an ingest file (JSON Lines), after parsing; see docs/http-api.md "Ingest". */
export type IngestItem =
  | ({ kind: 'post' } & Omit<StoredPost, 'tokens' | 'contracts'> & { tokens?: string[]; contracts?: ContractMention[] })
  | ({ kind: 'news' } & Omit<StoredNewsItem, 'tokens'> & { tokens?: string[] })
  | ({ kind: 'telegram' } & Omit<StoredTelegramMessage, 'tokens' | 'contracts'> & { tokens?: string[]; contracts?: ContractMention[] })
  | ({ kind: 'account' } & AccountProfile);

export interface IngestReport {
  posts: number;
  news: number;
  telegram: number;
  accounts: number;
  /** Items already stored (same id): updated in place, counted here. */
  duplicates: number;
}

/**
 * Reads and writes of the market data. The SQLite store answers synchronously; callers await, so a
 * remote store may answer with promises.
 */
export interface MarketData {
  ingest(items: readonly IngestItem[]): MaybePromise<IngestReport>;
  counts(): MaybePromise<{ posts: number; news: number; telegram: number; accounts: number; newest?: number }>;

  accountStats(username: string): MaybePromise<AccountStats | undefined>;
  /** Tokens by mentions in `current` against `previous`, at least `minMentions` in `current`. */
  trendingTokens(request: { current: TimeRange; previous: TimeRange; minMentions: number; paging: Paging }): MaybePromise<Paged<TrendingToken>>;
  trendingContracts(request: { channel: 'twitter' | 'telegram'; range: TimeRange; paging: Paging }): MaybePromise<Paged<TrendingContract>>;
  keywordMentions(request: KeywordMentionsRequest, cap: number): MaybePromise<KeywordMentionsPage>;
  /** Posts of news accounts that mention the token, newest first. */
  tokenNews(request: { token: string; paging: Paging }): MaybePromise<Paged<StoredPost>>;
  /** Posts that mention the token in the range: most viewed, then newest, then most relevant. */
  topMentions(request: { token: string; range: TimeRange; paging: Paging }): MaybePromise<Paged<StoredPost>>;

  /** For analysis (summaries, narratives, chat): posts in the range, most viewed first. */
  postsInRange(request: { range: TimeRange; keywords?: string[]; token?: string; accountName?: string; limit: number }): MaybePromise<StoredPost[]>;
  newsInRange(request: { range: TimeRange; keywords?: string[]; token?: string; limit: number }): MaybePromise<StoredNewsItem[]>;
  tokenStats(token: string, range: TimeRange): MaybePromise<TokenStats>;
  /** Token of a contract address, when a post names both (`$PEPE 0x6982…`). */
  tokenOfContract(address: string): MaybePromise<string | undefined>;
}
