import type { TriggerContext } from './interfaces.js';

/**
 * Spans of the engine's work, for an embedder's tracing (the host's OpenTelemetry, docs/operations.md
 * "Traces"): a trigger, and each step it runs. The engine knows nothing of a tracing library; without a
 * tracer it makes no span.
 */
export interface EngineTracer {
  /** A trigger starts running its steps; its span ends with the trigger's outcome. */
  trigger(trigger: TriggerContext): EngineSpan;
  /** A step of a trigger starts (its execution is `running`); its span ends with the step's outcome. */
  step(parent: EngineSpan, step: TracedStep): EngineSpan;
}

/** What a step span says of its step. */
export interface TracedStep {
  stepId: string;
  /** The action type (webhook, market_order, ...). */
  type: string;
  executionId: string;
  idempotencyKey: string;
  /** A send a restart left in doubt, settled by this run. */
  inDoubt: boolean;
}

/** An open span of the engine's. */
export interface EngineSpan {
  /** Runs `work` with this span current, so that what it starts (an HTTP call, a venue call) is its child. */
  within<T>(work: () => T): T;
  /** Ends the span with its outcome (`code`: the error code of a failure). */
  end(outcome: { status: 'succeeded' | 'failed' | 'stopped'; code?: string }): void;
}
