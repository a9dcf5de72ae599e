import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { ftsMatchExpression } from './fts-query.js';
import type {
  AccountProfile,
  AccountStats,
  IngestItem,
  IngestReport,
  KeywordMentionsPage,
  KeywordMentionsRequest,
  MarketData,
  Paged,
  Paging,
  StoredNewsItem,
  StoredPost,
  TimeRange,
  TokenStats,
  TrendingContract,
  TrendingToken,
} from './market-data.js';
import { HOUR_MS, migrateMarket, SEQ_PER_MS } from './market-schema.js';
import { emptyReport, MarketWriter, type Origin } from './market-writer.js';
import { msOfSeq, newsOfRow, postOfRow, type NewsRow, type PostRow } from './post-rows.js';

const seqOf = (ms: number): number => ms * SEQ_PER_MS;
const POST_COLUMNS = 'p.seq, p.tweet_id, p.link, p.username, p.is_verified, p.text, p.type, p.like_count, p.repost_count, p.view_count, p.quote_count, p.reply_count, p.bookmark_count, p.repost_smart, p.repost_ct, p.tokens, p.contracts';

/** Items {@link SqliteMarketData.ingest} writes between two turns of the event loop unless told: ~10 ms of work. */
export const INGEST_BATCH_SIZE = 200;
/** How long an ingest waits for another process's write lock (retrying, without blocking the event loop). */
const LOCK_WAIT_MS = 5_000;
const BUSY_TIMEOUT_MS = 5_000;
/** SQLite's default: a commit that leaves the log this many pages long copies it into the database. */
const WAL_AUTOCHECKPOINT = 1_000;

/** How {@link SqliteMarketData.ingest} and {@link SqliteMarketData.ingestBatches} write. */
export interface IngestOptions {
  /** `seed` marks the items as the demo dataset, which {@link SqliteMarketData.removeSeeded} deletes (default `ingest`). */
  origin?: Origin;
  /** Items written between two turns of the event loop (default {@link INGEST_BATCH_SIZE}). */
  batchSize?: number;
  /** Called after each batch with how many items are written so far (not committed until the ingest resolves). */
  onProgress?: (items: number) => void;
}

const closedError = (): Error => new Error('the market store is closed; nothing more was written');
const isBusy = (error: unknown): boolean => typeof (error as { code?: unknown }).code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');

function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

/**
 * Market data in SQLite (better-sqlite3, WAL): full-text search by FTS5 over post texts, tokens and
 * contracts in side tables keyed by time, and hourly token counts so trending windows read a few
 * hundred rows instead of every mention. See market-schema.ts for the `seq` key.
 *
 * Writes never hold the event loop for long: {@link SqliteMarketData.ingest} writes in batches and lets
 * the loop turn between them, in one transaction (all or nothing). A store in a file has two
 * connections: reads go through {@link SqliteMarketData.db} and see only committed data (WAL), writes go
 * through a second one, one write at a time (an ingest waits for the one before it). The synchronous
 * writes ({@link SqliteMarketData.ingestNow}, {@link SqliteMarketData.removeSeeded},
 * {@link SqliteMarketData.setMeta}, for setup such as the seed at start) throw while an ingest runs.
 * A `:memory:` store has one connection, so readers would see an open transaction: there an ingest
 * takes its turn in the same queue but writes all its items at once.
 */
export class SqliteMarketData implements MarketData {
  /** The connection reads go through; in a file-backed store it is read-only (`query_only`): writes take another connection. */
  readonly db: Database.Database;
  private readonly writeDb: Database.Database;
  private readonly writer: MarketWriter;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly inMemory: boolean;
  /** The last write queued: the next one starts when it settles. */
  private queue: Promise<unknown> = Promise.resolve();
  private writesQueued = 0;
  private closed = false;

