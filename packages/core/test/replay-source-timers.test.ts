import { describe, expect, it } from 'vitest';
import { type Subscription, take } from 'rxjs';
import { Engine, EpochVirtualScheduler, MemoryStateStore, type Observation, type QueryRequest, ReplaySource } from '@eql/core';

// A looping replay never ends: a timer it leaves scheduled once nobody listens keeps a host's event
// loop alive for ever (SIGTERM no longer stopped `eql serve` after a query fired on the replay feed).
// On virtual time, "no timer left" is "no action pending on the scheduler".

const T0 = Date.parse('2026-01-05T00:00:00Z');
const MINUTE = 60_000;

/** BTC and ETH every minute for ten minutes; BTC is 100, then 200 from minute 5. */
function recording(): Observation[] {
  const observations: Observation[] = [];
  for (let minute = 0; minute < 10; minute += 1) {
    observations.push({ at: T0 + minute * MINUTE, source: 'price', symbol: 'BTC', price: minute < 5 ? 100 : 200 });
    observations.push({ at: T0 + minute * MINUTE, source: 'price', symbol: 'ETH', price: 10 });
  }
  return observations;
}

function setup(start = T0) {
  const scheduler = new EpochVirtualScheduler(start);
  const source = new ReplaySource(recording(), { scheduler, loop: true });
  /** Scheduled actions not cancelled: what would hold a real event loop. */
  const pending = () => scheduler.actions.filter((action) => !action.closed).length;
  return { scheduler, source, pending };
}

const priceOf = (observation: Observation): number | undefined => (observation.source === 'price' ? observation.price : undefined);

describe('ReplaySource timers (loop: true)', () => {
  it('keeps a timer while someone listens and none once the last subscriber unsubscribes', () => {
    const { scheduler, source, pending } = setup();
    const seen: number[] = [];
    const subscription = source.observe({ source: 'price', symbol: 'BTC' }).subscribe((observation) => seen.push(observation.at));
    expect(pending()).toBe(1);
    scheduler.advanceBy(3 * MINUTE);
    expect(seen.length).toBeGreaterThan(0);
    expect(pending()).toBe(1);
    subscription.unsubscribe();
    expect(pending()).toBe(0);
    const count = seen.length;
    scheduler.advanceBy(60 * MINUTE);
    expect(seen).toHaveLength(count);
    expect(pending()).toBe(0);
  });

  it('leaves no timer when the last subscriber unsubscribes from inside its callback while due observations are handed out', () => {
    const { scheduler, source, pending } = setup();
    const seen: number[] = [];
    // Like the engine detaching a query that fired: the unsubscription happens inside emitDue.
    const subscription: Subscription = source.observe({ source: 'price', symbol: 'BTC' }).subscribe((observation) => {
      seen.push(priceOf(observation) ?? NaN);
      if ((priceOf(observation) ?? 0) > 150) subscription.unsubscribe();
    });
    expect(pending()).toBe(1);
    // The replay reaches BTC 200 at minute 5, on the replay's timer.
    scheduler.advanceTo(T0 + 5 * MINUTE);
    expect(seen.at(-1)).toBe(200);
    expect(subscription.closed).toBe(true);
    expect(pending()).toBe(0);
    scheduler.advanceBy(60 * MINUTE);
    expect(seen.filter((price) => price === 200)).toHaveLength(1);
    expect(pending()).toBe(0);
  });

  it('leaves no timer when the last subscriber leaves inside the callback at the end of a lap (the loop wraps in emitDue)', () => {
    const { scheduler, source, pending } = setup();
    const seen: number[] = [];
    const subscription: Subscription = source.observe({ source: 'price', symbol: 'ETH' }).subscribe((observation) => {
      seen.push(observation.at);
      if (observation.at >= T0 + 9 * MINUTE) subscription.unsubscribe();
    });
    scheduler.advanceTo(T0 + 9 * MINUTE);
    expect(seen.at(-1)).toBe(T0 + 9 * MINUTE);
    expect(pending()).toBe(0);
  });

  it('keeps its timer while another topic still listens, and drops it when that one leaves from inside its callback', () => {
    const { scheduler, source, pending } = setup();
    const btc: number[] = [];
    const eth: number[] = [];
    const btcSubscription: Subscription = source.observe({ source: 'price', symbol: 'BTC' }).subscribe((observation) => {
      btc.push(observation.at);
      if (observation.at >= T0 + 2 * MINUTE) btcSubscription.unsubscribe();
    });
    const ethSubscription: Subscription = source.observe({ source: 'price', symbol: 'ETH' }).subscribe((observation) => {
      eth.push(observation.at);
      if (observation.at >= T0 + 4 * MINUTE) ethSubscription.unsubscribe();
    });
    scheduler.advanceTo(T0 + 3 * MINUTE);
    expect(btcSubscription.closed).toBe(true);
    expect(pending()).toBe(1);
    expect(eth.at(-1)).toBe(T0 + 3 * MINUTE);
    scheduler.advanceTo(T0 + 4 * MINUTE);
    expect(eth.at(-1)).toBe(T0 + 4 * MINUTE);
    expect(pending()).toBe(0);
    expect(btc.at(-1)).toBe(T0 + 2 * MINUTE);
  });

  it('leaves no timer when the subscriber leaves on the latest price it gets at subscribe, and replays again for a new subscriber', () => {
    const { scheduler, source, pending } = setup(T0 + 90_000);
    const first: number[] = [];
    // take(1) unsubscribes inside the callback of the first value: the latest price, given at subscribe.
    source
      .observe({ source: 'price', symbol: 'BTC' })
      .pipe(take(1))
      .subscribe((observation) => first.push(observation.at));
    expect(first).toEqual([T0 + 90_000]);
    expect(pending()).toBe(0);

    // The replay still serves whoever comes next, from where the clock is.
    const again: number[] = [];
    const next = source.observe({ source: 'price', symbol: 'BTC' }).subscribe((observation) => again.push(observation.at));
    expect(pending()).toBe(1);
    scheduler.advanceTo(T0 + 3 * MINUTE);
    expect(again).toEqual([T0 + 90_000, T0 + 2 * MINUTE, T0 + 3 * MINUTE]);
    next.unsubscribe();
    expect(pending()).toBe(0);
  });

  it('leaves nothing scheduled after an engine query fires on the replay and detaches', () => {
    const { scheduler, source, pending } = setup();
    const engine = new Engine({ scheduler, sources: [source], store: new MemoryStateStore() });
    const request = {
      title: 'BTC above 150',
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 150 }] },
        actions: [{ stepId: 'n', type: 'notify', params: { message: 'fired' } }],
        expiresIn: '1d',
      },
    } as QueryRequest;
    engine.add({ queryId: 'q', request, createdAt: T0 });
    expect(pending()).toBeGreaterThan(0);
    scheduler.advanceTo(T0 + 5 * MINUTE);
    expect(engine.inspect('q')?.status).toBe('triggered');
    expect(pending()).toBe(0);
    engine.dispose();
  });
});
