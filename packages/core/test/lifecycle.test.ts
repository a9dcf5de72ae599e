import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CREATED, isTerminal, QUERY_STATUSES, TERMINAL_STATUSES, transition, type LifecycleEvent, type LifecycleState, type QueryStatus } from '@eql/core';

const state = (status: QueryStatus, deleted = false): LifecycleState => ({ status, deleted });

describe('query lifecycle (spec 3)', () => {
  it('starts active', () => {
    expect(CREATED).toEqual({ status: 'active', deleted: false });
  });

  it('cancels only an active query', () => {
    expect(transition(state('active'), { type: 'cancel' })).toEqual({ ok: true, state: state('cancelled') });
    for (const status of TERMINAL_STATUSES) {
      expect(transition(state(status), { type: 'cancel' })).toMatchObject({ ok: false, httpStatus: 409, code: 'query-not-active' });
    }
  });

  it('deletes only a terminal query, softly, keeping its status', () => {
    expect(transition(state('active'), { type: 'delete' })).toMatchObject({ ok: false, httpStatus: 409, code: 'query-still-active' });
    for (const status of TERMINAL_STATUSES) {
      expect(transition(state(status), { type: 'delete' })).toEqual({ ok: true, state: state(status, true) });
    }
  });

  it('answers 404 for anything on a deleted query', () => {
    for (const event of [{ type: 'cancel' }, { type: 'delete' }, { type: 'expire' }] as LifecycleEvent[]) {
      expect(transition(state('cancelled', true), event)).toMatchObject({ ok: false, httpStatus: 404 });
    }
  });

  it('moves an active query to triggered, expired or failed; a re-arming trigger keeps it active', () => {
    expect(transition(state('active'), { type: 'trigger', final: true })).toEqual({ ok: true, state: state('triggered') });
    expect(transition(state('active'), { type: 'trigger', final: false })).toEqual({ ok: true, state: state('active') });
    expect(transition(state('active'), { type: 'expire' })).toEqual({ ok: true, state: state('expired') });
    expect(transition(state('active'), { type: 'fail' })).toEqual({ ok: true, state: state('failed') });
  });

  it('never fires a terminal query again', () => {
    for (const status of TERMINAL_STATUSES) {
      expect(transition(state(status), { type: 'trigger', final: true }).ok).toBe(false);
    }
  });

  const event: fc.Arbitrary<LifecycleEvent> = fc.oneof(
    fc.constant({ type: 'cancel' } as const),
    fc.constant({ type: 'delete' } as const),
    fc.constant({ type: 'expire' } as const),
    fc.constant({ type: 'fail' } as const),
    fc.boolean().map((final) => ({ type: 'trigger', final }) as const),
  );

  it('no sequence of events leaves a terminal state, and a deleted query stays deleted', () => {
    fc.assert(
      fc.property(fc.constantFrom(...QUERY_STATUSES), fc.array(event, { maxLength: 30 }), (start, events) => {
        let current = state(start);
        for (const next of events) {
          const result = transition(current, next);
          if (!result.ok) continue;
          if (isTerminal(current.status)) expect(result.state.status).toBe(current.status);
          if (current.deleted) expect(result.state.deleted).toBe(true);
          current = result.state;
        }
      }),
    );
  });
});
