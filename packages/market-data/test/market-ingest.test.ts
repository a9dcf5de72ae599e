import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INGEST_BATCH_SIZE, ingestFile, parseIngestValues, SqliteMarketData, type IngestItem } from '../src/index.js';

/**
 * Ingestion lets the event loop turn: it writes in batches with a turn of the loop between them, in one
 * transaction that readers do not see until it commits, one write at a time. "Turns" are counted by a
 * setImmediate loop (a heartbeat), never by a clock: an ingest of n batches lets it beat at least n - 1
 * times.
 */

const T0 = Date.parse('2026-06-01T00:00:00Z');

function post(id: string, at: number, text = `$SOL and $WIF talk ${id}`): IngestItem {
  return {
    kind: 'post',
    tweetId: id,
    link: `https://x.com/u/status/${id}`,
    username: 'u',
    isVerified: false,
    text,
    mentionedAt: at,
    type: 'post',
    likeCount: 0,
    repostCount: 0,
    viewCount: 1,
    quoteCount: 0,
    replyCount: 0,
    bookmarkCount: 0,
    repostBreakdown: { smart: 0, ct: 0 },
  };
}

const posts = (prefix: string, count: number, at = (i: number) => T0 + i * 1_000): IngestItem[] => Array.from({ length: count }, (_, i) => post(`${prefix}${i}`, at(i)));

/** Counts turns of the event loop (setImmediate callbacks) until stopped, calling `onBeat` at each. */
function heartbeat(onBeat: () => void = () => undefined): { beats: () => number; stop: () => void } {
  let beats = 0;
  let running = true;
  const beat = (): void => {
    if (!running) return;
    beats += 1;
    onBeat();
    setImmediate(beat);
  };
  setImmediate(beat);
  return { beats: () => beats, stop: () => (running = false) };
}

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'eql-market-ingest-'));
  path = join(dir, 'market.sqlite');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('ingest in batches (file-backed store)', () => {
  it('lets the event loop turn between batches, and readers see nothing until it commits, then everything', async () => {
    const market = new SqliteMarketData(path);
    market.ingestNow(posts('old', 10));
    const items = posts('new', 20_000);
    const batches = Math.ceil(items.length / INGEST_BATCH_SIZE);
    const range = { from: T0, to: T0 + 30_000_000 };
    // What readers saw at each beat: the posts, and the posts a full-text search finds.
    const seen: Array<[number, number]> = [];
    const pulse = heartbeat(() => seen.push([market.counts().posts, market.keywordMentions({ keywords: ['talk'], range, limit: 1 }, 100_000).total]));
    let progress = 0;
    const report = await market.ingest(items, { onProgress: (written) => (progress = written) });
    pulse.stop();

    expect(report).toEqual({ posts: 20_000, news: 0, telegram: 0, accounts: 0, duplicates: 0 });
    expect(progress).toBe(20_000);
    // Every read saw the store as it was before, until the commit (the ingest resolves a turn after it,
    // having copied the log into the database file): never a part of the items.
    const before = seen.filter(([posts, found]) => posts === 10 && found === 10).length;
    expect(before).toBeGreaterThanOrEqual(batches - 1);
    expect(seen.slice(before).every(([posts, found]) => posts === 20_010 && found === 20_010)).toBe(true);
    expect(market.counts().posts).toBe(20_010);
    expect(market.keywordMentions({ keywords: ['talk'], range, limit: 1 }, 100_000).total).toBe(20_010);
    market.close();

    const reopened = new SqliteMarketData(path);
    expect(reopened.counts().posts).toBe(20_010);
    reopened.close();
  });

  it('writes nothing when an item fails in the middle (more than 1024 posts in one millisecond), and goes on working', async () => {
    const market = new SqliteMarketData(path);
    market.ingestNow(posts('old', 10));
    const before = { counts: market.counts(), trending: market.trendingTokens({ current: { from: T0, to: T0 + 3_600_000 }, previous: { from: T0 - 3_600_000, to: T0 }, minMentions: 1, paging: { page: 1, pageSize: 10 } }) };
    // Items 2000…3099 share one millisecond: the 1025th of them fails, 15 batches in.
    const items = posts('x', 5_000, (i) => (i >= 2_000 && i < 3_100 ? T0 + 5_000_000 : T0 + i * 1_000));
    const pulse = heartbeat();
    await expect(market.ingest(items)).rejects.toThrow(RangeError);
    expect(pulse.beats()).toBeGreaterThanOrEqual(10);
    pulse.stop();
    expect(market.counts()).toEqual(before.counts);
    expect(market.trendingTokens({ current: { from: T0, to: T0 + 3_600_000 }, previous: { from: T0 - 3_600_000, to: T0 }, minMentions: 1, paging: { page: 1, pageSize: 10 } })).toEqual(before.trending);

    // The queue is free again: an ingest and a synchronous write both work.
    expect((await market.ingest(posts('y', 300))).posts).toBe(300);
    market.setMeta('k', 'v');
    expect(market.meta('k')).toBe('v');
    expect(market.counts().posts).toBe(310);
    market.close();
  });

  it('writes nothing when the source of the batches fails', async () => {
    const market = new SqliteMarketData(path);
    async function* failing(): AsyncGenerator<IngestItem[]> {
      yield posts('a', 500);
      await nextTurn();
      yield posts('b', 500);
      throw new Error('the file went away');
    }
    await expect(market.ingestBatches(failing())).rejects.toThrow('the file went away');
    expect(market.counts().posts).toBe(0);
    market.close();
  });

  it('runs one write at a time: ingests queue, synchronous writes refuse while one runs', async () => {
    const market = new SqliteMarketData(path);
    const order: string[] = [];
    const first = market.ingest(posts('p', 1_000), { onProgress: () => order.push('first') });
    const second = market.ingest(posts('p', 1_000), { onProgress: () => order.push('second') });
    expect(() => market.ingestNow(posts('q', 1))).toThrow(/an ingest is running/);
    expect(() => market.setMeta('k', 'v')).toThrow(/an ingest is running/);
    expect(() => market.removeSeeded()).toThrow(/an ingest is running/);
    const [one, two] = await Promise.all([first, second]);
    expect(one).toMatchObject({ posts: 1_000, duplicates: 0 });
    // The second ran after the first committed: every item was already stored.
    expect(two).toMatchObject({ posts: 0, duplicates: 1_000 });
    expect(order.indexOf('second')).toBe(order.lastIndexOf('first') + 1);
    market.ingestNow(posts('q', 1));
    expect(market.counts().posts).toBe(1_001);
    market.close();
  });

  it('is rolled back by close, with the ingests queued behind it', async () => {
    const market = new SqliteMarketData(path);
    market.ingestNow(posts('old', 10));
    let beats = 0;
    const running = market.ingest(posts('n', 5_000));
    const queued = market.ingest(posts('m', 10));
    const pulse = heartbeat(() => {
      beats += 1;
      if (beats === 3) market.close();
    });
    await expect(running).rejects.toThrow(/closed/);
    await expect(queued).rejects.toThrow(/closed/);
    pulse.stop();
    await expect(market.ingest(posts('z', 1))).rejects.toThrow(/closed/);
    const reopened = new SqliteMarketData(path);
    expect(reopened.counts().posts).toBe(10);
    reopened.close();
  });

  it('waits for another process holding the write lock without holding the event loop', async () => {
    const market = new SqliteMarketData(path);
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    let settled = false;
    const ingest = market.ingest(posts('w', 100)).finally(() => (settled = true));
    const pulse = heartbeat();
    await sleep(200);
    expect(settled).toBe(false);
    expect(pulse.beats()).toBeGreaterThan(10);
    other.exec('COMMIT');
    other.close();
    expect((await ingest).posts).toBe(100);
    pulse.stop();
    market.close();
  });

  it('keeps the read connection read-only', () => {
    const market = new SqliteMarketData(path);
    expect(() => market.db.exec("INSERT INTO meta (key, value) VALUES ('a', 'b')")).toThrow(/readonly/);
    market.close();
  });
});

