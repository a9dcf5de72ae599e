import type { ActionVisit, GroupVisit, LeafVisit } from '../language/query-walk.js';
import type { DiagnosticSink } from './diagnostic.js';
import type { ServedData } from './served-data.js';

/**
 * The access model a request is validated for: `api-key` (a caller with an API key) or `payment` (keyless:
 * no trade actions, no credits quoted).
 */
export type ValidationMode = 'api-key' | 'payment';

/**
 * What a semantic rule sees. The request may be any JSON: rules read it defensively, check only what
 * they understand, and report through the sink. A rule never throws.
 */
export interface RuleContext {
  request: Record<string, unknown>;
  /** `request.query` when it is an object. */
  query: Record<string, unknown> | undefined;
  mode: ValidationMode;
  /** Current time in milliseconds (injectable so results are reproducible). */
  readonly now: number;
  /** What the host or recording serves, when the caller knows it (see ServedData). */
  served: ServedData | undefined;
  /** Webhooks may target loopback and private hosts (the host allows them, see ValidateOptions). */
  allowPrivateWebhooks?: boolean;
  /** Lifetime of the query in milliseconds: `expiresIn`, or the default when absent or unreadable. */
  lifetimeMs: number;
  /** Condition groups in document order (the top-level group first). */
  groups: readonly GroupVisit[];
  leaves: readonly LeafVisit[];
  /** Steps of `actions`, each llm step's callback action right after it. */
  actions: readonly ActionVisit[];
  sink: DiagnosticSink;
}

/**
 * A semantic rule. It says which parts of a query it looks at, and the validator visits each part
 * once, handing it only to the rules that asked for it: a leaf to the rules of its source, an action
 * to the rules of its type. So a rule costs nothing on a query that has nothing for it.
 */
export interface Rule {
  name: string;
  /** Runs only when the caller says what the host serves (`ValidateOptions.served`): it has nothing to check otherwise. */
  needsServed?: boolean;
  /** Once per request, for checks across the whole query. */
  request?: (context: RuleContext) => void;
  /** Each condition group. */
  group?: (group: GroupVisit, context: RuleContext) => void;
  /** Each leaf condition whose `source` is listed, or every leaf for `'*'`. */
  leaf?: {
    sources: readonly string[] | '*';
    /** Checks one leaf, reporting through `context.sink`. */
    check: (leaf: LeafVisit, context: RuleContext) => void;
  };
  /** Each action (steps and llm callbacks) whose `type` is listed, or every action for `'*'`. */
  action?: {
    types: readonly string[] | '*';
    /** Checks one action, reporting through `context.sink`. */
    check: (action: ActionVisit, context: RuleContext) => void;
  };
}
