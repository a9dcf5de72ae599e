import { describe } from 'vitest';
import { faultScenario } from './support/scenario.js';

// Scenario 2 of issue 46: PostgreSQL crashed (`stop immediate`) under a firing load and started
// again. The hosts must live through it (none exits) and take their partitions again.

async function storeDown(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/ready`, { signal: AbortSignal.timeout(1_500) })).status !== 200;
  } catch {
    return true;
  }
}

describe('fault: PostgreSQL stopped and started again', () => {
  faultScenario('pgrestart', 'PostgreSQL stop immediate under load, start again', async (c) => {
    await c.postgres.stop('immediate');
    // Down until every host has seen it (its /ready is no 200), or a few leases passed.
    await c.waitUntil(async () => (await Promise.all(c.slots.filter((slot) => slot.child).map((slot) => storeDown(/listening on (http:\/\/\S+)/.exec(slot.child!.output())![1]!)))).every(Boolean), c.leaseTtlMs * 4);
    await c.postgres.start();
    await c.waitUntil(() => c.allOwned(), 60_000);
    await c.reviveExited();
    await c.waitUntil(() => c.balanced());
  });
});
