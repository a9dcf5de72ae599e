/** Comparison operators of a series against a constant. */
export type ThresholdOperator = '>' | '>=' | '<' | '<=' | '==' | '!=' | 'crosses_above' | 'crosses_below';

/**
 * Thresholds of one operator, sorted, beside the condition of each (one entry per condition: a threshold
 * that several conditions share repeats, in the order they came). Binary search finds the range a move
 * crosses; inserting and removing shift the two arrays, which stay small per series (the queries of one
 * symbol and operator). No closures, no copies and no array per threshold.
 */
class SortedThresholds<L> {
  readonly keys: number[] = [];
  readonly leaves: L[] = [];

  /** Index of the first threshold >= value (or > value when `strict`). */
  lowerBound(value: number, strict: boolean): number {
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const key = keys[mid] as number;
      if (key < value || (strict && key === value)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds a condition after those with the same threshold. */
  add(threshold: number, leaf: L): void {
    const { keys, leaves } = this;
    const at = this.lowerBound(threshold, true);
    let i = keys.length;
    keys.push(threshold);
    leaves.push(leaf);
    for (; i > at; i -= 1) {
      keys[i] = keys[i - 1] as number;
      leaves[i] = leaves[i - 1] as L;
    }
    keys[at] = threshold;
    leaves[at] = leaf;
  }

  remove(threshold: number, leaf: L): boolean {
    const { keys, leaves } = this;
    for (let at = this.lowerBound(threshold, false); at < keys.length && keys[at] === threshold; at += 1) {
      if (leaves[at] !== leaf) continue;
      const last = keys.length - 1;
      for (let i = at; i < last; i += 1) {
        keys[i] = keys[i + 1] as number;
        leaves[i] = leaves[i + 1] as L;
      }
      keys.pop();
      leaves.pop();
      return true;
    }
    return false;
  }
}

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
  private readonly greater = new SortedThresholds<L>();
  private readonly greaterOrEqual = new SortedThresholds<L>();
  private readonly less = new SortedThresholds<L>();
  private readonly lessOrEqual = new SortedThresholds<L>();
  private readonly equal = new SortedThresholds<L>();
  private readonly unequal = new SortedThresholds<L>();
  private readonly crossesAbove = new SortedThresholds<L>();
  private readonly crossesBelow = new SortedThresholds<L>();
  private count = 0;
  /** The last value given to `update` (NaN before the first). */
  private last = Number.NaN;
  /** No threshold lies strictly between these two, and `last` lies between them (or on both). */
  private below = Number.NaN;
  private above = Number.NaN;

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
      this.visit(this.greater, -Infinity, current, false, false, true, flip);
      this.visit(this.greaterOrEqual, -Infinity, current, false, true, true, flip);
      this.visit(this.less, current, Infinity, false, true, true, flip);
      this.visit(this.lessOrEqual, current, Infinity, true, true, true, flip);
      this.visitEqual(this.equal, current, true, flip);
      const unequal = this.unequal;
      for (let i = 0; i < unequal.keys.length; i += 1) if (unequal.keys[i] !== current) flip(unequal.leaves[i] as L, true);
      return;
    }
    const rising = current > previous;
    const lo = rising ? previous : current;
    const hi = rising ? current : previous;
    this.visit(this.greater, lo, hi, true, false, rising, flip);
    this.visit(this.greaterOrEqual, lo, hi, false, true, rising, flip);
    this.visit(this.less, lo, hi, false, true, !rising, flip);
    this.visit(this.lessOrEqual, lo, hi, true, false, !rising, flip);
    this.visitEqual(this.equal, previous, false, flip);
    this.visitEqual(this.equal, current, true, flip);
    this.visitEqual(this.unequal, previous, true, flip);
    this.visitEqual(this.unequal, current, false, flip);
    // Crossings in [a, b) on a rise, (b, a] on a fall: the same walk, with `fire` (it has no use for `holds`).
    this.visit(rising ? this.crossesAbove : this.crossesBelow, lo, hi, rising, !rising, true, fire);
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
    const keys = list.keys;
    if (keys.length === 0) return;
    const at = list.lowerBound(value, false);
    if (at < keys.length) {
      const key = keys[at] as number;
      if (key < this.above) this.above = key;
      if (key === value) this.below = value;
    }
    if (at > 0) {
      const key = keys[at - 1] as number;
      if (key > this.below) this.below = key;
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

  /** Visits the conditions of one operator's list whose thresholds lie between lo and hi (ends included as told). */
  private visit(list: SortedThresholds<L>, lo: number, hi: number, includeLo: boolean, includeHi: boolean, holds: boolean, flip: Visit<L>): void {
    if (list.keys.length === 0) return;
    const keys = list.keys;
    for (let i = list.lowerBound(lo, !includeLo); i < keys.length; i += 1) {
      const key = keys[i] as number;
      if (includeHi ? key > hi : key >= hi) break;
      flip(list.leaves[i] as L, holds);
    }
  }

  /** Flips the conditions of one list whose threshold is exactly `value`. */
  private visitEqual(list: SortedThresholds<L>, value: number, holds: boolean, flip: Visit<L>): void {
    const keys = list.keys;
    if (keys.length === 0) return;
    for (let i = list.lowerBound(value, false); i < keys.length && keys[i] === value; i += 1) flip(list.leaves[i] as L, holds);
  }
}
