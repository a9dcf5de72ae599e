import type Database from 'better-sqlite3';
import { RETENTION_INDEXES_SQL } from './retention.js';
import type { SecretBox } from '../secrets.js';
import { hasUnsealedSecrets, sealRequestSecrets } from './request-secrets.js';

/** What a migration may need beyond the database: the host's secret box (migration 6 seals with it). */
export interface MigrationContext {
  box?: SecretBox;
}

/** One migration: its SQL, and optionally a step in code run after it, in the same transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  run?: (db: Database.Database, context: MigrationContext) => void;
}

/**
 * Schema migrations, applied in order, each once, in a transaction. Never edit a released
 * migration: add a new one.
 */
export const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        key_hash TEXT NOT NULL UNIQUE,
        key_prefix TEXT NOT NULL,
        name TEXT NOT NULL,
        email TEXT,
        project TEXT,
        plan TEXT NOT NULL,
        status TEXT NOT NULL,
        auto_enabled INTEGER NOT NULL DEFAULT 1,
        hmac_secret_sealed TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        expires_at TEXT
      );
      CREATE TABLE usage_days (
        key_id INTEGER NOT NULL,
        day TEXT NOT NULL,
        requests INTEGER NOT NULL,
        PRIMARY KEY (key_id, day)
      );
      CREATE TABLE ledger (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        key_id INTEGER NOT NULL,
        credits INTEGER NOT NULL,
        reason TEXT NOT NULL,
        ref TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX ledger_key_time ON ledger (key_id, created_at);
      CREATE TABLE validations (
        key_id INTEGER NOT NULL,
        body_hash TEXT NOT NULL,
        validated_at TEXT NOT NULL,
        PRIMARY KEY (key_id, body_hash)
      );
      CREATE TABLE exchange_checks (
        key_id INTEGER PRIMARY KEY,
        checked_at TEXT NOT NULL
      );
      CREATE TABLE queries (
        id TEXT PRIMARY KEY,
        key_id INTEGER NOT NULL,
        request TEXT NOT NULL,
        status TEXT NOT NULL,
        trade_flavoured INTEGER NOT NULL,
        estimated_credits INTEGER NOT NULL,
        credits INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        cancelled_at TEXT,
        deleted_at TEXT,
        runtime TEXT,
        from_draft TEXT,
        idempotency_key TEXT
      );
      CREATE INDEX queries_key_time ON queries (key_id, created_at DESC, id DESC);
      CREATE INDEX queries_status ON queries (status) WHERE deleted_at IS NULL;
      CREATE UNIQUE INDEX queries_idempotency ON queries (key_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE TABLE drafts (
        id TEXT PRIMARY KEY,
        key_id INTEGER NOT NULL,
        request TEXT NOT NULL,
        trade_flavoured INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        converted_query_id TEXT
      );
      CREATE INDEX drafts_key_time ON drafts (key_id, updated_at DESC, id DESC);
      CREATE TABLE executions (
        id TEXT PRIMARY KEY,
        key_id INTEGER NOT NULL,
        query_id TEXT NOT NULL,
        step_id TEXT NOT NULL,
        type TEXT NOT NULL,
        status TEXT NOT NULL,
        trigger_index INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        attempts INTEGER NOT NULL,
        result TEXT,
        error_code TEXT,
        error_message TEXT
      );
      CREATE INDEX executions_query ON executions (query_id, created_at);
      CREATE INDEX executions_key_time ON executions (key_id, created_at DESC, id DESC);
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        key_id INTEGER NOT NULL,
        query_id TEXT NOT NULL,
        body TEXT NOT NULL,
        executed_at TEXT NOT NULL
      );
      CREATE INDEX sessions_query ON sessions (query_id, executed_at);
      CREATE TABLE notifications (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        key_id INTEGER NOT NULL,
        query_id TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX notifications_key ON notifications (key_id, id);
      CREATE INDEX notifications_query ON notifications (query_id, id);
      CREATE TABLE exchanges (
        key_id INTEGER NOT NULL,
        exchange TEXT NOT NULL,
        credential_type TEXT NOT NULL,
        credentials_sealed TEXT,
        connected_at TEXT NOT NULL,
        PRIMARY KEY (key_id, exchange)
      );
    `,
  },
  {
    version: 2,
    name: 'drafts listed by creation',
    sql: `
      DROP INDEX IF EXISTS drafts_key_time;
      CREATE INDEX drafts_key_created ON drafts (key_id, created_at DESC, id DESC);
    `,
  },
  {
    version: 3,
    name: 'payments and chat sessions',
    sql: `
      CREATE TABLE payment_nonces (
        network TEXT NOT NULL,
        payer TEXT NOT NULL,
        nonce TEXT NOT NULL,
        valid_before INTEGER NOT NULL,
        route TEXT NOT NULL,
        amount TEXT NOT NULL,
        created_at TEXT NOT NULL,
        settlement TEXT,
        PRIMARY KEY (network, payer, nonce)
      );
      CREATE INDEX payment_nonces_expiry ON payment_nonces (valid_before);
      CREATE TABLE chat_sessions (
        id TEXT PRIMARY KEY,
        key_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        analysis_type TEXT,
        state TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX chat_sessions_key ON chat_sessions (key_id, updated_at DESC);
      CREATE TABLE chat_messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES chat_sessions (id),
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        credits INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE INDEX chat_messages_session ON chat_messages (session_id, id);
    `,
  },
  {
    version: 4,
    name: 'key scopes',
    sql: `
      ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '';
    `,
  },
  {
    version: 5,
    name: 'used request signatures',
    // Spec 5.2 signatures accepted once: a digest of each verified signature, per key, kept while its
    // timestamp can still pass the drift check (expires_at, epoch ms), so a replay is refused after a
    // restart and across hosts sharing the database.
    sql: `
      CREATE TABLE used_signatures (
        key_id INTEGER NOT NULL,
        digest TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (key_id, digest)
      ) WITHOUT ROWID;
      CREATE INDEX used_signatures_expiry ON used_signatures (expires_at);
    `,
  },
  {
    version: 6,
    name: 'webhook secrets; secrets of stored requests sealed',
    // Each key gets its own webhook signing secret (rotatable, with the previous one signing too during
    // a grace period). Existing keys start with a copy of their HMAC secret, so receivers that verify
    // with it keep working until the key's webhook secret is rotated.
    sql: `
      ALTER TABLE api_keys ADD COLUMN webhook_secret_sealed TEXT;
      ALTER TABLE api_keys ADD COLUMN previous_webhook_secret_sealed TEXT;
      ALTER TABLE api_keys ADD COLUMN previous_webhook_secret_until TEXT;
      UPDATE api_keys SET webhook_secret_sealed = hmac_secret_sealed;
    `,
    run: sealStoredRequests,
  },
  {
    version: 7,
    name: 'action outbox; paper venue orders',
    // Side effects once across crashes (docs/semantics.md, "Once across restarts"): each action step's
    // outbox entry, written before it runs and completed with its outcome, by its idempotency key
    // (<queryId>:<triggerIndex>:<stepId>); and the paper venue's orders by client order id, so a restarted
    // venue recognises an order it already took and keeps its positions.
    sql: `
      CREATE TABLE action_outbox (
        idempotency_key TEXT PRIMARY KEY,
        key_id INTEGER NOT NULL,
        query_id TEXT NOT NULL,
        trigger_index INTEGER NOT NULL,
        step_id TEXT NOT NULL,
        type TEXT NOT NULL,
        execution_id TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        outcome TEXT
      );
      CREATE INDEX action_outbox_query ON action_outbox (query_id);
      CREATE TABLE paper_orders (
        client_order_id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 8,
    name: 'secret_key_check',
    // A value sealed once with the host's secret key (store/secret-key-check.ts): a host given another
    // key refuses to start, before it seals anything the others cannot open.
    sql: `
      CREATE TABLE secret_key_check (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        sealed TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 9,
    name: 'outbox_pending',
    // The steps whose outcome is not recorded (in flight, or in doubt after a crash): counted at each
    // scrape of /metrics, which must not read the whole outbox.
    sql: `CREATE INDEX action_outbox_pending ON action_outbox (created_at) WHERE status = 'pending';`,
  },
  {
    version: 10,
    name: 'retention',
    sql: RETENTION_INDEXES_SQL,
  },
];

/**
 * Migration 6: bot tokens, webhook headers and webhook URLs of stored queries and drafts are sealed
 * (request-secrets.ts). Needs the secret box when there is anything to seal.
 */
function sealStoredRequests(db: Database.Database, { box }: MigrationContext): void {
  for (const table of ['queries', 'drafts'] as const) {
    const rows = db.prepare(`SELECT id, request FROM ${table}`).all() as Array<{ id: string; request: string }>;
    const update = db.prepare(`UPDATE ${table} SET request = ? WHERE id = ?`);
    for (const row of rows) {
      let request: unknown;
      try {
        request = JSON.parse(row.request);
      } catch {
        continue;
      }
      if (!hasUnsealedSecrets(request)) continue;
      if (!box) throw new Error('migration 6 seals the secrets of stored queries: open the store with the secret box of its host');
      update.run(JSON.stringify(sealRequestSecrets(request as Parameters<typeof sealRequestSecrets>[0], box)), row.id);
    }
  }
}

/** Brings the database to the latest schema version; returns the versions applied. */
export function migrate(db: Database.Database, context: MigrationContext = {}): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((row) => row.version));
  const done: number[] = [];
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      migration.run?.(db, context);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString());
    })();
    done.push(migration.version);
  }
  return done;
}