  constructor(path: string) {
    this.inMemory = path === ':memory:' || path === '';
    if (!this.inMemory) mkdirSync(dirname(path), { recursive: true });
    this.writeDb = openDatabase(path);
    try {
      migrateMarket(this.writeDb);
      if (this.inMemory) this.db = this.writeDb;
      else {
        this.db = openDatabase(path);
        this.db.pragma('query_only = ON');
      }
    } catch (error) {
      this.writeDb.close();
      throw error;
    }
    this.writer = new MarketWriter(this.writeDb);
  }

  /**
   * Closes the store; the instance cannot be used afterwards. An ingest still running is rolled back
   * (nothing of it is written) and rejects, as do those queued behind it.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.writeDb.inTransaction) this.writeDb.exec('ROLLBACK');
    if (this.db !== this.writeDb) this.db.close();
    this.writeDb.close();
  }

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  /**
   * Stores the items, all or nothing, in batches of `batchSize` with a turn of the event loop between
   * them (an item whose id is stored is updated in place). Readers see none of them until all are
   * committed. Rejects with a RangeError when a millisecond would hold more than 1024 items of a kind
   * (nothing written).
   */
  ingest(items: readonly IngestItem[], options: IngestOptions = {}): Promise<IngestReport> {
    return this.ingestBatches([items], options);
  }

