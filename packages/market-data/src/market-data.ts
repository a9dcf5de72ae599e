import type { MaybePromise } from '@eql/core';

/**
 * The market-intelligence data the host keeps beside its own state: posts (mentions), news items,
 * Telegram messages and account profiles, with the tokens and contract addresses found in their text.
 * The text is kept for search and analysis and is never returned by an endpoint (spec 2.11).
 * All instants are epoch milliseconds; a range is half open, [from, to).
 */

/** What kind of X post a stored post is: an original post, a repost, a quote or a reply. */
export type PostType = 'post' | 'repost' | 'quote' | 'reply';

/** A contract address found in a post or Telegram message, with the chain it is on. */
export interface ContractMention {
  /** EVM addresses are lower-cased; Solana addresses keep their base58 spelling. */
  address: string;
  /** `solana`, or an EVM chain named in the text (`ethereum`, `base`, `bsc`, `arbitrum`, ...), else `evm`. */
  chain: string;
}

/**
 * An X post as stored: its id, link and author, its text (for search and analysis only), when it was
 * posted, its engagement counts, and the tokens and contracts it mentions.
 */
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

/** A news article as stored: its id, URL, title, text and source, when it was published, and the tokens it names. */
export interface StoredNewsItem {
  id: string;
  url: string;
  title: string;
  text: string;
  source: string;
  publishedAt: number;
  tokens: string[];
}

/** A message of a Telegram channel as stored: its text, time and views, and the tokens and contracts it mentions. */
export interface StoredTelegramMessage {
  id: string;
  channel: string;
  text: string;
  postedAt: number;
  views: number;
  tokens: string[];
  contracts: ContractMention[];
}

/** What the host knows of an X account: its names, follower counts and whether it is verified, smart, crypto-social or news. */
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

/** An account's profile with averages over its stored posts (reposts excluded), for account analysis. */
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

/** A half-open span of time [from, to), in epoch milliseconds. */
export interface TimeRange {
  from: number;
  to: number;
}

/** Which page of a list to return, and how many rows a page has. */
export interface Paging {
  /** 1-based. */
  page: number;
  pageSize: number;
}

/** A token's mentions in the current window against the previous one, and the change in percent (snake_case, as the API returns it). */
export interface TrendingToken {
  token: string;
  current_count: number;
  previous_count: number;
  change_percent: number;
}

/** A contract address, its chain, and how many posts or Telegram messages of the range mention it. */
export interface TrendingContract {
  contractAddress: string;
  chain: string;
  mentionCount: number;
}

/** One page of rows, with the number of rows of all pages. */
export interface Paged<T> {
  total: number;
  rows: T[];
}

/** Which posts {@link MarketData.keywordMentions} returns: by keywords and/or account, in a range, one page before a cursor. */
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

/** One page of {@link MarketData.keywordMentions}, with the cursor of the next page. */
export interface KeywordMentionsPage {
  /** Newest first. */
  rows: StoredPost[];
  /** All matches in the range (ignoring `before`), capped at `cap`. */
  total: number;
  /** `mentionedAt` to pass as `before` for the next page; absent on the last page. */
  cursor?: number;
}

/**
 * A token's activity in a range: mentions against the range of the same length before it, distinct and
 * smart accounts, total views, and its top posts, contracts and news.
 */
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

/** How many items of each kind an ingest wrote. */
export interface IngestReport {
  posts: number;
  news: number;
  telegram: number;
  accounts: number;
  /** Items already stored (same id): updated in place, counted here. */
  duplicates: number;
}

/**
 * Reads and writes of the market data. The SQLite store answers reads synchronously and ingests
 * asynchronously (in batches, letting the event loop turn); callers await, so a remote store may
 * answer anything with promises.
 */
export interface MarketData {
  /**
   * Stores the items, all or nothing, finding tokens and contracts in their text; an item whose id is
   * already stored is updated in place. Readers see none of the items until all are stored.
   */
  ingest(items: readonly IngestItem[]): MaybePromise<IngestReport>;
  /** How many posts, news items, Telegram messages and accounts are stored, and the instant of the newest post. */
  counts(): MaybePromise<{ posts: number; news: number; telegram: number; accounts: number; newest?: number }>;

  /** The profile and post averages of an account (with or without `@`); undefined when it has neither a profile nor posts. */
  accountStats(username: string): MaybePromise<AccountStats | undefined>;
  /** Tokens by mentions in `current` against `previous`, at least `minMentions` in `current`. */
  trendingTokens(request: { current: TimeRange; previous: TimeRange; minMentions: number; paging: Paging }): MaybePromise<Paged<TrendingToken>>;
  /** Contract addresses by how many posts (`twitter`) or Telegram messages of the range mention them, most first. */
  trendingContracts(request: { channel: 'twitter' | 'telegram'; range: TimeRange; paging: Paging }): MaybePromise<Paged<TrendingContract>>;
  /** Posts with any of the keywords and/or of an account, newest first, one page at a time; `total` counts at most `cap`. */
  keywordMentions(request: KeywordMentionsRequest, cap: number): MaybePromise<KeywordMentionsPage>;
  /** Posts of news accounts that mention the token, newest first. */
  tokenNews(request: { token: string; paging: Paging }): MaybePromise<Paged<StoredPost>>;
  /** Posts that mention the token in the range: most viewed, then newest, then most relevant. */
  topMentions(request: { token: string; range: TimeRange; paging: Paging }): MaybePromise<Paged<StoredPost>>;

  /** For analysis (summaries, narratives, chat): posts in the range, most viewed first. */
  postsInRange(request: { range: TimeRange; keywords?: string[]; token?: string; accountName?: string; limit: number }): MaybePromise<StoredPost[]>;
  /** For analysis: news published in the range, newest first, of the token and/or with any of the keywords, at most `limit`. */
  newsInRange(request: { range: TimeRange; keywords?: string[]; token?: string; limit: number }): MaybePromise<StoredNewsItem[]>;
  /** The activity of a token (upper case, without `$`) in the range: see {@link TokenStats}. */
  tokenStats(token: string, range: TimeRange): MaybePromise<TokenStats>;
  /** Token of a contract address, when a post names both (`$PEPE 0x6982…`). */
  tokenOfContract(address: string): MaybePromise<string | undefined>;
}
