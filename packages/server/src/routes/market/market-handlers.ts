import { ApiError } from '../../http/errors.js';
import type { Analyst, Speed } from '@eql/llm';
import { normalizeToken, type MarketData, type Paging } from '@eql/market-data';
import { mentionView } from './mention-view.js';
import { previousRange, resolveTimeFilter, type TimeFilterInput } from './time-filter.js';

/** What the market endpoints need; the same handlers answer the API-key and the payment-model routes. */
export interface MarketContext {
  market: MarketData;
  analyst: Analyst;
  now: () => number;
}

const HOUR = 3_600_000;
/** Keyword-mentions totals are capped (spec 8). */
export const KEYWORD_TOTAL_CAP = 10_000;
/** Credits of event-summary and trending-narratives (spec 8). */
export const ANALYSIS_CREDITS = 5;
/** Most posts handed to the analyst. */
const ANALYSIS_POSTS = 300;

type Query = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const timeInput = (query: Query): TimeFilterInput => ({
  ...(text(query.timeWindow) !== undefined ? { timeWindow: text(query.timeWindow) } : {}),
  ...(text(query.from) !== undefined ? { from: text(query.from) } : {}),
  ...(text(query.to) !== undefined ? { to: text(query.to) } : {}),
});
const pagingOf = (query: Query): Paging => ({ page: Number(query.page ?? 1), pageSize: Number(query.pageSize ?? 20) });
const iso = (ms: number): string => new Date(ms).toISOString();

/** `keywords` as given (comma separated and/or repeated) to a clean list; 400 when it names nothing. */
export function keywordList(value: unknown, required: boolean): string[] | undefined {
  const raw = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
  const list = raw.flatMap((entry) => entry.split(',')).map((entry) => entry.trim()).filter(Boolean);
  if (list.length === 0) {
    if (required || value !== undefined) throw new ApiError('invalid_keywords', 'keywords must name at least one keyword (comma separated or repeated)');
    return undefined;
  }
  if (list.length > 20) throw new ApiError('invalid_keywords', 'at most 20 keywords');
  const long = list.find((keyword) => keyword.length > 100);
  if (long) throw new ApiError('invalid_keywords', `a keyword has at most 100 characters ("${long.slice(0, 30)}…")`);
  if (!list.some((keyword) => /[\p{L}\p{N}]/u.test(keyword))) throw new ApiError('invalid_keywords', 'keywords need letters or digits');
  return list;
}

function tickerOf(query: Query, names: readonly string[]): string {
  const given = names.map((name) => text(query[name])).find((value) => value !== undefined);
  if (given === undefined) throw new ApiError('missing_parameter', `give the ticker as ${names.join(' or ')}`);
  const token = normalizeToken(given);
  if (!token) throw new ApiError('invalid_token', `"${given.slice(0, 20)}" is not a ticker (letters and digits, starting with a letter, with or without $)`);
  return token;
}

function usernameOf(value: string | undefined, name: string): string {
  const username = (value ?? '').trim().replace(/^@/, '');
  if (!/^[A-Za-z0-9_]{1,50}$/.test(username)) throw new ApiError('invalid_username', `${name} must be an account name (letters, digits, _), with or without @`);
  return username;
}

/** The account of a smart-stats request (400 when there is none or it is not an account name). */
export function smartStatsAccount(query: Query): string {
  const given = text(query.username) ?? text(query.accountName);
  if (given === undefined) throw new ApiError('missing_parameter', 'give the account as username');
  return usernameOf(given, 'username');
}

/** The range of a request on a trending route (400 for bad time parameters). */
export const trendingRange = (context: Pick<MarketContext, 'now'>, query: Query) => resolveTimeFilter(timeInput(query), context.now(), 24 * HOUR);

export async function smartStats(context: MarketContext, query: Query) {
  const username = smartStatsAccount(query);
  const stats = await context.market.accountStats(username);
  if (!stats) throw new ApiError('account_not_found', `no posts or profile of @${username}`);
  return { success: true, data: { username: stats.username, averageReach: stats.averageReach, averageEngagement: stats.averageEngagement, smartFollowingCount: stats.smartFollowingCount, postsAnalyzed: stats.posts } };
}

