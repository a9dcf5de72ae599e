/**
 * Marble tests of the engine's operators and timing (docs/semantics.md section 8), in virtual time:
 * one frame is one millisecond, `3s` / `999ms` in a marble advance the clock. Prices come from hot
 * (or cold) marbles through a test data source; the expected marbles are those of the engine's
 * trigger and lifecycle events, and the hot observables' subscription logs show what the engine
 * holds upstream.
 */
import { concat, filter, map, of, timer } from 'rxjs';
import { type TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { Engine, PushSource, type ConditionGroup, type Operator } from '@eql/core';
import { and, every, livePrice, marbleEngine, mark, newTestScheduler, notifyQuery, or, price } from './support/marble-engine.js';

/** Runs `body` at a frame of virtual time (scheduled before the marbles' own emissions of that frame). */
function at(scheduler: TestScheduler, frame: number, body: () => void): void {
  scheduler.schedule(body, frame);
}

describe('engine marbles: level operators', () => {
  const table: Array<{ operator: Operator; values: Record<string, number>; expected: string }> = [
    { operator: '>', values: { a: 90, b: 100, c: 101 }, expected: '-----t' },
    { operator: '>=', values: { a: 90, b: 100, c: 101 }, expected: '---t' },
    { operator: '<', values: { a: 110, b: 100, c: 99 }, expected: '-----t' },
    { operator: '<=', values: { a: 110, b: 100, c: 99 }, expected: '---t' },
    // 90 -> 110 passes 100 without equalling it: == holds only at the tick that reads exactly 100.
    { operator: '==', values: { a: 90, b: 110, c: 100 }, expected: '-----t' },
    // The same price again is no new value; != holds at the first price that differs.
    { operator: '!=', values: { a: 100, b: 100, c: 101 }, expected: '-----t' },
  ];

  it.each(table)('BTC $operator 100 fires at the first tick where the comparison holds', ({ operator, values, expected }) => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a-b-c-', values);
      const { engine, add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', operator, 100)]), { expiresIn: '1m' }));
      at(scheduler, 2, () => {
        const inspection = engine.inspect('q');
        expect(inspection).toMatchObject({ status: 'active', triggerCount: 0, wouldTriggerNow: false, evaluatedAt: 1, expiresAt: 60_000 });
        expect(inspection?.conditionStates).toEqual([{ path: '/AND/0', source: 'price', method: 'current', holds: false, value: values.a, threshold: 100, status: 'ready', observedAt: 1 }]);
      });
      m.expectObservable(triggers$).toBe(expected, { t: mark(1, true) });
    });
  });

  it('a condition that holds at the first tick fires at that tick, once', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('--a-b-', { a: 150, b: 160 });
      const { engine, add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('--t', { t: mark(1, true) });
      at(scheduler, 3, () => expect(engine.inspect('q')).toMatchObject({ status: 'triggered', triggerCount: 1, lastTriggerAt: 2 }));
    });
  });

  it('a query added while the shared channel already holds a satisfying price fires at once (the channel\'s last value)', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 98ms b', { a: 150, b: 160 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('keeper', notifyQuery(and([price('BTC', '>', 1000)]), { expiresIn: '1m' }));
      at(scheduler, 10, () => add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m' })));
      m.expectObservable(triggers$).toBe('10ms t', { t: mark(1, true) });
    });
  });

  // Regression: a source that gives a new price subscriber the latest price at once (synchronously
  // on subscribe, as PushSource and ReplaySource do) used to deliver it before the query's series
  // existed, so the price was dropped. Section 8: "a query whose conditions already hold when it is
  // added fires at once (... a new price subscriber of a source gets the latest price immediately)".
  it('fires at once when a new topic\'s source replays its latest price on subscribe (marble source)', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      // The source knows BTC at 150 already and says so synchronously to a new subscriber; the next tick
      // (150 again) comes at 100. Expected: a trigger at 10 (add time). Got: at 100 (the replayed price was dropped).
      const btc = concat(of(150), m.hot('-- 98ms a', { a: 150 }));
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      at(scheduler, 10, () => add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m' })));
      m.expectObservable(triggers$).toBe('10ms t', { t: mark(1, true) });
    });
  });

  it('fires at once when the PushSource already has a satisfying price for a new topic', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const push = new PushSource();
      const engine = new Engine({ scheduler, sources: [push] });
      push.push({ at: 0, source: 'price', symbol: 'BTC', price: 150 });
      at(scheduler, 10, () => engine.add({ queryId: 'q', request: notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m' }), createdAt: scheduler.now() }));
      at(scheduler, 11, () => expect(engine.inspect('q')?.conditionStates[0]).toMatchObject({ value: 150, holds: true }));
      m.expectObservable(engine.events$.pipe(filter((event) => event.type === 'trigger'), map((event) => event.queryId))).toBe('10ms t', { t: 'q' });
    });
  });
});

