import { afterEach, describe, expect, it } from 'vitest';
import { killChildren } from '../support/child-host.js';
import { type FaultCluster, startFaultCluster } from './support/fault-cluster.js';
import { failures, report } from './support/verdict.js';

// Scenario 1 of issue 46: one host killed (SIGKILL) under a firing load and started again. Its
// partitions expire and go to the others, then come back: every notification, execution and webhook
// delivery is the reference's.

let cluster: FaultCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
  killChildren();
});

describe('fault: one host killed and restarted', () => {
  it('keeps every alert, once, against the reference', async () => {
    cluster = await startFaultCluster('kill1');
    const c = cluster;
    await c.publish(60);
    const load = c.publish(240);
    await c.waitUntil(() => Promise.resolve(c.ticks() >= 100));
    await c.kill(0);
    // The others take its partitions (state: the two live hosts own all), then it comes back.
    await c.waitUntil(() => c.allOwned());
    await c.waitUntil(() => Promise.resolve(c.ticks() >= 180));
    await c.restart(0);
    await c.waitUntil(() => c.allOwned());
    await load;
    await c.publish(60);
    const verdict = await c.verdict('kill -9 one host, restart');
    console.log(report(verdict));
    expect(failures(verdict)).toEqual([]);
  });
});