  /**
   * {@link SqliteMarketData.ingest} of items that come in batches (such as the lines of a file read as
   * they arrive), in one transaction: each batch is written `batchSize` items at a time with a turn of
   * the event loop between them. When the source throws, nothing is written.
   */
  ingestBatches(source: Iterable<readonly IngestItem[]> | AsyncIterable<readonly IngestItem[]>, options: IngestOptions = {}): Promise<IngestReport> {
    const size = options.batchSize ?? INGEST_BATCH_SIZE;
    if (!Number.isInteger(size) || size < 1) return Promise.reject(new TypeError(`batchSize must be a positive integer, not ${size}`));
    const origin = options.origin ?? 'ingest';
    return this.enqueue(async () => {
      const report = emptyReport();
      if (this.inMemory) {
        const all: IngestItem[] = [];
        for await (const batch of source) for (const item of batch) all.push(item);
        if (this.closed) throw closedError();
        this.writeDb.transaction(() => this.writer.write(all, origin, report))();
        options.onProgress?.(all.length);
        return report;
      }
      await this.begin();
      try {
        let written = 0;
        for await (const batch of source) {
          for (let start = 0; start < batch.length; start += size) {
            if (written > 0) await nextTurn();
            if (this.closed) throw closedError();
            const part = batch.slice(start, start + size);
            this.writer.write(part, origin, report);
            written += part.length;
            options.onProgress?.(written);
          }
        }
        // The commit (writing out the pages still in the cache) and the checkpoint (copying the log
        // into the database file) each take a turn of their own.
        await nextTurn();
        if (this.closed) throw closedError();
        this.writeDb.pragma('wal_autocheckpoint = 0');
        try {
          this.writeDb.exec('COMMIT');
        } finally {
          this.writeDb.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT}`);
        }
      } catch (error) {
        if (this.writeDb.open && this.writeDb.inTransaction) this.writeDb.exec('ROLLBACK');
        throw error;
      }
      await nextTurn();
      try {
        if (!this.closed) this.writeDb.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // The items are committed; a checkpoint that could not run now is done by a later one.
      }
      return report;
    });
  }

  /**
   * Stores the items at once, in one transaction, without letting the event loop turn: for setup (the
   * seed at start, tests). Throws while an {@link SqliteMarketData.ingest} is queued or running.
   */
  ingestNow(items: readonly IngestItem[], origin: Origin = 'ingest'): IngestReport {
    this.assertIdle('ingestNow');
    return this.writer.ingest(items, origin);
  }

  /** Deletes every item ingested with origin `seed` (the demo dataset), keeping what users ingested. Throws while an ingest runs. */
  removeSeeded(): void {
    this.assertIdle('removeSeeded');
    this.writer.removeSeeded();
  }

  /** A value of the store's key-value metadata (such as `seed`, what was seeded and when), or undefined. */
  meta(key: string): string | undefined {
    return (this.sql('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  /** Sets a value of the store's key-value metadata, replacing any earlier one. Throws while an ingest runs. */
  setMeta(key: string, value: string): void {
    this.assertIdle('setMeta');
    this.writer.setMeta(key, value);
  }

  /** Runs `task` once the writes queued before it have settled: one write at a time, on the write connection. */
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    this.writesQueued += 1;
    const run = this.queue
      .then(() => {
        if (this.closed) throw closedError();
        return task();
      })
      .finally(() => {
        this.writesQueued -= 1;
      });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A synchronous write would find the write connection inside an ingest's transaction (or wait on its lock). */
  private assertIdle(what: string): void {
    if (this.closed) throw closedError();
    if (this.writesQueued > 0) throw new Error(`${what}: an ingest is running on this market store; await it first`);
  }

  /**
   * BEGIN IMMEDIATE on the write connection. When another process holds the write lock (an `eql ingest`
   * beside the host), it retries every 25 ms for up to 5 s instead of SQLite's busy wait, which would
   * hold the event loop.
   */
  private async begin(): Promise<void> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    this.writeDb.pragma('busy_timeout = 0');
    try {
      for (;;) {
        try {
          this.writeDb.exec('BEGIN IMMEDIATE');
          return;
        } catch (error) {
          if (!isBusy(error) || Date.now() >= deadline) throw error;
        }
        await sleep(25);
        if (this.closed) throw closedError();
      }
    } finally {
      if (this.writeDb.open) this.writeDb.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  counts(): { posts: number; news: number; telegram: number; accounts: number; newest?: number } {
    const count = (table: string): number => (this.sql(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const newest = (this.sql('SELECT max(seq) AS seq FROM posts').get() as { seq: number | null }).seq;
    return { posts: count('posts'), news: count('news'), telegram: count('telegram'), accounts: count('accounts'), ...(newest === null ? {} : { newest: msOfSeq(newest) }) };
  }

  accountStats(username: string): AccountStats | undefined {
    const name = username.replace(/^@/, '');
    const profileRow = this.sql('SELECT * FROM accounts WHERE username = ?').get(name) as Record<string, number | string | null> | undefined;
    const stats = this.sql(
      `SELECT count(*) AS posts, avg(view_count) AS reach, avg(like_count + repost_count + reply_count + quote_count + bookmark_count) AS engagement,
       max(is_verified) AS verified, max(username) AS spelled FROM posts WHERE username = ? AND type <> 'repost'`,
    ).get(name) as { posts: number; reach: number | null; engagement: number | null; verified: number | null; spelled: string | null };
    if (!profileRow && stats.posts === 0) return undefined;
    const profile: AccountProfile = profileRow
      ? {
          username: String(profileRow.username),
          ...(profileRow.display_name ? { displayName: String(profileRow.display_name) } : {}),
          isVerified: profileRow.is_verified === 1,
          isSmart: profileRow.is_smart === 1,
          isCt: profileRow.is_ct === 1,
          isNews: profileRow.is_news === 1,
          followers: Number(profileRow.followers),
          smartFollowingCount: Number(profileRow.smart_following),
        }
      : { username: stats.spelled ?? name, isVerified: stats.verified === 1, isSmart: false, isCt: false, isNews: false, followers: 0, smartFollowingCount: 0 };
    const round = (value: number | null): number => Math.round((value ?? 0) * 100) / 100;
    return { username: profile.username, averageReach: round(stats.reach), averageEngagement: round(stats.engagement), smartFollowingCount: profile.smartFollowingCount, posts: stats.posts, profile };
  }

  /** Posts per token in a range: whole hours from the hourly counts, the partial hours at the ends from the mentions. */
  private tokenCounts(range: TimeRange): Map<string, number> {
    const counts = new Map<string, number>();
    const add = (rows: Array<{ token: string; n: number }>): void => {
      for (const row of rows) counts.set(row.token, (counts.get(row.token) ?? 0) + row.n);
    };
    const firstWholeHour = Math.ceil(range.from / HOUR_MS);
    const endWholeHour = Math.floor(range.to / HOUR_MS);
    const exact = (from: number, to: number): void => {
      if (to > from) add(this.sql('SELECT token, count(*) AS n FROM post_tokens WHERE seq >= ? AND seq < ? GROUP BY token').all(seqOf(from), seqOf(to)) as Array<{ token: string; n: number }>);
    };
    if (firstWholeHour >= endWholeHour) {
      exact(range.from, range.to);
      return counts;
    }
    exact(range.from, firstWholeHour * HOUR_MS);
    add(this.sql('SELECT token, sum(mentions) AS n FROM token_hours WHERE hour >= ? AND hour < ? GROUP BY token').all(firstWholeHour, endWholeHour) as Array<{ token: string; n: number }>);
    exact(endWholeHour * HOUR_MS, range.to);
    return counts;
  }

  trendingTokens(request: { current: TimeRange; previous: TimeRange; minMentions: number; paging: Paging }): Paged<TrendingToken> {
    const current = this.tokenCounts(request.current);
    const previous = this.tokenCounts(request.previous);
    const rows: TrendingToken[] = [];
    for (const [token, count] of current) {
      if (count < request.minMentions) continue;
      const before = previous.get(token) ?? 0;
      rows.push({ token, current_count: count, previous_count: before, change_percent: Math.round(((count - before) / Math.max(before, 1)) * 10_000) / 100 });
    }
    rows.sort((a, b) => b.change_percent - a.change_percent || b.current_count - a.current_count || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
    const start = (request.paging.page - 1) * request.paging.pageSize;
    return { total: rows.length, rows: rows.slice(start, start + request.paging.pageSize) };
  }

  trendingContracts(request: { channel: 'twitter' | 'telegram'; range: TimeRange; paging: Paging }): Paged<TrendingContract> {
    const table = request.channel === 'twitter' ? 'post_contracts' : 'telegram_contracts';
    const range = [seqOf(request.range.from), seqOf(request.range.to)];
    const total = (this.sql(`SELECT count(DISTINCT address) AS n FROM ${table} WHERE seq >= ? AND seq < ?`).get(...range) as { n: number }).n;
    const rows = this.sql(
      `SELECT address AS contractAddress, coalesce(max(CASE WHEN chain <> 'evm' THEN chain END), 'evm') AS chain, count(*) AS mentionCount
       FROM ${table} WHERE seq >= ? AND seq < ? GROUP BY address ORDER BY mentionCount DESC, address LIMIT ? OFFSET ?`,
    ).all(...range, request.paging.pageSize, (request.paging.page - 1) * request.paging.pageSize) as TrendingContract[];
    return { total, rows };
  }

  /**
   * Newest first. A page never splits a millisecond (the cursor is one): when the last row's
   * millisecond has more matches, they all join the page, so the next page (strictly older) has no
   * duplicates and skips nothing.
   */
  keywordMentions(request: KeywordMentionsRequest, cap: number): KeywordMentionsPage {
    const match = request.keywords && request.keywords.length > 0 ? ftsMatchExpression(request.keywords) : undefined;
    if (request.keywords && request.keywords.length > 0 && match === undefined) return { rows: [], total: 0 };
    const from = seqOf(request.range.from);
    const to = seqOf(request.range.to);
    const upper = request.before === undefined ? to : Math.min(to, seqOf(request.before));
    const account = request.accountName?.replace(/^@/, '');
    const source = match ? 'posts_fts f JOIN posts p ON p.seq = f.rowid' : 'posts p';
    const where = [match ? 'posts_fts MATCH ? AND f.rowid >= ? AND f.rowid < ?' : 'p.seq >= ? AND p.seq < ?', ...(account ? ['p.username = ?'] : [])].join(' AND ');
    const order = match ? 'f.rowid DESC' : 'p.seq DESC';
    const args = (lower: number, below: number): unknown[] => [...(match ? [match] : []), lower, below, ...(account ? [account] : [])];

    const page = this.sql(`SELECT ${POST_COLUMNS} FROM ${source} WHERE ${where} ORDER BY ${order} LIMIT ?`).all(...args(from, upper), request.limit + 1) as PostRow[];
    const total = (this.sql(`SELECT count(*) AS n FROM (SELECT 1 FROM ${source} WHERE ${where} LIMIT ?)`).get(...args(from, to), cap) as { n: number }).n;
    if (page.length <= request.limit) return { rows: page.map(postOfRow), total };

    const kept = page.slice(0, request.limit);
    const last = kept[kept.length - 1] as PostRow;
    const lastMs = msOfSeq(last.seq);
    const sameMs = this.sql(`SELECT ${POST_COLUMNS} FROM ${source} WHERE ${where} ORDER BY ${order}`).all(...args(seqOf(lastMs), last.seq)) as PostRow[];
    kept.push(...sameMs);
    const older = this.sql(`SELECT 1 FROM ${source} WHERE ${where} LIMIT 1`).get(...args(from, seqOf(lastMs)));
    return { rows: kept.map(postOfRow), total, ...(older ? { cursor: lastMs } : {}) };
  }

  tokenNews(request: { token: string; paging: Paging }): Paged<StoredPost> {
    const from = `posts p JOIN accounts a ON a.username = p.username AND a.is_news = 1
      WHERE EXISTS (SELECT 1 FROM post_tokens t WHERE t.token = ? AND t.seq = p.seq)`;
    const total = (this.sql(`SELECT count(*) AS n FROM ${from}`).get(request.token) as { n: number }).n;
    const rows = this.sql(`SELECT ${POST_COLUMNS} FROM ${from} ORDER BY p.seq DESC LIMIT ? OFFSET ?`).all(request.token, request.paging.pageSize, (request.paging.page - 1) * request.paging.pageSize) as PostRow[];
    return { total, rows: rows.map(postOfRow) };
  }

  topMentions(request: { token: string; range: TimeRange; paging: Paging }): Paged<StoredPost> {
    const args = [request.token, seqOf(request.range.from), seqOf(request.range.to)];
    const total = (this.sql('SELECT count(*) AS n FROM post_tokens WHERE token = ? AND seq >= ? AND seq < ?').get(...args) as { n: number }).n;
    const rows = this.sql(
      `SELECT ${POST_COLUMNS} FROM post_tokens t JOIN posts p ON p.seq = t.seq WHERE t.token = ? AND t.seq >= ? AND t.seq < ?
       ORDER BY p.view_count DESC, p.seq / ${SEQ_PER_MS} DESC, t.relevance DESC, p.tweet_id LIMIT ? OFFSET ?`,
    ).all(...args, request.paging.pageSize, (request.paging.page - 1) * request.paging.pageSize) as PostRow[];
    return { total, rows: rows.map(postOfRow) };
  }

  postsInRange(request: { range: TimeRange; keywords?: string[]; token?: string; accountName?: string; limit: number }): StoredPost[] {
    const clauses = ['p.seq >= ?', 'p.seq < ?'];
    const args: unknown[] = [seqOf(request.range.from), seqOf(request.range.to)];
    let source = 'posts p';
    const match = request.keywords && request.keywords.length > 0 ? ftsMatchExpression(request.keywords) : undefined;
    if (request.keywords && request.keywords.length > 0 && match === undefined) return [];
    if (match) {
      source = 'posts_fts f JOIN posts p ON p.seq = f.rowid';
      clauses.unshift('posts_fts MATCH ?');
      args.unshift(match);
    }
    if (request.token) {
      clauses.push('EXISTS (SELECT 1 FROM post_tokens t WHERE t.token = ? AND t.seq = p.seq)');
      args.push(request.token);
    }
    if (request.accountName) {
      clauses.push('p.username = ?');
      args.push(request.accountName.replace(/^@/, ''));
    }
    const rows = this.sql(`SELECT ${POST_COLUMNS} FROM ${source} WHERE ${clauses.join(' AND ')} ORDER BY p.view_count DESC, p.seq DESC LIMIT ?`).all(...args, request.limit) as PostRow[];
    return rows.map(postOfRow);
  }

  newsInRange(request: { range: TimeRange; keywords?: string[]; token?: string; limit: number }): StoredNewsItem[] {
    const clauses = ['n.seq >= ?', 'n.seq < ?'];
    const args: unknown[] = [seqOf(request.range.from), seqOf(request.range.to)];
    if (request.token) {
      clauses.push('EXISTS (SELECT 1 FROM news_tokens t WHERE t.token = ? AND t.seq = n.seq)');
      args.push(request.token);
    }
    const rows = this.sql(`SELECT n.* FROM news n WHERE ${clauses.join(' AND ')} ORDER BY n.seq DESC`).all(...args) as NewsRow[];
    const words = (request.keywords ?? []).map((keyword) => keyword.toLowerCase()).filter(Boolean);
    const matching = words.length === 0 ? rows : rows.filter((row) => words.some((word) => `${row.title}\n${row.text}`.toLowerCase().includes(word)));
    return matching.slice(0, request.limit).map(newsOfRow);
  }

  tokenStats(token: string, range: TimeRange): TokenStats {
    const span = range.to - range.from;
    const count = (from: number, to: number): number => (this.sql('SELECT count(*) AS n FROM post_tokens WHERE token = ? AND seq >= ? AND seq < ?').get(token, seqOf(from), seqOf(to)) as { n: number }).n;
    const accounts = this.sql(
      `SELECT count(DISTINCT p.username) AS accounts, count(DISTINCT CASE WHEN a.is_smart = 1 THEN p.username END) AS smart, coalesce(sum(p.view_count), 0) AS views
       FROM post_tokens t JOIN posts p ON p.seq = t.seq LEFT JOIN accounts a ON a.username = p.username WHERE t.token = ? AND t.seq >= ? AND t.seq < ?`,
    ).get(token, seqOf(range.from), seqOf(range.to)) as { accounts: number; smart: number; views: number };
    const contracts = this.sql(
      `SELECT c.address AS contractAddress, coalesce(max(CASE WHEN c.chain <> 'evm' THEN c.chain END), 'evm') AS chain, count(*) AS mentionCount
       FROM post_tokens t JOIN post_contracts c ON c.seq = t.seq WHERE t.token = ? AND t.seq >= ? AND t.seq < ? GROUP BY c.address ORDER BY mentionCount DESC, c.address LIMIT 5`,
    ).all(token, seqOf(range.from), seqOf(range.to)) as TrendingContract[];
    return {
      token,
      range,
      mentions: count(range.from, range.to),
      previousMentions: count(range.from - span, range.from),
      uniqueAccounts: accounts.accounts,
      smartAccounts: accounts.smart,
      totalViews: accounts.views,
      topPosts: this.topMentions({ token, range, paging: { page: 1, pageSize: 5 } }).rows,
      contracts,
      news: this.newsInRange({ range, token, limit: 5 }),
    };
  }

  tokenOfContract(address: string): string | undefined {
    const normal = address.startsWith('0x') ? address.toLowerCase() : address;
    const row = this.sql(
      `SELECT t.token, count(*) AS n FROM post_contracts c JOIN post_tokens t ON t.seq = c.seq WHERE c.address = ? GROUP BY t.token ORDER BY n DESC, t.token LIMIT 1`,
    ).get(normal) as { token: string } | undefined;
    return row?.token;
  }
}
