import type { Subscription } from 'rxjs';
import type { ConditionGroup } from '../condition-tree.js';
import type { ConditionState } from '../interfaces.js';
import type { Topic } from '../observations.js';
import { READY, type Readiness, type SeriesDescription, type SeriesReader, type SeriesValue } from '../series-value.js';
import type { ThresholdOperator } from '../threshold-index.js';
import { compare, Leaf, type LeafHost } from './leaf.js';

export interface NumericOperand {
  topic: Topic;
  description: SeriesDescription;
}

/**
 * A price or indicator condition: `series <operator> threshold`, where the threshold is a number
 * (the condition sits in the series' threshold index) or a live operand (it is evaluated on every
 * update of either series).
 *
 * Level operators hold while the comparison holds (at once if it already does). `crosses_above t`
 * holds at the update where the value goes from at or below t to above it (a previous value is
 * needed); `crosses_below` mirrors it. With `holdFor` a crossing counts once the value has stayed on
 * the crossed side for that long.
 */
export class NumericLeaf extends Leaf implements SeriesReader {
  private left: SeriesValue | undefined;
  private right: SeriesValue | undefined;
  /** Last left - right of a live-operand comparison, for crossings. */
  private lastDifference: number | undefined;
  private pendingCrossing: Subscription | undefined;
  /** Values at the last detach. */
  private lastRead: { value: number | undefined; threshold: number | undefined; at: number | undefined; readiness: Readiness } | undefined;

  constructor(
    host: LeafHost,
    path: string,
    holdForMs: number | undefined,
    parent: ConditionGroup | undefined,
    readonly operator: ThresholdOperator,
    readonly subject: NumericOperand,
    readonly threshold: number | NumericOperand,
  ) {
    super(host, path, holdForMs, parent);
  }

  /**
   * The leaf of a removed query made anew as another query's condition: the same fields as a new leaf, in
   * an object that has already outlived its young collections (see `QueryRuntime.renew`).
   */
  renew(host: LeafHost, path: string, holdForMs: number | undefined, parent: ConditionGroup | undefined, operator: ThresholdOperator, subject: NumericOperand, threshold: number | NumericOperand): this {
    this.renewNode(host, path, holdForMs, parent);
    const leaf = this as unknown as { -readonly [K in 'operator' | 'subject' | 'threshold']: NumericLeaf[K] };
    leaf.operator = operator;
    leaf.subject = subject;
    leaf.threshold = threshold;
    this.left = undefined;
    this.right = undefined;
    this.lastDifference = undefined;
    this.pendingCrossing = undefined;
    this.lastRead = undefined;
    return this;
  }

  get crossing(): boolean {
    return this.operator === 'crosses_above' || this.operator === 'crosses_below';
  }

  /** How long a crossing must stay crossed before it counts (its holdFor); undefined for a level condition. */
  get crossingHoldMs(): number | undefined {
    return this.crossing ? this.holdForMs : undefined;
  }

  attach(): void {
    this.left = this.services.acquireSeries(this.subject.topic, this.subject.description);
    if (typeof this.threshold === 'number') {
      this.left.index.add(this.operator, this.threshold, this);
      if (!this.crossing && this.left.value !== undefined) this.setRaw(compare(this.left.value, this.operator, this.threshold));
      return;
    }
    this.right = this.services.acquireSeries(this.threshold.topic, this.threshold.description);
    this.left.addDynamic(this);
    this.right.addDynamic(this);
    this.evaluateDynamic();
  }

  detach(): void {
    // Keep what was last read, so a query that fired or stopped still shows its values.
    this.lastRead = { value: this.left?.value, threshold: typeof this.threshold === 'number' ? this.threshold : this.right?.value, at: this.inputAt(), readiness: this.readiness() };
    this.cancelPendingCrossing();
    if (this.left) {
      if (typeof this.threshold === 'number') this.left.index.remove(this.operator, this.threshold, this);
      this.left.deleteDynamic(this);
      this.services.releaseSeries(this.subject.topic, this.left);
    }
    if (this.right && typeof this.threshold !== 'number') {
      this.right.deleteDynamic(this);
      this.services.releaseSeries(this.threshold.topic, this.right);
    }
    this.left = undefined;
    this.right = undefined;
  }

