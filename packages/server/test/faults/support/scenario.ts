import { afterEach, expect, it } from 'vitest';
import { killChildren } from '../../support/child-host.js';
import { type FaultCluster, startFaultCluster } from './fault-cluster.js';
import { failures, report } from './verdict.js';

/**
 * One fault scenario as a test: a fresh cluster and reference, 60 ticks of warm-up, then the fault
 * under a steady firing load (a tick every 100 ms), 60 ticks after it, and the verdict printed and
 * asserted (its failures, one readable line each).
 */
export function faultScenario(label: string, name: string, fault: (cluster: FaultCluster) => Promise<void>): void {
  let cluster: FaultCluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
    killChildren();
  });
  it(name, async () => {
    cluster = await startFaultCluster(label);
    await cluster.publish(60);
    const stopLoad = cluster.keepPublishing();
    try {
      await fault(cluster);
    } finally {
      await stopLoad();
    }
    await cluster.publish(60);
    const verdict = await cluster.verdict(name);
    console.log(report(verdict));
    expect(failures(verdict)).toEqual([]);
  });
}
