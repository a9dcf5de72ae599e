import { from, isObservable, type Observable, type ObservableInput, observable, of, type Subscription } from 'rxjs';
import { formatIsoTime } from '../util/instant.js';
import type { MaybePromise } from './interfaces.js';

/** A value that may be a promise, as an observable: synchronous values stay synchronous (virtual time needs it). */
export function settle<T>(value: MaybePromise<T>): Observable<T> {
  return value instanceof Promise ? from(value) : of(value);
}

/** What {@link consume} accepts: a value, a promise of one, or an observable input whose first value counts. */
export type Eventually<T> = T | Promise<T> | ObservableInput<T>;

/** The error of an observable that completed without a value. */
export const finishedEmpty = (): unknown => new Error('finished without a value');

/**
 * Calls `produce` and hands its outcome to `next`, or what it threw or rejected with to `fail`, each exactly
 * once. A plain value and an observable that emits at once are handed over synchronously (virtual time and
 * the engine's batches need it; a promise is awaited as `from(promise)` would). Of an observable, the first
 * value counts and the subscription is closed; one that completes without a value fails with `empty`'s
 * error.
 *
 * The engine's hot path (a trigger and its actions) uses this instead of an operator chain per step: no
 * observable is built when the store and the executor answer synchronously.
 */
export function consume<T>(produce: () => Eventually<T>, next: (value: T) => void, fail: (error: unknown) => void, empty: () => unknown = finishedEmpty): void {
  let input: Eventually<T>;
  try {
    input = produce();
  } catch (error) {
    fail(error);
    return;
  }
  consumeAnswer(input, next, fail, empty);
}

/** {@link consume} of an answer already produced (a value, a promise or an observable input). */
export function consumeAnswer<T>(input: Eventually<T>, next: (value: T) => void, fail: (error: unknown) => void, empty: () => unknown = finishedEmpty): void {
  if (input instanceof Promise) {
    input.then(next, fail);
    return;
  }
  if (!isObservableInput(input)) {
    next(input as T);
    return;
  }
  let done = false;
  const handle: { subscription?: Subscription } = {};
  const subscription = (isObservable(input) ? input : from(input as ObservableInput<T>)).subscribe({
    next: (value) => {
      if (done) return;
      done = true;
      handle.subscription?.unsubscribe();
      next(value);
    },
    error: (error: unknown) => {
      if (done) return;
      done = true;
      fail(error);
    },
    complete: () => {
      if (done) return;
      done = true;
      fail(empty());
    },
  });
  handle.subscription = subscription;
  // A value delivered during subscribe could not unsubscribe yet.
  if (done) subscription.unsubscribe();
}

/** Whether an answer must be waited for (a promise or an observable input); a plain value is taken at once. */
export function isPendingAnswer(value: unknown): boolean {
  return value instanceof Promise || isObservableInput(value);
}

function isObservableInput(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (isObservable(value) || Array.isArray(value)) return true;
  const candidate = value as Record<PropertyKey, unknown>;
  return (
    typeof candidate.then === 'function' ||
    typeof candidate[Symbol.iterator] === 'function' ||
    typeof candidate[Symbol.asyncIterator] === 'function' ||
    typeof candidate.getReader === 'function' ||
    typeof candidate[observable] === 'function'
  );
}

let lastEpochMs = Number.NaN;
let lastIso = '';

/** An instant as ISO 8601. A trigger writes the same instant several times (records, outbox, notification): the last one is kept. */
export function isoTime(epochMs: number): string {
  if (epochMs !== lastEpochMs) {
    lastIso = formatIsoTime(epochMs);
    lastEpochMs = epochMs;
  }
  return lastIso;
}
