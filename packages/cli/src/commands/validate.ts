import { parseRecording, RecordingError, type ServedData, validate, type ValidationMode } from '@eql/core';
import { syntaxErrorsJson, syntaxErrorsText, validationJson, validationText } from '../format.js';
import { type LoadedDocument, loadDocument } from '../input.js';
import { type CliIo, UnusableInput } from '../io.js';
import { servedByFlags, servedByRecording } from '../served.js';

export interface ValidateFlags {
  mode: ValidationMode;
  json: boolean;
  /** Symbols the target host serves (`BTC,ETH,SOL`). */
  served?: string;
  /** `--no-history`: the target host has no past prices to warm series from. */
  history?: boolean;
  /** A recording whose symbols are what is served. */
  data?: string;
}

/**
 * `eql validate FILE|-` (JSON or the text form): exit 0 valid, 1 invalid (syntax errors of the text
 * form included), 2 for unusable input (raised by loadDocument).
 */
export async function validateCommand(file: string, flags: ValidateFlags, io: CliIo): Promise<number> {
  const document = await loadDocument(file, io);
  if (reportSyntaxErrors(document, flags.json, io)) return 1;
  const served = flags.data !== undefined ? await servedByFile(flags.data, io) : servedByFlags(flags.served, flags.history ?? true);
  const result = validate(document.value, served ? { mode: flags.mode, served } : { mode: flags.mode });
  io.stdout(flags.json ? validationJson(result, document.map) : validationText(io, document.name, flags.mode, result, document.map));
  return result.valid ? 0 : 1;
}

/** Prints the syntax errors of a text-form document, if any; true when there were some. */
export function reportSyntaxErrors(document: LoadedDocument, json: boolean, io: CliIo): boolean {
  if (document.syntaxErrors.length === 0) return false;
  io.stdout(json ? syntaxErrorsJson(document.syntaxErrors) : syntaxErrorsText(io, document.name, document.syntaxErrors));
  return true;
}

async function servedByFile(path: string, io: CliIo): Promise<ServedData> {
  let text: string;
  try {
    text = await io.readFile(path);
  } catch {
    throw new UnusableInput(`cannot read the recording ${path}`);
  }
  try {
    return servedByRecording(parseRecording(text));
  } catch (error) {
    if (error instanceof RecordingError) throw new UnusableInput(`${path}: ${error.message}`);
    throw error;
  }
}
