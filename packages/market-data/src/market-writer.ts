import type Database from 'better-sqlite3';
import { extractContracts, extractTokens, normalizeToken, type TokenMention } from './extract.js';
import type { ContractMention, IngestItem, IngestReport } from './market-data.js';
import { HOUR_MS, SEQ_PER_MS } from './market-schema.js';

type PostItem = Extract<IngestItem, { kind: 'post' }>;
type NewsItem = Extract<IngestItem, { kind: 'news' }>;
type TelegramItem = Extract<IngestItem, { kind: 'telegram' }>;
type AccountItem = Extract<IngestItem, { kind: 'account' }>;

/** A report of nothing written yet. */
export const emptyReport = (): IngestReport => ({ posts: 0, news: 0, telegram: 0, accounts: 0, duplicates: 0 });

/** Where an item came from: ingested by someone, or the seeded demo dataset (which a re-seed replaces). */
export type Origin = 'ingest' | 'seed';

/** The tokens of an item: those it names itself plus those found in its text. */
function tokensOf(text: string, given: readonly string[] | undefined): TokenMention[] {
  const found = extractTokens(text);
  for (const raw of given ?? []) {
    const token = normalizeToken(raw);
    if (token && !found.some((mention) => mention.token === token)) found.push({ token, relevance: 1 });
  }
  return found;
}

function contractsOf(text: string, given: readonly ContractMention[] | undefined): ContractMention[] {
  const found = extractContracts(text);
  for (const contract of given ?? []) {
    const address = contract.address.startsWith('0x') ? contract.address.toLowerCase() : contract.address;
    const existing = found.find((mention) => mention.address === address);
    if (existing) existing.chain = contract.chain;
    else found.push({ address, chain: contract.chain });
  }
  return found;
}

/**
 * The write path of the market database: each batch in one transaction. An item whose id is already
 * stored updates what can change (engagement counts, flags, profile fields) and keeps its time and text.
 */
export class MarketWriter {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  /** Writes the items in one transaction of their own. */
  ingest(items: readonly IngestItem[], origin: Origin = 'ingest'): IngestReport {
    const report = emptyReport();
    this.db.transaction(() => this.write(items, origin, report))();
    return report;
  }

  /**
   * Writes the items in the transaction the caller has open (the batches of one ingest), adding what it
   * wrote to `report`. Throws a RangeError when a millisecond would hold more than 1024 items of a table.
   */
  write(items: readonly IngestItem[], origin: Origin, report: IngestReport): void {
    const originFlag = origin === 'seed' ? 1 : 0;
    for (const item of items) {
      switch (item.kind) {
        case 'post':
          if (this.post(item, originFlag)) report.posts += 1;
          else report.duplicates += 1;
          break;
        case 'news':
          if (this.news(item, originFlag)) report.news += 1;
          else report.duplicates += 1;
          break;
        case 'telegram':
          if (this.telegram(item, originFlag)) report.telegram += 1;
          else report.duplicates += 1;
          break;
        case 'account':
          if (this.account(item, originFlag)) report.accounts += 1;
          else report.duplicates += 1;
          break;
      }
    }
  }

  /** Removes everything a seed wrote (before seeding again with other times). */
  removeSeeded(): void {
    this.db.transaction(() => {
      this.db.exec(`
        DELETE FROM token_hours WHERE 1;
        DELETE FROM post_tokens WHERE seq IN (SELECT seq FROM posts WHERE origin = 1);
        DELETE FROM post_contracts WHERE seq IN (SELECT seq FROM posts WHERE origin = 1);
        DELETE FROM posts WHERE origin = 1;
        DELETE FROM news_tokens WHERE seq IN (SELECT seq FROM news WHERE origin = 1);
        DELETE FROM news WHERE origin = 1;
        DELETE FROM telegram_contracts WHERE seq IN (SELECT seq FROM telegram WHERE origin = 1);
        DELETE FROM telegram WHERE origin = 1;
        DELETE FROM accounts WHERE origin = 1;
        INSERT INTO token_hours (hour, token, mentions)
          SELECT (seq / ${SEQ_PER_MS}) / ${HOUR_MS}, token, count(*) FROM post_tokens GROUP BY 1, 2;
      `);
    })();
  }