describe('engine marbles: crossings', () => {
  it('crosses_above fires only at the tick that crosses, never on the first value, and once without repeat', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      // 105 first (above, no crossing), 95, 100 (at the threshold, not above), 101 crosses, 110, 90, 120.
      const btc = m.hot('-a-b-c-d-e-f-g', { a: 105, b: 95, c: 100, d: 101, e: 110, f: 90, g: 120 });
      const { engine, add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', 'crosses_above', 100)]), { expiresIn: '1m' }));
      at(scheduler, 2, () => expect(engine.inspect('q')?.conditionStates[0]).toMatchObject({ holds: false, value: 105 }));
      m.expectObservable(triggers$).toBe('-------t', { t: mark(1, true) });
    });
  });

  it('crosses_below fires only at the tick that crosses, never on the first value', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a-b-c-d-e-f-g', { a: 95, b: 105, c: 100, d: 99, e: 90, f: 110, g: 80 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', 'crosses_below', 100)]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('-------t', { t: mark(1, true) });
    });
  });

  it('with repeat, a crossing does not fire again while the price stays above (not at the cooldown end either), only at the next crossing', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a-b 1999ms c 999ms d 999ms e', { a: 95, b: 105, c: 110, d: 90, e: 105 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', 'crosses_above', 100)]), { expiresIn: '1m', repeat: { cooldown: '1s', maxTriggers: 5 } }));
      m.expectObservable(triggers$).toBe('---t 3999ms u', { t: mark(1, false), u: mark(2, false) });
    });
  });

  it('a live operand: BTC crosses_above ETH when BTC rises through ETH', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a-----c', { a: 100, c: 103 });
      const eth = m.hot('---b-d--', { b: 105, d: 102 });
      const { engine, add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(and([price('BTC', 'crosses_above', livePrice('ETH'))]), { expiresIn: '1m' }));
      at(scheduler, 6, () => expect(engine.inspect('q')?.conditionStates[0]).toMatchObject({ holds: false, value: 100, threshold: 102 }));
      m.expectObservable(triggers$).toBe('-------t', { t: mark(1, true) });
    });
  });

  it('a live operand: the first joint value is no crossing; ETH falling below BTC is one', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      // BTC - ETH: +10 at the first joint value (no crossing), -10, then +5 (crossing).
      const btc = m.hot('-a------', { a: 110 });
      const eth = m.hot('---b-c-d', { b: 100, c: 120, d: 105 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(and([price('BTC', 'crosses_above', livePrice('ETH'))]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('-------t', { t: mark(1, true) });
    });
  });

  it('a live operand: crosses_below', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      // BTC - ETH: +5, +2, then -1.
      const btc = m.hot('-a-----d', { a: 100, d: 97 });
      const eth = m.hot('---b-c--', { b: 95, c: 98 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(and([price('BTC', 'crosses_below', livePrice('ETH'))]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('-------t', { t: mark(1, true) });
    });
  });

  it('a live operand level: does not hold until both sides have a value, then holds at once', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a---', { a: 110 });
      const eth = m.hot('---b-', { b: 100 });
      const { engine, add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(and([price('BTC', '>', livePrice('ETH'))]), { expiresIn: '1m' }));
      at(scheduler, 2, () => {
        const state = engine.inspect('q')?.conditionStates[0];
        expect(state).toMatchObject({ holds: false, value: 110 });
        expect(state?.threshold).toBeUndefined();
      });
      m.expectObservable(triggers$).toBe('---t', { t: mark(1, true) });
    });
  });

  it('one instant updates levels before judging crossings: AND [crosses_above 100, > 104] fires on 95 -> 106, not on 95 -> 103', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a-b-c-d', { a: 95, b: 103, c: 95, d: 106 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', 'crosses_above', 100), price('BTC', '>', 104)]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('-------t', { t: mark(1, true) });
    });
  });

  it('a crossing in an AND fires only if the other members hold at that instant', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a-b-c---f-g', { a: 95, b: 105, c: 95, f: 95, g: 105 });
      const eth = m.hot('-------e----', { e: 60 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(and([price('BTC', 'crosses_above', 100), price('ETH', '>', 50)]), { expiresIn: '1m' }));
      // b crosses while ETH has no value; ETH comes to hold at 7, which is no crossing; g crosses with ETH holding.
      m.expectObservable(triggers$).toBe('-----------t', { t: mark(1, true) });
    });
  });
});

