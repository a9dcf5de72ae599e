import type { ConditionNode } from '../condition-tree.js';
import type { ConditionState } from '../interfaces.js';

/** A leaf condition at run time: it watches its inputs and sets its node of the condition tree. */
export interface Leaf {
  readonly node: ConditionNode;
  /** Starts watching (subscribes to shared channels, schedules timers). */
  attach(): void;
  /** Stops watching and releases everything it holds. */
  detach(): void;
  /** What it reads and whether it holds, now. */
  state(): ConditionState;
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
