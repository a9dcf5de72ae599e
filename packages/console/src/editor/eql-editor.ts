// The EQL editor: CodeMirror 6 with the language server's diagnostics, quick fixes, completion, hover
// and formatting, for the JSON form and the text form, and a switch between them (the server converts).
import { autocompletion, type Completion, type CompletionContext, type CompletionResult, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { bracketMatching, foldGutter, indentOnInput, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { type Diagnostic as CmDiagnostic, lintGutter, lintKeymap, openLintPanel, setDiagnostics } from '@codemirror/lint';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, hoverTooltip, keymap, lineNumbers, type Tooltip } from '@codemirror/view';
import type { CodeAction, Diagnostic, MarkupContent, TextEdit } from 'vscode-languageserver-protocol/browser';
import { LANGUAGE_IDS, type LanguageClient } from '../lsp/language-client.js';
import { offsetOf, positionOf, rangeOf } from './positions.js';
import { markdownFragment } from '../markdown.js';

export type Form = 'json' | 'text';

const URIS: Record<Form, string> = { json: 'console:///query.eql.json', text: 'console:///query.eql' };

/** What the editor reports to the page: its findings, as the server gave them. */
export interface EditorFindings {
  errors: number;
  warnings: number;
  diagnostics: Diagnostic[];
}

/** An EQL editor bound to a language client. */
export class EqlEditor {
  readonly view: EditorView;
  private form: Form;
  private readonly language = new Compartment();
  private diagnostics: Diagnostic[] = [];
  private readonly findingsListeners = new Set<(findings: EditorFindings) => void>();
  private readonly editListeners = new Set<() => void>();
  private readonly stopDiagnostics: () => void;

  constructor(
    parent: HTMLElement,
    private readonly client: LanguageClient,
    initial: { form: Form; text: string; label: string },
  ) {
    this.form = initial.form;
    this.view = new EditorView({
      parent,
      state: EditorState.create({ doc: initial.text, extensions: this.extensions(initial.label) }),
    });
    this.stopDiagnostics = client.onDiagnostics((uri, diagnostics, version) => {
      if (uri !== this.uri || (version !== undefined && version !== client.version(uri))) return;
      void this.showDiagnostics(diagnostics, version);
    });
    client.open(this.uri, LANGUAGE_IDS[this.form], initial.text);
  }

  /** Lets go of the editor (the page shows another): it hears the server no more. */
  dispose(): void {
    this.client.close(this.uri);
    this.stopDiagnostics();
    this.findingsListeners.clear();
    this.view.destroy();
  }

  get uri(): string {
    return URIS[this.form];
  }

  get currentForm(): Form {
    return this.form;
  }

  get text(): string {
    return this.view.state.doc.toString();
  }

  /** Replaces the whole text (a loaded example, a converted query). */
  setText(text: string): void {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
  }

  onFindings(listener: (findings: EditorFindings) => void): void {
    this.findingsListeners.add(listener);
  }

  /** Called after each change of the text (typed, pasted, a fix applied, an example loaded). */
  onEdit(listener: () => void): void {
    this.editListeners.add(listener);
  }

  /**
   * Opens the list of problems (CodeMirror's lint panel, each problem with its quick fixes as buttons) and
   * moves the focus into it. Also on F2 in the editor: browsers take Ctrl-Shift-M, the panel's usual key.
   */
  openProblems(): void {
    openLintPanel(this.view);
  }

  /** Formats the document as the server does (nothing when it does not parse). */
  async format(): Promise<void> {
    this.applyEdits(await this.client.format(this.uri));
  }

  /** The query as JSON, whichever form is shown (the server converts the text form). */
  async requestJson(): Promise<unknown> {
    if (this.form === 'json') return JSON.parse(this.text) as unknown;
    const converted = await this.client.convert(this.uri, 'json');
    if (!converted.ok) throw new Error(`the text form does not convert: ${converted.problems.join('; ')}`);
    return JSON.parse(converted.text) as unknown;
  }

  /** Switches to the other form: the server converts; problems keep the current form. */
  async switchForm(): Promise<{ ok: true } | { ok: false; problems: string[] }> {
    const to: Form = this.form === 'json' ? 'text' : 'json';
    const converted = await this.client.convert(this.uri, to);
    if (!converted.ok) return { ok: false, problems: converted.problems };
    // The server hears of the document in its new form before the editor shows it (and reports the change).
    this.client.close(this.uri);
    this.form = to;
    this.diagnostics = [];
    this.client.open(this.uri, LANGUAGE_IDS[to], converted.text);
    this.view.dispatch({
      changes: { from: 0, to: this.view.state.doc.length, insert: converted.text },
      effects: this.language.reconfigure(this.languageOf(to)),
    });
    return { ok: true };
  }

  private extensions(label: string): Extension[] {
    return [
      lineNumbers(),
      foldGutter(),
      lintGutter(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      this.language.of(this.languageOf(this.form)),
      autocompletion({ override: [(context) => this.complete(context)], icons: false }),
      hoverTooltip((view, offset) => this.hover(view, offset), { hoverTime: 300 }),
      keymap.of([{ key: 'F2', run: openLintPanel }, indentWithTab, ...defaultKeymap, ...historyKeymap, ...completionKeymap, ...lintKeymap]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) {
          this.client.change(this.uri, update.state.doc.toString());
          for (const listener of this.editListeners) listener();
        }
      }),
      EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true' }),
      EditorView.lineWrapping,
    ];
  }

  private languageOf(form: Form): Extension {
    return form === 'json' ? json() : [];
  }

  /**
   * Shows the server's diagnostics with their quick fixes. CodeMirror wants a diagnostic's actions when it
   * is shown, and the server gives fixes on request: they are asked for every diagnostic at once, and
   * the diagnostics shown when the answers are in (unless the text changed meanwhile).
   */
  private async showDiagnostics(diagnostics: Diagnostic[], version: number | undefined): Promise<void> {
    const uri = this.uri;
    const fixes = await Promise.all(diagnostics.map((diagnostic) => this.client.quickFixes(uri, diagnostic.range, [diagnostic]).catch(() => [])));
    if (uri !== this.uri || (version !== undefined && version !== this.client.version(uri))) return;
    this.diagnostics = diagnostics;
    const doc = this.view.state.doc;
    const shown: CmDiagnostic[] = diagnostics.map((diagnostic, index) => {
      const from = offsetOf(doc, diagnostic.range.start);
      const to = Math.max(from, offsetOf(doc, diagnostic.range.end));
      const shownDiagnostic: CmDiagnostic = {
        from,
        to,
        severity: diagnostic.severity === 1 ? 'error' : diagnostic.severity === 2 ? 'warning' : 'info',
        message: diagnostic.message,
        actions: (fixes[index] ?? []).map((fix) => ({ name: fix.title, apply: () => this.applyAction(fix) })),
      };
      if (typeof diagnostic.code === 'string') shownDiagnostic.source = diagnostic.code;
      return shownDiagnostic;
    });
    this.view.dispatch(setDiagnostics(this.view.state, shown));
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 1).length;
    const warnings = diagnostics.filter((diagnostic) => diagnostic.severity === 2).length;
    for (const listener of this.findingsListeners) listener({ errors, warnings, diagnostics });
  }

  /** The diagnostics shown now, as the server gave them. */
  get findings(): Diagnostic[] {
    return this.diagnostics;
  }

  private applyAction(action: CodeAction): void {
    const edits = action.edit?.changes?.[this.uri] ?? action.edit?.documentChanges?.flatMap((change) => ('edits' in change && change.textDocument.uri === this.uri ? change.edits : [])) ?? [];
    this.applyEdits(edits);
  }

  private applyEdits(edits: readonly TextEdit[]): void {
    if (edits.length === 0) return;
    const doc = this.view.state.doc;
    const changes = edits.map((edit) => ({ from: offsetOf(doc, edit.range.start), to: offsetOf(doc, edit.range.end), insert: edit.newText }));
    this.view.dispatch({ changes });
  }

  private async complete(context: CompletionContext): Promise<CompletionResult | null> {
    const word = context.matchBefore(/[\w$.@/-]*/);
    if (!context.explicit && (word === null || word.from === word.to) && !/["{:, ]$/.test(context.state.sliceDoc(Math.max(0, context.pos - 1), context.pos))) return null;
    const doc = context.state.doc;
    const items = await this.client.completion(this.uri, positionOf(doc, context.pos));
    if (context.aborted || items.length === 0) return null;
    // The server says what each item replaces (a JSON string with its quotes, a word): its range is the
    // result's, and the server has filtered and ordered the items already.
    const firstEdit = items[0]?.textEdit;
    const range = firstEdit && 'range' in firstEdit ? { from: offsetOf(doc, firstEdit.range.start), to: offsetOf(doc, firstEdit.range.end) } : { from: word?.from ?? context.pos, to: context.pos };
    const options: Completion[] = items.map((item) => {
      const edit = item.textEdit && 'range' in item.textEdit ? item.textEdit : undefined;
      const insert = (edit?.newText ?? item.insertText ?? item.label).replace(/\$\{\d+:([^}]*)\}/g, '$1').replace(/\$\d+/g, '');
      const completion: Completion = { label: item.label, apply: insert, type: 'property' };
      if (item.detail) completion.detail = item.detail;
      const documentation = item.documentation;
      if (documentation) {
        const text = typeof documentation === 'string' ? documentation : documentation.value;
        // Markdown (the server's) as formatted text, plain text as it is.
        completion.info = () => {
          const dom = document.createElement('div');
          dom.className = 'documentation';
          if (typeof documentation !== 'string' && documentation.kind === 'markdown') dom.append(markdownFragment(text));
          else dom.textContent = text;
          return dom;
        };
      }
      return completion;
    });
    return { from: range.from, to: Math.max(range.to, context.pos), options, filter: false };
  }

  private async hover(view: EditorView, offset: number): Promise<Tooltip | null> {
    const answer = await this.client.hover(this.uri, positionOf(view.state.doc, offset));
    if (!answer) return null;
    const text = markupText(answer.contents);
    if (text.trim() === '') return null;
    const range = answer.range ? { from: offsetOf(view.state.doc, answer.range.start), to: offsetOf(view.state.doc, answer.range.end) } : { from: offset, to: offset };
    return {
      pos: range.from,
      end: range.to,
      above: true,
      create: () => {
        const dom = document.createElement('div');
        dom.className = 'hover documentation';
        dom.setAttribute('role', 'tooltip');
        dom.append(markdownFragment(text));
        return { dom };
      },
    };
  }

  /** The range of the document as LSP sees it (for tools that ask the server about a selection). */
  rangeOf(from: number, to: number) {
    return rangeOf(this.view.state.doc, from, to);
  }
}

function markupText(contents: MarkupContent | string | { language: string; value: string } | Array<string | { language: string; value: string }>): string {
  if (typeof contents === 'string') return contents;
  if (Array.isArray(contents)) return contents.map((part) => (typeof part === 'string' ? part : part.value)).join('\n\n');
  return contents.value;
}
