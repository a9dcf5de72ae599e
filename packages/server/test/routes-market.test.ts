import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedMarketData, SqliteMarketData } from '@eql/market-data';
import { testHost, type TestHost } from './support/host.js';
import { DEMO_PATH, demoItems, hasPhrase, postsOf, referenceTokenCounts, tokensOfPost, type Post } from '../../market-data/test/support/market-reference.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let host: TestHost;
let key: string;
let posts: Post[];
let shift: number;

interface Json {
  status: number;
  headers: Record<string, unknown>;
  body: Record<string, unknown> & { data?: unknown; metadata?: Record<string, unknown> };
}

async function get(url: string, apiKey: string | null = key): Promise<Json> {
  const response = await host.app.inject({ method: 'GET', url, headers: apiKey !== null ? { 'x-svc-api-key': apiKey } : {} });
  return { status: response.statusCode, headers: response.headers, body: response.json() };
}

beforeAll(async () => {
  const market = new SqliteMarketData(':memory:');
  shift = seedMarketData(market, DEMO_PATH, NOW).shiftMs;
  posts = postsOf(demoItems()).map((post) => ({ ...post, mentionedAt: post.mentionedAt + shift }));
  host = await testHost({ market, now: () => NOW });
  key = (await host.newKey()).key;
});

afterAll(async () => {
  await host.close();
});

const MENTION_FIELDS = ['tweetId', 'link', 'likeCount', 'repostCount', 'viewCount', 'quoteCount', 'replyCount', 'bookmarkCount', 'mentionedAt', 'type', 'repostBreakdown'];

