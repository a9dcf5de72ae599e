import { type Diagnostic as EqlDiagnostic, isDiagnosticCode, type Severity } from '@eql/core';
import { type CodeDescription, type Diagnostic, DiagnosticSeverity, type Range } from 'vscode-languageserver-types';
import { DEFAULT_SETTINGS, type SettingsStore } from '../settings.js';
import type { ParsedDocument, ValidatedDocument } from '../workspace/eql-document.js';
import { lspRange } from '../workspace/lsp-ranges.js';

/** The `source` of every diagnostic the server publishes, shown by editors next to the message. */
export const DIAGNOSTIC_SOURCE = 'eql';
/** The diagnostic `code` of syntax errors; the validator's findings keep their own codes. */
export const SYNTAX_CODE = 'syntax';

/** Turns a validated document into LSP diagnostics: syntax errors, or the validator's findings at their tokens. */
export interface DiagnosticProvider {
  /**
   * The document's diagnostics: its syntax errors, and the validator's findings (with syntax errors, those of
   * the parts read without error), each at the range of its JSON pointer.
   */
  diagnostics(document: ValidatedDocument): Diagnostic[];
  /** Where a validator diagnostic lands in the document. */
  rangeOf(document: ParsedDocument, diagnostic: EqlDiagnostic): Range;
}

const SEVERITIES: Readonly<Record<Severity, DiagnosticSeverity>> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

const EMPTY_RANGE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** Codes about a property's name rather than its value: the squiggle goes on the name. */
const ON_KEY = new Set(['unknown-property', 'invalid-property-name']);

/**
 * The `codeDescription` of a code: `<docsUrl>#<code>`, the code's section of docs/diagnostics.md; none for a
 * code the page does not list or when `docsUrl` is empty.
 */
export function codeDescriptionOf(code: string, docsUrl: string): CodeDescription | undefined {
  if (docsUrl === '' || !isDiagnosticCode(code)) return undefined;
  return { href: `${docsUrl.replace(/#.*$/, '')}#${code}` };
}

/**
 * The diagnostic provider of the server; computes the diagnostics of each validated version once (again only
 * when the `diagnostics.docsUrl` setting has changed since).
 */
export class DefaultDiagnosticProvider implements DiagnosticProvider {
  private readonly cache = new WeakMap<ValidatedDocument, { docsUrl: string; diagnostics: Diagnostic[] }>();

  /** `settings` gives the `diagnostics.docsUrl` the diagnostics link to (the default page without it). */
  constructor(private readonly settings?: SettingsStore) {}

  diagnostics(document: ValidatedDocument): Diagnostic[] {
    const docsUrl = (this.settings?.current ?? DEFAULT_SETTINGS).diagnostics.docsUrl;
    const cached = this.cache.get(document);
    if (cached !== undefined && cached.docsUrl === docsUrl) return cached.diagnostics;
    const diagnostics = this.compute(document, docsUrl);
    this.cache.set(document, { docsUrl, diagnostics });
    return diagnostics;
  }

  rangeOf(document: ParsedDocument, diagnostic: EqlDiagnostic): Range {
    return this.rangesOf(document, [diagnostic])[0] ?? EMPTY_RANGE;
  }

  private rangesOf(document: ParsedDocument, diagnostics: readonly EqlDiagnostic[]): Range[] {
    const ranges = document.parse.locate(diagnostics.map((diagnostic) => ({ pointer: diagnostic.path, key: ON_KEY.has(diagnostic.code) })));
    return ranges.map((range) => (range === undefined ? EMPTY_RANGE : lspRange(range)));
  }

  private compute(document: ValidatedDocument, docsUrl: string): Diagnostic[] {
    const { errors } = document.parse;
    const syntax: Diagnostic[] = [];
    if (errors.length > 0) {
      const codeDescription = codeDescriptionOf(SYNTAX_CODE, docsUrl);
      syntax.push(...errors.map((issue) => ({
        range: lspRange(issue.range),
        severity: DiagnosticSeverity.Error,
        code: SYNTAX_CODE,
        ...(codeDescription && { codeDescription }),
        source: DIAGNOSTIC_SOURCE,
        message: issue.message,
        ...(issue.fix && { data: { fix: { title: issue.fix.title, range: lspRange(issue.fix.range), text: issue.fix.text } } }),
      })));
    }
    const found = document.validation?.diagnostics ?? [];
    const ranges = this.rangesOf(document, found);
    return [...syntax, ...found.map((diagnostic, index) => {
      const codeDescription = codeDescriptionOf(diagnostic.code, docsUrl);
      return {
        range: ranges[index] ?? EMPTY_RANGE,
        severity: SEVERITIES[diagnostic.severity],
        code: diagnostic.code,
        ...(codeDescription && { codeDescription }),
        source: DIAGNOSTIC_SOURCE,
        message: diagnostic.message,
        data: { path: diagnostic.path },
      };
    })];
  }
}
