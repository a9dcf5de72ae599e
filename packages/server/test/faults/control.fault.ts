import { afterEach, describe, expect, it } from 'vitest';
import { killChildren } from '../support/child-host.js';
import { type FaultCluster, startFaultCluster } from './support/fault-cluster.js';
import { failures, report } from './support/verdict.js';

// The harness's own check: no fault at all. The cluster must match the reference exactly; if it does
// not, a scenario's failure says nothing about faults.

let cluster: FaultCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
  killChildren();
});

describe('fault harness control: no fault', () => {
  it('the cluster stores what the reference stores', async () => {
    cluster = await startFaultCluster('control');
    await cluster.publish(300);
    const verdict = await cluster.verdict('no fault (control)');
    console.log(report(verdict));
    expect(failures(verdict)).toEqual([]);
  });
});
