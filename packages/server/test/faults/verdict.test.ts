import { describe, expect, it } from 'vitest';
import type { Ledger } from './support/ledger.js';
import { compare, failures, judge, MAX_NO_OWNER_SECONDS, report } from './support/verdict.js';

// The fault harness's verdict (npm run test:faults) checked on its own, in the main suite: it must
// count a missing, an extra and a doubled record, and say so in one line each.

const ledger = (notifications: string[], counts: [string, number][] = [['q-1', 2]]): Ledger => ({
  notifications,
  executions: notifications.map((key) => ({ key: key.split('|').slice(0, 3).join('|'), status: 'succeeded' })),
  triggerCounts: new Map(counts),
});

describe('fault verdict', () => {
  it('counts missing, extra and twice as sets with repeats', () => {
    expect(compare(['a', 'b', 'c'], ['a', 'c', 'c', 'd'])).toMatchObject({ expected: 3, got: 4, missing: 1, extra: 1, twice: 1, examples: { missing: ['b'], extra: ['d'], twice: ['c x2'] } });
    expect(compare(['a'], ['a'])).toMatchObject({ missing: 0, extra: 0, twice: 0 });
  });

  it('holds only when everything matches, and names each failure', () => {
    const reference = ledger(['q-1|1|tell|t1', 'q-1|2|tell|t2']);
    const same = judge({ scenario: 'same', settled: true, ticks: 10, reference, cluster: reference, referenceDeliveries: [], clusterDeliveries: [], backwards: [], exitedOnTheirOwn: [], longestNoOwnerSeconds: 1, longestSomeUnownedSeconds: 2 });
    expect(failures(same)).toEqual([]);
    expect(report(same)).toContain('HELD');
    const broken = judge({
      scenario: 'broken',
      settled: false,
      ticks: 10,
      reference,
      cluster: ledger(['q-1|1|tell|t1', 'q-1|1|tell|t1', 'q-1|3|tell|t9'], [['q-1', 1]]),
      referenceDeliveries: [{ key: 'q-1|1', webhookId: 'x:1:hook' }],
      clusterDeliveries: [
        { key: 'q-1|1', webhookId: 'y:1:hook' },
        { key: 'q-1|1', webhookId: 'y:7:hook' },
      ],
      backwards: ['q-1: 2 -> 1'],
      exitedOnTheirOwn: ['n-1 exited with 1: boom'],
      longestNoOwnerSeconds: MAX_NO_OWNER_SECONDS + 1,
      longestSomeUnownedSeconds: 30,
    });
    expect(failures(broken)).toEqual([
      'did not settle: the cluster or the reference never passed the last tick',
      'notifications: 1 missing, 1 extra, 1 twice (of 2 expected, 3 stored)',
      'executions: 1 missing, 1 extra, 1 twice (of 2 expected, 3 stored)',
      'webhooks: 0 missing, 0 extra, 1 twice (of 1 expected, 2 stored)',
      'trigger counts moved backwards for 1 queries (q-1: 2 -> 1)',
      'final trigger counts differ for 1 queries (q-1: 1 vs 2)',
      '1 host exit(s) on their own',
      `no partition owned for ${MAX_NO_OWNER_SECONDS + 1} s while a majority lived (bound ${MAX_NO_OWNER_SECONDS} s)`,
    ]);
    expect(report(broken)).toContain('BROKEN');
  });

  it('takes each webhook-id once, as the documented receiver does: a resend with the same id holds and is noted', () => {
    const reference = ledger(['q-1|1|tell|t1']);
    const deliveries = (...ids: string[]) => ids.map((webhookId) => ({ key: 'q-1|1', webhookId }));
    const base = { scenario: 'resend', settled: true, ticks: 10, reference, cluster: reference, referenceDeliveries: deliveries('x:1:hook'), backwards: [], exitedOnTheirOwn: [], longestNoOwnerSeconds: 1, longestSomeUnownedSeconds: 2 };
    const resent = judge({ ...base, clusterDeliveries: deliveries('y:1:hook', 'y:1:hook') });
    expect(failures(resent)).toEqual([]);
    expect(resent.webhooks).toMatchObject({ got: 1, twice: 0 });
    expect(resent.notes).toEqual(['1 webhook-id(s) delivered more than once (the same id each time: a receiver deduplicating by webhook-id sees each once)']);
    const firedTwice = judge({ ...base, clusterDeliveries: deliveries('y:1:hook', 'y:2:hook') });
    expect(failures(firedTwice)).toEqual(['webhooks: 0 missing, 0 extra, 1 twice (of 1 expected, 2 stored)']);
    expect(failures(judge({ ...base, clusterDeliveries: [] }))).toEqual(['webhooks: 1 missing, 0 extra, 0 twice (of 1 expected, 0 stored)']);
  });
});
