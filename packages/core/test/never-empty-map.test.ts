import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NeverEmptyMap } from '../src/engine/never-empty-map.js';

// The map behaves as a Map<string, V> over any program of sets, deletes and clears: its pinned entries
// never show (not in size, iteration, keys, values, has or get).
type Step = { op: 'set'; key: string; value: number } | { op: 'delete'; key: string } | { op: 'clear' };

const keys = fc.constantFrom('a', 'b', 'c', '', 'pinned', 'pinned 0', 'Symbol(pinned 0)', '__proto__');
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('set' as const), key: keys, value: fc.integer() }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('delete' as const), key: keys }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
);

describe('NeverEmptyMap', () => {
  it('agrees with a Map on every program of sets, deletes and clears', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (program) => {
        const map = new NeverEmptyMap<number>();
        const model = new Map<string, number>();
        for (const s of program) {
          if (s.op === 'set') {
            expect(map.set(s.key, s.value)).toBe(map);
            model.set(s.key, s.value);
          } else if (s.op === 'delete') {
            expect(map.delete(s.key)).toBe(model.delete(s.key));
          } else {
            map.clear();
            model.clear();
          }
          expect(map.size).toBe(model.size);
          expect([...map]).toEqual([...model]);
          expect([...map.entries()]).toEqual([...model.entries()]);
          expect([...map.keys()]).toEqual([...model.keys()]);
          expect([...map.values()]).toEqual([...model.values()]);
          for (const key of ['a', 'b', 'c', '', 'pinned', 'pinned 0', 'Symbol(pinned 0)', '__proto__']) {
            expect(map.has(key)).toBe(model.has(key));
            expect(map.get(key)).toBe(model.get(key));
          }
        }
      }),
    );
  });

  it('is empty when new, and after its last entry leaves', () => {
    const map = new NeverEmptyMap<string>();
    expect(map.size).toBe(0);
    expect([...map]).toEqual([]);
    map.set('q', 'x');
    expect(map.delete('q')).toBe(true);
    expect(map.delete('q')).toBe(false);
    expect(map.size).toBe(0);
    expect([...map.values()]).toEqual([]);
  });
});