describe('engine marbles: groups', () => {
  it('AND holds when every member holds: a tick of one topic sees the latest value of the other', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a----', { a: 105 });
      const eth = m.hot('--b-c-', { b: 60, c: 40 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(and([price('BTC', '>', 100), price('ETH', '<', 50)]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('----t', { t: mark(1, true) });
    });
  });

  it('OR holds when any member holds', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a----', { a: 90 });
      const eth = m.hot('--b-c-', { b: 60, c: 45 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(or([price('BTC', '>', 100), price('ETH', '<', 50)]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('----t', { t: mark(1, true) });
    });
  });

  it('nested AND [BTC > 100, OR [ETH < 50, SOL > 20]]', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a-------e', { a: 95, e: 101 });
      const eth = m.hot('--b--d----', { b: 60, d: 45 });
      const sol = m.hot('---c------', { c: 10 });
      const { engine, add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth, SOL: sol });
      add('q', notifyQuery(and([price('BTC', '>', 100), or([price('ETH', '<', 50), price('SOL', '>', 20)])]), { expiresIn: '1m' }));
      at(scheduler, 7, () => {
        const inspection = engine.inspect('q');
        expect(inspection?.wouldTriggerNow).toBe(false);
        expect(inspection?.evaluatedAt).toBe(5);
        expect(inspection?.conditionStates.map(({ path, holds, value }) => ({ path, holds, value }))).toEqual([
          { path: '/AND/0', holds: false, value: 95 },
          { path: '/AND/1/OR/0', holds: true, value: 45 },
          { path: '/AND/1/OR/1', holds: false, value: 10 },
        ]);
      });
      m.expectObservable(triggers$).toBe('---------t', { t: mark(1, true) });
    });
  });

  it('nested OR of ANDs, three deep: OR [AND [BTC > 100, ETH > 100], AND [BTC < 50, OR [SOL > 20, ETH < 10]]]', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a---------', { a: 40 });
      const eth = m.hot('--b-----e--', { b: 90, e: 5 });
      const sol = m.hot('---c-d-----', { c: 10, d: 15 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth, SOL: sol });
      const conditions: ConditionGroup = or([
        and([price('BTC', '>', 100), price('ETH', '>', 100)]),
        and([price('BTC', '<', 50), or([price('SOL', '>', 20), price('ETH', '<', 10)])]),
      ]);
      add('q', notifyQuery(conditions, { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('--------t', { t: mark(1, true) });
    });
  });
});

