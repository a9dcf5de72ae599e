import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractEvents, extractNarratives, OfflineAnalyst } from '../src/index.js';
import type { StoredPost, SqliteMarketData } from '@eql/market-data';
import { DAY, DEMO_END, demoMarket } from './support/demo-market.js';

let market: SqliteMarketData;
let analyst: OfflineAnalyst;
const window = { from: DEMO_END - DAY, to: DEMO_END };

beforeAll(() => {
  market = demoMarket();
  analyst = new OfflineAnalyst(market);
});

/** The laws every grouping must keep: ids among the input, links of those ids, no post twice, no text copied. */
function checkGroups(groups: Array<{ ids: string[]; links: string[]; text: string }>, posts: readonly StoredPost[], limit: number): void {
  const byId = new Map(posts.map((post) => [post.tweetId, post]));
  const seen = new Set<string>();
  expect(groups.length).toBeLessThanOrEqual(limit);
  for (const group of groups) {
    expect(group.ids.length).toBeGreaterThan(0);
    expect(group.links).toEqual(group.ids.map((id) => byId.get(id)?.link));
    for (const id of group.ids) {
      expect(byId.has(id)).toBe(true);
      expect(seen.has(id)).toBe(false);
      seen.add(id);
    }
    for (const post of posts) if (post.text.length >= 30) expect(group.text.includes(post.text)).toBe(false);
  }
}

describe('offline event summaries', () => {
  it('group the posts by shared terms; ids, links and sentences come from the data', async () => {
    const posts = market.postsInRange({ range: window, keywords: ['etf'], limit: 300 });
    expect(posts.length).toBeGreaterThan(10);
    const events = await analyst.eventSummary({ keywords: ['etf'], range: window, posts, speed: 'fast', limit: 4 });
    expect(events.length).toBeGreaterThan(0);
    checkGroups(events.map((event) => ({ ids: event.tweetIds, links: event.sourceLinks, text: event.summary })), posts, 4);
    for (const event of events) {
      const members = posts.filter((post) => event.tweetIds.includes(post.tweetId));
      const accounts = new Set(members.map((post) => post.username.toLowerCase())).size;
      // The ids listed are capped; the sentence counts the whole group, which is at least as large.
      expect(event.summary).toMatch(/^[^:]+: \d+ posts? by \d+ accounts? /);
      const [, posted, by] = /: (\d+) posts? by (\d+) accounts?/.exec(event.summary) ?? [];
      expect(Number(posted)).toBeGreaterThanOrEqual(members.length);
      expect(Number(by)).toBeGreaterThanOrEqual(accounts);
      expect(event.summary).toMatch(/Most viewed: @\w+ \([\d.]+[kMB]? views\)\./);
      // The search keyword is shared by every post: it does not seed a group.
      expect(event.summary.split(':')[0]).not.toMatch(/^etf\b/i);
    }
  });

  it('do not depend on the order of the posts', () => {
    const posts = market.postsInRange({ range: window, keywords: ['memecoin'], limit: 200 });
    const reference = extractEvents({ posts, keywords: ['memecoin'], limit: 5 });
    fc.assert(
      fc.property(fc.shuffledSubarray(posts, { minLength: posts.length, maxLength: posts.length }), (shuffled) => {
        expect(extractEvents({ posts: shuffled, keywords: ['memecoin'], limit: 5 })).toEqual(reference);
      }),
      { numRuns: 25 },
    );
  });

  it('keep their laws on any subset of posts and any limit', () => {
    const pool = market.postsInRange({ range: { from: DEMO_END - 3 * DAY, to: DEMO_END }, limit: 400 });
    fc.assert(
      fc.property(fc.subarray(pool, { maxLength: 80 }), fc.integer({ min: 0, max: 8 }), (posts, limit) => {
        const events = extractEvents({ posts, keywords: [], limit });
        checkGroups(events.map((event) => ({ ids: event.tweetIds, links: event.sourceLinks, text: event.summary })), posts, limit);
        if (posts.length > 0 && limit > 0) expect(events.length).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });

  it('no posts, no events', async () => {
    expect(await analyst.eventSummary({ keywords: ['x'], range: window, posts: [], speed: 'fast', limit: 3 })).toEqual([]);
  });
});

describe('offline narratives', () => {
  it('cluster co-occurring tokens and terms; the memecoin narrative of the demo data is found', async () => {
    const posts = market.postsInRange({ range: window, limit: 500 });
    const narratives = await analyst.narratives({ range: window, posts, speed: 'fast', limit: 5 });
    expect(narratives.length).toBe(5);
    checkGroups(narratives.map((narrative) => ({ ids: narrative.tweet_ids, links: narrative.source_links, text: narrative.narrative })), posts, 5);
    expect(narratives.some((narrative) => /memecoin/.test(narrative.narrative))).toBe(true);
    // Most discussed first: group sizes do not grow down the list.
    const sizes = narratives.map((narrative) => Number(/: (\d+) posts?/.exec(narrative.narrative)?.[1]));
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThanOrEqual(sizes[i - 1] as number);
  });

  it('keep their laws on any subset of posts, and are deterministic', () => {
    const pool = market.postsInRange({ range: { from: DEMO_END - 3 * DAY, to: DEMO_END }, limit: 400 });
    fc.assert(
      fc.property(fc.subarray(pool, { maxLength: 80 }), fc.integer({ min: 0, max: 6 }), (posts, limit) => {
        const narratives = extractNarratives({ posts, range: window, limit });
        checkGroups(narratives.map((narrative) => ({ ids: narrative.tweet_ids, links: narrative.source_links, text: narrative.narrative })), posts, limit);
        expect(extractNarratives({ posts: [...posts].reverse(), range: window, limit })).toEqual(narratives);
      }),
      { numRuns: 60 },
    );
  });
});
