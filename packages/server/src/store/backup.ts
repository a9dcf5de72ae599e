import { chmodSync, copyFileSync, existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { SecretBox } from '../secrets.js';
import { MIGRATIONS, migrate } from './migrations.js';
import { migratePg, PG_MIGRATIONS } from './pg/pg-migrations.js';
import { openPgPool } from './pg/pg-pool.js';
import { privateDir } from './private-files.js';
import { SqliteStore } from './sqlite-store.js';

/** The files of a host's data directory a backup holds: the store, the market data, the secret key. */
const STORE = 'eql.sqlite';
const MARKET = 'market.sqlite';
const KEY = 'secret.key';

/** What `backupSqliteHost` wrote. */
export interface BackupResult {
  /** The store's copy (`to`). */
  store: string;
  /** The market data's copy (`<to>.market.sqlite`), when the host has market data. */
  market?: string;
  /** The secret key's copy (`<to>.secret.key`); absent when the key is EQL_SECRET_KEY (keep it yourself). */
  secretKey?: string;
  /** Queries and API keys in the copy. */
  queries: number;
  keys: number;
  bytes: number;
}

const companion = (to: string, what: 'market.sqlite' | 'secret.key') => `${to}.${what}`;

/** A copy of a SQLite database as of one instant, taken while it is written (`VACUUM INTO`: one read transaction), mode 0600. */
function snapshot(from: string, to: string): void {
  const source = new Database(from, { readonly: true, fileMustExist: true });
  try {
    source.prepare('VACUUM INTO ?').run(to);
  } finally {
    source.close();
  }
  chmodSync(to, 0o600);
}

/** Whether a copy is a whole SQLite database: `integrity_check` answers ok. */
function checkedCopy(path: string): { queries: number; keys: number } {
  const copy = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const integrity = copy.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`${path} is damaged: ${String(integrity)}`);
    const count = (table: string) => Number((copy.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
    return { queries: count('queries'), keys: count('api_keys') };
  } finally {
    copy.close();
  }
}

/**
 * Backs up the SQLite host of `dataDir` to `to` while it runs: the store as of one instant (consistent
 * under writes), its market data (`<to>.market.sqlite`), and its secret key (`<to>.secret.key`) unless the
 * key is given in EQL_SECRET_KEY (`secretKeyInEnvironment`): without the key the sealed secrets of the copy
 * (webhook secrets, exchange credentials, bot tokens) cannot be opened. Refuses to overwrite a file unless
 * `force`. Every file is mode 0600.
 */
export function backupSqliteHost(dataDir: string, to: string, options: { force?: boolean; secretKeyInEnvironment?: boolean } = {}): BackupResult {
  const store = join(dataDir, STORE);
  if (!existsSync(store)) throw new Error(`no host store in ${dataDir} (${STORE} is missing): set EQL_DATA_DIR or --data-dir`);
  if (!existsSync(dirname(to))) throw new Error(`the folder of ${to} does not exist`);
  const targets = [to, companion(to, 'market.sqlite'), companion(to, 'secret.key')];
  const taken = targets.filter((path) => existsSync(path));
  if (taken.length > 0 && !options.force) throw new Error(`${taken.join(', ')} already exist${taken.length === 1 ? 's' : ''}: choose another name, or --force to replace`);
  for (const path of taken) rmSync(path);
  snapshot(store, to);
  const counts = checkedCopy(to);
  const result: BackupResult = { store: to, ...counts, bytes: statSync(to).size };
  if (existsSync(join(dataDir, MARKET))) {
    result.market = companion(to, 'market.sqlite');
    snapshot(join(dataDir, MARKET), result.market);
  }
  if (!options.secretKeyInEnvironment && existsSync(join(dataDir, KEY))) {
    result.secretKey = companion(to, 'secret.key');
    copyFileSync(join(dataDir, KEY), result.secretKey);
    chmodSync(result.secretKey, 0o600);
  }
  return result;
}

/** What `restoreSqliteHost` did. */
export interface RestoreResult {
  dataDir: string;
  queries: number;
  keys: number;
  /** Where the files it replaced went (`--force`). */
  setAside: string[];
  /** Whether the secret key came from the backup (else the data directory's, or EQL_SECRET_KEY). */
  secretKeyRestored: boolean;
}

/**
 * Restores a backup of {@link backupSqliteHost} into `dataDir` (the host stopped): checks the copy, puts it
 * in place with its market data and secret key, migrates it to this version's schema, and proves the key
 * opens its secrets. A data directory that already holds a store is refused unless `force`; then its files
 * are set aside (`<name>.before-restore-<time>`), never deleted.
 */
export function restoreSqliteHost(from: string, dataDir: string, options: { force?: boolean; secretKey?: string; now?: () => number } = {}): RestoreResult {
  if (!existsSync(from)) throw new Error(`no backup at ${from}`);
  const counts = checkedCopy(from);
  const target = join(dataDir, STORE);
  if (existsSync(target) && !options.force) throw new Error(`${dataDir} already holds a host store: stop its host, then restore with --force (its files are set aside, not deleted)`);
  privateDir(dataDir);
  const stamp = new Date(options.now?.() ?? Date.now()).toISOString().replace(/[:.]/g, '-');
  const setAside: string[] = [];
  const backupKey = companion(from, 'secret.key');
  const backupMarket = companion(from, 'market.sqlite');
  const replaced = [STORE, `${STORE}-wal`, `${STORE}-shm`, ...(existsSync(backupMarket) ? [MARKET, `${MARKET}-wal`, `${MARKET}-shm`] : []), ...(existsSync(backupKey) ? [KEY] : [])];
  for (const name of replaced) {
    const path = join(dataDir, name);
    if (!existsSync(path)) continue;
    const aside = `${path}.before-restore-${stamp}`;
    renameSync(path, aside);
    setAside.push(aside);
  }
  const place = (source: string, name: string) => {
    copyFileSync(source, join(dataDir, name));
    chmodSync(join(dataDir, name), 0o600);
  };
  place(from, STORE);
  if (existsSync(backupMarket)) place(backupMarket, MARKET);
  if (existsSync(backupKey)) place(backupKey, KEY);
  // The schema of this version, and the proof that the key opens the copy's secrets (else a clear refusal).
  const keyText = options.secretKey ?? (existsSync(join(dataDir, KEY)) ? readFileSync(join(dataDir, KEY), 'utf8') : undefined);
  const box = keyText === undefined ? undefined : SecretBox.fromKey(keyText);
  new SqliteStore(target, box ? { box } : {}).close();
  return { dataDir, ...counts, setAside, secretKeyRestored: existsSync(backupKey) };
}

/** One migration of a store's schema: its version, name and when it was applied (absent: pending). */
export interface MigrationState {
  version: number;
  name: string;
  appliedAt?: string;
}

/** The migrations of the SQLite store at `path`, applied and pending, without applying any. */
export function sqliteMigrationStates(path: string): MigrationState[] {
  const applied = new Map<number, string>();
  if (existsSync(path)) {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
      if (table) for (const row of db.prepare('SELECT version, applied_at FROM schema_migrations').all() as Array<{ version: number; applied_at: string }>) applied.set(Number(row.version), row.applied_at);
    } finally {
      db.close();
    }
  }
  return MIGRATIONS.map((migration) => ({ version: migration.version, name: migration.name, ...(applied.has(migration.version) ? { appliedAt: applied.get(migration.version) } : {}) }));
}

