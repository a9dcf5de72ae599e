import pg from 'pg';

/**
 * How long a session of the host may wait or hold on (ms; 0 is no limit), set on every connection of
 * the host's pools when it opens (startup parameters: no statement is added to any request).
 */
export interface PgSessionTimeouts {
  /** Longest statement (EQL_PG_STATEMENT_TIMEOUT_MS; default 30,000): a statement stuck behind anything is cancelled. */
  statementMs: number;
  /** Longest wait for a lock, advisory locks included (EQL_PG_LOCK_TIMEOUT_MS; default 10,000): one session holding a lock cannot stall the writers behind it for longer. */
  lockMs: number;
  /** Longest a session may sit in an open transaction doing nothing (EQL_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS; default 60,000): the server ends it and its locks go. */
  idleInTransactionMs: number;
}

export const DEFAULT_PG_SESSION_TIMEOUTS: Readonly<PgSessionTimeouts> = { statementMs: 30_000, lockMs: 10_000, idleInTransactionMs: 60_000 };

/**
 * The timeouts of a PostgreSQL host's sessions: a session idles in a transaction at most the lease TTL
 * (5 s at least) unless the operator set it (EQL_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS). A host paused inside
 * a fenced write holds its partition's lease row share-locked (`checkFence`), and the take-over of that
 * partition waits until the paused session ends: the server ends it after this long.
 */
export function hostSessionTimeouts(leaseTtlMs: number, configured: Partial<PgSessionTimeouts> | undefined): Partial<PgSessionTimeouts> {
  return { idleInTransactionMs: Math.max(leaseTtlMs, 5_000), ...configured };
}

/** Options of {@link openPgPool}. */
export interface PgPoolOptions {
  /** Most connections (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection (ms; default 10,000). */
  connectionTimeoutMs?: number;
  /** The sessions' timeouts (default {@link DEFAULT_PG_SESSION_TIMEOUTS}). */
  timeouts?: Partial<PgSessionTimeouts>;
}

/**
 * A pool on `url` whose sessions carry the host's timeouts, and that survives the server dropping an idle
 * connection (a restart of PostgreSQL): without a listener its `error` event would end the process; the
 * pool drops the connection and the next query opens a new one. A timeout the URL sets itself
 * (`?statement_timeout=...`) is the URL's.
 */
export function openPgPool(url: string, options: PgPoolOptions = {}): pg.Pool {
  const timeouts = { ...DEFAULT_PG_SESSION_TIMEOUTS, ...options.timeouts };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
  });
  pool.on('error', () => undefined);
  return pool;
}
