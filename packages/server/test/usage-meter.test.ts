import { expect, it } from 'vitest';
import { UsageMeter } from '../src/metering/usage-meter.js';
import type { HostStore } from '../src/store/store.js';

// The request counts of the quotas are written once a second; a write that fails (PostgreSQL restarting)
// keeps them for the next write, and never ends the process as an unhandled rejection (issue 46).

it('keeps the counts a failed write could not store, and writes them with the next flush; the timer swallows the failure', async () => {
  const written: number[] = [];
  let failing = true;
  const store = {
    usage: () => Promise.resolve({ daily: 0, monthly: 0 }),
    addRequests: (_keyId: number, _day: string, count: number) => {
      if (failing) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
      written.push(count);
      return Promise.resolve();
    },
  } as unknown as HostStore;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  // A timer flush every 5 ms while the store fails.
  const meter = new UsageMeter(store, 5);
  try {
    await meter.count(1, '2026-01-05');
    await meter.count(1, '2026-01-05');
    await expect(meter.flush()).rejects.toThrow(/ECONNREFUSED/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await meter.usage(1, '2026-01-05')).toEqual({ daily: 2, monthly: 2 });
    failing = false;
    await meter.flush();
    expect(written).toEqual([2]);
    expect(await meter.usage(1, '2026-01-05')).toEqual({ daily: 2, monthly: 2 });
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await meter.close();
  }
});