describe('engine marbles: holdFor', () => {
  it('on a leaf: fires exactly holdFor after the condition starts holding, if it held throughout', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 999ms b', { a: 105, b: 106 });
      const { engine, add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100, '3s')]), { expiresIn: '1m' }));
      at(scheduler, 3000, () => {
        expect(engine.inspect('q')).toMatchObject({ status: 'active', wouldTriggerNow: false });
        expect(engine.inspect('q')?.conditionStates[0]).toMatchObject({ holds: false, value: 106 });
      });
      m.expectObservable(triggers$).toBe('- 3000ms t', { t: mark(1, true) });
    });
  });

  it('on a leaf: a dip in between restarts the wait', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 999ms b 999ms c', { a: 105, b: 95, c: 105 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100, '3s')]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe(' 5001ms t', { t: mark(1, true) });
    });
  });

  it('on a group: counts from the instant the group starts holding', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a', { a: 105 });
      const eth = m.hot(' 1001ms b', { b: 60 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(and([price('BTC', '>', 100), price('ETH', '>', 50)], '3s'), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe(' 4001ms t', { t: mark(1, true) });
    });
  });

  it('on a group: a member dipping restarts the wait', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a', { a: 105 });
      const eth = m.hot(' 1001ms b 999ms c 999ms d', { b: 60, c: 40, d: 60 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(and([price('BTC', '>', 100), price('ETH', '>', 50)], '3s'), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe(' 6001ms t', { t: mark(1, true) });
    });
  });

  it('on an OR group: a hand-over between members is no break', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 1999ms c', { a: 105, c: 95 });
      const eth = m.hot(' 1001ms b', { b: 60 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(or([price('BTC', '>', 100), price('ETH', '>', 50)], '3s'), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('- 3000ms t', { t: mark(1, true) });
    });
  });

  const pulseShapes: Array<{ name: string; conditions: ConditionGroup }> = [
    { name: 'AND [crossing] holdFor 3s', conditions: and([price('BTC', 'crosses_above', 100)], '3s') },
    { name: 'AND [OR [crossing]] holdFor 3s', conditions: and([or([price('BTC', 'crosses_above', 100)])], '3s') },
    { name: 'AND [OR [crossing, ETH > 1000] holdFor 3s]', conditions: and([or([price('BTC', 'crosses_above', 100), price('ETH', '>', 1000)], '3s')]) },
  ];

  it.each(pulseShapes)('a pulse (crossing) cannot satisfy a group\'s holdFor: $name', ({ conditions }) => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a-b 999ms c 2999ms d', { a: 95, b: 105, c: 106, d: 107 });
      const eth = m.hot('-e', { e: 10 });
      const { add, triggers$, lifecycle$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(conditions, { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('');
      m.expectObservable(lifecycle$).toBe(' 1m (xy)', { x: 'q:active>expired', y: 'q:expired' });
    });
  });

  it('a crossing with holdFor counts once the value stayed on the crossed side that long after the crossing', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 999ms b 999ms c', { a: 95, b: 105, c: 106 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', 'crosses_above', 100, '3s')]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe(' 4001ms t', { t: mark(1, true) });
    });
  });

  it('a crossing with holdFor: falling back below cancels it; the next crossing starts a new wait', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 999ms b 999ms c 999ms d', { a: 95, b: 105, c: 99, d: 101 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', 'crosses_above', 100, '3s')]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe(' 6001ms t', { t: mark(1, true) });
    });
  });
});

