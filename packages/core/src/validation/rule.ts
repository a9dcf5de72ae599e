import type { ActionVisit, LeafVisit } from '../language/query-walk.js';
import type { DiagnosticSink } from './diagnostic.js';

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
  now: number;
  /** Lifetime of the query in milliseconds: `expiresIn`, or the default when absent or unreadable. */
  lifetimeMs: number;
  leaves: readonly LeafVisit[];
  actions: readonly ActionVisit[];
  sink: DiagnosticSink;
}

export type Rule = (context: RuleContext) => void;
