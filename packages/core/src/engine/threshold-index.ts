/** Comparison operators of a series against a constant. */
export type ThresholdOperator = '>' | '>=' | '<' | '<=' | '==' | '!=' | 'crosses_above' | 'crosses_below';

/**
 * Thresholds of one operator, sorted, each with the conditions that use it. Binary search finds the
 * range a move crosses; inserting and removing shift the arrays, which stay small per series (the
 * queries of one symbol and operator). No closures and no copies on the hot path.
 */
class SortedThresholds<L> {
  readonly keys: number[] = [];
  readonly buckets: L[][] = [];

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

  add(threshold: number, leaf: L): void {
    const at = this.lowerBound(threshold, false);
    if (this.keys[at] === threshold) (this.buckets[at] as L[]).push(leaf);
    else {
      this.keys.splice(at, 0, threshold);
      this.buckets.splice(at, 0, [leaf]);
    }
  }

  remove(threshold: number, leaf: L): boolean {
    const at = this.lowerBound(threshold, false);
    if (this.keys[at] !== threshold) return false;
    const bucket = this.buckets[at] as L[];
    const position = bucket.indexOf(leaf);
    if (position < 0) return false;
    if (bucket.length === 1) {
      this.keys.splice(at, 1);
      this.buckets.splice(at, 1);
    } else bucket.splice(position, 1);
    return true;
  }
}

type Visit<L> = (leaf: L, holds: boolean) => void;

type SortedOperator = Exclude<ThresholdOperator, '==' | '!='>;

/**
 * The conditions on one numeric series that compare it with a constant, indexed by threshold so that
 * a new value visits only the conditions whose truth it changes: O(log N + changes) per update, not O(N).
 *
 * For a move from `a` to `b`:
 * - `x > t` flips for t in [min, max) of (a, b); `x >= t` for t in (min, max]; `<` and `<=` likewise;
 * - `==` and `!=` flip only for t equal to a or b (hash lookups);
 * - `crosses_above t` fires for t in [a, b) on a rise, `crosses_below t` for t in (b, a] on a fall.
 * The first value sets every level condition that holds.
 */
export class ThresholdIndex<L> {
  /** One sorted list per ordering operator, as fields: a tick looks each up without a hash. */
  private readonly sorted: Record<SortedOperator, SortedThresholds<L>> = {
    '>': new SortedThresholds<L>(),
    '>=': new SortedThresholds<L>(),
    '<': new SortedThresholds<L>(),
    '<=': new SortedThresholds<L>(),
    crosses_above: new SortedThresholds<L>(),
    crosses_below: new SortedThresholds<L>(),
  };
  private readonly exact: Record<'==' | '!=', Map<number, L[]>> = { '==': new Map<number, L[]>(), '!=': new Map<number, L[]>() };
  private count = 0;

  /** How many conditions the index holds. */
  get size(): number {
    return this.count;
  }

  /** Indexes a condition `series <operator> threshold`, identified by `leaf`. */
  add(operator: ThresholdOperator, threshold: number, leaf: L): void {
    if (operator === '==' || operator === '!=') {
      const map = this.exact[operator];
      const bucket = map.get(threshold);
      if (bucket) bucket.push(leaf);
      else map.set(threshold, [leaf]);
    } else this.sorted[operator].add(threshold, leaf);
    this.count += 1;
  }

  /** Removes a condition added with the same operator, threshold and leaf; does nothing when there is none. */
  remove(operator: ThresholdOperator, threshold: number, leaf: L): void {
    if (operator === '==' || operator === '!=') {
      const map = this.exact[operator];
      const bucket = map.get(threshold);
      const position = bucket ? bucket.indexOf(leaf) : -1;
      if (!bucket || position < 0) return;
      if (bucket.length === 1) map.delete(threshold);
      else bucket.splice(position, 1);
      this.count -= 1;
      return;
    }
    if (this.sorted[operator].remove(threshold, leaf)) this.count -= 1;
  }

  /**
   * Reports the conditions whose truth changes when the series moves from `previous` (undefined for
   * the first value) to `current`: `flip(leaf, holds)` for level operators, `fire(leaf)` for crossings.
   * Callers must not add or remove conditions of this series from inside the callbacks.
   */
  update(previous: number | undefined, current: number, flip: Visit<L>, fire: (leaf: L) => void): void {
    if (this.count === 0 || previous === current) return;
    if (previous === undefined) {
      this.visit(this.sorted['>'], -Infinity, current, false, false, true, flip);
      this.visit(this.sorted['>='], -Infinity, current, false, true, true, flip);
      this.visit(this.sorted['<'], current, Infinity, false, true, true, flip);
      this.visit(this.sorted['<='], current, Infinity, true, true, true, flip);
      const equal = this.exact['=='].get(current);
      if (equal) for (const leaf of equal) flip(leaf, true);
      for (const [threshold, leaves] of this.exact['!=']) if (threshold !== current) for (const leaf of leaves) flip(leaf, true);
      return;
    }
    const rising = current > previous;
    const lo = rising ? previous : current;
    const hi = rising ? current : previous;
    this.visit(this.sorted['>'], lo, hi, true, false, rising, flip);
    this.visit(this.sorted['>='], lo, hi, false, true, rising, flip);
    this.visit(this.sorted['<'], lo, hi, false, true, !rising, flip);
    this.visit(this.sorted['<='], lo, hi, true, false, !rising, flip);
    const equal = this.exact['=='];
    if (equal.size > 0) {
      const before = equal.get(previous);
      if (before) for (const leaf of before) flip(leaf, false);
      const after = equal.get(current);
      if (after) for (const leaf of after) flip(leaf, true);
    }
    const unequal = this.exact['!='];
    if (unequal.size > 0) {
      const before = unequal.get(previous);
      if (before) for (const leaf of before) flip(leaf, true);
      const after = unequal.get(current);
      if (after) for (const leaf of after) flip(leaf, false);
    }
    const crossings = rising ? this.sorted.crosses_above : this.sorted.crosses_below;
    if (crossings.keys.length > 0) {
      const start = crossings.lowerBound(lo, !rising);
      for (let i = start; i < crossings.keys.length; i += 1) {
        const key = crossings.keys[i] as number;
        if (rising ? key >= hi : key > hi) break;
        for (const leaf of crossings.buckets[i] as L[]) fire(leaf);
      }
    }
  }

  /** Visits thresholds of one operator's list in the range (lo..hi, ends included as told). */
  private visit(list: SortedThresholds<L>, lo: number, hi: number, includeLo: boolean, includeHi: boolean, holds: boolean, flip: Visit<L>): void {
    if (list.keys.length === 0) return;
    const keys = list.keys;
    for (let i = list.lowerBound(lo, !includeLo); i < keys.length; i += 1) {
      const key = keys[i] as number;
      if (includeHi ? key > hi : key >= hi) break;
      for (const leaf of list.buckets[i] as L[]) flip(leaf, holds);
    }
  }
}
