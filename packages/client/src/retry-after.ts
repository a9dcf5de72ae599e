/**
 * Waiting out a 429: `retry-after` read as the HTTP spec writes it (delay seconds or an HTTP date), and a
 * fetch that sends a request again after it, a bounded number of times.
 */

/** How the client treats 429 answers. */
export interface RetryPolicy {
  /** How many times a request answered 429 is sent again (default 3; 0 never retries). */
  maxRetries?: number;
  /**
   * The longest wait the client accepts, in milliseconds (default 30 000): a 429 asking for more is
   * returned to the caller (as an `EqlApiError` with `retryAfterSeconds`) instead of waited out.
   */
  maxDelayMs?: number;
  /** The wait when a 429 names none, doubled at each retry (default 1 000 ms; never less than a second, see {@link fetchRetrying429}). */
  defaultDelayMs?: number;
}

/** A function that resolves after `ms` milliseconds, or rejects when `signal` aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Sleeps with `setTimeout`; an abort rejects with the signal's reason. */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * The wait a `retry-after` value asks for, in milliseconds: delay seconds (`"120"`) or an HTTP date
 * (`"Wed, 21 Oct 2026 07:28:00 GMT"`, measured from `nowMs`); undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (!Number.isFinite(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The shortest wait before a request is sent again. */
const MIN_RETRY_DELAY_MS = 1_000;

/** The `retry-after` of a response in whole seconds (rounded up), or undefined when it names none. */
export function retryAfterSeconds(response: Response, nowMs: number): number | undefined {
  const ms = retryAfterMs(response.headers.get('retry-after'), nowMs);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/** What {@link fetchRetrying429} needs: the policy, a clock and a sleep (both replaceable in tests). */
export interface RetryContext {
  policy: RetryPolicy;
  /** The clock in milliseconds (for `retry-after` dates). */
  now: () => number;
  sleep: Sleep;
}

/**
 * Sends a request made by `attempt` (called again for each try, so that a signature gets a fresh
 * timestamp) and, while the host answers 429 and the policy allows it, waits the time it asked for and
 * sends it again. The last answer is returned as it is, 429 included.
 */
export async function fetchRetrying429(attempt: () => Promise<Response>, context: RetryContext, signal?: AbortSignal): Promise<Response> {
  const maxRetries = context.policy.maxRetries ?? 3;
  const maxDelayMs = context.policy.maxDelayMs ?? 30_000;
  const defaultDelayMs = context.policy.defaultDelayMs ?? 1_000;
  for (let retry = 0; ; retry += 1) {
    const response = await attempt();
    if (response.status !== 429 || retry >= maxRetries) return response;
    const asked = retryAfterMs(response.headers.get('retry-after'), context.now());
    // At least a second: a signed request sent again within the same second would carry the same
    // timestamp and signature, which the host refuses as a replay.
    const delay = Math.max(MIN_RETRY_DELAY_MS, asked ?? defaultDelayMs * 2 ** retry);
    if (delay > maxDelayMs) return response;
    await response.body?.cancel();
    await context.sleep(delay, signal);
  }
}
