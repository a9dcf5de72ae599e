// A crash point for kill -9 tests, loaded into `eql serve` with `node --import` (crash-once.test.ts).
// With EQL_TEST_CRASH_AFTER=<method> (a SqliteStore method, such as savePaperOrder), the first call of
// that method runs (its write is in the database), then the process prints `crash-point: <method>` and
// stops dead: the main thread blocks for good, so nothing after the write happens until the test,
// which waits for that line, kills it with SIGKILL. The host's own code is not changed.
import { writeSync } from 'node:fs';
import { SqliteStore } from '@eql/server';

const method = process.env.EQL_TEST_CRASH_AFTER;
if (method) {
  const original = SqliteStore.prototype[method];
  if (typeof original !== 'function') throw new Error(`crash-point: SqliteStore has no method ${method}`);
  SqliteStore.prototype[method] = function crashAfter(...args) {
    const result = original.apply(this, args);
    writeSync(1, `crash-point: ${method}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    return result;
  };
}
