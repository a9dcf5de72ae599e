import { diagnosticText, readablePath, type Diagnostic, type SimulationLlmCallsEstimate, type ValidationResult, type EstimatedCost } from '@eql/core';
import { type PlacedDiagnostic, rangeOfPointer, type SourceMap, type SourceRange, type SyntaxIssue } from '@eql/syntax';
import { type CliIo, paint } from './io.js';
import { terminalText } from './terminal-text.js';

function at(range: SourceRange | undefined): string {
  return range === undefined ? '' : `${range.start.line}:${range.start.column}`;
}

function diagnosticLine(io: CliIo, diagnostic: Diagnostic, map: SourceMap | undefined): string {
  const severity =
    diagnostic.severity === 'error' ? paint(io, 'red', 'error  ') : paint(io, 'yellow', diagnostic.severity.padEnd(7));
  const where = terminalText(readablePath(diagnostic.path) || '(request)');
  const place = map ? at(rangeOfPointer(map, diagnostic.path)) : '';
  return `  ${severity} ${place ? `${paint(io, 'dim', place)} ` : ''}${paint(io, 'bold', where)}: ${terminalText(diagnostic.message)} ${paint(io, 'dim', `[${terminalText(diagnostic.code)}]`)}\n`;
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

/**
 * Human summary of a validation: a verdict line, each finding on its own line (with the line and
 * column of its token when the source map of the file is given), then the estimate. What came from the
 * file or a host (its name, the findings' paths and messages) is escaped for the terminal.
 */
export function validationText(io: CliIo, fileName: string, mode: string, result: ValidationResult, map?: SourceMap): string {
  const name = terminalText(fileName);
  const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = result.diagnostics.length - errors;
  const counts = [errors > 0 ? plural(errors, 'error') : '', warnings > 0 ? plural(warnings, 'warning') : ''].filter(Boolean).join(', ');
  let text = result.valid
    ? `${paint(io, 'green', '✓')} ${name} is valid (${mode} mode)${counts ? `, ${counts}` : ''}\n`
    : `${paint(io, 'red', '✗')} ${name} is invalid: ${counts}\n`;
  for (const diagnostic of result.diagnostics) text += diagnosticLine(io, diagnostic, map);
  if (result.valid && result.simulationLlmCallsEstimate) text += estimateText(result.simulationLlmCallsEstimate, result.estimatedCost);
  return text;
}

/** The validation result as JSON, each diagnostic with the range of its token in the file. */
export function validationJson(result: ValidationResult, map?: SourceMap): string {
  const diagnostics = result.diagnostics.map((diagnostic) => {
    const range = map && rangeOfPointer(map, diagnostic.path);
    return range ? { ...diagnostic, range } : diagnostic;
  });
  return `${JSON.stringify({ ...result, diagnostics }, null, 2)}\n`;
}

/**
 * Syntax errors of the text form, for people: `line:column message`; with `others` (the validator's
 * findings in the parts read without error, `checkDocument`), those too, each on its line.
 */
export function syntaxErrorsText(io: CliIo, fileName: string, errors: readonly SyntaxIssue[], others: readonly PlacedDiagnostic[] = [], map?: SourceMap): string {
  const name = terminalText(fileName);
  const more = others.filter(({ diagnostic }) => diagnostic.severity === 'error').length;
  let text = `${paint(io, 'red', '✗')} ${name} is invalid: ${plural(errors.length, 'syntax error')}${more > 0 ? `, ${plural(more, 'other error')}` : ''}\n`;
  const lines = [
    ...errors.map((error) => ({ offset: error.range.start.offset, line: `  ${paint(io, 'red', 'error  ')} ${paint(io, 'dim', at(error.range))} ${terminalText(error.message)} ${paint(io, 'dim', '[syntax]')}\n` })),
    ...others.map(({ diagnostic, range }) => ({ offset: range?.start.offset ?? Infinity, line: diagnosticLine(io, diagnostic, map) })),
  ];
  for (const { line } of lines.sort((a, b) => a.offset - b.offset)) text += line;
  return text;
}

/** Syntax errors in the shape of a validation result (`--json`): not valid, one diagnostic each, then the other layers' (`others`). */
export function syntaxErrorsJson(errors: readonly SyntaxIssue[], others: readonly PlacedDiagnostic[] = []): string {
  return `${JSON.stringify(
    {
      valid: false,
      errors: [...errors.map((error) => `${at(error.range)}: ${error.message}`), ...others.filter(({ diagnostic }) => diagnostic.severity === 'error').map(({ diagnostic }) => diagnosticText(diagnostic))],
      warnings: others.filter(({ diagnostic }) => diagnostic.severity === 'warning').map(({ diagnostic }) => diagnosticText(diagnostic)),
      diagnostics: [
        ...errors.map((error) => ({ code: 'syntax', severity: 'error', message: error.message, path: '', range: error.range })),
        ...others.map(({ diagnostic, range }) => (range ? { ...diagnostic, range } : diagnostic)),
      ],
    },
    null,
    2,
  )}\n`;
}

/** Syntax errors for stderr, compiler style: `file:line:column: message`. */
export function syntaxErrorLines(name: string, errors: readonly SyntaxIssue[]): string {
  return errors.map((error) => `${terminalText(name)}:${at(error.range)}: ${terminalText(error.message)}\n`).join('');
}
