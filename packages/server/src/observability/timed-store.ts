import type { Histogram } from 'prom-client';
import type { HostStore } from '../store/store.js';

/** Not store calls: `together` runs the engine's work of an instant (its writes are timed one by one), `close` ends the store. */
const UNTIMED = new Set(['constructor', 'together', 'close']);

/**
 * The store with each method call timed into `histogram` (by method and outcome): a Proxy, so every
 * method of both stores is covered without a list to keep. Methods run on the store itself (`this` is
 * the target: private fields work); other properties (a SQLite store's `db`, a PostgreSQL store's `pool`)
 * read through; `instanceof` sees the store's class. A call that returns a promise is timed until it settles.
 */
export function timedStore<S extends HostStore>(store: S, histogram: Histogram<'method' | 'outcome'>): S {
  // By the function itself: a method replaced on the store (a test's stand-in) is wrapped anew.
  const wrapped = new WeakMap<object, unknown>();
  return new Proxy(store, {
    get(target, property) {
      // Read on the store itself: a getter reading a private field must see the store, not the proxy.
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function' || typeof property !== 'string' || UNTIMED.has(property)) return value;
      const method = value as (...args: unknown[]) => unknown;
      const known = wrapped.get(method);
      if (known !== undefined) return known;
      const timed = function (this: unknown, ...args: unknown[]): unknown {
        const started = performance.now();
        const done = (outcome: 'ok' | 'error') => histogram.observe({ method: property, outcome }, (performance.now() - started) / 1000);
        let result: unknown;
        try {
          result = method.apply(target, args);
        } catch (error) {
          done('error');
          throw error;
        }
        if (result instanceof Promise) {
          return result.then(
            (settled: unknown) => {
              done('ok');
              return settled;
            },
            (error: unknown) => {
              done('error');
              throw error;
            },
          );
        }
        done('ok');
        return result;
      };
      wrapped.set(method, timed);
      return timed;
    },
  });
}