  /** Sets a value of the store's key-value metadata, replacing any earlier one. */
  setMeta(key: string, value: string): void {
    this.sql('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** The next free seq of a millisecond in a table. */
  private nextSeq(table: 'posts' | 'news' | 'telegram', at: number): number {
    const base = at * SEQ_PER_MS;
    const row = this.sql(`SELECT max(seq) AS last FROM ${table} WHERE seq >= ? AND seq < ?`).get(base, base + SEQ_PER_MS) as { last: number | null };
    const next = row.last === null ? base : row.last + 1;
    if (next >= base + SEQ_PER_MS) throw new RangeError(`more than ${SEQ_PER_MS} ${table} items at ${new Date(at).toISOString()}`);
    return next;
  }

  private post(item: PostItem, origin: number): boolean {
    const existing = this.sql('SELECT seq FROM posts WHERE tweet_id = ?').get(item.tweetId) as { seq: number } | undefined;
    const counts = [item.likeCount, item.repostCount, item.viewCount, item.quoteCount, item.replyCount, item.bookmarkCount, item.repostBreakdown.smart, item.repostBreakdown.ct];
    if (existing) {
      this.sql(
        `UPDATE posts SET like_count = ?, repost_count = ?, view_count = ?, quote_count = ?, reply_count = ?, bookmark_count = ?,
         repost_smart = ?, repost_ct = ?, is_verified = ? WHERE seq = ?`,
      ).run(...counts, item.isVerified ? 1 : 0, existing.seq);
      return false;
    }
    const seq = this.nextSeq('posts', item.mentionedAt);
    const tokens = tokensOf(item.text, item.tokens);
    const contracts = contractsOf(item.text, item.contracts);
    this.sql(
      `INSERT INTO posts (seq, tweet_id, link, username, is_verified, text, type, like_count, repost_count, view_count, quote_count,
       reply_count, bookmark_count, repost_smart, repost_ct, tokens, contracts, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(seq, item.tweetId, item.link, item.username.replace(/^@/, ''), item.isVerified ? 1 : 0, item.text, item.type, ...counts, JSON.stringify(tokens.map((t) => t.token)), JSON.stringify(contracts), origin);
    const hour = Math.floor(item.mentionedAt / HOUR_MS);
    for (const { token, relevance } of tokens) {
      this.sql('INSERT INTO post_tokens (token, seq, relevance) VALUES (?, ?, ?)').run(token, seq, relevance);
      this.sql('INSERT INTO token_hours (hour, token, mentions) VALUES (?, ?, 1) ON CONFLICT (hour, token) DO UPDATE SET mentions = mentions + 1').run(hour, token);
    }
    for (const contract of contracts) this.sql('INSERT INTO post_contracts (seq, address, chain) VALUES (?, ?, ?)').run(seq, contract.address, contract.chain);
    return true;
  }

  private news(item: NewsItem, origin: number): boolean {
    const existing = this.sql('SELECT seq FROM news WHERE id = ?').get(item.id) as { seq: number } | undefined;
    if (existing) {
      this.sql('UPDATE news SET url = ?, title = ?, source = ? WHERE seq = ?').run(item.url, item.title, item.source, existing.seq);
      return false;
    }
    const seq = this.nextSeq('news', item.publishedAt);
    const tokens = tokensOf(`${item.title}\n${item.text}`, item.tokens).map((mention) => mention.token);
    this.sql('INSERT INTO news (seq, id, url, title, text, source, tokens, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(seq, item.id, item.url, item.title, item.text, item.source, JSON.stringify(tokens), origin);
    for (const token of tokens) this.sql('INSERT INTO news_tokens (token, seq) VALUES (?, ?)').run(token, seq);
    return true;
  }

  private telegram(item: TelegramItem, origin: number): boolean {
    const existing = this.sql('SELECT seq FROM telegram WHERE id = ?').get(item.id) as { seq: number } | undefined;
    if (existing) {
      this.sql('UPDATE telegram SET views = ? WHERE seq = ?').run(item.views, existing.seq);
      return false;
    }
    const seq = this.nextSeq('telegram', item.postedAt);
    const tokens = tokensOf(item.text, item.tokens).map((mention) => mention.token);
    const contracts = contractsOf(item.text, item.contracts);
    this.sql('INSERT INTO telegram (seq, id, channel, text, views, tokens, contracts, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(seq, item.id, item.channel, item.text, item.views, JSON.stringify(tokens), JSON.stringify(contracts), origin);
    for (const contract of contracts) this.sql('INSERT INTO telegram_contracts (seq, address, chain) VALUES (?, ?, ?)').run(seq, contract.address, contract.chain);
    return true;
  }

  private account(item: AccountItem, origin: number): boolean {
    const username = item.username.replace(/^@/, '');
    const existed = this.sql('SELECT 1 FROM accounts WHERE username = ?').get(username) !== undefined;
    this.sql(
      `INSERT INTO accounts (username, display_name, is_verified, is_smart, is_ct, is_news, followers, smart_following, origin)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (username) DO UPDATE SET display_name = excluded.display_name, is_verified = excluded.is_verified, is_smart = excluded.is_smart,
         is_ct = excluded.is_ct, is_news = excluded.is_news, followers = excluded.followers, smart_following = excluded.smart_following`,
    ).run(username, item.displayName ?? null, item.isVerified ? 1 : 0, item.isSmart ? 1 : 0, item.isCt ? 1 : 0, item.isNews ? 1 : 0, item.followers, item.smartFollowingCount, origin);
    return !existed;
  }
}
