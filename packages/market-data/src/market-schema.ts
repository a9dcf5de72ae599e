import type Database from 'better-sqlite3';

/**
 * The market database (its own SQLite file beside the host's state, so bulk ingestion never holds the
 * state database's write lock). Every time-ordered table is keyed by `seq = epochMs * 1024 + k`
 * (k < 1024 numbers the items of one millisecond): key order is time order, so a time range is a key
 * range, and the full-text index (whose rowid is `seq`) walks newest-first without sorting.
 */
const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'posts, news, telegram, accounts',
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE accounts (
        username TEXT PRIMARY KEY COLLATE NOCASE,
        display_name TEXT,
        is_verified INTEGER NOT NULL,
        is_smart INTEGER NOT NULL,
        is_ct INTEGER NOT NULL,
        is_news INTEGER NOT NULL,
        followers INTEGER NOT NULL,
        smart_following INTEGER NOT NULL,
        origin INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX accounts_news ON accounts (is_news) WHERE is_news = 1;
      CREATE TABLE posts (
        seq INTEGER PRIMARY KEY,
        tweet_id TEXT NOT NULL UNIQUE,
        link TEXT NOT NULL,
        username TEXT NOT NULL COLLATE NOCASE,
        is_verified INTEGER NOT NULL,
        text TEXT NOT NULL,
        type TEXT NOT NULL,
        like_count INTEGER NOT NULL,
        repost_count INTEGER NOT NULL,
        view_count INTEGER NOT NULL,
        quote_count INTEGER NOT NULL,
        reply_count INTEGER NOT NULL,
        bookmark_count INTEGER NOT NULL,
        repost_smart INTEGER NOT NULL,
        repost_ct INTEGER NOT NULL,
        tokens TEXT NOT NULL,
        contracts TEXT NOT NULL,
        origin INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX posts_user ON posts (username, seq);
      CREATE VIRTUAL TABLE posts_fts USING fts5 (text, content = 'posts', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2');
      CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN
        INSERT INTO posts_fts (rowid, text) VALUES (new.seq, new.text);
      END;
      CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN
        INSERT INTO posts_fts (posts_fts, rowid, text) VALUES ('delete', old.seq, old.text);
      END;
      CREATE TABLE post_tokens (token TEXT NOT NULL, seq INTEGER NOT NULL, relevance INTEGER NOT NULL, PRIMARY KEY (token, seq)) WITHOUT ROWID;
      CREATE INDEX post_tokens_seq ON post_tokens (seq, token);
      CREATE TABLE token_hours (hour INTEGER NOT NULL, token TEXT NOT NULL, mentions INTEGER NOT NULL, PRIMARY KEY (hour, token)) WITHOUT ROWID;
      CREATE TABLE post_contracts (seq INTEGER NOT NULL, address TEXT NOT NULL, chain TEXT NOT NULL, PRIMARY KEY (seq, address)) WITHOUT ROWID;
      CREATE INDEX post_contracts_address ON post_contracts (address, seq);
      CREATE TABLE news (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        url TEXT NOT NULL,
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        source TEXT NOT NULL,
        tokens TEXT NOT NULL,
        origin INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE news_tokens (token TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (token, seq)) WITHOUT ROWID;
      CREATE TABLE telegram (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        channel TEXT NOT NULL,
        text TEXT NOT NULL,
        views INTEGER NOT NULL,
        tokens TEXT NOT NULL,
        contracts TEXT NOT NULL,
        origin INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE telegram_contracts (seq INTEGER NOT NULL, address TEXT NOT NULL, chain TEXT NOT NULL, PRIMARY KEY (seq, address)) WITHOUT ROWID;
    `,
  },
];

/** Brings the market database to the latest version; returns the versions applied. */
export function migrateMarket(db: Database.Database): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS market_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM market_migrations').all() as Array<{ version: number }>).map((row) => row.version));
  const done: number[] = [];
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO market_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString());
    })();
    done.push(migration.version);
  }
  return done;
}

/** Items of one millisecond share it: `seq = ms * SEQ_PER_MS + k`. */
export const SEQ_PER_MS = 1024;
export const HOUR_MS = 3_600_000;
