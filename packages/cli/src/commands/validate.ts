import { isAbsolute } from 'node:path';
import { parseRecording, RecordingError, type ServedData, validate, type ValidationMode } from '@eql/core';
import { checkDocument } from '@eql/syntax';
import { syntaxErrorsJson, syntaxErrorsText, validationJson, validationText } from '../format.js';
import { type LoadedDocument, loadDocument } from '../input.js';
import { type CliIo, UnusableInput } from '../io.js';
import { servedByFlags, servedByRecording } from '../served.js';
import { terminalText } from '../terminal-text.js';

export interface ValidateFlags {
  mode: ValidationMode;
  json: boolean;
  /** Symbols the target host serves (`BTC,ETH,SOL`). */
  served?: string;
  /** `--no-history`: the target host has no past prices to warm series from. */
  history?: boolean;
  /** A recording whose symbols are what is served. */
  data?: string;
  /** `--max-warnings N`: more warnings than N (over all files) exit 1, as for an invalid file. */
  maxWarnings?: string;
  /** `--strict`: `--max-warnings 0`. */
  strict?: boolean;
}

/** The warning budget of `--max-warnings N` / `--strict`, or undefined without one. */
function warningBudget(flags: ValidateFlags): number | undefined {
  if (flags.maxWarnings !== undefined) {
    const text = flags.maxWarnings.trim();
    if (!/^\d{1,9}$/.test(text)) throw new UnusableInput(`--max-warnings must be a whole number of 0 or more, not ${JSON.stringify(flags.maxWarnings)}`);
    return Number(text);
  }
  return flags.strict === true ? 0 : undefined;
}

/** Whether `count` warnings exceed the budget (said on standard error, outside --json's output). */
function overBudget(count: number, budget: number | undefined, io: CliIo): boolean {
  if (budget === undefined || count <= budget) return false;
  io.stderr(`eql: ${count} warning${count === 1 ? '' : 's'}, more than --max-warnings ${budget}\n`);
  return true;
}

/**
 * `eql validate FILE|-` (JSON or the text form): exit 0 valid, 1 invalid (syntax errors of the text
 * form included), 2 for unusable input (raised by loadDocument). With several files or globs, see
 * {@link validateFilesCommand}.
 */
export async function validateCommand(file: string, flags: ValidateFlags, io: CliIo): Promise<number> {
  const budget = warningBudget(flags);
  const document = await loadDocument(file, io);
  const served = flags.data !== undefined ? await servedByFile(flags.data, io) : servedByFlags(flags.served, flags.history ?? true);
  if (document.syntaxErrors.length > 0) {
    // Every layer at once: the validator's findings in the parts read without error, beside the syntax errors.
    const others = checkDocument(document.source, served ? { mode: flags.mode, served } : { mode: flags.mode }).diagnostics;
    io.stdout(flags.json ? syntaxErrorsJson(document.syntaxErrors, others) : syntaxErrorsText(io, document.name, document.syntaxErrors, others, document.map));
    return 1;
  }
  const result = validate(document.value, served ? { mode: flags.mode, served } : { mode: flags.mode });
  io.stdout(flags.json ? validationJson(result, document.map) : validationText(io, document.name, flags.mode, result, document.map));
  const tooMany = overBudget(result.warnings.length, budget, io);
  return result.valid && !tooMany ? 0 : 1;
}

/** Whether an argument is a glob pattern rather than a file name. */
const isGlob = (argument: string): boolean => /[*?[\]{}]/.test(argument);

/**
 * `eql validate FILE|GLOB ...`: every file (globs expanded, e.g. `'queries/**\/*.eql'`), each judged as
 * one would be alone, then a summary: `N files: V valid, I invalid, U unusable`. A file that cannot be
 * read, or a glob that matches nothing, is counted as unusable and the others are still checked. Exit
 * 0 all valid, 1 some invalid, 2 some unusable. `--json`: `{files: [{file, ...result}], summary}`.
 */
export async function validateFilesCommand(patterns: string[], flags: ValidateFlags, io: CliIo): Promise<number> {
  if (patterns.length === 1 && !isGlob(patterns[0]!)) return validateCommand(patterns[0]!, flags, io);
  if (patterns.includes('-')) throw new UnusableInput('- (standard input) is one file alone: give it without other files');
  const budget = warningBudget(flags);
  let warnings = 0;
  const served = flags.data !== undefined ? await servedByFile(flags.data, io) : servedByFlags(flags.served, flags.history ?? true);
  const files: string[] = [];
  const reports: Array<Record<string, unknown>> = [];
  let unusable = 0;
  for (const pattern of patterns) {
    if (!isGlob(pattern)) {
      files.push(pattern);
      continue;
    }
    const { glob } = await import('tinyglobby');
    // Names as the pattern gives them: absolute for an absolute pattern, else relative to the working directory.
    const matched = (await glob(pattern, { onlyFiles: true, expandDirectories: false, absolute: isAbsolute(pattern) })).sort();
    if (matched.length === 0) {
      unusable += 1;
      reports.push({ file: pattern, unusable: `no file matches ${pattern}` });
      if (!flags.json) io.stderr(`eql: no file matches ${terminalText(pattern)}\n`);
    }
    files.push(...matched);
  }
  let valid = 0;
  let invalid = 0;
  for (const file of [...new Set(files)]) {
    let document: LoadedDocument;
    try {
      document = await loadDocument(file, io);
    } catch (error) {
      if (!(error instanceof UnusableInput)) throw error;
      unusable += 1;
      reports.push({ file, unusable: error.message });
      if (!flags.json) io.stderr(`eql: ${terminalText(error.message)}\n`);
      continue;
    }
    if (document.syntaxErrors.length > 0) {
      invalid += 1;
      const others = checkDocument(document.source, served ? { mode: flags.mode, served } : { mode: flags.mode }).diagnostics;
      if (flags.json) reports.push({ file, ...(JSON.parse(syntaxErrorsJson(document.syntaxErrors, others)) as Record<string, unknown>) });
      else io.stdout(syntaxErrorsText(io, document.name, document.syntaxErrors, others, document.map));
      continue;
    }
    const result = validate(document.value, served ? { mode: flags.mode, served } : { mode: flags.mode });
    warnings += result.warnings.length;
    if (result.valid) valid += 1;
    else invalid += 1;
    if (flags.json) reports.push({ file, ...(JSON.parse(validationJson(result, document.map)) as Record<string, unknown>) });
    else io.stdout(validationText(io, document.name, flags.mode, result, document.map));
  }
  const total = valid + invalid + unusable;
  const summary = { files: total, valid, invalid, unusable };
  if (flags.json) io.stdout(`${JSON.stringify({ files: reports, summary }, null, 2)}\n`);
  else io.stdout(`\n${total} file${total === 1 ? '' : 's'}: ${valid} valid, ${invalid} invalid${unusable > 0 ? `, ${unusable} unusable` : ''}\n`);
  const tooMany = overBudget(warnings, budget, io);
  return unusable > 0 ? 2 : invalid > 0 || tooMany ? 1 : 0;
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
