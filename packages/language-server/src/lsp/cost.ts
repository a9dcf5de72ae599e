import { type CallsBySpeed, estimateCost, isRecord, type Query, type SimulationLlmCallsEstimate } from '@eql/core';
import type { ValidatedDocument } from '../workspace/eql-document.js';

/** The estimated cost of the query of a document (docs/semantics.md, section 5). */
export interface CostSummary {
  credits: number;
  price: string;
  simulationLlmCallsEstimate: SimulationLlmCallsEstimate;
  /** False when the query has errors: the estimate is of what could be read. */
  valid: boolean;
}

/** The validator's estimate of a valid query, or the core estimate of what parsed; undefined without a query. */
export function costOf(document: ValidatedDocument): CostSummary | undefined {
  const { validation } = document;
  if (validation?.estimatedCost !== undefined && validation.simulationLlmCallsEstimate !== undefined) {
    return { ...validation.estimatedCost, simulationLlmCallsEstimate: validation.simulationLlmCallsEstimate, valid: validation.valid };
  }
  const request = document.parse.value;
  if (!isRecord(request) || !isRecord(request.query)) return undefined;
  if (validation?.diagnostics.some((diagnostic) => diagnostic.code === 'too-deep' || diagnostic.code === 'internal-error')) return undefined;
  try {
    const estimate = estimateCost(request.query as unknown as Query);
    return { ...estimate.estimatedCost, simulationLlmCallsEstimate: estimate.simulationLlmCallsEstimate, valid: validation?.valid ?? false };
  } catch {
    return undefined;
  }
}

/** `≈ 125 credits ($1.125)`. */
export function costTitle(cost: CostSummary): string {
  return `≈ ${cost.credits} credits (${cost.price})${cost.valid ? '' : ' (the query has errors)'}`;
}

/** `LLM calls, upper bounds: conditions 24 (fast 24); actions 0`, as the CLI prints it. */
export function callsLine(calls: SimulationLlmCallsEstimate): string {
  return `LLM calls, upper bounds: conditions ${calls.conditionCallsUpperBound}${speeds(calls.conditionCallsBySpeed)}; actions ${calls.actionCallsUpperBound}${speeds(calls.actionCallsBySpeed)}`;
}

export function costMarkdown(cost: CostSummary): string {
  return `**Estimated cost: ${cost.credits} credits (${cost.price})**${cost.valid ? '' : ' — the query has errors'}\n\n${callsLine(cost.simulationLlmCallsEstimate)}`;
}

function speeds(calls: CallsBySpeed): string {
  const parts = (['fast', 'expert', 'adaptive'] as const).filter((speed) => calls[speed] > 0).map((speed) => `${speed} ${calls[speed]}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}