function expectMention(value: unknown, withAccount: boolean): void {
  const mention = value as Record<string, unknown>;
  expect(Object.keys(mention).sort()).toEqual([...MENTION_FIELDS, ...(withAccount ? ['account'] : [])].sort());
  expect(typeof mention.tweetId).toBe('string');
  expect(mention.link).toMatch(/^https:\/\//);
  for (const field of ['likeCount', 'repostCount', 'viewCount', 'quoteCount', 'replyCount', 'bookmarkCount']) expect(Number.isInteger(mention[field])).toBe(true);
  expect(new Date(mention.mentionedAt as string).toISOString()).toBe(mention.mentionedAt);
  expect(Object.keys(mention.repostBreakdown as object).sort()).toEqual(['ct', 'smart']);
  if (withAccount) expect(Object.keys(mention.account as object).sort()).toEqual(['isVerified', 'username']);
}

describe('authentication', () => {
  it('every data route needs a key', async () => {
    for (const path of ['/v2/account/smart-stats?username=a', '/v2/aggregations/trending-tokens', '/v2/aggregations/trending-cas/twitter', '/v2/aggregations/trending-cas/telegram', '/v2/data/event-summary?keywords=etf', '/v2/data/keyword-mentions?keywords=etf', '/v2/data/token-news?token=BTC', '/v2/data/top-mentions?symbol=BTC', '/v2/data/trending-narratives']) {
      const response = await get(path, null);
      expect(response.status, path).toBe(401);
      expect(response.body).toMatchObject({ success: false, error: { code: 'missing_api_key' } });
    }
  });
});

describe('the time filter', () => {
  it('takes timeWindow, or from and to (which win over timeWindow)', async () => {
    const byWindow = await get('/v2/aggregations/trending-tokens?timeWindow=6h&minMentions=1');
    expect(byWindow.body.window).toEqual({ from: new Date(NOW - 6 * HOUR).toISOString(), to: new Date(NOW).toISOString() });
    const from = new Date(NOW - 3 * DAY).toISOString();
    const to = new Date(NOW - 2 * DAY).toISOString();
    const both = await get(`/v2/aggregations/trending-tokens?timeWindow=6h&from=${from}&to=${to}&minMentions=1`);
    expect(both.body.window).toEqual({ from, to });
    const epoch = await get(`/v2/aggregations/trending-tokens?from=${NOW - DAY}&to=${NOW}`);
    expect(epoch.body.window).toEqual({ from: new Date(NOW - DAY).toISOString(), to: new Date(NOW).toISOString() });
    const fallback = await get('/v2/aggregations/trending-tokens');
    expect(fallback.body.window).toEqual({ from: new Date(NOW - DAY).toISOString(), to: new Date(NOW).toISOString() });
  });

  it('answers 400 with a clear message for bad time parameters', async () => {
    for (const [query, fragment] of [
      ['timeWindow=5y', 'timeWindow must be'],
      ['timeWindow=0h', 'timeWindow must be'],
      ['from=2026-11-01T00:00:00Z', 'give both from and to'],
      ['to=2026-11-01T00:00:00Z', 'give both from and to'],
      ['from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'from must be before to'],
      ['from=yesterday&to=2026-11-01T00:00:00Z', 'from must be an ISO 8601 instant'],
      ['from=2020-01-01T00:00:00Z&to=2026-11-01T00:00:00Z', 'at most 366 days'],
    ] as const) {
      const response = await get(`/v2/aggregations/trending-tokens?${query}`);
      expect(response.status, query).toBe(400);
      expect((response.body.error as { message: string }).message, query).toContain(fragment);
    }
  });

  it('refuses unknown and out-of-range parameters', async () => {
    expect((await get('/v2/aggregations/trending-tokens?pageSize=1000')).status).toBe(400);
    expect((await get('/v2/aggregations/trending-tokens?page=0')).status).toBe(400);
    expect((await get('/v2/aggregations/trending-tokens?sort=up')).status).toBe(400);
    expect((await get('/v2/data/keyword-mentions?keywords=etf&cursor=abc')).status).toBe(400);
  });
});

describe('aggregations', () => {
  it('trending tokens: counts now and before, the change, the threshold and paging', async () => {
    const response = await get('/v2/aggregations/trending-tokens?timeWindow=24h&minMentions=5&pageSize=3&page=1');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['data', 'page', 'pageSize', 'success', 'total', 'window']);
    const now = referenceTokenCounts(posts, NOW - DAY, NOW);
    const before = referenceTokenCounts(posts, NOW - 2 * DAY, NOW - DAY);
    const expected = [...now].filter(([, n]) => n >= 5);
    expect(response.body.total).toBe(expected.length);
    const rows = response.body.data as Array<{ token: string; current_count: number; previous_count: number; change_percent: number }>;
    expect(rows).toHaveLength(Math.min(3, expected.length));
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['change_percent', 'current_count', 'previous_count', 'token']);
      expect(row.current_count).toBe(now.get(row.token));
      expect(row.previous_count).toBe(before.get(row.token) ?? 0);
      expect(row.change_percent).toBeCloseTo(((row.current_count - row.previous_count) / Math.max(1, row.previous_count)) * 100, 2);
    }
    const all = await get('/v2/aggregations/trending-tokens?timeWindow=24h&minMentions=5&pageSize=100');
    const second = await get('/v2/aggregations/trending-tokens?timeWindow=24h&minMentions=5&pageSize=3&page=2');
    expect((second.body.data as unknown[]).map((row) => (row as { token: string }).token)).toEqual((all.body.data as Array<{ token: string }>).slice(3, 6).map((row) => row.token));
  });

  it('trending contract addresses of posts and of Telegram, with their chains', async () => {
    for (const channel of ['twitter', 'telegram']) {
      const response = await get(`/v2/aggregations/trending-cas/${channel}?timeWindow=7d`);
      expect(response.status).toBe(200);
      const rows = response.body.data as Array<{ contractAddress: string; chain: string; mentionCount: number }>;
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(Object.keys(row).sort()).toEqual(['chain', 'contractAddress', 'mentionCount']);
      for (let i = 1; i < rows.length; i += 1) expect(rows[i - 1]!.mentionCount).toBeGreaterThanOrEqual(rows[i]!.mentionCount);
      expect(rows.some((row) => row.chain === 'solana')).toBe(true);
      const solana = await get(`/v2/aggregations/trending-cas/${channel}?timeWindow=7d&chain=solana`);
      expect((solana.body.data as Array<{ chain: string }>).every((row) => row.chain === 'solana')).toBe(true);
      expect(solana.body.total).toBeLessThan(response.body.total as number);
    }
  });

  it('smart stats of an account, 404 for an unknown one, 400 without one', async () => {
    const response = await get('/v2/account/smart-stats?username=@chainwire_news');
    expect(response.status).toBe(200);
    const stats = response.body.data as Record<string, unknown>;
    expect(stats.username).toBe('chainwire_news');
    for (const field of ['averageReach', 'averageEngagement', 'smartFollowingCount']) expect(typeof stats[field]).toBe('number');
    expect((await get('/v2/account/smart-stats?username=nobody_at_all')).body).toMatchObject({ success: false, error: { code: 'account_not_found' } });
    expect((await get('/v2/account/smart-stats?username=nobody_at_all')).status).toBe(404);
    expect((await get('/v2/account/smart-stats')).status).toBe(400);
    expect((await get('/v2/account/smart-stats?username=bad name!')).status).toBe(400);
  });
});

