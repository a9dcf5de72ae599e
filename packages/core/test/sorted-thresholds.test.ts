import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedThresholds } from '../src/engine/sorted-thresholds.js';

// A list of thresholds answers every question as a plain sorted list of (threshold, condition) does, in the
// same order (thresholds ascending, equal ones in the order they came), whether it is flat or kept in runs:
// tiny runs here make it split, hold equal thresholds across runs, and flatten again, over long programs.
// Each entry carries a tag (the index tags entries with their operator): a tagged walk gives it back, and a
// removal that names a tag removes only an entry with that tag.

interface Entry {
  key: number;
  leaf: number;
  tag: number;
}

type Step =
  | { kind: 'add'; key: number; tag: number }
  | { kind: 'remove'; pick: number; byTag: boolean }
  | { kind: 'remove-other-tag'; pick: number }
  | { kind: 'tagged'; lo: number; hi: number }
  | { kind: 'remove-absent'; key: number }
  | { kind: 'range'; lo: number; hi: number; includeLo: boolean; includeHi: boolean }
  | { kind: 'equal'; value: number }
  | { kind: 'unequal'; value: number }
  | { kind: 'neighbours'; value: number };

const grid = fc.integer({ min: 0, max: 10 }).map((n) => n / 2);
const probe = fc.oneof(grid, fc.double({ min: -1, max: 6, noNaN: true }));
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('add' as const), key: grid, tag: fc.integer({ min: 0, max: 7 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat(), byTag: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove-other-tag' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tagged' as const), lo: probe, hi: probe }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove-absent' as const), key: grid }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('range' as const), lo: probe, hi: probe, includeLo: fc.boolean(), includeHi: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('equal' as const), value: probe }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unequal' as const), value: probe }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('neighbours' as const), value: probe }) },
);

describe('SortedThresholds', () => {
  it('answers as a plain sorted list does, flat or in runs', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 50, maxLength: 300 }), fc.constantFrom(1, 2, 3, 4, 8, 256), (program, runSize) => {
        const list = new SortedThresholds<number>(runSize);
        const model: Entry[] = [];
        let nextLeaf = 0;
        const seen: number[] = [];
        const collect = (leaf: number): void => void seen.push(leaf);
        for (const step of program) {
          seen.length = 0;
          switch (step.kind) {
            case 'add': {
              const leaf = nextLeaf++;
              list.add(step.key, leaf, step.tag);
              const at = model.findIndex((entry) => entry.key > step.key);
              model.splice(at < 0 ? model.length : at, 0, { key: step.key, leaf, tag: step.tag });
              break;
            }
            case 'remove': {
              if (model.length === 0) break;
              const [entry] = model.splice(step.pick % model.length, 1) as [Entry];
              expect(step.byTag ? list.remove(entry.key, entry.leaf, entry.tag) : list.remove(entry.key, entry.leaf)).toBe(true);
              break;
            }
            case 'remove-other-tag': {
              if (model.length === 0) break;
              const entry = model[step.pick % model.length] as Entry;
              expect(list.remove(entry.key, entry.leaf, entry.tag + 1)).toBe(false);
              break;
            }
            case 'tagged': {
              const walked: Entry[] = [];
              list.visitTagged(step.lo, step.hi, { entry: (key, leaf, tag) => void walked.push({ key, leaf, tag }) });
              expect(walked).toEqual(model.filter((entry) => entry.key >= step.lo && entry.key <= step.hi));
              break;
            }
            case 'remove-absent':
              expect(list.remove(step.key, -1)).toBe(false);
              break;
            case 'range': {
              list.visitRange(step.lo, step.hi, step.includeLo, step.includeHi, true, collect);
              const inRange = (key: number): boolean => (step.includeLo ? key >= step.lo : key > step.lo) && (step.includeHi ? key <= step.hi : key < step.hi);
              expect(seen).toEqual(model.filter((entry) => inRange(entry.key)).map((entry) => entry.leaf));
              break;
            }
            case 'equal':
              list.visitEqual(step.value, true, collect);
              expect(seen).toEqual(model.filter((entry) => entry.key === step.value).map((entry) => entry.leaf));
              break;
            case 'unequal':
              list.visitUnequal(step.value, true, collect);
              expect(seen).toEqual(model.filter((entry) => entry.key !== step.value).map((entry) => entry.leaf));
              break;
            case 'neighbours': {
              const above = model.filter((entry) => entry.key >= step.value).map((entry) => entry.key);
              const below = model.filter((entry) => entry.key < step.value).map((entry) => entry.key);
              expect(list.ceiling(step.value)).toBe(above.length > 0 ? Math.min(...above) : Infinity);
              expect(list.belowCeiling()).toBe(below.length > 0 ? Math.max(...below) : -Infinity);
              break;
            }
          }
          expect(list.size).toBe(model.length);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps thousands of thresholds of one list in order, through runs that split and shrink back', () => {
    const list = new SortedThresholds<number>();
    const keys = Array.from({ length: 5_000 }, (_, i) => (i * 7919) % 5_000);
    keys.forEach((key, leaf) => list.add(key, leaf));
    const visited: number[] = [];
    list.visitRange(-Infinity, Infinity, true, true, true, (leaf) => visited.push(keys[leaf] as number));
    expect(visited).toEqual([...keys].sort((a, b) => a - b));
    keys.forEach((key, leaf) => {
      if (leaf % 10 !== 0) expect(list.remove(key, leaf)).toBe(true);
    });
    expect(list.size).toBe(500);
    expect(list.ceiling(2_500.5)).toBe(2_510);
    expect(list.belowCeiling()).toBe(2_500);
  });
});
