import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractContracts, extractTokens, normalizeToken, parseIngestItem, seedMarketData, SqliteMarketData, type IngestItem } from '../src/index.js';
import { DEMO_PATH, demoItems, hasPhrase, postsOf, referenceContracts, referenceTokenCounts, tokensOfPost, type Post } from './support/market-reference.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function post(id: string, at: number, text: string, extra: Partial<Post> = {}): IngestItem {
  const parsed = parseIngestItem({ kind: 'post', tweetId: id, link: `https://x.com/u/status/${id}`, username: 'u', text, mentionedAt: at, ...extra });
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.item;
}

describe('extraction', () => {
  it('finds cashtags, names and bare tickers, each once with a relevance', () => {
    expect(extractTokens('$BTC and $btc to the moon, bitcoin! ETH too, but not eth or $100')).toEqual([
      { token: 'BTC', relevance: 5 },
      { token: 'ETH', relevance: 1 },
    ]);
    expect(extractTokens('no tokens here, $ alone, US$5')).toEqual([]);
    expect(normalizeToken(' $wif ')).toBe('WIF');
    expect(normalizeToken('1INCH')).toBeUndefined();
  });

  it('finds EVM addresses with the chain the text names, and real Solana addresses only', () => {
    const evm = '0x6982508145454Ce325dDbE47a25d4ec3d2311933';
    expect(extractContracts(`$PEPE CA ${evm} on base`)).toEqual([{ address: evm.toLowerCase(), chain: 'base' }]);
    expect(extractContracts(`CA ${evm}`)).toEqual([{ address: evm.toLowerCase(), chain: 'evm' }]);
    const sol = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
    expect(extractContracts(`bonk ${sol}`)).toEqual([{ address: sol, chain: 'solana' }]);
    // Base58-looking words that do not decode to 32 bytes, or have no digit, are not addresses.
    expect(extractContracts('DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB2')).toEqual([]);
    expect(extractContracts('Thisisaverylongwordwithoutanydigitsinitatall')).toEqual([]);
    expect(extractContracts(`0x${'0'.repeat(40)}`)).toEqual([]);
  });
});

describe('ingest', () => {
  it('stores items, counts duplicates and updates their engagement only', async () => {
    const market = new SqliteMarketData(':memory:');
    const first = await market.ingest([post('1', 1_000, '$SOL up', { viewCount: 10 }), post('2', 1_000, '$SOL down')]);
    expect(first).toEqual({ posts: 2, news: 0, telegram: 0, accounts: 0, duplicates: 0 });
    const again = market.ingestNow([post('1', 5_000, 'changed text', { viewCount: 99 })]);
    expect(again.duplicates).toBe(1);
    const rows = market.postsInRange({ range: { from: 0, to: 10_000 }, limit: 10 });
    expect(rows.map((row) => [row.tweetId, row.viewCount, row.mentionedAt, row.text])).toEqual([
      ['1', 99, 1_000, '$SOL up'],
      ['2', 0, 1_000, '$SOL down'],
    ]);
    expect(market.counts()).toMatchObject({ posts: 2, newest: 1_000 });
  });

  it('accepts recording lines of posts and news, and refuses bad items with a path', () => {
    expect(parseIngestItem({ at: '2026-01-05T00:00:00Z', source: 'tweet', username: '@alice', text: 'hi', tweetId: '7' })).toMatchObject({ ok: true, item: { kind: 'post', username: 'alice', mentionedAt: Date.parse('2026-01-05T00:00:00Z') } });
    expect(parseIngestItem({ kind: 'post', tweetId: '1' })).toMatchObject({ ok: false });
    expect(parseIngestItem({ kind: 'rumour' })).toMatchObject({ ok: false, problem: { path: '/kind' } });
    expect(parseIngestItem({ kind: 'post', tweetId: '1', link: 'ftp://x', username: 'a', text: '', mentionedAt: 1 })).toMatchObject({ ok: false, problem: { path: '/link' } });
    expect(parseIngestItem({ kind: 'account', username: 'a', extra: 1 })).toMatchObject({ ok: false, problem: { message: 'unknown field "extra"' } });
    expect(parseIngestItem([1])).toMatchObject({ ok: false });
  });
});

