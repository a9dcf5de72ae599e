import pg from 'pg';
import { describe } from 'vitest';
import { faultScenario } from './support/scenario.js';

// Scenario 4 of issue 46: a database session holding the alert path's lock while one host is killed.
// It takes `LOCK TABLE notifications IN EXCLUSIVE MODE` (every notification insert waits on it, however
// the store orders its ids: one global advisory lock or a lock per key) and holds it for four lease
// TTLs. The lease loop must not wait behind it: the survivors keep beating and take the killed host's
// partitions, and no alert is lost once the lock goes.

describe('fault: a session holding the alert path\'s lock', () => {
  faultScenario('lock', 'a session locks notifications, one host killed meanwhile', async (c) => {
    const blocker = new pg.Client({ connectionString: c.postgres.url });
    blocker.on('error', () => undefined);
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE notifications IN EXCLUSIVE MODE');
      await c.kill(1);
      // The lock is the fault: held for a fixed span, as a session left open would be.
      await new Promise((resolve) => setTimeout(resolve, c.leaseTtlMs * 4));
      await blocker.query('COMMIT');
    } finally {
      await blocker.end().catch(() => undefined);
    }
    await c.restart(1);
    await c.waitUntil(() => c.balanced());
  });
});
