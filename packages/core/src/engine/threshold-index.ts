import { RUN_SIZE, SortedThresholds, type TaggedVisitor } from './sorted-thresholds.js';

/** Comparison operators of a series against a constant. */
export type ThresholdOperator = '>' | '>=' | '<' | '<=' | '==' | '!=' | 'crosses_above' | 'crosses_below';

type Visit<L> = (leaf: L, holds: boolean) => void;

// The operator of each entry of the list, as its tag.
const GREATER = 0;
const GREATER_OR_EQUAL = 1;
const LESS = 2;
const LESS_OR_EQUAL = 3;
const EQUAL = 4;
const UNEQUAL = 5;
const CROSSES_ABOVE = 6;
const CROSSES_BELOW = 7;

function tagOf(operator: ThresholdOperator): number {
  switch (operator) {
    case '>':
      return GREATER;
    case '>=':
      return GREATER_OR_EQUAL;
    case '<':
      return LESS;
    case '<=':
      return LESS_OR_EQUAL;
    case '==':
      return EQUAL;
    case '!=':
      return UNEQUAL;
    case 'crosses_above':
      return CROSSES_ABOVE;
    case 'crosses_below':
      return CROSSES_BELOW;
  }
}

const ignoreFlip: Visit<unknown> = () => undefined;
const ignoreFire = (): void => undefined;

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
 * **One list.** The conditions of every operator are in one sorted list, each tagged with its operator:
 * every change a move causes has its threshold in [min, max] of (a, b), so a move reads that one range of
 * that one list, whatever the operators, and the gap below is two neighbours in it. (Until the sixteenth
 * round there was a list per operator: a move that left the gap searched eight lists, each a likely cache
 * miss a step with many series.)
 *
 * **The gap.** The index keeps, for the last value it was given, the open interval between the nearest
 * thresholds below and above it (of every operator); a move from that value to one inside the interval
 * changes nothing, and the update reads this object only. With many series, each series' list is out of
 * the processor's caches by the time its next value comes (a binary search then costs a cache miss a
 * step), so this check is most of what a quiet series costs. Adding a threshold narrows the gap; removing
 * one leaves it as it is (still free of thresholds, so still right).
 */
export class ThresholdIndex<L> implements TaggedVisitor<L> {
  private readonly list: SortedThresholds<L>;
  /** The list's size, here: a quiet tick reads this object only. */
  private count = 0;
  /** The last value given to `update` (NaN before the first). */
  private last = Number.NaN;
  /** No threshold lies strictly between these two, and `last` lies between them (or on both). */
  private below = Number.NaN;
  private above = Number.NaN;
  // The move being visited and what to tell (see `entry`): set by `changes` before it walks the list.
  private moveFrom: number | undefined;
  private moveTo = 0;
  private flip: Visit<L> = ignoreFlip;
  private fire: (leaf: L) => void = ignoreFire;

  /** `runSize`: how long the list grows before it is kept in runs (see SortedThresholds; tests make it small). */
  constructor(runSize = RUN_SIZE) {
    this.list = new SortedThresholds<L>(runSize);
  }

  /** How many conditions the index holds. */
  get size(): number {
    return this.count;
  }

  /** Indexes a condition `series <operator> threshold`, identified by `leaf`. */
  add(operator: ThresholdOperator, threshold: number, leaf: L): void {
    this.list.add(threshold, leaf, tagOf(operator));
    this.count += 1;
    if (threshold <= this.last && threshold > this.below) this.below = threshold;
    if (threshold >= this.last && threshold < this.above) this.above = threshold;
  }

  /** Removes a condition added with the same operator, threshold and leaf; does nothing when there is none. */
  remove(operator: ThresholdOperator, threshold: number, leaf: L): void {
    if (this.list.remove(threshold, leaf, tagOf(operator))) this.count -= 1;
  }

  /** Calls `visit(leaf)` for every condition of the index (in no particular order). */
  forEachCondition(visit: (leaf: L) => void): void {
    this.list.visitRange(-Infinity, Infinity, true, true, true, visit);
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

  /** Visits the entries a move can change: all of them for a first value, else those in [min, max] of the move. */
  private changes(previous: number | undefined, current: number, flip: Visit<L>, fire: (leaf: L) => void): void {
    this.moveFrom = previous;
    this.moveTo = current;
    this.flip = flip;
    this.fire = fire;
    if (previous === undefined) this.list.visitTagged(-Infinity, Infinity, this);
    else if (current > previous) this.list.visitTagged(previous, current, this);
    else this.list.visitTagged(current, previous, this);
  }

  /**
   * One entry of the range a move covers (the list calls it during `update`; not for other callers): what
   * the move does to its condition, by its operator.
   */
  entry(threshold: number, leaf: L, tag: number): void {
    const from = this.moveFrom;
    const to = this.moveTo;
    if (from === undefined) {
      if (firstValueHolds(tag, threshold, to)) this.flip(leaf, true);
      return;
    }
    const rising = to > from;
    // The range is [lo, hi] with both ends: each operator leaves out the end its rule excludes.
    const lo = rising ? from : to;
    const hi = rising ? to : from;
    switch (tag) {
      case GREATER: // [lo, hi)
        if (threshold !== hi) this.flip(leaf, rising);
        return;
      case GREATER_OR_EQUAL: // (lo, hi]
        if (threshold !== lo) this.flip(leaf, rising);
        return;
      case LESS: // (lo, hi]
        if (threshold !== lo) this.flip(leaf, !rising);
        return;
      case LESS_OR_EQUAL: // [lo, hi)
        if (threshold !== hi) this.flip(leaf, !rising);
        return;
      case EQUAL:
        if (threshold === from) this.flip(leaf, false);
        else if (threshold === to) this.flip(leaf, true);
        return;
      case UNEQUAL:
        if (threshold === from) this.flip(leaf, true);
        else if (threshold === to) this.flip(leaf, false);
        return;
      case CROSSES_ABOVE: // [a, b) on a rise
        if (rising && threshold !== hi) this.fire(leaf);
        return;
      case CROSSES_BELOW: // (b, a] on a fall
        if (!rising && threshold !== lo) this.fire(leaf);
        return;
    }
  }

  /** Remembers `value` and the nearest thresholds below and above it (equal to it on both sides when one lies on it). */
  private settleGap(value: number): void {
    this.last = value;
    const up = this.list.ceiling(value);
    this.above = up;
    this.below = up === value ? value : this.list.belowCeiling();
  }
}

/** Whether a level condition holds at a series' first value (a crossing needs a move, so never). */
function firstValueHolds(tag: number, threshold: number, value: number): boolean {
  switch (tag) {
    case GREATER:
      return value > threshold;
    case GREATER_OR_EQUAL:
      return value >= threshold;
    case LESS:
      return value < threshold;
    case LESS_OR_EQUAL:
      return value <= threshold;
    case EQUAL:
      return value === threshold;
    case UNEQUAL:
      return value !== threshold;
    default:
      return false;
  }
}
