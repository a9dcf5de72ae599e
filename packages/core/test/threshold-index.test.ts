import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ThresholdIndex, type ThresholdOperator } from '../src/engine/threshold-index.js';

// The index reports, for every move of a series, exactly the conditions a brute-force evaluation of all
// of them says changed: level conditions that start or stop holding, crossings that happen. Values and
// thresholds are drawn from a small grid so that moves land on thresholds, thresholds repeat, and a move
// often stays between two thresholds (the index's shortcut), over any program of adds, removes and moves.

const OPERATORS: ThresholdOperator[] = ['>', '>=', '<', '<=', '==', '!=', 'crosses_above', 'crosses_below'];
const LEVEL = new Set<ThresholdOperator>(['>', '>=', '<', '<=', '==', '!=']);

function holds(operator: ThresholdOperator, value: number, threshold: number): boolean {
  switch (operator) {
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
    case '==':
      return value === threshold;
    case '!=':
      return value !== threshold;
    default:
      return false;
  }
}

interface Condition {
  id: number;
  operator: ThresholdOperator;
  threshold: number;
}

/** What a move changes, by evaluating every condition before and after it. */
function expectedChanges(conditions: Condition[], previous: number | undefined, current: number): string[] {
  const changes: string[] = [];
  if (previous === current) return changes;
  for (const { id, operator, threshold } of conditions) {
    if (LEVEL.has(operator)) {
      const now = holds(operator, current, threshold);
      if (previous === undefined ? now : now !== holds(operator, previous, threshold)) changes.push(`${id}:${now}`);
    } else if (previous !== undefined) {
      const crossed = operator === 'crosses_above' ? previous <= threshold && threshold < current : previous >= threshold && threshold > current;
      if (crossed) changes.push(`${id}:crossed`);
    }
  }
  return changes.sort();
}

type Step =
  | { kind: 'add'; operator: ThresholdOperator; threshold: number }
  | { kind: 'remove'; pick: number }
  | { kind: 'move'; to: number }
  | { kind: 'jump'; from: number | undefined; to: number };

const grid = fc.integer({ min: 0, max: 12 }).map((n) => n / 2);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('add' as const), operator: fc.constantFrom(...OPERATORS), threshold: grid }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('move' as const), to: fc.oneof(grid, fc.double({ min: -1, max: 7, noNaN: true })) }) },
  // A move from a value the index was not told of (the series changed by another path), or a first value.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('jump' as const), from: fc.option(grid, { nil: undefined }), to: grid }) },
);

describe('ThresholdIndex', () => {
  it('reports exactly the changes a brute-force evaluation finds, and holds exactly the conditions added and not removed, over any program of adds, removes and moves', () => {
    fc.assert(
      // Lists longer than a run are kept in runs: tiny runs here split, span equal thresholds and flatten again all the time.
      fc.property(fc.array(step, { maxLength: 80 }), fc.constantFrom(undefined, 2, 3, 4, 8), (program, runSize) => {
        const index = new ThresholdIndex<Condition>(runSize);
        const conditions: Condition[] = [];
        let value: number | undefined;
        let nextId = 0;
        for (const current of program) {
          if (current.kind === 'add') {
            const condition = { id: nextId++, operator: current.operator, threshold: current.threshold };
            conditions.push(condition);
            index.add(condition.operator, condition.threshold, condition);
          } else if (current.kind === 'remove') {
            if (conditions.length === 0) continue;
            const [condition] = conditions.splice(current.pick % conditions.length, 1) as [Condition];
            index.remove(condition.operator, condition.threshold, condition);
          } else {
            const previous = current.kind === 'move' ? value : current.from;
            const seen: string[] = [];
            index.update(
              previous,
              current.to,
              (condition, now) => seen.push(`${condition.id}:${now}`),
              (condition) => seen.push(`${condition.id}:crossed`),
            );
            expect(seen.sort()).toEqual(expectedChanges(conditions, previous, current.to));
            value = current.to;
          }
          expect(index.size).toBe(conditions.length);
          const held: number[] = [];
          index.forEachCondition((condition) => held.push(condition.id));
          expect(held.sort((a, b) => a - b)).toEqual(conditions.map((condition) => condition.id).sort((a, b) => a - b));
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('ignores the removal of a condition it does not hold', () => {
    const index = new ThresholdIndex<string>();
    index.add('>', 1, 'a');
    index.remove('>', 2, 'a');
    index.remove('>', 1, 'b');
    index.remove('<', 1, 'a');
    expect(index.size).toBe(1);
    const seen: string[] = [];
    index.update(0, 2, (leaf, now) => seen.push(`${leaf}:${now}`), () => {});
    expect(seen).toEqual(['a:true']);
  });

  it('sees a threshold added on the value it last saw, and one added inside the quiet range around it', () => {
    const index = new ThresholdIndex<string>();
    const seen: string[] = [];
    const flip = (leaf: string, now: boolean): number => seen.push(`${leaf}:${now}`);
    const fire = (leaf: string): number => seen.push(`${leaf}:crossed`);
    index.add('>', 10, 'far');
    index.add('<', 0, 'low');
    index.update(undefined, 5, flip, fire);
    expect(seen).toEqual([]);
    index.update(5, 6, flip, fire); // between 0 and 10: nothing
    index.add('crosses_above', 6, 'on');
    index.add('>', 7, 'inside');
    index.update(6, 8, flip, fire);
    expect(seen.sort()).toEqual(['inside:true', 'on:crossed']);
  });
});
