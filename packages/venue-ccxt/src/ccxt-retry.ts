import { retry, throwError, timer, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { isPermanentCcxtError } from './ccxt-errors.js';

/** The delays of {@link retryTransient}: doubling from `baseMs` up to `maxMs`, timed on `scheduler`. */
export interface BackoffOptions {
  /** First delay after a failure. */
  baseMs: number;
  /** Upper bound of the doubling delay. */
  maxMs: number;
  /** The scheduler the delays run on (a virtual-time one in tests). */
  scheduler: SchedulerLike;
  /** Errors that must not be retried; by default ccxt's permanent kinds (bad symbol, auth, ...). */
  isPermanent?: (error: unknown) => boolean;
}

/** Exponential backoff delay for the n-th consecutive failure (n from 1). */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 30));
}

/**
 * Resubscribes after transient failures with exponential backoff, without limit, resetting the count
 * after each success; permanent failures pass through as errors.
 */
export function retryTransient<T>(options: BackoffOptions): MonoTypeOperatorFunction<T> {
  const isPermanent = options.isPermanent ?? isPermanentCcxtError;
  return retry({
    resetOnSuccess: true,
    delay: (error: unknown, attempt: number) =>
      isPermanent(error) ? throwError(() => error) : timer(backoffDelay(attempt, options.baseMs, options.maxMs), options.scheduler),
  });
}
