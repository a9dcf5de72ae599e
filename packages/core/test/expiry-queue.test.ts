import fc from 'fast-check';
import { Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ExpiryQueue, type Expiring } from '../src/engine/expiry-queue.js';

// The queue expires exactly the items still queued whose instant has come, each once, in the order of
// their instants, over any program of adds, removes (of any item, queued or not, at any place in the
// heap) and moves of the clock: checked against a plain list of the queued items. Instants come from a
// small range so that many are equal, and removes take items from the top, the middle and the end of the
// heap; programs of phases that fill the queue and then empty it reach deep heaps and remove from them.

interface Item extends Expiring {
  readonly id: number;
}

/** A clock with timers: advancing it runs the due timers that were not cancelled, in the order of their instants. */
class ManualClock {
  at = 0;
  private timers: Array<{ at: number; work: () => void; cancelled: boolean }> = [];

  schedule = (delayMs: number, work: () => void): Subscription => {
    const timer = { at: this.at + delayMs, work, cancelled: false };
    this.timers.push(timer);
    return new Subscription(() => {
      timer.cancelled = true;
    });
  };

  /** Timers neither cancelled nor run. */
  get pending(): number {
    this.timers = this.timers.filter((timer) => !timer.cancelled);
    return this.timers.length;
  }

  advanceTo(at: number): void {
    for (;;) {
      let due: { at: number; work: () => void; cancelled: boolean } | undefined;
      for (const timer of this.timers) if (!timer.cancelled && timer.at <= at && (!due || timer.at < due.at)) due = timer;
      if (!due) break;
      due.cancelled = true;
      this.at = Math.max(this.at, due.at);
      due.work();
    }
    this.at = at;
  }
}

type Step = { kind: 'add'; id: number; lifetime: number } | { kind: 'remove'; id: number } | { kind: 'advance'; by: number };

/** A phase of a program: its own mix of adds and removes (some fill the queue, some empty it). */
const phase: fc.Arbitrary<Step[]> = fc.constantFrom(1, 5, 9).chain((addWeight) =>
  fc.array(
    fc.oneof(
      { weight: addWeight, arbitrary: fc.record({ kind: fc.constant('add' as const), id: fc.nat(400), lifetime: fc.integer({ min: 0, max: 4000 }) }) },
      { weight: 10 - addWeight, arbitrary: fc.record({ kind: fc.constant('remove' as const), id: fc.nat(400) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 40 }) }) },
    ),
    { maxLength: 400, size: 'max' },
  ),
);
/** Programs of a few phases. */
const program: fc.Arbitrary<Step[]> = fc.array(phase, { minLength: 1, maxLength: 5, size: 'max' }).map((phases) => phases.flat());

