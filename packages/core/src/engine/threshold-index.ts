import BTreeModule from 'sorted-btree';

// sorted-btree is CommonJS with `exports.default`: Node's ESM loader hands over `module.exports`,
// bundlers (and vitest) the default export itself. Take whichever is the class.
type BTreeClass = typeof BTreeModule.default;
const BTree: BTreeClass = (BTreeModule as unknown as { default?: BTreeClass }).default ?? (BTreeModule as unknown as BTreeClass);
type Tree<V> = InstanceType<typeof BTree<number, V>>;

/** Comparison operators of a series against a constant. */
export type ThresholdOperator = '>' | '>=' | '<' | '<=' | '==' | '!=' | 'crosses_above' | 'crosses_below';

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
  private readonly levels = new Map<ThresholdOperator, Tree<L[]>>();
  private readonly exact = new Map<'==' | '!=', Map<number, L[]>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(operator: ThresholdOperator, threshold: number, leaf: L): void {
    const bucket = this.bucketFor(operator, threshold, true) as L[];
    bucket.push(leaf);
    this.count += 1;
  }

  remove(operator: ThresholdOperator, threshold: number, leaf: L): void {
    const bucket = this.bucketFor(operator, threshold, false);
    if (!bucket) return;
    const at = bucket.indexOf(leaf);
    if (at < 0) return;
    bucket.splice(at, 1);
    this.count -= 1;
    if (bucket.length > 0) return;
    if (operator === '==' || operator === '!=') this.exact.get(operator)?.delete(threshold);
    else this.levels.get(operator)?.delete(threshold);
  }

  /**
   * Reports the conditions whose truth changes when the series moves from `previous` (undefined for
   * the first value) to `current`: `flip(leaf, holds)` for level operators, `fire(leaf)` for crossings.
   */
  update(previous: number | undefined, current: number, flip: (leaf: L, holds: boolean) => void, fire: (leaf: L) => void): void {
    if (this.count === 0 || previous === current) return;
    if (previous === undefined) {
      this.range('>', -Infinity, current, false, false, (leaf) => flip(leaf, true));
      this.range('>=', -Infinity, current, false, true, (leaf) => flip(leaf, true));
      this.range('<', current, Infinity, false, true, (leaf) => flip(leaf, true));
      this.range('<=', current, Infinity, true, true, (leaf) => flip(leaf, true));
      for (const leaf of this.exact.get('==')?.get(current) ?? []) flip(leaf, true);
      for (const [threshold, leaves] of this.exact.get('!=') ?? []) {
        if (threshold !== current) for (const leaf of leaves) flip(leaf, true);
      }
      return;
    }
    const rising = current > previous;
    const lo = rising ? previous : current;
    const hi = rising ? current : previous;
    // x > t holds after a rise for t in [lo, hi) that did not hold before.
    this.range('>', lo, hi, true, false, (leaf) => flip(leaf, rising));
    this.range('>=', lo, hi, false, true, (leaf) => flip(leaf, rising));
    this.range('<', lo, hi, false, true, (leaf) => flip(leaf, !rising));
    this.range('<=', lo, hi, true, false, (leaf) => flip(leaf, !rising));
    for (const leaf of this.exact.get('==')?.get(previous) ?? []) flip(leaf, false);
    for (const leaf of this.exact.get('==')?.get(current) ?? []) flip(leaf, true);
    for (const leaf of this.exact.get('!=')?.get(previous) ?? []) flip(leaf, true);
    for (const leaf of this.exact.get('!=')?.get(current) ?? []) flip(leaf, false);
    if (rising) this.range('crosses_above', lo, hi, true, false, fire);
    else this.range('crosses_below', lo, hi, false, true, fire);
  }

  private range(operator: ThresholdOperator, lo: number, hi: number, includeLo: boolean, includeHi: boolean, visit: (leaf: L) => void): void {
    const tree = this.levels.get(operator);
    if (!tree || tree.size === 0) return;
    tree.forRange(lo, hi, includeHi, (threshold, leaves) => {
      if (!includeLo && threshold === lo) return;
      // Visit a copy: a visit may remove conditions (a query that fires releases its leaves).
      for (const leaf of leaves.length === 1 ? leaves : [...leaves]) visit(leaf);
    });
  }

  private bucketFor(operator: ThresholdOperator, threshold: number, create: boolean): L[] | undefined {
    if (operator === '==' || operator === '!=') {
      let map = this.exact.get(operator);
      if (!map) {
        if (!create) return undefined;
        map = new Map();
        this.exact.set(operator, map);
      }
      let bucket = map.get(threshold);
      if (!bucket && create) map.set(threshold, (bucket = []));
      return bucket;
    }
    let tree = this.levels.get(operator);
    if (!tree) {
      if (!create) return undefined;
      tree = new BTree<number, L[]>();
      this.levels.set(operator, tree);
    }
    let bucket = tree.get(threshold);
    if (!bucket && create) tree.set(threshold, (bucket = []));
    return bucket;
  }
}
