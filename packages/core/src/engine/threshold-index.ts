import { RUN_SIZE, SortedThresholds } from './sorted-thresholds.js';

/** Comparison operators of a series against a constant. */
export type ThresholdOperator = '>' | '>=' | '<' | '<=' | '==' | '!=' | 'crosses_above' | 'crosses_below';

type Visit<L> = (leaf: L, holds: boolean) => void;

/**
 * The conditions on one numeric series that compare it with a constant, indexed by threshold so that
 * a new value visits only the conditions whose truth it changes: O(log N + changes) per update, not O(N).
 *
 * For a move from `a` to `b`:
 * - `x > t` flips for t in [min, max) of (a, b); `x >= t` for t in (min, max]; `<` and `<=` likewise;
 * - `==` and `!=` flip only for t equal to a or b;
 * - `crosses_above t` fires for t in [a, b) on a rise, `crosses_below t` for t in (b, a] on a fall.
 * The first value sets every level condition that holds.
 *
 * **The gap.** Every change a move causes has its threshold in [min, max] of (a, b). The index keeps, for
 * the last value it was given, the open interval between the nearest thresholds below and above it (of
 * every operator); a move from that value to one inside the interval changes nothing, and the update
 * reads this object only. With many series, each series' lists are out of the processor's caches by the
 * time its next value comes (a binary search then costs a cache miss a step), so this check is most of
 * what a quiet series costs. Adding a threshold narrows the gap; removing one leaves it as it is (still
 * free of thresholds, so still right).
 */
export class ThresholdIndex<L> {
  /** One sorted list per operator, as fields: a tick looks each up without a hash. */
  private readonly greater: SortedThresholds<L>;
  private readonly greaterOrEqual: SortedThresholds<L>;
  private readonly less: SortedThresholds<L>;
  private readonly lessOrEqual: SortedThresholds<L>;
  private readonly equal: SortedThresholds<L>;
  private readonly unequal: SortedThresholds<L>;
  private readonly crossesAbove: SortedThresholds<L>;
  private readonly crossesBelow: SortedThresholds<L>;
  private count = 0;
  /** The last value given to `update` (NaN before the first). */
  private last = Number.NaN;
  /** No threshold lies strictly between these two, and `last` lies between them (or on both). */
  private below = Number.NaN;
  private above = Number.NaN;

  /** `runSize`: how long a list grows before it is kept in runs (see SortedThresholds; tests make it small). */
  constructor(runSize = RUN_SIZE) {
    this.greater = new SortedThresholds<L>(runSize);
    this.greaterOrEqual = new SortedThresholds<L>(runSize);
    this.less = new SortedThresholds<L>(runSize);
    this.lessOrEqual = new SortedThresholds<L>(runSize);
    this.equal = new SortedThresholds<L>(runSize);
    this.unequal = new SortedThresholds<L>(runSize);
    this.crossesAbove = new SortedThresholds<L>(runSize);
    this.crossesBelow = new SortedThresholds<L>(runSize);
  }

  /** How many conditions the index holds. */
  get size(): number {
    return this.count;
  }

  /** Indexes a condition `series <operator> threshold`, identified by `leaf`. */
  add(operator: ThresholdOperator, threshold: number, leaf: L): void {
    this.listOf(operator).add(threshold, leaf);
    this.count += 1;
    if (threshold <= this.last && threshold > this.below) this.below = threshold;
    if (threshold >= this.last && threshold < this.above) this.above = threshold;
  }

  /** Removes a condition added with the same operator, threshold and leaf; does nothing when there is none. */
  remove(operator: ThresholdOperator, threshold: number, leaf: L): void {
    if (this.listOf(operator).remove(threshold, leaf)) this.count -= 1;
  }

  /** Calls `visit(leaf)` for every condition of the index (in no particular order): each list whole, as the range from -Infinity to Infinity, ends included. */
  forEachCondition(visit: (leaf: L) => void): void {
    if (this.count === 0) return;
    for (const list of [this.greater, this.greaterOrEqual, this.less, this.lessOrEqual, this.equal, this.unequal, this.crossesAbove, this.crossesBelow]) {
      list.visitRange(-Infinity, Infinity, true, true, true, visit);
    }
  }

  /**
   * Reports the conditions whose truth changes when the series moves from `previous` (undefined for
   * the first value) to `current`: `flip(leaf, holds)` for level operators, `fire(leaf)` for crossings.
   * Callers must not add or remove conditions of this series from inside the callbacks.
   */
  update(previous: number | undefined, current: number, flip: Visit<L>, fire: (leaf: L) => void): void {
    if (this.count === 0 || previous === current) return;
    if (previous === this.last && current > this.below && current < this.above) {
      this.last = current;
      return;
    }
    this.changes(previous, current, flip, fire);
    this.settleGap(current);
  }

  private changes(previous: number | undefined, current: number, flip: Visit<L>, fire: (leaf: L) => void): void {
    if (previous === undefined) {
      this.greater.visitRange(-Infinity, current, false, false, true, flip);
      this.greaterOrEqual.visitRange(-Infinity, current, false, true, true, flip);
      this.less.visitRange(current, Infinity, false, true, true, flip);
      this.lessOrEqual.visitRange(current, Infinity, true, true, true, flip);
      this.equal.visitEqual(current, true, flip);
      this.unequal.visitUnequal(current, true, flip);
      return;
    }
    const rising = current > previous;
    const lo = rising ? previous : current;
    const hi = rising ? current : previous;
    this.greater.visitRange(lo, hi, true, false, rising, flip);
    this.greaterOrEqual.visitRange(lo, hi, false, true, rising, flip);
    this.less.visitRange(lo, hi, false, true, !rising, flip);
    this.lessOrEqual.visitRange(lo, hi, true, false, !rising, flip);
    this.equal.visitEqual(previous, false, flip);
    this.equal.visitEqual(current, true, flip);
    this.unequal.visitEqual(previous, true, flip);
    this.unequal.visitEqual(current, false, flip);
    // Crossings in [a, b) on a rise, (b, a] on a fall: the same walk, with `fire` (it has no use for `holds`).
    (rising ? this.crossesAbove : this.crossesBelow).visitRange(lo, hi, rising, !rising, true, fire);
  }

  /** Remembers `value` and the nearest thresholds below and above it (equal to it on both sides when one lies on it). */
  private settleGap(value: number): void {
    this.last = value;
    this.below = -Infinity;
    this.above = Infinity;
    this.narrowTo(this.greater, value);
    this.narrowTo(this.greaterOrEqual, value);
    this.narrowTo(this.less, value);
    this.narrowTo(this.lessOrEqual, value);
    this.narrowTo(this.equal, value);
    this.narrowTo(this.unequal, value);
    this.narrowTo(this.crossesAbove, value);
    this.narrowTo(this.crossesBelow, value);
  }

  private narrowTo(list: SortedThresholds<L>, value: number): void {
    if (list.size === 0) return;
    const up = list.ceiling(value);
    if (up < this.above) this.above = up;
    if (up === value) this.below = value;
    else {
      const down = list.belowCeiling();
      if (down > this.below) this.below = down;
    }
  }

  private listOf(operator: ThresholdOperator): SortedThresholds<L> {
    switch (operator) {
      case '>':
        return this.greater;
      case '>=':
        return this.greaterOrEqual;
      case '<':
        return this.less;
      case '<=':
        return this.lessOrEqual;
      case '==':
        return this.equal;
      case '!=':
        return this.unequal;
      case 'crosses_above':
        return this.crossesAbove;
      case 'crosses_below':
        return this.crossesBelow;
    }
  }
}