describe('engine marbles: repeat', () => {
  it('re-fires at each cooldown end while still true, stops at maxTriggers, final status triggered', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a', { a: 105 });
      const { engine, add, triggers$, lifecycle$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m', repeat: { cooldown: '3s', maxTriggers: 3 } }));
      at(scheduler, 3000, () => expect(engine.inspect('q')).toMatchObject({ status: 'active', triggerCount: 1, lastTriggerAt: 1, wouldTriggerNow: true }));
      m.expectObservable(triggers$).toBe('-a 2999ms b 2999ms c', { a: mark(1, false), b: mark(2, false), c: mark(3, true) });
      m.expectObservable(lifecycle$).toBe(' 6001ms x', { x: 'q:active>triggered' });
      m.expectSubscriptions(btc.subscriptions).toBe('^ 6000ms !');
      at(scheduler, 7000, () => expect(engine.inspect('q')).toMatchObject({ status: 'triggered', triggerCount: 3, lastTriggerAt: 6001 }));
    });
  });

  it('a condition false at the cooldown end fires at its next tick; one that comes back during the cooldown fires at the cooldown end', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 999ms b 3999ms c 499ms d 499ms e', { a: 105, b: 95, c: 105, d: 95, e: 105 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m', repeat: { cooldown: '3s', maxTriggers: 3 } }));
      m.expectObservable(triggers$).toBe('-a 4999ms b 2999ms c', { a: mark(1, false), b: mark(2, false), c: mark(3, true) });
    });
  });

  it('a trigger is final when the cooldown would end after expiry', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a', { a: 105 });
      const { add, triggers$, lifecycle$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m', repeat: { cooldown: '40s' } }));
      m.expectObservable(triggers$).toBe('-a 39999ms b', { a: mark(1, false), b: mark(2, true) });
      m.expectObservable(lifecycle$).toBe(' 40001ms x', { x: 'q:active>triggered' });
    });
  });
});

describe('engine marbles: expiry', () => {
  it('an active query that never fired is expired at createdAt + lifetime, releasing its topic', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 999ms b', { a: 105, b: 110 });
      const { engine, add, triggers$, lifecycle$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 1000)]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('');
      m.expectObservable(lifecycle$).toBe(' 1m (xy)', { x: 'q:active>expired', y: 'q:expired' });
      m.expectSubscriptions(btc.subscriptions).toBe('^ 59999ms !');
      at(scheduler, 60_001, () => expect(engine.inspect('q')).toMatchObject({ status: 'expired', triggerCount: 0, expiresAt: 60_000 }));
    });
  });

  it('the lifetime counts from createdAt (a query added at 10s expires at 70s)', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a', { a: 105 });
      const { engine, add, lifecycle$ } = marbleEngine(scheduler, { BTC: btc });
      at(scheduler, 10_000, () => add('q', notifyQuery(and([price('BTC', '>', 1000)]), { expiresIn: '1m' })));
      m.expectObservable(lifecycle$).toBe(' 70s (xy)', { x: 'q:active>expired', y: 'q:expired' });
      m.expectSubscriptions(btc.subscriptions).toBe(' 10s ^ 59999ms !');
      at(scheduler, 10_001, () => expect(engine.inspect('q')?.expiresAt).toBe(70_000));
    });
  });

  it('a holdFor still running at expiry does not fire', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot(' 58s a', { a: 105 });
      const { add, triggers$, lifecycle$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100, '3s')]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('');
      m.expectObservable(lifecycle$).toBe(' 1m (xy)', { x: 'q:active>expired', y: 'q:expired' });
    });
  });
});

describe('engine marbles: expiry while actions run', () => {
  // ENGINE BUG (see the report): the expiry timer fires once; Engine.expire returns early while ANY
  // trigger's actions run (`query.firing`), final or not, and nothing re-checks expiry when they end.
  // A non-final trigger still running its actions at createdAt + lifetime leaves the query `active`
  // for ever (it can no longer fire: canFire needs now < expiresAt) and its topic subscribed. Section 8:
  // "At createdAt + lifetime an active query that is not running a final trigger becomes expired."
  it('a non-final trigger whose actions outlast the expiry still ends expired and releases its topic', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot(' 55s a', { a: 105 });
      // A notify that takes 10 s (a slow channel): the trigger at 55 s is not final (55 s + 1 s cooldown < 60 s).
      const slowNotify = { execute: () => timer(10_000, scheduler).pipe(map(() => ({ result: { slow: true } }))) };
      const { engine, add, triggers$, lifecycle$ } = marbleEngine(scheduler, { BTC: btc }, { executors: { notify: slowNotify } });
      add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m', repeat: { cooldown: '1s' } }));
      m.expectObservable(triggers$).toBe(' 55s t', { t: mark(1, false) });
      at(scheduler, 120_000, () => {
        expect(engine.inspect('q')?.status).toBe('expired');
        expect(engine.openTopics).toBe(0);
      });
      // Expected `q:active>expired` at the expiry instant (or at the latest when the actions end at 65 s),
      // and the BTC subscription closed; got: no lifecycle event and the subscription open for ever.
      m.expectObservable(lifecycle$, '^ 2m !').toBe(' 1m (xy)', { x: 'q:active>expired', y: 'q:expired' });
      m.expectSubscriptions(btc.subscriptions).toBe('^ 59999ms !');
    });
  });
});

