/**
 * Errors that say the database cannot answer now, not that the request or the host is wrong: PostgreSQL
 * restarting or unreachable, a connection cut, the pool out of connections, a statement or lock wait cut
 * off by the session's timeouts. A request that meets one answers 503 with `Retry-After` (http/errors.ts),
 * so a client retries instead of taking a 500 for a bug.
 */

/** Node's socket errors when the server is down or unreachable. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that will not serve now: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
 * cannot_connect_now (starting or in recovery), 53300 too_many_connections; the whole class 08
 * (connection exception) is matched by its prefix.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** SQLSTATEs of the session's own timeouts (store/pg/pg-pool.ts): 57014 query_canceled (statement_timeout), 55P03 lock_not_available (lock_timeout). */
const BUSY_STATES = new Set(['57014', '55P03']);

/** node-postgres' and pg-pool's messages for a connection that broke or could not be had. */
const CONNECTION_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /is not queryable/, /^Cannot use a pool after calling end/];

export type DatabaseTrouble = 'unavailable' | 'busy';

/** Whether `error` (or an error it wraps: `cause`, an AggregateError's errors) is the database being down or busy. */
export function databaseTrouble(error: unknown, depth = 0): DatabaseTrouble | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'unavailable';
    if (BUSY_STATES.has(code)) return 'busy';
  }
  if (typeof message === 'string' && CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) return 'unavailable';
  const inners: unknown[] = [cause, ...(Array.isArray(errors) ? (errors as unknown[]) : [])];
  for (const inner of inners) {
    const trouble = databaseTrouble(inner, depth + 1);
    if (trouble) return trouble;
  }
  return undefined;
}