describe('ExpiryQueue', () => {
  it('expires exactly the queued items whose instant came, once each and in order, whatever was added and removed', () => {
    fc.assert(
      fc.property(program, (steps) => {
        const clock = new ManualClock();
        const expired: Item[] = [];
        const queue = new ExpiryQueue<Item>(() => clock.at, clock.schedule, (item) => expired.push(item));
        const items = new Map<number, Item>();
        /** The model: the items queued now. */
        const queued = new Set<Item>();
        const check = (): void => {
          expect(queue.size).toBe(queued.size);
          const misplaced = [...items.values()].filter((item) => item.expiryIndex >= 0 !== queued.has(item));
          expect(misplaced).toEqual([]);
        };
        for (const next of [...steps, { kind: 'advance' as const, by: 10_000 }]) {
          if (next.kind === 'add') {
            // An id names one item: adding it again while queued changes nothing (as for a query added once).
            let item = items.get(next.id);
            if (!item || (!queued.has(item) && item.expiresAt < clock.at)) {
              item = { id: next.id, expiresAt: clock.at + next.lifetime, expiryIndex: -1 };
              items.set(next.id, item);
            }
            queue.add(item);
            queued.add(item);
          } else if (next.kind === 'remove') {
            const item = items.get(next.id);
            if (item) {
              queue.remove(item);
              queued.delete(item);
            }
          } else {
            const to = clock.at + next.by;
            const due = [...queued].filter((item) => item.expiresAt <= to);
            expired.length = 0;
            clock.advanceTo(to);
            expect(new Set(expired)).toEqual(new Set(due));
            expect(expired.length).toBe(due.length);
            for (let index = 1; index < expired.length; index += 1) expect((expired[index] as Item).expiresAt).toBeGreaterThanOrEqual((expired[index - 1] as Item).expiresAt);
            for (const item of due) queued.delete(item);
          }
          check();
          // One timer at most is armed, and one is armed while anything is queued.
          expect(clock.pending).toBeLessThanOrEqual(1);
          if (queued.size > 0) expect(clock.pending).toBe(1);
        }
        expect(queued.size).toBe(0);
        expect(clock.pending).toBe(0);
      }),
      // No shrinking: programs run to a thousand steps, and shrinking one takes minutes; the seed printed reproduces it.
      { numRuns: 100, endOnFailure: true },


    );
  });

  it('keeps its order when most items leave from anywhere in the heap', () => {
    const clock = new ManualClock();
    const expired: number[] = [];
    const queue = new ExpiryQueue<Item>(() => clock.at, clock.schedule, (item) => expired.push(item.id));
    const items = Array.from({ length: 1000 }, (_, id) => ({ id, expiresAt: 1 + ((id * 7919) % 1000), expiryIndex: -1 }));
    for (const item of items) queue.add(item);
    // Every item but each tenth leaves, in the order they came (so from all over the heap).
    for (const item of items) if (item.id % 10 !== 0) queue.remove(item);
    expect(queue.size).toBe(100);
    clock.advanceTo(2000);
    const kept = items.filter((item) => item.id % 10 === 0).sort((a, b) => a.expiresAt - b.expiresAt);
    expect(expired).toEqual(kept.map((item) => item.id));
    expect(clock.pending).toBe(0);
  });

  it('clear() forgets every item and stops its timer', () => {
    const clock = new ManualClock();
    const expired: Item[] = [];
    const queue = new ExpiryQueue<Item>(() => clock.at, clock.schedule, (item) => expired.push(item));
    const items = Array.from({ length: 10 }, (_, id) => ({ id, expiresAt: 5 + id, expiryIndex: -1 }));
    for (const item of items) queue.add(item);
    queue.remove(items[3] as Item);
    queue.clear();
    expect(queue.size).toBe(0);
    expect(items.every((item) => item.expiryIndex === -1)).toBe(true);
    expect(clock.pending).toBe(0);
    clock.advanceTo(100);
    expect(expired).toEqual([]);
  });

  it('arms its timer for an item, not for the emptied slot a removed item left', () => {
    const clock = new ManualClock();
    const armedAt: number[] = [];
    const schedule = (delayMs: number, work: () => void): Subscription => {
      armedAt.push(clock.at + delayMs);
      return clock.schedule(delayMs, work);
    };
    const expired: number[] = [];
    const queue = new ExpiryQueue<Item>(() => clock.at, schedule, (item) => expired.push(item.id));
    const items = [10, 20, 30, 40].map((expiresAt, id) => ({ id, expiresAt, expiryIndex: -1 }));
    for (const item of items) queue.add(item);
    queue.remove(items[1] as Item);
    queue.remove(items[2] as Item);
    expect(queue.size).toBe(2);
    clock.advanceTo(10);
    expect(expired).toEqual([0]);
    // The next timer is for the item at 40: the slots of the items removed (20 and 30) wake nothing.
    expect(armedAt.at(-1)).toBe(40);
    clock.advanceTo(40);
    expect(expired).toEqual([0, 3]);
    expect(armedAt).toEqual([10, 40]);
    expect(clock.pending).toBe(0);
  });
});
