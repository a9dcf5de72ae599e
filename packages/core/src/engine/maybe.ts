import { from, type Observable, of } from 'rxjs';
import type { MaybePromise } from './interfaces.js';

/** A value that may be a promise, as an observable: synchronous values stay synchronous (virtual time needs it). */
export function settle<T>(value: MaybePromise<T>): Observable<T> {
  return value instanceof Promise ? from(value) : of(value);
}

export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
