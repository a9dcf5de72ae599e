import type { StoredPost, TimeRange } from '@eql/market-data';
import type { EventSummary, Narrative } from '../analyst.js';
import { compact, listWords, plural, utcMinute } from '../text/format.js';
import { polarity } from '../text/sentiment.js';
import { normalizeTicker, significantTerms, stem } from '../text/terms.js';
import { type ClusterDoc, clusterByTerms, type TermCluster } from './term-clusters.js';

/**
 * Extractive event summaries and narratives over posts, without a model: posts are grouped by the
 * tokens and terms they share (term-clusters.ts) and each group is described by sentences built
 * from its data: its shared words, counts, time span, views, tone and most viewed author. No post
 * text is ever copied; the posts are reachable through `tweetIds` and `sourceLinks`.
 */

/** Canonical order: most viewed, then newest, then by id, whatever order the caller used. */
export function canonicalPosts(posts: readonly StoredPost[]): StoredPost[] {
  return [...posts].sort((a, b) => b.viewCount - a.viewCount || b.mentionedAt - a.mentionedAt || (a.tweetId < b.tweetId ? -1 : a.tweetId > b.tweetId ? 1 : 0));
}

interface Featured {
  posts: StoredPost[];
  docs: ClusterDoc[];
  /** Display form of every feature key. */
  display: Map<string, string>;
}

/** Features of each post: `$TOKEN` keys and term stems; display forms are the most used spellings. */
function featurize(posts: readonly StoredPost[]): Featured {
  const ordered = canonicalPosts(posts);
  const spellings = new Map<string, Map<string, number>>();
  const docs = ordered.map((post): ClusterDoc => {
    const features = new Set<string>(post.tokens.map((token) => `$${normalizeTicker(token)}`));
    for (const term of significantTerms(post.text)) {
      if (features.has(`$${term.surface.toUpperCase()}`)) continue;
      features.add(term.key);
      const seen = spellings.get(term.key) ?? new Map<string, number>();
      seen.set(term.surface, (seen.get(term.surface) ?? 0) + 1);
      spellings.set(term.key, seen);
    }
    return { features };
  });
  const display = new Map<string, string>();
  for (const [key, seen] of spellings) {
    const best = [...seen.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    display.set(key, best ? best[0] : key);
  }
  return { posts: ordered, docs, display };
}

const show = (featured: Featured, key: string) => (key.startsWith('$') ? key : (featured.display.get(key) ?? key));

/** Keys of search keywords, so they do not seed groups every post shares. */
function keywordKeys(keywords: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const keyword of keywords) {
    const trimmed = keyword.trim();
    if (trimmed.startsWith('$')) out.add(`$${normalizeTicker(trimmed)}`);
    else {
      out.add(`$${trimmed.toUpperCase()}`);
      for (const term of significantTerms(trimmed)) out.add(term.key);
      if (trimmed.length >= 3) out.add(stem(trimmed.toLowerCase()));
    }
  }
  return out;
}

function tone(posts: readonly StoredPost[]): string {
  let positive = 0;
  let negative = 0;
  for (const post of posts) {
    const side = polarity(post.text);
    if (side > 0) positive++;
    else if (side < 0) negative++;
  }
  if (positive === 0 && negative === 0) return 'Tone: neutral.';
  if ((positive + negative) * 3 < posts.length) return `Tone: mostly neutral (${positive} positive, ${negative} negative of ${plural(posts.length, 'post')}).`;
  if (positive > negative * 2) return `Tone: mostly positive (${positive} of ${plural(posts.length, 'post')}).`;
  if (negative > positive * 2) return `Tone: mostly negative (${negative} of ${plural(posts.length, 'post')}).`;
  return `Tone: mixed (${positive} positive, ${negative} negative of ${plural(posts.length, 'post')}).`;
}

