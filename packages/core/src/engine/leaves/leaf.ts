import { ConditionNode, type ConditionGroup, type ConditionTreeHost } from '../condition-tree.js';
import type { ConditionState } from '../interfaces.js';
import type { LeafServices } from '../services.js';

/** What a leaf needs from the query that owns it: the tree's host, the query's id, and the engine's services. */
export interface LeafHost extends ConditionTreeHost {
  readonly id: string;
  readonly services: LeafServices;
}

/**
 * A leaf condition at run time: the node of the condition tree that it sets, itself (one object a
 * condition: a query with one condition is one node). It watches its inputs and sets `raw`.
 */
export abstract class Leaf extends ConditionNode {
  declare readonly host: LeafHost;

  constructor(host: LeafHost, path: string, holdForMs: number | undefined, parent: ConditionGroup | undefined) {
    super(host, path, 'leaf', holdForMs, parent);
  }

  /** The id of the query the leaf belongs to. */
  get queryId(): string {
    return this.host.id;
  }

  protected get services(): LeafServices {
    return this.host.services;
  }

  /** Starts watching (subscribes to shared channels, schedules timers). */
  abstract attach(): void;
  /** Stops watching and releases everything it holds. */
  abstract detach(): void;
  /** What it reads and whether it holds, now. */
  abstract state(): ConditionState;
  /** After a trigger under a repeat policy: forget latched matches (a new item is needed). */
  rearm?(): void;
  /** Time of the last input that reached the leaf (a tick, an item, a verdict, a schedule instant). */
  inputAt?(): number | undefined;
  /** Its query left the engine: drop what it kept of its last reads (see `QueryRuntime.dropRunState`). */
  forget?(): void;
}

export type Comparison = '>' | '>=' | '<' | '<=' | '==' | '!=';

export function compare(value: number, operator: string, threshold: number): boolean {
  switch (operator) {
    case '>':
    case 'crosses_above':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '<':
    case 'crosses_below':
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