export async function trendingTokens(context: MarketContext, query: Query) {
  const range = trendingRange(context, query);
  const paging = pagingOf(query);
  const result = await context.market.trendingTokens({ current: range, previous: previousRange(range), minMentions: Number(query.minMentions ?? 3), paging });
  return { success: true, page: paging.page, pageSize: paging.pageSize, total: result.total, window: { from: iso(range.from), to: iso(range.to) }, data: result.rows };
}

export async function trendingContracts(context: MarketContext, channel: 'twitter' | 'telegram', query: Query) {
  const range = trendingRange(context, query);
  const paging = pagingOf(query);
  const chain = text(query.chain);
  // A chain filter pages over that chain's rows only.
  const result = chain
    ? await (async () => {
        const all = await context.market.trendingContracts({ channel, range, paging: { page: 1, pageSize: 1_000_000 } });
        const rows = all.rows.filter((row) => row.chain === chain);
        const start = (paging.page - 1) * paging.pageSize;
        return { total: rows.length, rows: rows.slice(start, start + paging.pageSize) };
      })()
    : await context.market.trendingContracts({ channel, range, paging });
  return { success: true, page: paging.page, pageSize: paging.pageSize, total: result.total, window: { from: iso(range.from), to: iso(range.to) }, data: result.rows };
}

export async function keywordMentions(context: MarketContext, query: Query) {
  const keywords = keywordList(query.keywords, false);
  const accountName = text(query.accountName) === undefined ? undefined : usernameOf(text(query.accountName), 'accountName');
  if (!keywords && !accountName) throw new ApiError('missing_parameter', 'give keywords, accountName or both');
  const range = resolveTimeFilter(timeInput(query), context.now(), 7 * 24 * HOUR);
  const page = await context.market.keywordMentions(
    { ...(keywords ? { keywords } : {}), ...(accountName ? { accountName } : {}), range, limit: Number(query.limit ?? 20), ...(query.cursor !== undefined ? { before: Number(query.cursor) } : {}) },
    KEYWORD_TOTAL_CAP,
  );
  return { success: true, data: page.rows.map((post) => mentionView(post, true)), metadata: { total: page.total, ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) } };
}

export async function tokenNews(context: MarketContext, query: Query) {
  const token = tickerOf(query, ['token', 'symbol']);
  const paging = pagingOf(query);
  const result = await context.market.tokenNews({ token, paging });
  return { success: true, data: result.rows.map((post) => mentionView(post, false)), metadata: { page: paging.page, pageSize: paging.pageSize, total: result.total } };
}

export async function topMentions(context: MarketContext, query: Query) {
  const token = tickerOf(query, ['symbol', 'token']);
  const range = resolveTimeFilter(timeInput(query), context.now(), 24 * HOUR);
  const paging = pagingOf(query);
  const result = await context.market.topMentions({ token, range, paging });
  return { success: true, data: result.rows.map((post) => mentionView(post, false)), metadata: { page: paging.page, pageSize: paging.pageSize, total: result.total } };
}

export async function eventSummary(context: MarketContext, query: Query) {
  const keywords = keywordList(query.keywords, true) as string[];
  const range = resolveTimeFilter(timeInput(query), context.now(), 24 * HOUR);
  const posts = await context.market.postsInRange({ range, keywords, limit: ANALYSIS_POSTS });
  const events = posts.length === 0 ? [] : await context.analyst.eventSummary({ keywords, range, posts, speed: (text(query.speed) ?? 'fast') as Speed, limit: Number(query.limit ?? 5) });
  return { success: true, data: events };
}

export async function trendingNarratives(context: MarketContext, query: Query) {
  const range = resolveTimeFilter(timeInput(query), context.now(), 24 * HOUR);
  const posts = await context.market.postsInRange({ range, limit: ANALYSIS_POSTS });
  let error: string | null = null;
  let narratives: Awaited<ReturnType<Analyst['narratives']>> = [];
  if (posts.length > 0) {
    try {
      narratives = await context.analyst.narratives({ range, posts, speed: (text(query.speed) ?? 'fast') as Speed, limit: Number(query.limit ?? 5) });
    } catch (failure) {
      error = `the analysis failed: ${(failure as Error).message}`;
    }
  } else {
    error = 'no posts in the period';
  }
  return { success: true, data: { metadata: { error, total_tweets: posts.length, total_narratives: narratives.length }, trending_narratives: narratives } };
}
