// A crash point for kill -9 tests, loaded into `eql serve` with `node --import` (crash-once.test.ts).
// With EQL_TEST_CRASH_AFTER=<method> (a SqliteStore method, such as savePaperOrders), the process stops
// dead at the first moment the write of the first call of that method is in the database: right after
// the call, or, when the call is one of the engine's writes grouped into the transaction of an instant
// (`SqliteStore.together`), right after that transaction commits. It prints `crash-point: <method>` and
// blocks the main thread for good, so nothing after that moment happens until the test, which waits for
// that line, kills it with SIGKILL. The host's own code is not changed.
import { writeSync } from 'node:fs';
import { SqliteStore } from '@eql/server';

const method = process.env.EQL_TEST_CRASH_AFTER;
if (method) {
  const original = SqliteStore.prototype[method];
  if (typeof original !== 'function') throw new Error(`crash-point: SqliteStore has no method ${method}`);
  const stop = () => {
    writeSync(1, `crash-point: ${method}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  };
  let atCommit = false;
  SqliteStore.prototype[method] = function crashAfter(...args) {
    const result = original.apply(this, args);
    // Inside a group the write is durable only once the group commits.
    if (this.grouping) atCommit = true;
    else stop();
    return result;
  };
  const together = SqliteStore.prototype.together;
  SqliteStore.prototype.together = function crashAfterCommit(work) {
    together.call(this, work);
    // The outermost group has committed (a nested one returns inside its group).
    if (atCommit && !this.grouping) stop();
  };
}