describe('queries on the demo dataset against a brute-force reference', () => {
  let market: SqliteMarketData;
  let items: IngestItem[];
  let posts: Post[];
  let start: number;
  let end: number;

  beforeAll(() => {
    market = new SqliteMarketData(':memory:');
    items = demoItems();
    market.ingestNow(items);
    posts = postsOf(items);
    start = Math.min(...posts.map((p) => p.mentionedAt));
    end = Math.max(...posts.map((p) => p.mentionedAt)) + 1;
  });

  const range = () => fc.tuple(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 1, max: 1_000 })).map(([a, b]) => ({ from: start + Math.floor(((end - start) * a) / 1_000) - 1, span: Math.floor(((end - start) * b) / 2_000) + 1 }));

  it('has the scale the issue asks for', () => {
    const counts = market.counts();
    expect(counts.posts).toBeGreaterThan(5_000);
    expect(counts.telegram).toBeGreaterThan(1_000);
    expect(counts.accounts).toBeGreaterThan(200);
    expect(end - start).toBeGreaterThan(21 * DAY);
    expect(posts.some((p) => extractContracts(p.text).some((c) => c.chain === 'solana'))).toBe(true);
    expect(posts.some((p) => extractContracts(p.text).some((c) => c.address.startsWith('0x')))).toBe(true);
  });

  it('trending tokens equal the reference for any window (hourly counts and partial hours agree)', () => {
    fc.assert(
      fc.property(range(), fc.integer({ min: 1, max: 30 }), ({ from, span }, minMentions) => {
        const current = { from, to: from + span };
        const previous = { from: from - span, to: from };
        const got = market.trendingTokens({ current, previous, minMentions, paging: { page: 1, pageSize: 1_000 } });
        const now = referenceTokenCounts(posts, current.from, current.to);
        const before = referenceTokenCounts(posts, previous.from, previous.to);
        const expected = [...now].filter(([, n]) => n >= minMentions).map(([token, n]) => ({ token, current_count: n, previous_count: before.get(token) ?? 0 }));
        expect(got.total).toBe(expected.length);
        expect(new Map(got.rows.map((row) => [row.token, [row.current_count, row.previous_count]]))).toEqual(new Map(expected.map((row) => [row.token, [row.current_count, row.previous_count]])));
        for (let i = 1; i < got.rows.length; i += 1) expect(got.rows[i - 1]!.change_percent).toBeGreaterThanOrEqual(got.rows[i]!.change_percent);
      }),
      { numRuns: 60 },
    );
  });

  it('trending contracts equal the reference, for posts and for Telegram', () => {
    const telegram = items.filter((item): item is Extract<IngestItem, { kind: 'telegram' }> => item.kind === 'telegram');
    fc.assert(
      fc.property(range(), ({ from, span }) => {
        for (const [channel, texts] of [
          ['twitter', posts.map((p) => ({ text: p.text, at: p.mentionedAt }))],
          ['telegram', telegram.map((m) => ({ text: m.text, at: m.postedAt }))],
        ] as const) {
          const got = market.trendingContracts({ channel, range: { from, to: from + span }, paging: { page: 1, pageSize: 500 } });
          const expected = referenceContracts([...texts], from, from + span);
          expect(got.total).toBe(expected.size);
          expect(new Map(got.rows.map((row) => [row.contractAddress, row.mentionCount]))).toEqual(expected);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('top mentions rank by views, then time, and count every mention of the token', () => {
    fc.assert(
      fc.property(range(), fc.constantFrom('BTC', 'ETH', 'SOL', 'GLORP', 'HYPE', 'NOPE'), ({ from, span }, token) => {
        const got = market.topMentions({ token, range: { from, to: from + span }, paging: { page: 1, pageSize: 50 } });
        const expected = posts
          .filter((p) => p.mentionedAt >= from && p.mentionedAt < from + span && tokensOfPost(p).includes(token))
          .sort((a, b) => b.viewCount - a.viewCount || b.mentionedAt - a.mentionedAt);
        expect(got.total).toBe(expected.length);
        expect(got.rows.map((row) => row.viewCount)).toEqual(expected.slice(0, 50).map((p) => p.viewCount));
      }),
      { numRuns: 40 },
    );
  });

  it('keyword mentions page through exactly the matching posts, newest first, total capped', () => {
    fc.assert(
      fc.property(range(), fc.subarray(['rate cut', 'ETF', 'memecoin', 'FlowEx', 'agents', 'zzzz'], { minLength: 1, maxLength: 2 }), fc.integer({ min: 1, max: 40 }), ({ from, span }, keywords, limit) => {
        const to = from + span;
        const expected = posts.filter((p) => p.mentionedAt >= from && p.mentionedAt < to && keywords.some((k) => hasPhrase(p.text, k))).map((p) => p.tweetId);
        const seen: string[] = [];
        let before: number | undefined;
        for (let pages = 0; pages < 10_000; pages += 1) {
          const page = market.keywordMentions({ keywords, range: { from, to }, limit, ...(before === undefined ? {} : { before }) }, 100);
          expect(page.total).toBe(Math.min(expected.length, 100));
          seen.push(...page.rows.map((row) => row.tweetId));
          if (page.cursor === undefined) break;
          expect(page.rows.length).toBeGreaterThanOrEqual(limit);
          before = page.cursor;
        }
        expect(new Set(seen).size).toBe(seen.length);
        expect(new Set(seen)).toEqual(new Set(expected));
      }),
      { numRuns: 40 },
    );
  });

  it('smart stats average the account\'s own posts; unknown accounts have none', () => {
    const author = posts.find((p) => p.type === 'post')!.username;
    const own = posts.filter((p) => p.username === author && p.type !== 'repost');
    const stats = market.accountStats(`@${author}`)!;
    expect(stats.posts).toBe(own.length);
    expect(stats.averageReach).toBeCloseTo(own.reduce((s, p) => s + p.viewCount, 0) / own.length, 1);
    expect(market.accountStats('nobody_here')).toBeUndefined();
  });

  it('token news are posts of news accounts that name the token', () => {
    const newsAccounts = new Set(items.filter((i) => i.kind === 'account' && i.isNews).map((i) => (i as { username: string }).username));
    const got = market.tokenNews({ token: 'BTC', paging: { page: 1, pageSize: 500 } });
    const expected = posts.filter((p) => newsAccounts.has(p.username) && tokensOfPost(p).includes('BTC'));
    expect(got.total).toBe(expected.length);
    expect(got.total).toBeGreaterThan(0);
    expect(got.rows.every((row) => newsAccounts.has(row.username))).toBe(true);
  });
});

describe('paging never splits a millisecond', () => {
  it('collects every post once, whatever the collisions and the page size', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 7 }), (instants, limit) => {
        const market = new SqliteMarketData(':memory:');
        market.ingestNow(instants.map((at, index) => post(String(index), 1_000 + at, `token talk ${index % 3 === 0 ? 'alpha' : 'beta'}`)));
        for (const keywords of [undefined, ['alpha']]) {
          const expected = instants.map((at, index) => ({ id: String(index), at })).filter((p) => !keywords || Number(p.id) % 3 === 0);
          const seen: Array<{ id: string; at: number }> = [];
          let before: number | undefined;
          for (;;) {
            const page = market.keywordMentions({ ...(keywords ? { keywords } : {}), range: { from: 0, to: 10_000 }, limit, ...(before === undefined ? {} : { before }) }, 10_000);
            seen.push(...page.rows.map((row) => ({ id: row.tweetId, at: row.mentionedAt })));
            if (page.cursor === undefined) break;
            before = page.cursor;
          }
          expect(seen.map((p) => p.id).sort()).toEqual(expected.map((p) => p.id).sort());
          for (let i = 1; i < seen.length; i += 1) expect(seen[i - 1]!.at).toBeGreaterThanOrEqual(seen[i]!.at);
        }
        market.close();
      }),
      { numRuns: 150 },
    );
  });
});