describe('engine marbles: cancel, removal and shared subscriptions', () => {
  it('after cancel nothing fires and the upstream subscription is released', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 2998ms b', { a: 90, b: 105 });
      const { engine, add, triggers$, lifecycle$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m' }));
      at(scheduler, 2000, () => {
        expect(engine.cancel('q')).toMatchObject({ ok: true });
        expect(engine.cancel('q')).toMatchObject({ ok: false, httpStatus: 409, code: 'query-not-active' });
        expect(engine.openTopics).toBe(0);
      });
      m.expectObservable(triggers$).toBe('');
      m.expectObservable(lifecycle$).toBe(' 2s x', { x: 'q:active>cancelled' });
      m.expectSubscriptions(btc.subscriptions).toBe('^ 1999ms !');
      at(scheduler, 3001, () => expect(engine.inspect('q')).toMatchObject({ status: 'cancelled', triggerCount: 0 }));
    });
  });

  it('remove forgets a query and releases its subscription', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 2998ms b', { a: 90, b: 105 });
      const { engine, add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m' }));
      at(scheduler, 2000, () => {
        expect(engine.remove('q')).toBe(true);
        expect(engine.inspect('q')).toBeUndefined();
      });
      m.expectObservable(triggers$).toBe('');
      m.expectSubscriptions(btc.subscriptions).toBe('^ 1999ms !');
    });
  });

  it('queries on one symbol share ONE upstream subscription, which ends when the last one goes', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 999ms b', { a: 90, b: 95 });
      const { engine, source, add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q1', notifyQuery(and([price('BTC', '>', 1000)]), { expiresIn: '1m' }));
      add('q2', notifyQuery(and([price('BTC', '<', 1)]), { expiresIn: '1m' }));
      at(scheduler, 1000, () => add('q3', notifyQuery(and([price('BTC', '>', 2000)]), { expiresIn: '1m' })));
      at(scheduler, 2000, () => engine.cancel('q1'));
      at(scheduler, 3000, () => engine.cancel('q2'));
      at(scheduler, 3500, () => expect(engine.openTopics).toBe(1));
      at(scheduler, 4000, () => engine.cancel('q3'));
      at(scheduler, 4500, () => {
        expect(engine.openTopics).toBe(0);
        expect(source.observeCalls).toEqual(['price:BTC']);
      });
      m.expectObservable(triggers$).toBe('');
      m.expectSubscriptions(btc.subscriptions).toBe('^ 3999ms !');
    });
  });

  it('a final trigger releases the subscription', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot(' 1s a 999ms b', { a: 105, b: 110 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe(' 1s t', { t: mark(1, true) });
      m.expectSubscriptions(btc.subscriptions).toBe('^ 999ms !');
    });
  });

  it('a final trigger of one query keeps the shared subscription for the others', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot(' 1s a 999ms b', { a: 105, b: 110 });
      const { engine, add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q1', notifyQuery(and([price('BTC', '>', 100)]), { expiresIn: '1m' }));
      add('q2', notifyQuery(and([price('BTC', '>', 1000)]), { expiresIn: '1m' }));
      at(scheduler, 5000, () => engine.cancel('q2'));
      m.expectObservable(triggers$).toBe(' 1s t', { t: mark(1, true, 'q1') });
      m.expectSubscriptions(btc.subscriptions).toBe('^ 4999ms !');
    });
  });

  it('a final trigger of a live-operand query releases both topics', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a--', { a: 110 });
      const eth = m.hot('---b', { b: 100 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc, ETH: eth });
      add('q', notifyQuery(and([price('BTC', '>', livePrice('ETH'))]), { expiresIn: '1m' }));
      m.expectObservable(triggers$).toBe('---t', { t: mark(1, true) });
      m.expectSubscriptions(btc.subscriptions).toBe('^ 2ms !');
      m.expectSubscriptions(eth.subscriptions).toBe('^ 2ms !');
    });
  });
});

