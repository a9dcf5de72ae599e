import fc from 'fast-check';
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { InstantTimers } from '../src/engine/instant-timers.js';

// The engine's timers: every timer due at one instant runs in one call (one batch of the engine), in the
// order the timers were set; a cancelled timer never runs; nothing stays scheduled once all have run.

interface Timer {
  readonly id: number;
  readonly setAt: number;
  readonly dueAt: number;
  /** Set while another timer of the same instant was running (so it belongs to a later call). */
  readonly setDuringItsInstant: boolean;
  cancel?: () => void;
}

type Plan = { delay: number; cancelFirst: boolean; inside: Array<{ kind: 'set'; delay: number } | { kind: 'cancel'; which: number }> };

const planArbitrary = fc.array(
  fc.record({
    delay: fc.constantFrom(0, 10, 10, 20, 30),
    cancelFirst: fc.boolean(),
    inside: fc.array(fc.oneof(fc.record({ kind: fc.constant('set' as const), delay: fc.constantFrom(0, 0, 10, 20) }), fc.record({ kind: fc.constant('cancel' as const), which: fc.nat(30) })), { maxLength: 2 }),
  }),
  { minLength: 1, maxLength: 25 },
);

describe('InstantTimers', () => {
  it('runs the timers of one instant in one call, in the order they were set, and never a cancelled one', () => {
    fc.assert(
      fc.property(planArbitrary, (plans) => {
        const scheduler = new VirtualTimeScheduler();
        const calls: Array<{ at: number; ids: number[] }> = [];
        const timers: Timer[] = [];
        const cancelled = new Set<number>();
        const ran = new Map<number, number>();
        let running: number | undefined;
        const instants = new InstantTimers(scheduler, () => scheduler.now(), (entries) => {
          const call = { at: scheduler.now(), ids: [] as number[] };
          calls.push(call);
          running = call.at;
          for (const entry of entries) entry.work();
          running = undefined;
        });
        const set = (delay: number, plan: Plan | undefined): void => {
          const timer: Timer = { id: timers.length, setAt: scheduler.now(), dueAt: scheduler.now() + delay, setDuringItsInstant: running === scheduler.now() && delay === 0 };
          timers.push(timer);
          const subscription = instants.schedule(delay, () => {
            calls[calls.length - 1]?.ids.push(timer.id);
            ran.set(timer.id, (ran.get(timer.id) ?? 0) + 1);
            for (const step of plan?.inside ?? []) {
              if (step.kind === 'set') set(step.delay, undefined);
              else {
                const target = timers[step.which % timers.length];
                if (target && !ran.has(target.id)) cancelled.add(target.id);
                target?.cancel?.();
              }
            }
          });
          timer.cancel = () => subscription.unsubscribe();
        };
        for (const plan of plans) {
          set(plan.delay, plan);
          if (plan.cancelFirst && timers.length > 1 && !ran.has(0)) {
            cancelled.add(0);
            timers[0]?.cancel?.();
          }
        }
        scheduler.flush();

        for (const timer of timers) expect(ran.get(timer.id) ?? 0).toBe(cancelled.has(timer.id) ? 0 : 1);
        for (const call of calls) {
          const ids = call.ids;
          expect([...ids].sort((a, b) => a - b)).toEqual(ids);
          for (const id of ids) expect(timers[id]?.dueAt).toBe(call.at);
        }
        // Two calls for one instant only when the later holds timers set during the earlier, at that instant.
        for (let i = 1; i < calls.length; i += 1) {
          const [previous, current] = [calls[i - 1], calls[i]];
          if (previous?.at === current?.at) for (const id of current?.ids ?? []) expect(timers[id]?.setDuringItsInstant).toBe(true);
        }
        // Every timer due at an instant, not cancelled and set before it, ran in that instant's first call.
        for (const timer of timers) {
          if (cancelled.has(timer.id) || timer.setDuringItsInstant) continue;
          const first = calls.find((call) => call.at === timer.dueAt);
          expect(first?.ids).toContain(timer.id);
        }
        expect(instants.pending).toBe(0);
        expect(scheduler.actions.length).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('cancels the scheduler action with the last timer of its instant', () => {
    const scheduler = new VirtualTimeScheduler();
    const calls: number[] = [];
    const instants = new InstantTimers(scheduler, () => scheduler.now(), () => calls.push(scheduler.now()));
    const a = instants.schedule(50, () => undefined);
    const b = instants.schedule(50, () => undefined);
    expect(scheduler.actions.length).toBe(1);
    a.unsubscribe();
    expect(scheduler.actions.length).toBe(1);
    b.unsubscribe();
    expect(scheduler.actions.filter((action) => !action.closed).length).toBe(0);
    expect(instants.pending).toBe(0);
    scheduler.flush();
    expect(calls).toEqual([]);
  });

  it('counts a delay from the clock it is given (one reading for a whole batch)', () => {
    const scheduler = new VirtualTimeScheduler();
    const seen: number[][] = [];
    let frozen = 0;
    const instants = new InstantTimers(scheduler, () => frozen, (entries) => {
      const ids: number[] = [];
      for (const entry of entries) {
        entry.work();
        ids.push(scheduler.now());
      }
      seen.push(ids);
    });
    // Two timers of 100 ms set in one batch whose clock was read at 0, the scheduler having moved to 3:
    scheduler.schedule(() => {
      instants.schedule(100, () => undefined);
      instants.schedule(100, () => undefined);
    }, 3);
    frozen = 0;
    scheduler.flush();
    expect(seen).toEqual([[100, 100]]);
  });
});