describe('ingest on a :memory: store', () => {
  it('is all or nothing, and queued like the file-backed one', async () => {
    const market = new SqliteMarketData(':memory:');
    const failing = market.ingest(posts('x', 2_000, (i) => (i >= 500 && i < 1_600 ? T0 : T0 + i * 1_000)));
    expect(() => market.ingestNow(posts('q', 1))).toThrow(/an ingest is running/);
    await expect(failing).rejects.toThrow(RangeError);
    expect(market.counts().posts).toBe(0);
    expect(await market.ingest(posts('y', 10))).toMatchObject({ posts: 10 });
    market.close();
  });
});

describe('ingestFile', () => {
  it('writes a JSON Lines file in one transaction, or nothing when a line is bad', async () => {
    const market = new SqliteMarketData(path);
    const good = join(dir, 'good.jsonl');
    const lines = Array.from({ length: 1_200 }, (_, i) => JSON.stringify({ kind: 'post', tweetId: `f${i}`, link: `https://x.com/u/status/f${i}`, username: 'u', text: `$SOL ${i}`, mentionedAt: T0 + i }));
    writeFileSync(good, `// a comment\n${lines.join('\n')}\n`);
    const result = await ingestFile(market, good);
    expect(result).toMatchObject({ problems: [], lines: 1_200, report: { posts: 1_200 } });
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify({ kind: 'post', tweetId: 'g1', link: 'https://x.com/u/status/g1', username: 'u', text: 'x', mentionedAt: T0 })}\n{"kind":"nope"}\n`);
    expect((await ingestFile(market, bad)).problems).toMatchObject([{ line: 2, path: '/kind' }]);
    expect(market.counts().posts).toBe(1_200);
    market.close();
  });
});

describe('parseIngestValues', () => {
  it('parses in batches with turns of the event loop between them, keeping the first problems by index', async () => {
    const values = [...Array.from({ length: 2_000 }, (_, i) => ({ kind: 'account', username: `a${i}` })), { kind: 'nope' }, 'text', { kind: 'post' }];
    const pulse = heartbeat();
    const parsed = await parseIngestValues(values, { batchSize: 100, maxProblems: 2 });
    const beats = pulse.beats();
    pulse.stop();
    expect(beats).toBeGreaterThanOrEqual(19);
    expect(parsed.items).toHaveLength(2_000);
    expect(parsed.problems).toMatchObject([{ index: 2_000, path: '/kind' }, { index: 2_001, path: '/' }]);
  });
});
