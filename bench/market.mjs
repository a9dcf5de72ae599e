// Benchmark: keyword-mentions and trending-tokens on 1 million stored posts, beside a plain full scan of
// the same data, in one run (issue 6).
//
// Data: bench/data/market-1m.sqlite (gitignored), built on the first run from the seeded generator
// (scripts/mentions-generator.mjs: 1,000,000 posts over 90 days, ~2,000 accounts, Telegram, news) through
// the host's own ingest path (SqliteMarketData from packages/server/dist); later runs reuse it.
//
// Measured, each over the same requests:
//   ours       the host's MarketData methods (FTS5 with time-ordered rowids; hourly token counts), and
//              the whole HTTP route through app.inject (parameters, handler, serialization);
//   full scan  the same answer computed by reading every post: SQL over the posts table with the
//              indexes disabled (LIKE on the text; the token lists parsed in JS), as a system without
//              these indexes would.
// Printed: p50 and p99 latency per request kind and the ratio full-scan / ours (higher is better).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SqliteMarketData } from '@eql/market-data';
import { buildServer, createApiKey, SqliteStore, SecretBox } from '@eql/server';
import { generateMentions } from '../scripts/mentions-generator.mjs';

const DATA = fileURLToPath(new URL('./data/', import.meta.url));
const PATH = `${DATA}market-1m.sqlite`;
const POSTS = 1_000_000;
const END = Date.parse('2026-11-16T00:00:00Z');
const VERSION = `v1:${POSTS}:${END}`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function open() {
  mkdirSync(DATA, { recursive: true });
  if (existsSync(PATH)) {
    const market = new SqliteMarketData(PATH);
    if (market.meta('bench') === VERSION) return market;
    market.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${PATH}${suffix}`, { force: true });
  }
  const market = new SqliteMarketData(PATH);
  console.log(`building ${PATH} (${POSTS.toLocaleString()} posts; once)...`);
  const started = performance.now();
  function* batches() {
    let batch = [];
    for (const item of generateMentions({ seed: 1_000_000, posts: POSTS, telegram: 100_000, news: 20_000, accountCount: 2_000, days: 90, end: END })) {
      batch.push(item.kind === 'account' ? item : { ...item, ...(item.mentionedAt ? { mentionedAt: Date.parse(item.mentionedAt) } : {}), ...(item.postedAt ? { postedAt: Date.parse(item.postedAt) } : {}), ...(item.publishedAt ? { publishedAt: Date.parse(item.publishedAt) } : {}) });
      if (batch.length === 10_000) {
        yield batch;
        batch = [];
      }
    }
    yield batch;
  }
  // One transaction, as the host's ingest writes.
  await market.ingestBatches(batches(), {
    batchSize: 10_000,
    onProgress: (count) => {
      if (count % 200_000 === 0) console.log(`  ${count.toLocaleString()} items, ${Math.round((performance.now() - started) / 1000)} s`);
    },
  });
  market.setMeta('bench', VERSION);
  // The store's read connection is query_only; statistics for the planner are the one write made on it.
  market.db.pragma('query_only = OFF');
  market.db.exec('ANALYZE');
  market.db.pragma('query_only = ON');
  console.log(`built in ${Math.round((performance.now() - started) / 1000)} s: ${JSON.stringify(market.counts())}`);
  return market;
}

const market = await open();
const counts = market.counts();
if (counts.posts < POSTS) throw new Error(`expected at least ${POSTS} posts, found ${counts.posts}`);

// ---------------------------------------------------------------- the plain full scan (the peer)

const scanRows = market.db.prepare('SELECT seq, tweet_id, username, text, tokens, view_count FROM posts NOT INDEXED ORDER BY seq DESC');
const words = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
function hasPhrase(text, needle) {
  const haystack = words(text);
  outer: for (let i = 0; i + needle.length <= haystack.length; i += 1) {
    for (let j = 0; j < needle.length; j += 1) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** keyword-mentions by reading every post: the page (newest first) and the capped total. */
function scanKeywordMentions(keywords, range, limit) {
  const needles = keywords.map(words);
  const page = [];
  let total = 0;
  for (const row of scanRows.iterate()) {
    const at = Math.floor(row.seq / 1024);
    if (at < range.from || at >= range.to) continue;
    if (!needles.some((needle) => hasPhrase(row.text, needle))) continue;
    total += 1;
    if (page.length < limit) page.push(row.tweet_id);
  }
  return { page, total: Math.min(total, 10_000) };
}

/** trending-tokens by reading every post: counts in the window and the one before. */
function scanTrendingTokens(range) {
  const span = range.to - range.from;
  const current = new Map();
  const previous = new Map();
  for (const row of scanRows.iterate()) {
    const at = Math.floor(row.seq / 1024);
    const bucket = at >= range.from && at < range.to ? current : at >= range.from - span && at < range.from ? previous : undefined;
    if (!bucket) continue;
    for (const token of JSON.parse(row.tokens)) bucket.set(token, (bucket.get(token) ?? 0) + 1);
  }
  return [...current].filter(([, n]) => n >= 3).length;
}

// ---------------------------------------------------------------- measuring

function measure(run, { minRuns = 5, minMs = 1_000 } = {}) {
  const times = [];
  const started = performance.now();
  while (times.length < minRuns || performance.now() - started < minMs) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
    if (times.length >= 2_000) break;
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))], runs: times.length };
}

async function measureAsync(run, { minRuns = 20, minMs = 1_000 } = {}) {
  const times = [];
  const started = performance.now();
  while (times.length < minRuns || performance.now() - started < minMs) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
    if (times.length >= 2_000) break;
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))], runs: times.length };
}

const ms = (value) => `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;
const day = { from: END - DAY, to: END };
const week = { from: END - 7 * DAY, to: END };

// The host over the same market file, for the end-to-end numbers.
const store = new SqliteStore(':memory:');
const box = SecretBox.fromKey('0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0');
const host = await buildServer({ store, box, market, logger: false, now: () => END, config: { marketSeed: false, dataDir: DATA } });
const { key } = await createApiKey(store, box, { name: 'bench', plan: 'pro' });
const inject = async (url) => {
  const response = await host.app.inject({ method: 'GET', url, headers: { 'x-svc-api-key': key } });
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
};

const cases = [
  { name: 'keyword-mentions "etf", 24h, first page', ours: () => market.keywordMentions({ keywords: ['etf'], range: day, limit: 20 }, 10_000), scan: () => scanKeywordMentions(['etf'], day, 20), url: '/v2/data/keyword-mentions?keywords=etf&timeWindow=24h' },
  { name: 'keyword-mentions "rate cut", 7d, first page', ours: () => market.keywordMentions({ keywords: ['rate cut'], range: week, limit: 20 }, 10_000), scan: () => scanKeywordMentions(['rate cut'], week, 20), url: '/v2/data/keyword-mentions?keywords=rate%20cut&timeWindow=7d' },
  { name: 'keyword-mentions "FlowEx,exploit", 7d, page 20', ours: () => market.keywordMentions({ keywords: ['FlowEx', 'exploit'], range: week, limit: 20, before: END - 3 * DAY }, 10_000), scan: () => scanKeywordMentions(['FlowEx', 'exploit'], { from: week.from, to: END - 3 * DAY }, 20), url: `/v2/data/keyword-mentions?keywords=FlowEx,exploit&timeWindow=7d&cursor=${END - 3 * DAY}` },
  { name: 'trending-tokens, 24h vs the 24h before', ours: () => market.trendingTokens({ current: day, previous: { from: END - 2 * DAY, to: END - DAY }, minMentions: 3, paging: { page: 1, pageSize: 20 } }), scan: () => scanTrendingTokens(day), url: '/v2/aggregations/trending-tokens?timeWindow=24h' },
  { name: 'trending-tokens, 7d vs the 7d before', ours: () => market.trendingTokens({ current: week, previous: { from: END - 14 * DAY, to: END - 7 * DAY }, minMentions: 3, paging: { page: 1, pageSize: 20 } }), scan: () => scanTrendingTokens(week), url: '/v2/aggregations/trending-tokens?timeWindow=7d' },
];

console.log(`\nmarket data: ${counts.posts.toLocaleString()} posts, ${counts.telegram.toLocaleString()} Telegram messages, ${counts.news.toLocaleString()} news, ${counts.accounts.toLocaleString()} accounts`);
console.log('request'.padEnd(48), 'ours p50'.padStart(10), 'ours p99'.padStart(10), 'HTTP p50'.padStart(10), 'scan p50'.padStart(10), 'scan/ours'.padStart(10));
for (const entry of cases) {
  const ours = measure(entry.ours);
  const http = await measureAsync(() => inject(entry.url));
  const scan = measure(entry.scan, { minRuns: 3, minMs: 0 });
  console.log(entry.name.padEnd(48), ms(ours.p50).padStart(10), ms(ours.p99).padStart(10), ms(http.p50).padStart(10), ms(scan.p50).padStart(10), `${(scan.p50 / ours.p50).toFixed(0)}x`.padStart(10));
}
await host.close();
market.close();
