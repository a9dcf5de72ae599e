import { type CodeAction, type CodeActionContext, CodeActionKind, type Diagnostic, type Range } from 'vscode-languageserver-types';
import type { ValidatedDocument } from '../workspace/eql-document.js';
import { rangesTouch } from '../workspace/lsp-ranges.js';
import { COMMANDS } from './commands.js';
import type { DiagnosticProvider } from './diagnostic-provider.js';
import { fixTextEdits } from './fix-edits.js';

/** The repair a syntax diagnostic carries in its `data` (see the diagnostic provider), if any. */
function syntaxFixOf(diagnostic: Diagnostic): { title: string; range: Range; text: string } | undefined {
  const fix = (diagnostic.data as { fix?: { title?: unknown; range?: unknown; text?: unknown } } | undefined)?.fix;
  return fix && typeof fix.title === 'string' && typeof fix.text === 'string' && typeof fix.range === 'object' && fix.range !== null ? { title: fix.title, range: fix.range as Range, text: fix.text } : undefined;
}

/** What a `textDocument/codeAction` request asks about. */
export interface CodeActionRequest {
  range: Range;
  context: CodeActionContext;
}

/**
 * Quick fixes from the validator's `fix` edits (raise an llm period to 1h, strip an @, route an
 * account-post intent to a tweet condition, use the perpetual symbol, …), applied in the document's
 * own form, and the conversion to the other form.
 */
export interface CodeActionProvider {
  /**
   * The quick fixes for the diagnostics in the requested range, and the conversion of the document to its other
   * form.
   */
  codeActions(document: ValidatedDocument, params: CodeActionRequest): CodeAction[];
}

/** The code action provider of the server, locating the fixes' edits through the diagnostic provider. */
export class DefaultCodeActionProvider implements CodeActionProvider {
  constructor(private readonly diagnostics: DiagnosticProvider) {}

  codeActions(document: ValidatedDocument, params: CodeActionRequest): CodeAction[] {
    const only = params.context.only;
    const wanted = (kind: string) => only === undefined || only.some((prefix) => kind === prefix || kind.startsWith(`${prefix}.`));
    const actions: CodeAction[] = [];
    if (wanted(CodeActionKind.QuickFix)) actions.push(...this.quickFixes(document, params));
    if (wanted(CodeActionKind.RefactorRewrite) && document.parse.value !== undefined) {
      const toJson = document.form === 'text';
      const title = toJson ? 'Convert to JSON (.eql.json)' : 'Convert to the text form (.eql)';
      actions.push({
        title,
        kind: CodeActionKind.RefactorRewrite,
        command: { title, command: toJson ? COMMANDS.convertToJson : COMMANDS.convertToText, arguments: [document.uri] },
      });
    }
    return actions;
  }

  private quickFixes(document: ValidatedDocument, params: CodeActionRequest): CodeAction[] {
    const found = document.validation?.diagnostics ?? [];
    const published = this.diagnostics.diagnostics(document);
    // The syntax errors come first among the published diagnostics, then the validator's in its order.
    const syntaxCount = document.parse.errors.length;
    const actions: CodeAction[] = [];
    for (const lsp of published.slice(0, syntaxCount)) {
      const fix = syntaxFixOf(lsp);
      if (fix === undefined || !rangesTouch(lsp.range, params.range)) continue;
      actions.push({ title: fix.title, kind: CodeActionKind.QuickFix, isPreferred: true, diagnostics: [lsp], edit: { changes: { [document.uri]: [{ range: fix.range, newText: fix.text }] } } });
    }
    found.forEach((diagnostic, index) => {
      if (diagnostic.fix === undefined) return;
      const lsp = published[syntaxCount + index];
      const range = lsp?.range ?? this.diagnostics.rangeOf(document, diagnostic);
      if (!rangesTouch(range, params.range)) return;
      const edits = fixTextEdits(document, diagnostic.fix.edits);
      if (edits === undefined) return;
      const action: CodeAction = {
        title: diagnostic.fix.title,
        kind: CodeActionKind.QuickFix,
        isPreferred: true,
        edit: { changes: { [document.uri]: edits } },
      };
      if (lsp !== undefined) action.diagnostics = [lsp];
      actions.push(action);
    });
    return actions;
  }
}
