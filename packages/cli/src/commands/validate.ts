import { validate, type ValidationMode } from '@eql/core';
import { syntaxErrorsJson, syntaxErrorsText, validationJson, validationText } from '../format.js';
import { type LoadedDocument, loadDocument } from '../input.js';
import type { CliIo } from '../io.js';

export interface ValidateFlags {
  mode: ValidationMode;
  json: boolean;
}

/**
 * `eql validate FILE|-` (JSON or the text form): exit 0 valid, 1 invalid (syntax errors of the text
 * form included), 2 for unusable input (raised by loadDocument).
 */
export async function validateCommand(file: string, flags: ValidateFlags, io: CliIo): Promise<number> {
  const document = await loadDocument(file, io);
  if (reportSyntaxErrors(document, flags.json, io)) return 1;
  const result = validate(document.value, { mode: flags.mode });
  io.stdout(flags.json ? validationJson(result, document.map) : validationText(io, document.name, flags.mode, result, document.map));
  return result.valid ? 0 : 1;
}

/** Prints the syntax errors of a text-form document, if any; true when there were some. */
export function reportSyntaxErrors(document: LoadedDocument, json: boolean, io: CliIo): boolean {
  if (document.syntaxErrors.length === 0) return false;
  io.stdout(json ? syntaxErrorsJson(document.syntaxErrors) : syntaxErrorsText(io, document.name, document.syntaxErrors));
  return true;
}
