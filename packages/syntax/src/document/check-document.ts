import { type Diagnostic, validate, type ValidateOptions, type ValidationResult } from '@eql/core';
import type { SourceRange } from '../source-map/types.js';
import type { LoadedDocument } from './load-document.js';

/**
 * Every layer at once: the validator's checks (schema, semantics, cost) run on a document even when it
 * has syntax errors, on the request read around them, and the diagnostics of the parts read without
 * error are reported beside the syntax errors. So a user sees every mistake in one pass instead of
 * fixing the syntax first and finding the next layer after.
 *
 * A diagnostic is kept when it has a place in the document and that place shares no line with a
 * syntax error: what the validator says of a part the parser had to guess (a condition missing its
 * symbol, an action it dropped) is the syntax error seen again.
 */

/** A diagnostic of the validator and where it lands in the document. */
export interface PlacedDiagnostic {
  diagnostic: Diagnostic;
  range: SourceRange | undefined;
}

/** What {@link checkDocument} gives. */
export interface DocumentCheck {
  /** The validator's result on the request: present only when the document has no syntax errors. */
  result?: ValidationResult;
  /** Every diagnostic when the document parses; with syntax errors, those of the parts read without error. */
  diagnostics: PlacedDiagnostic[];
}

/** The lines (1-based) a range covers. */
function linesOf(range: SourceRange): number[] {
  const lines: number[] = [];
  for (let line = range.start.line; line <= range.end.line; line += 1) lines.push(line);
  return lines;
}

/** Validates a loaded document; see the file's comment. */
export function checkDocument(document: LoadedDocument, options: ValidateOptions = {}): DocumentCheck {
  const request = document.errors.length === 0 ? document.value : document.partial;
  if (request === undefined) return { diagnostics: [] };
  const result = validate(request, options);
  const ranges = document.locate(result.diagnostics.map((diagnostic) => ({ pointer: diagnostic.path })));
  const placed = result.diagnostics.map((diagnostic, index) => ({ diagnostic, range: ranges[index] }));
  if (document.errors.length === 0) return { result, diagnostics: placed };
  const broken = new Set(document.errors.flatMap((error) => linesOf(error.range)));
  return { diagnostics: placed.filter(({ range }) => range !== undefined && !linesOf(range).some((line) => broken.has(line))) };
}