describe('seeding', () => {
  it('shifts the demo dataset to end now, keeps it within the hour, replaces it later and keeps ingested items', async () => {
    const market = new SqliteMarketData(':memory:');
    const now = Date.parse('2027-03-01T12:00:30Z');
    const first = seedMarketData(market, DEMO_PATH, now);
    expect(first.action).toBe('seeded');
    const newest = market.counts().newest!;
    expect(now - newest).toBeLessThan(60_000 + 1_000);
    expect(newest).toBeLessThanOrEqual(now);
    await market.ingest([post('mine', now, '$BTC mine')]);
    expect(seedMarketData(market, DEMO_PATH, now + 30 * 60_000).action).toBe('kept');
    const later = seedMarketData(market, DEMO_PATH, now + 2 * DAY);
    expect(later.action).toBe('seeded');
    const counts = market.counts();
    expect(counts.posts).toBe(postsOf(demoItems()).length + 1);
    expect(market.keywordMentions({ keywords: ['mine'], range: { from: 0, to: now + 3 * DAY }, limit: 5 }, 10).rows.map((r) => r.tweetId)).toEqual(['mine']);
    // Trending counts after a re-seed agree with a recount from the mentions.
    const window = { from: now + 2 * DAY - DAY, to: now + 2 * DAY };
    const rolled = market.trendingTokens({ current: window, previous: { from: window.from - DAY, to: window.from }, minMentions: 1, paging: { page: 1, pageSize: 100 } });
    const recount = market.db.prepare('SELECT token, count(*) AS n FROM post_tokens WHERE seq >= ? AND seq < ? GROUP BY token').all(window.from * 1024, window.to * 1024) as Array<{ token: string; n: number }>;
    expect(new Map(rolled.rows.map((r) => [r.token, r.current_count]))).toEqual(new Map(recount.map((r) => [r.token, r.n])));
  });
});