describe('data', () => {
  it('keyword mentions: mentions with accounts, newest first, never the text; paging by cursor without gaps or duplicates', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 5, max: 100 }), fc.constantFrom('etf', 'rate cut', 'memecoin,FlowEx', '$SOL'), async (limit, keywords) => {
        const words = keywords.split(',');
        const expected = posts.filter((p) => p.mentionedAt >= NOW - 7 * DAY && p.mentionedAt < NOW && words.some((w) => hasPhrase(p.text, w))).map((p) => p.tweetId);
        const seen: string[] = [];
        let cursor: number | undefined;
        let last = Infinity;
        for (;;) {
          const response = await get(`/v2/data/keyword-mentions?keywords=${encodeURIComponent(keywords)}&limit=${limit}${cursor === undefined ? '' : `&cursor=${cursor}`}`);
          expect(response.status).toBe(200);
          expect(response.body.metadata!.total).toBe(expected.length);
          for (const mention of response.body.data as Array<{ tweetId: string; mentionedAt: string }>) {
            const at = Date.parse(mention.mentionedAt);
            expect(at).toBeLessThanOrEqual(last);
            last = at;
            seen.push(mention.tweetId);
          }
          cursor = response.body.metadata!.cursor as number | undefined;
          if (cursor === undefined) break;
          expect(Number.isInteger(cursor)).toBe(true);
        }
        expect(new Set(seen).size).toBe(seen.length);
        expect(new Set(seen)).toEqual(new Set(expected));
      }),
      { numRuns: 8 },
    );
    const page = await get('/v2/data/keyword-mentions?keywords=etf&limit=5');
    for (const mention of page.body.data as unknown[]) expectMention(mention, true);
    const first = posts.find((p) => p.tweetId === (page.body.data as Array<{ tweetId: string }>)[0]!.tweetId)!;
    expect(JSON.stringify(page.body)).not.toContain(first.text.slice(0, 30));
  });

  it('keyword mentions of an account, and of an account with keywords', async () => {
    const author = posts.filter((p) => p.mentionedAt >= NOW - 7 * DAY)[0]!.username;
    const own = posts.filter((p) => p.username === author && p.mentionedAt >= NOW - 7 * DAY && p.mentionedAt < NOW);
    const byAccount = await get(`/v2/data/keyword-mentions?accountName=@${author}&limit=100`);
    expect(byAccount.body.metadata!.total).toBe(own.length);
    expect((byAccount.body.data as Array<{ account: { username: string } }>).every((m) => m.account.username === author)).toBe(true);
    const both = await get(`/v2/data/keyword-mentions?accountName=${author}&keywords=zzzunknown`);
    expect(both.body).toMatchObject({ data: [], metadata: { total: 0 } });
    expect((await get('/v2/data/keyword-mentions')).body).toMatchObject({ success: false, error: { code: 'missing_parameter' } });
    expect((await get('/v2/data/keyword-mentions?keywords=,,')).status).toBe(400);
    expect((await get('/v2/data/keyword-mentions?keywords=%24%24')).status).toBe(400);
  });

  it('top mentions rank by views then time, page by page', async () => {
    const expected = posts.filter((p) => p.mentionedAt >= NOW - DAY && tokensOfPost(p).includes('BTC')).sort((a, b) => b.viewCount - a.viewCount || b.mentionedAt - a.mentionedAt);
    const first = await get('/v2/data/top-mentions?symbol=$btc&timeWindow=24h&pageSize=10');
    expect(first.body.metadata).toEqual({ page: 1, pageSize: 10, total: expected.length });
    for (const mention of first.body.data as unknown[]) expectMention(mention, false);
    expect((first.body.data as Array<{ viewCount: number }>).map((m) => m.viewCount)).toEqual(expected.slice(0, 10).map((p) => p.viewCount));
    const second = await get('/v2/data/top-mentions?symbol=BTC&timeWindow=24h&pageSize=10&page=2');
    expect((second.body.data as Array<{ viewCount: number }>).map((m) => m.viewCount)).toEqual(expected.slice(10, 20).map((p) => p.viewCount));
    expect((await get('/v2/data/top-mentions')).status).toBe(400);
    expect((await get('/v2/data/top-mentions?symbol=1INCH')).status).toBe(400);
    expect((await get('/v2/data/top-mentions?symbol=NOPE')).body).toMatchObject({ data: [], metadata: { total: 0 } });
  });

  it('token news: posts of news accounts, newest first', async () => {
    const response = await get('/v2/data/token-news?token=ETH&pageSize=5');
    expect(response.status).toBe(200);
    expect((response.body.metadata as { total: number }).total).toBeGreaterThan(0);
    for (const mention of response.body.data as unknown[]) expectMention(mention, false);
    const times = (response.body.data as Array<{ mentionedAt: string }>).map((m) => Date.parse(m.mentionedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('event summary and trending narratives cost 5 credits each and cite stored posts only', async () => {
    const known = new Set(posts.map((p) => p.tweetId));
    const summary = await get('/v2/data/event-summary?keywords=FlowEx,exploit&timeWindow=30d');
    expect(summary.status).toBe(200);
    expect(summary.headers['x-svc-credits-used']).toBe('5');
    const events = summary.body.data as Array<{ tweetIds: string[]; sourceLinks: string[]; summary: string }>;
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(['sourceLinks', 'summary', 'tweetIds']);
      expect(event.tweetIds.every((id) => known.has(id))).toBe(true);
      expect(event.summary.length).toBeGreaterThan(0);
    }
    expect((await get('/v2/data/event-summary')).status).toBe(400);

    const narratives = await get('/v2/data/trending-narratives?timeWindow=24h');
    expect(narratives.status).toBe(200);
    expect(narratives.headers['x-svc-credits-used']).toBe('5');
    const data = narratives.body.data as { metadata: { error: string | null; total_tweets: number; total_narratives: number }; trending_narratives: Array<{ tweet_ids: string[]; source_links: string[]; narrative: string }> };
    expect(data.metadata.error).toBeNull();
    expect(data.metadata.total_narratives).toBe(data.trending_narratives.length);
    expect(data.metadata.total_tweets).toBeGreaterThan(0);
    for (const narrative of data.trending_narratives) expect(narrative.tweet_ids.every((id) => known.has(id))).toBe(true);
    const empty = await get(`/v2/data/trending-narratives?from=${NOW + DAY}&to=${NOW + 2 * DAY}`);
    expect(empty.body.data).toEqual({ metadata: { error: 'no posts in the period', total_tweets: 0, total_narratives: 0 }, trending_narratives: [] });

    const status = await get('/v2/key-status');
    expect((status.body.data as { creditsUsed: { total: number } }).creditsUsed.total).toBe(15);
  });
});

describe('ingest', () => {
  const item = (id: string, text: string) => ({ kind: 'post', tweetId: id, link: `https://x.com/ingester/status/${id}`, username: 'ingester', text, mentionedAt: new Date(NOW - HOUR).toISOString(), viewCount: 5 });

  it('needs the ingest scope, is all or nothing, and the data shows at once', async () => {
    const plain = await host.newKey();
    const refused = await host.app.inject({ method: 'POST', url: '/v2/ingest', headers: { 'x-svc-api-key': plain.key }, payload: { items: [item('i-1', 'ingested $ZORB')] } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: 'missing_scope' } });

    const writer = await host.newKey({ scopes: ['ingest'] });
    const bad = await host.app.inject({ method: 'POST', url: '/v2/ingest', headers: { 'x-svc-api-key': writer.key }, payload: { items: [item('i-1', 'ingested $ZORB'), { kind: 'post', tweetId: 'i-2' }, { kind: 'nope' }] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'invalid_items', details: [{ index: 1 }, { index: 2, path: '/kind' }] } });
    expect((await get('/v2/data/keyword-mentions?keywords=ZORB')).body.metadata).toEqual({ total: 0 });

    const good = await host.app.inject({ method: 'POST', url: '/v2/ingest', headers: { 'x-svc-api-key': writer.key }, payload: { items: [item('i-1', 'ingested $ZORB'), { kind: 'account', username: 'ingester', isSmart: true, followers: 10 }] } });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toEqual({ success: true, data: { posts: 1, news: 0, telegram: 0, accounts: 1, duplicates: 0 } });
    const found = await get('/v2/data/keyword-mentions?keywords=ZORB');
    expect(found.body.metadata).toEqual({ total: 1 });
    expect((await get('/v2/data/top-mentions?symbol=ZORB')).body.metadata).toMatchObject({ total: 1 });
    expect((await host.app.inject({ method: 'POST', url: '/v2/ingest', headers: { 'x-svc-api-key': writer.key }, payload: { items: [] } })).statusCode).toBe(400);
  });

  it('writes nothing when the store refuses an item after the first batches (1,025 posts in one millisecond)', async () => {
    const writer = await host.newKey({ scopes: ['ingest'] });
    const items = Array.from({ length: 1_500 }, (_, i) => ({ ...item(`crowd-${i}`, 'crowded $QRWD'), mentionedAt: i < 1_025 ? NOW - 2 * HOUR : NOW - HOUR - i }));
    const crowded = await host.app.inject({ method: 'POST', url: '/v2/ingest', headers: { 'x-svc-api-key': writer.key }, payload: { items: [...items.slice(1_025), ...items.slice(0, 1_025)] } });
    expect(crowded.statusCode).toBe(400);
    expect(crowded.json()).toMatchObject({ error: { code: 'invalid_items', message: expect.stringContaining('nothing was ingested') as unknown } });
    expect((await get('/v2/data/keyword-mentions?keywords=QRWD')).body.metadata).toEqual({ total: 0 });
  });
});

