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
  /**
   * Calls `node.settle()` at the end of the current instant, after every update of the instant: a
   * break in a held node counts only if it is still there then.
   */
  settleLater(node: ConditionNode): void;
}

/** The fields of a node fixed at its making, which only `renewNode` sets again. */
type RenewableNode = { -readonly [K in 'host' | 'path' | 'holdForMs' | 'parent']: ConditionNode[K] };

/**
 * One node of a query's condition tree: a leaf condition (a subclass in `leaves/`, which is its own node:
 * one object a condition) or an AND / OR group ({@link ConditionGroup}).
 *
 * `raw` is whether the node's own test holds (a leaf's comparison, a group's AND / OR of its members'
 * effective states); `effective` is what its parent sees: `raw`, delayed by `holdFor` when one is set
 * (the node must hold that long, without a break, before it counts). Groups keep a count of members
 * that hold, so a change costs O(depth), never a re-evaluation of the tree.
 */
export abstract class ConditionNode {
  raw = false;
  effective = false;
  /** Since when `effective` has held. */
  since: number | undefined;
  private holdTimer: Subscription | undefined;

  constructor(
    readonly host: ConditionTreeHost,
    /** JSON pointer inside `query.conditions`, such as `/AND/1`; `''` for the root. */
    readonly path: string,
    readonly kind: 'AND' | 'OR' | 'leaf',
    readonly holdForMs: number | undefined,
    readonly parent: ConditionGroup | undefined,
  ) {}

  /**
   * Sets the node's own test result (leaves), honouring holdFor. Within one instant a held node may
   * go false and true again (an OR whose members hand over): the wait goes on, because only the
   * state at the end of the instant counts (see `settle`).
   */
  setRaw(value: boolean): void {
    if (value === this.raw) return;
    this.raw = value;
    if (this.holdForMs === undefined) {
      this.setEffective(value, false);
      return;
    }
    if (!value) {
      this.host.settleLater(this);
      return;
    }
    if (this.holdTimer || this.effective) return;
    this.holdTimer = this.host.schedule(this.holdForMs, () => {
      this.holdTimer = undefined;
      if (this.raw) this.setEffective(true, false);
    });
  }

  /** End of an instant: a held node that is still false stops waiting and stops holding. */
  settle(): void {
    if (this.raw) return;
    this.holdTimer?.unsubscribe();
    this.holdTimer = undefined;
    this.setEffective(false, false);
  }

  /**
   * A leaf that holds only at this instant (a crossing, a cron tick) starts holding. The engine turns
   * every pulse of an instant on, then every one off (`pulseOff`), so pulses of one instant hold
   * together (two crossings of one tick in an AND). Its own holdFor is the leaf's business (see the
   * numeric leaf); a parent's holdFor cannot be met by an instant. False when the node already held.
   */
  pulseOn(): boolean {
    if (this.effective) return false;
    this.setEffective(true, true);
    return true;
  }

  /** The instant of a pulse is over (after `pulseOn` said true). */
  pulseOff(): void {
    this.setEffective(false, true);
  }

  /** Cancels pending timers (of the node and the nodes under it); the node stays as it is. */
  dispose(): void {
    this.holdTimer?.unsubscribe();
    this.holdTimer = undefined;
  }

  /**
   * The node as the constructor leaves it, for another query (see `QueryRuntime.renew`): its holder has
   * let it go (detached and disposed), so no timer, index or list of the engine holds it any more.
   */
  protected renewNode(host: ConditionTreeHost, path: string, holdForMs: number | undefined, parent: ConditionGroup | undefined): void {
    const node = this as unknown as RenewableNode;
    node.host = host;
    node.path = path;
    node.holdForMs = holdForMs;
    node.parent = parent;
    this.raw = false;
    this.effective = false;
    this.since = undefined;
    this.holdTimer = undefined;
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

  protected setEffectiveFromPulse(holds: boolean): void {
    this.raw = holds;
    this.setEffective(holds, true);
  }
}

/** The members of a group not built yet: shared (and frozen), not a new empty array a group. */
const NO_MEMBERS: readonly ConditionNode[] = Object.freeze([]);

/** An AND or OR group of the condition tree: its members, and how many of them hold. */
export class ConditionGroup extends ConditionNode {
  /** Members that hold. */
  holding = 0;
  /** The members, set once by whoever builds the tree (they name the group as their parent). */
  children: readonly ConditionNode[] = NO_MEMBERS;

  constructor(host: ConditionTreeHost, path: string, kind: 'AND' | 'OR', holdForMs: number | undefined, parent: ConditionGroup | undefined) {
    super(host, path, kind, holdForMs, parent);
  }

  override dispose(): void {
    super.dispose();
    const children = this.children;
    for (let index = 0; index < children.length; index += 1) (children[index] as ConditionNode).dispose();
  }
}
