import type { Subscription } from 'rxjs';

/** What a condition tree needs from the query that owns it. */
export interface ConditionTreeHost {
  now(): number;
  /** Runs `work` after `delayMs` on the engine's scheduler. */
  schedule(delayMs: number, work: () => void): Subscription;
  /**
   * The root came to hold. `pulse` is true when it holds only at this instant (a crossing or a cron
   * tick): the host must act before this call returns. Otherwise the host may wait for the end of
   * the current batch of updates and check `root.effective` again.
   */
  rootHolds(pulse: boolean): void;
  /** A leaf's effective state changed (for `condition-changed` events). */
  leafChanged?(node: ConditionNode): void;
}

/**
 * One node of a query's condition tree: a leaf condition or an AND / OR group.
 *
 * `raw` is whether the node's own test holds (a leaf's comparison, a group's AND / OR of its members'
 * effective states); `effective` is what its parent sees: `raw`, delayed by `holdFor` when one is set
 * (the node must hold that long, without a break, before it counts). Groups keep a count of members
 * that hold, so a change costs O(depth), never a re-evaluation of the tree.
 */
export class ConditionNode {
  raw = false;
  effective = false;
  /** Since when `effective` has held. */
  since: number | undefined;
  /** Members that hold (groups only). */
  private holding = 0;
  private holdTimer: Subscription | undefined;
  readonly children: ConditionNode[] = [];

  constructor(
    readonly host: ConditionTreeHost,
    /** JSON pointer inside `query.conditions`, such as `/AND/1`; `''` for the root. */
    readonly path: string,
    readonly kind: 'AND' | 'OR' | 'leaf',
    readonly holdForMs: number | undefined,
    readonly parent: ConditionNode | undefined,
  ) {
    parent?.children.push(this);
  }

  /** Sets the node's own test result (leaves), honouring holdFor. */
  setRaw(value: boolean): void {
    if (value === this.raw) return;
    this.raw = value;
    if (this.holdForMs === undefined) {
      this.setEffective(value, false);
      return;
    }
    this.holdTimer?.unsubscribe();
    this.holdTimer = undefined;
    if (!value) {
      this.setEffective(false, false);
      return;
    }
    this.holdTimer = this.host.schedule(this.holdForMs, () => {
      this.holdTimer = undefined;
      if (this.raw) this.setEffective(true, false);
    });
  }

  /**
   * A leaf that holds only at this instant (a crossing, a cron tick). Its own holdFor is the leaf's
   * business (see the numeric leaf); a parent's holdFor cannot be met by an instant.
   */
  pulse(): void {
    if (this.effective) return;
    this.setEffective(true, true);
    this.setEffective(false, true);
  }

  /** Cancels pending timers; the node stays as it is. */
  dispose(): void {
    this.holdTimer?.unsubscribe();
    this.holdTimer = undefined;
    for (const child of this.children) child.dispose();
  }

  private setEffective(value: boolean, pulse: boolean): void {
    if (value === this.effective) return;
    this.effective = value;
    this.since = value ? this.host.now() : undefined;
    if (this.kind === 'leaf' && !pulse) this.host.leafChanged?.(this);
    const parent = this.parent;
    if (parent === undefined) {
      if (value) this.host.rootHolds(pulse);
      return;
    }
    parent.holding += value ? 1 : -1;
    const holds = parent.kind === 'AND' ? parent.holding === parent.children.length : parent.holding > 0;
    if (pulse && parent.holdForMs === undefined) parent.setEffectiveFromPulse(holds);
    else parent.setRaw(holds);
  }

  private setEffectiveFromPulse(holds: boolean): void {
    this.raw = holds;
    this.setEffective(holds, true);
  }
}