/** The facts of a group in one line: posts, accounts, span, views, smart reposts. */
function groupLine(posts: readonly StoredPost[]): string {
  const accounts = new Set(posts.map((post) => post.username.toLowerCase())).size;
  const times = posts.map((post) => post.mentionedAt);
  const first = Math.min(...times);
  const last = Math.max(...times);
  const views = posts.reduce((sum, post) => sum + post.viewCount, 0);
  const smart = posts.reduce((sum, post) => sum + post.repostBreakdown.smart, 0);
  const span = first === last ? `at ${utcMinute(first)}` : `from ${utcMinute(first)} to ${utcMinute(last)}`;
  return `${plural(posts.length, 'post')} by ${plural(accounts, 'account')} ${span}, ${compact(views)} views${smart > 0 ? `, ${plural(smart, 'smart repost')}` : ''}`;
}

function topLine(posts: readonly StoredPost[]): string {
  const top = posts[0];
  return top ? `Most viewed: @${top.username} (${compact(top.viewCount)} views).` : '';
}

function membersOf(featured: Featured, cluster: TermCluster, max: number): StoredPost[] {
  return cluster.members.slice(0, max).map((index) => featured.posts[index] as StoredPost);
}

/** Event summaries: groups sharing a token or term beyond the search keywords, at most `limit`. */
export function extractEvents(request: { posts: readonly StoredPost[]; keywords: readonly string[]; limit: number; maxIdsPerGroup?: number }): EventSummary[] {
  if (request.posts.length === 0 || request.limit <= 0) return [];
  const featured = featurize(request.posts);
  const exclude = keywordKeys(request.keywords);
  const clusters = clusterByTerms(featured.docs, { limit: request.limit, minSize: 2, seedSize: 1, exclude, maxShare: 0.9 });
  const max = request.maxIdsPerGroup ?? 50;
  const groups = clusters.length > 0 ? clusters : [{ seed: [], labels: [], members: featured.posts.map((_, index) => index) }];
  return groups.map((cluster) => {
    const all = cluster.members.map((index) => featured.posts[index] as StoredPost);
    const shown = membersOf(featured, cluster, max);
    const words = cluster.labels.map((key) => show(featured, key));
    const about = words.length > 0 ? listWords(words) : request.keywords.length > 0 ? listWords([...request.keywords]) : 'recent posts';
    return {
      tweetIds: shown.map((post) => post.tweetId),
      sourceLinks: shown.map((post) => post.link),
      summary: `${about}: ${groupLine(all)}. ${topLine(all)} ${tone(all)}`,
    };
  });
}

/** Narratives: groups seeded by co-occurring tokens or terms, described with their momentum in the range. */
export function extractNarratives(request: { posts: readonly StoredPost[]; range: TimeRange; limit: number; maxIdsPerGroup?: number }): Narrative[] {
  if (request.posts.length === 0 || request.limit <= 0) return [];
  const featured = featurize(request.posts);
  const clusters = clusterByTerms(featured.docs, { limit: request.limit, minSize: 2, seedSize: 2 });
  const max = request.maxIdsPerGroup ?? 50;
  const quarter = request.range.to - (request.range.to - request.range.from) / 4;
  return clusters.map((cluster) => {
    const all = cluster.members.map((index) => featured.posts[index] as StoredPost);
    const shown = membersOf(featured, cluster, max);
    const tokens = cluster.labels.filter((key) => key.startsWith('$'));
    const words = cluster.labels.filter((key) => !key.startsWith('$')).map((key) => show(featured, key));
    const recent = all.filter((post) => post.mentionedAt >= quarter).length;
    const theme = [words.length > 0 ? listWords(words, 3) : '', tokens.length > 0 ? `(${tokens.slice(0, 3).join(', ')})` : ''].filter(Boolean).join(' ');
    return {
      tweet_ids: shown.map((post) => post.tweetId),
      source_links: shown.map((post) => post.link),
      narrative: `${theme}: ${groupLine(all)}; ${recent} of them in the last quarter of the period. ${topLine(all)} ${tone(all)}`,
    };
  });
}
