import { from, type Observable, of } from 'rxjs';
import type { MaybePromise } from './interfaces.js';

/** A value that may be a promise, as an observable: synchronous values stay synchronous (virtual time needs it). */
export function settle<T>(value: MaybePromise<T>): Observable<T> {
  return value instanceof Promise ? from(value) : of(value);
}

let lastEpochMs = Number.NaN;
let lastIso = '';

/** An instant as ISO 8601. A trigger writes the same instant several times (records, outbox, notification): the last one is kept. */
export function isoTime(epochMs: number): string {
  if (epochMs !== lastEpochMs) {
    lastIso = new Date(epochMs).toISOString();
    lastEpochMs = epochMs;
  }
  return lastIso;
}