describe('the keyword-mentions total is capped at 10,000', () => {
  it('counts up to the cap, and pages on', async () => {
    const market = new SqliteMarketData(':memory:');
    const base = NOW - DAY;
    await market.ingest(Array.from({ length: 10_050 }, (_, i) => ({ kind: 'post' as const, tweetId: `c${i}`, link: `https://x.com/u/status/c${i}`, username: 'u', isVerified: false, text: 'capped keyword', mentionedAt: base + i * 1_000, type: 'post' as const, likeCount: 0, repostCount: 0, viewCount: 0, quoteCount: 0, replyCount: 0, bookmarkCount: 0, repostBreakdown: { smart: 0, ct: 0 } })));
    const capped = await testHost({ market, now: () => NOW });
    const apiKey = (await capped.newKey()).key;
    const response = await capped.app.inject({ method: 'GET', url: '/v2/data/keyword-mentions?keywords=capped&limit=100', headers: { 'x-svc-api-key': apiKey } });
    expect(response.json()).toMatchObject({ metadata: { total: 10_000, cursor: base + 9_950 * 1_000 } });
    await capped.close();
    market.close();
  });
});

describe('numbers too large to be numbers', () => {
  it('answers ?page=1e400 with a 400 naming the parameter, never a 500 (found by the no-500 property, seed 1406623040)', async () => {
    const { buildServer, createApiKey, defaultConfig } = await import('../src/index.js');
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'eql-infinity-'));
    const host = await buildServer({ config: defaultConfig({ dataDir, marketSeed: false }), logger: false });
    try {
      const { key } = await createApiKey(host.context.store, host.context.box, { name: 'infinity', plan: 'pro' });
      for (const query of ['?page=1e400', '?pageSize=-1e400']) {
        const response = await host.app.inject({ method: 'GET', url: `/v2/aggregations/trending-cas/twitter${query}`, headers: { 'x-svc-api-key': key } });
        expect(response.statusCode, query).toBe(400);
        expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });
      }
    } finally {
      await host.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
