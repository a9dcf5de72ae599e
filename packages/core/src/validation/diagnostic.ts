import { readablePath } from '../util/json-pointer.js';

export type Severity = 'error' | 'warning' | 'info';

/** An edit of the document, addressed by JSON pointer, that a tool can apply to fix a diagnostic. */
export type JsonEdit =
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export interface DiagnosticFix {
  title: string;
  edits: JsonEdit[];
}

/** One finding of the validator, structured for tools (CLI, language server, HTTP host). */
export interface Diagnostic {
  /** Stable machine-readable code such as `llm-period-too-short`; see docs/semantics.md. */
  code: string;
  severity: Severity;
  message: string;
  /** JSON pointer into the validated request, `''` for the request itself. */
  path: string;
  /** A one-step repair, when one is certain enough to offer. */
  fix?: DiagnosticFix;
}

/** The text shown in the spec's `errors` / `warnings` arrays: the readable path, then the message. */
export function diagnosticText(diagnostic: Diagnostic): string {
  const where = readablePath(diagnostic.path);
  return where === '' ? diagnostic.message : `${where}: ${diagnostic.message}`;
}

/** Collects diagnostics in the order they are found. */
export class DiagnosticSink {
  readonly items: Diagnostic[] = [];

  report(diagnostic: Diagnostic): void {
    this.items.push(diagnostic);
  }

  error(code: string, path: string, message: string, fix?: DiagnosticFix): void {
    this.report(fix ? { code, severity: 'error', message, path, fix } : { code, severity: 'error', message, path });
  }

  warning(code: string, path: string, message: string, fix?: DiagnosticFix): void {
    this.report(fix ? { code, severity: 'warning', message, path, fix } : { code, severity: 'warning', message, path });
  }

  get hasErrors(): boolean {
    return this.items.some((item) => item.severity === 'error');
  }
}
