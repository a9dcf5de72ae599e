import { readablePath, type Diagnostic, type SimulationLlmCallsEstimate, type ValidationResult, type EstimatedCost } from '@eql/core';
import { type CliIo, paint } from './io.js';

function diagnosticLine(io: CliIo, diagnostic: Diagnostic): string {
  const severity =
    diagnostic.severity === 'error' ? paint(io, 'red', 'error  ') : paint(io, 'yellow', diagnostic.severity.padEnd(7));
  const where = readablePath(diagnostic.path) || '(request)';
  return `  ${severity} ${paint(io, 'bold', where)}: ${diagnostic.message} ${paint(io, 'dim', `[${diagnostic.code}]`)}\n`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function callsLine(label: string, total: number, bySpeed: { fast: number; expert: number; adaptive: number }): string {
  const parts = (['fast', 'expert', 'adaptive'] as const).filter((speed) => bySpeed[speed] > 0).map((speed) => `${speed} ${bySpeed[speed]}`);
  return `${label} ${total}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

export function estimateText(estimate: SimulationLlmCallsEstimate, cost: EstimatedCost | undefined): string {
  let text = '';
  if (cost) text += `  estimated cost: ${plural(cost.credits, 'credit')} (${cost.price})\n`;
  text += `  LLM calls, upper bounds: ${callsLine('conditions', estimate.conditionCallsUpperBound, estimate.conditionCallsBySpeed)}; ${callsLine('actions', estimate.actionCallsUpperBound, estimate.actionCallsBySpeed)}\n`;
  return text;
}

/** Human summary of a validation: a verdict line, each finding on its own line, then the estimate. */
export function validationText(io: CliIo, name: string, mode: string, result: ValidationResult): string {
  const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = result.diagnostics.length - errors;
  const counts = [errors > 0 ? plural(errors, 'error') : '', warnings > 0 ? plural(warnings, 'warning') : ''].filter(Boolean).join(', ');
  let text = result.valid
    ? `${paint(io, 'green', '✓')} ${name} is valid (${mode} mode)${counts ? `, ${counts}` : ''}\n`
    : `${paint(io, 'red', '✗')} ${name} is invalid: ${counts}\n`;
  for (const diagnostic of result.diagnostics) text += diagnosticLine(io, diagnostic);
  if (result.valid && result.simulationLlmCallsEstimate) text += estimateText(result.simulationLlmCallsEstimate, result.estimatedCost);
  return text;
}