/** Applies the pending migrations of the SQLite store at `path` (the host does it at start too); returns the versions applied. */
export function migrateSqlite(path: string, secretKey?: string): number[] {
  privateDir(dirname(path));
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    return migrate(db, secretKey ? { box: SecretBox.fromKey(secretKey) } : {});
  } finally {
    db.close();
  }
}

/** The migrations of the PostgreSQL store of `pool` (its schema), applied and pending, without applying any. */
export async function pgMigrationStates(pool: pg.Pool): Promise<MigrationState[]> {
  const applied = new Map<number, string>();
  const exists = await pool.query<{ found: string | null }>("SELECT to_regclass('schema_migrations')::text AS found");
  if (exists.rows[0]?.found) {
    for (const row of (await pool.query<{ version: number; applied_at: string | Date }>('SELECT version, applied_at FROM schema_migrations')).rows) {
      applied.set(Number(row.version), row.applied_at instanceof Date ? row.applied_at.toISOString() : String(row.applied_at));
    }
  }
  return PG_MIGRATIONS.map((migration) => ({ version: migration.version, name: migration.name, ...(applied.has(migration.version) ? { appliedAt: applied.get(migration.version) } : {}) }));
}

/**
 * The migrations of the PostgreSQL store at `url` (its schema: `search_path` of the URL's options), and
 * with `apply` the pending ones applied first (under the migration lock the hosts take: a host booting
 * meanwhile waits). The connection is closed before this resolves.
 */
export async function pgMigrations(url: string, apply = false): Promise<{ applied: number[]; states: MigrationState[] }> {
  const pool = openPgPool(url, { maxConnections: 1 });
  try {
    const applied = apply ? await migratePg(pool) : [];
    return { applied, states: await pgMigrationStates(pool) };
  } finally {
    await pool.end();
  }
}
