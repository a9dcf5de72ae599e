/**
 * Retry delays: exponential from `baseMs`, capped at `maxMs`, with "equal jitter" (half fixed, half
 * random) so that many failing deliveries do not retry in lockstep. `retryAfterMs`, when a server
 * sent one, wins (capped too).
 */
export interface BackoffPolicy {
  maxAttempts: number;
  baseMs: number;
  maxMs: number;
  /** A random number in [0, 1); injectable for reproducible tests. */
  random: () => number;
}

/**
 * The retry policy of webhook and messenger bot deliveries unless configured: 4 attempts, delays from 1 s up to
 * 30 s.
 */
export const DEFAULT_BACKOFF: BackoffPolicy = { maxAttempts: 4, baseMs: 1_000, maxMs: 30_000, random: Math.random };

/**
 * How long to wait after attempt number `attempt` failed (1 after the first attempt) under `policy`: the
 * server's `retryAfterMs` when it sent one, else the jittered exponential delay; capped at `maxMs` either way.
 */
export function retryDelayMs(policy: BackoffPolicy, attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) return Math.min(policy.maxMs, retryAfterMs);
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * policy.random());
}

/** Seconds or an HTTP date in a Retry-After header, as milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^[0-9]+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