describe('engine marbles: cron every', () => {
  it('pulses every period from createdAt (k >= 1) and fires at each pulse with repeat, until expiry', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const { engine, add, triggers$, lifecycle$ } = marbleEngine(scheduler, {});
      add('q', notifyQuery(and([every('1m')]), { expiresIn: '5m', repeat: { cooldown: '30s' } }));
      m.expectObservable(triggers$).toBe(' 1m a 59999ms b 59999ms c 59999ms d', { a: mark(1, false), b: mark(2, false), c: mark(3, false), d: mark(4, false) });
      m.expectObservable(lifecycle$).toBe(' 5m (xy)', { x: 'q:active>expired', y: 'q:expired' });
      at(scheduler, 90_000, () => expect(engine.inspect('q')).toMatchObject({ status: 'active', triggerCount: 1, wouldTriggerNow: false, evaluatedAt: 60_000 }));
    });
  });

  it('without repeat, fires once at the first pulse', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const { add, triggers$, lifecycle$ } = marbleEngine(scheduler, {});
      add('q', notifyQuery(and([every('1m')]), { expiresIn: '5m' }));
      m.expectObservable(triggers$).toBe(' 1m t', { t: mark(1, true) });
      m.expectObservable(lifecycle$).toBe(' 1m x', { x: 'q:active>triggered' });
    });
  });

  it('a pulse inside the cooldown is lost (a pulse is not a level at the cooldown end)', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const { add, triggers$ } = marbleEngine(scheduler, {});
      add('q', notifyQuery(and([every('1m')]), { expiresIn: '10m', repeat: { cooldown: '90s', maxTriggers: 2 } }));
      m.expectObservable(triggers$).toBe(' 1m a 119999ms b', { a: mark(1, false), b: mark(2, true) });
    });
  });

  it('with startAt, pulses at startAt + k * period from k = 0', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const { add, triggers$ } = marbleEngine(scheduler, {});
      const conditions = and([{ source: 'cron', method: 'every', args: { period: '1m', startAt: '1970-01-01T00:00:30Z' } }]);
      add('q', notifyQuery(conditions, { expiresIn: '10m', repeat: { cooldown: '30s', maxTriggers: 3 } }));
      m.expectObservable(triggers$).toBe(' 30s a 59999ms b 59999ms c', { a: mark(1, false), b: mark(2, false), c: mark(3, true) });
    });
  });

  it('cron once holds from its instant on (a level: with repeat it fires again at the cooldown end)', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const { add, triggers$ } = marbleEngine(scheduler, {});
      add('q', notifyQuery(and([{ source: 'cron', method: 'once', args: { at: '1970-01-01T00:00:05Z' } }]), { expiresIn: '1m', repeat: { cooldown: '3s', maxTriggers: 2 } }));
      m.expectObservable(triggers$).toBe(' 5s a 2999ms b', { a: mark(1, false), b: mark(2, true) });
    });
  });

  it('AND [every 1m, BTC > 100] fires at the pulses where the price condition holds', () => {
    const scheduler = newTestScheduler();
    scheduler.run((m) => {
      const btc = m.hot('-a 89999ms b', { a: 95, b: 105 });
      const { add, triggers$ } = marbleEngine(scheduler, { BTC: btc });
      add('q', notifyQuery(and([every('1m'), price('BTC', '>', 100)]), { expiresIn: '10m', repeat: { cooldown: '30s', maxTriggers: 2 } }));
      m.expectObservable(triggers$).toBe(' 2m a 59999ms b', { a: mark(1, false), b: mark(2, true) });
    });
  });
});