  override forget(): void {
    this.lastRead = undefined;
  }

  /** From the threshold index: a level comparison changed. */
  flip(holds: boolean): void {
    this.setRaw(holds);
  }

  /** From the threshold index or a live-operand evaluation: the value crossed the threshold. */
  crossed(): void {
    const holdMs = this.crossingHoldMs;
    if (holdMs === undefined) {
      this.services.deferPulse(this);
      return;
    }
    this.cancelPendingCrossing();
    this.left?.addWatching(this);
    this.right?.addWatching(this);
    this.pendingCrossing = this.services.schedule(holdMs, () => {
      this.pendingCrossing = undefined;
      this.left?.deleteWatching(this);
      this.right?.deleteWatching(this);
      // Like an undelayed crossing: judged after the instant's other timers have settled their levels.
      this.services.deferPulse(this);
    });
  }

  /** While a crossing waits out its holdFor: a move back across the threshold cancels it. */
  checkPendingCrossing(): void {
    const current = this.currentDifference();
    if (current === undefined) return;
    const stillCrossed = this.operator === 'crosses_above' ? current > 0 : current < 0;
    if (!stillCrossed) this.cancelPendingCrossing();
  }

  /** A live-operand comparison: re-evaluated on every update of either side. */
  evaluateDynamic(): void {
    const difference = this.currentDifference();
    if (difference === undefined) {
      if (!this.crossing) this.setRaw(false);
      return;
    }
    if (!this.crossing) {
      this.setRaw(compare(difference, this.operator, 0));
    } else {
      const before = this.lastDifference;
      if (before !== undefined) {
        if (this.operator === 'crosses_above' && before <= 0 && difference > 0) this.crossed();
        if (this.operator === 'crosses_below' && before >= 0 && difference < 0) this.crossed();
      }
    }
    this.lastDifference = difference;
  }

  override inputAt(): number | undefined {
    if (!this.left) return this.lastRead?.at;
    const left = this.left.updatedAt;
    const right = this.right?.updatedAt;
    if (left === undefined) return right;
    return right === undefined ? left : Math.max(left, right);
  }

  state(): ConditionState {
    const state: ConditionState = {
      path: this.path,
      source: this.subject.description.source,
      method: this.subject.description.method,
      holds: this.effective,
    };
    const value = this.left ? this.left.value : this.lastRead?.value;
    if (value !== undefined) state.value = value;
    const threshold = typeof this.threshold === 'number' ? this.threshold : this.right ? this.right.value : this.lastRead?.threshold;
    if (threshold !== undefined) state.threshold = threshold;
    if (typeof this.threshold !== 'number') state.operand = `${this.threshold.description.source}.${this.threshold.description.method}`;
    if (this.since !== undefined) state.since = this.since;
    const readiness = this.readiness();
    if (readiness === READY) state.status = 'ready';
    else Object.assign(state, readiness);
    const observedAt = this.inputAt();
    if (observedAt !== undefined) state.observedAt = observedAt;
    return state;
  }

  /** The least ready of the two sides (no_data before warming_up before ready); the last one read after a detach. */
  private readiness(): Readiness {
    if (!this.left) return this.lastRead?.readiness ?? READY;
    const left = this.left.readiness();
    const right = this.right?.readiness();
    if (!right) return left;
    const rank = { no_data: 2, warming_up: 1, ready: 0 } as const;
    if (rank[right.status] > rank[left.status]) return right;
    if (rank[right.status] < rank[left.status] || left.status !== 'warming_up') return left;
    // Both warming up: ready when the later one is.
    return (right.readyAt ?? Infinity) > (left.readyAt ?? Infinity) ? right : left;
  }

  private currentDifference(): number | undefined {
    const left = this.left?.value;
    const right = typeof this.threshold === 'number' ? this.threshold : this.right?.value;
    return left === undefined || right === undefined ? undefined : left - right;
  }

  private cancelPendingCrossing(): void {
    this.pendingCrossing?.unsubscribe();
    this.pendingCrossing = undefined;
    this.left?.deleteWatching(this);
    this.right?.deleteWatching(this);
  }
}
