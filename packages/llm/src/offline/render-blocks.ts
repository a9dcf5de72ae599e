import type { TimeRange, TrendingContract, TrendingToken } from '@eql/market-data';
import type { EventSummary, Narrative } from '../analyst.js';
import type { AccountFacts, NewsRef, PostRef, TokenFacts, Tone } from '../context/local-facts.js';
import { changePercent, compact, mdLink, plural, signedPercent, utcMinute } from '../text/format.js';

/**
 * Markdown blocks of offline replies, built from local facts only. Posts appear as links with their
 * counts, never with their text; news as headline links.
 */

/** Most posts now first, then by token: the store may rank by change. */
export function byPosts(trending: readonly TrendingToken[]): TrendingToken[] {
  return [...trending].sort((a, b) => b.current_count - a.current_count || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
}

/** "24h" for a window of a day. */
export function hours(window: TimeRange): string {
  return `${Math.round(((window.to - window.from) / 3_600_000) * 10) / 10}h`;
}

export function postLines(posts: readonly PostRef[]): string[] {
  return posts.map((post) => {
    const parts = [`${compact(post.viewCount)} views`, `${compact(post.likeCount)} likes`, `${compact(post.repostCount)} reposts`];
    if (post.smartReposts > 0) parts.push(plural(post.smartReposts, 'smart repost'));
    return `- ${mdLink(`@${post.username}`, post.link)}${post.type === 'repost' ? ' (repost)' : ''} · ${utcMinute(post.mentionedAt)} · ${parts.join(' · ')}`;
  });
}

export function newsLines(news: readonly NewsRef[]): string[] {
  return news.map((item) => `- ${mdLink(item.title, item.url)} · ${item.source} · ${utcMinute(item.publishedAt)}`);
}

/** Trending tokens as a table, most posts first (ties by token). */
export function trendingLines(trending: readonly TrendingToken[]): string[] {
  if (trending.length === 0) return ['No token reached the minimum of mentions in the window.'];
  return [
    '| token | posts now | before | change |',
    '|---|---:|---:|---:|',
    ...byPosts(trending).map((row) => `| $${row.token} | ${row.current_count} | ${row.previous_count} | ${signedPercent(row.previous_count > 0 ? row.change_percent : undefined)} |`),
  ];
}

export function contractLines(contracts: readonly TrendingContract[]): string[] {
  return contracts.map((contract) => `- \`${contract.contractAddress}\` (${contract.chain}): ${plural(contract.mentionCount, 'mention')}`);
}

export function eventLines(events: readonly EventSummary[]): string[] {
  return events.flatMap((event, index) => [
    `${index + 1}. ${event.summary}`,
    `   Sources: ${event.sourceLinks.slice(0, 5).map((link, i) => mdLink(`${i + 1}`, link)).join(' ')}`,
  ]);
}

export function narrativeLines(narratives: readonly Narrative[]): string[] {
  return narratives.flatMap((narrative, index) => [
    `${index + 1}. ${narrative.narrative}`,
    `   Sources: ${narrative.source_links.slice(0, 5).map((link, i) => mdLink(`${i + 1}`, link)).join(' ')}`,
  ]);
}

export function toneLine(tone: Tone): string {
  const total = tone.positive + tone.negative + tone.neutral;
  if (total === 0) return 'Tone: no posts to read.';
  const polar = tone.positive + tone.negative;
  const lean = polar * 3 < total ? 'mostly neutral' : tone.positive > tone.negative * 2 ? 'leaning positive' : tone.negative > tone.positive * 2 ? 'leaning negative' : 'mixed';
  return `Tone (cue words): ${tone.positive} positive, ${tone.negative} negative, ${tone.neutral} neutral of ${plural(total, 'post')}: ${lean}.`;
}

/** Momentum in words, by fixed thresholds on the change of mentions. */
export function momentum(now: number, before: number): string {
  const change = changePercent(now, before);
  if (now === 0 && before === 0) return 'no mentions in either window';
  if (change === undefined) return 'newly discussed (no mentions in the window before)';
  if (change >= 50) return `accelerating (${signedPercent(change)})`;
  if (change <= -30) return `cooling (${signedPercent(change)})`;
  return `steady (${signedPercent(change)})`;
}

/** The core block of a token: mentions now and before, accounts, views, contracts, top posts, news. */
export function tokenBlock(facts: TokenFacts, heading: string): string[] {
  const lines = [
    `${heading} $${facts.token}`,
    `In the ${hours(facts.window)} to ${utcMinute(facts.window.to)}: **${plural(facts.mentions, 'post')}** by ${plural(facts.uniqueAccounts, 'account')} (${facts.smartAccounts} smart), ${compact(facts.totalViews)} views; ${facts.previousMentions} in the ${hours(facts.window)} before: ${momentum(facts.mentions, facts.previousMentions)}.`,
  ];
  if (facts.askedContract) lines.push(`Resolved from contract \`${facts.askedContract.address}\`${facts.askedContract.chain ? ` (${facts.askedContract.chain})` : ''}.`);
  if (facts.contracts.length > 0) lines.push('', 'Contract addresses posted with it:', ...contractLines(facts.contracts));
  if (facts.topPosts.length > 0) lines.push('', 'Most viewed posts:', ...postLines(facts.topPosts));
  if (facts.news.length > 0) lines.push('', 'News:', ...newsLines(facts.news));
  return lines;
}

/** The core block of an account: smart stats, tokens it talks about, recent posts. */
export function accountBlock(facts: AccountFacts, heading: string): string[] {
  const { stats } = facts;
  const kinds = [stats.profile.isSmart ? 'smart' : '', stats.profile.isCt ? 'crypto-social' : '', stats.profile.isNews ? 'news' : '', stats.profile.isVerified ? 'verified' : ''].filter(Boolean);
  const lines = [
    `${heading} @${facts.username}`,
    `${kinds.length > 0 ? `A ${kinds.join(', ')} account` : 'An account'} with ${compact(stats.profile.followers)} followers, ${stats.smartFollowingCount} of them smart accounts. Over its ${plural(stats.posts, 'stored post')}: average reach ${compact(stats.averageReach)} views, average engagement ${compact(stats.averageEngagement)}.`,
  ];
  if (facts.tokens.length > 0) lines.push(`Tokens in its posts of the last 7 days: ${facts.tokens.map((entry) => `$${entry.token} (${entry.posts})`).join(', ')}.`);
  else lines.push('It named no token in the last 7 days.');
  lines.push(toneLine(facts.tone));
  if (facts.recentPosts.length > 0) lines.push('', 'Recent posts:', ...postLines(facts.recentPosts));
  return lines;
}
