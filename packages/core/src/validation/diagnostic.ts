import { readablePath } from '../util/json-pointer.js';
import type { DiagnosticCode, Severity } from './codes.js';

export type { Severity } from './codes.js';

/** An edit of the document, addressed by JSON pointer, that a tool can apply to fix a diagnostic. */
export type JsonEdit =
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/** A repair a tool can offer for a diagnostic (a code action in the editor): a title and the edits that make it. */
export interface DiagnosticFix {
  title: string;
  edits: JsonEdit[];
}

/** One finding of the validator, structured for tools (CLI, language server, HTTP host). */
export interface Diagnostic {
  /** Stable machine-readable code such as `llm-period-too-short`: one of DIAGNOSTIC_CODES, explained in docs/diagnostics.md. */
  code: string;
  severity: Severity;
  message: string;
  /** JSON pointer into the validated request, `''` for the request itself. */
  path: string;
  /** A one-step repair, when one is certain enough to offer. */
  fix?: DiagnosticFix;
}

/**
 * Readable paths of the pointers met lately: diagnostics point to the same few places again and again
 * (`/query/conditions/AND/0/args/period`), so most texts skip the conversion. Emptied when full.
 */
const readablePaths = new Map<string, string>();
const READABLE_PATHS_KEPT = 1024;

function readablePathOf(pointer: string): string {
  let readable = readablePaths.get(pointer);
  if (readable === undefined) {
    readable = readablePath(pointer);
    if (readablePaths.size >= READABLE_PATHS_KEPT) readablePaths.clear();
    readablePaths.set(pointer, readable);
  }
  return readable;
}

/** The text shown in the spec's `errors` / `warnings` arrays: the readable path, then the message. */
export function diagnosticText(diagnostic: Diagnostic): string {
  const where = readablePathOf(diagnostic.path);
  return where === '' ? diagnostic.message : `${where}: ${diagnostic.message}`;
}

/** Collects diagnostics in the order they are found. */
export class DiagnosticSink {
  readonly items: Diagnostic[] = [];

  /** Adds a diagnostic as given. */
  report(diagnostic: Diagnostic): void {
    this.items.push(diagnostic);
  }

  /** Adds an error at `path` (a JSON pointer), with an optional fix. */
  error(code: DiagnosticCode, path: string, message: string, fix?: DiagnosticFix): void {
    this.report(fix ? { code, severity: 'error', message, path, fix } : { code, severity: 'error', message, path });
  }

  /** Adds a warning at `path` (a JSON pointer), with an optional fix. */
  warning(code: DiagnosticCode, path: string, message: string, fix?: DiagnosticFix): void {
    this.report(fix ? { code, severity: 'warning', message, path, fix } : { code, severity: 'warning', message, path });
  }

  /** Whether any diagnostic collected so far is an error. */
  get hasErrors(): boolean {
    return this.items.some((item) => item.severity === 'error');
  }
}
