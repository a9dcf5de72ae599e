import { formatText } from '@eql/syntax';
import type { FormattingOptions, TextEdit } from 'vscode-languageserver-types';
import type { ParsedDocument } from '../workspace/eql-document.js';
import { minimalEdit } from './text-edits.js';

/** The canonical layout: `formatText` for the text form, indented JSON for JSON; nothing for text that does not parse. */
export interface FormattingProvider {
  /**
   * The edits that give the document its canonical layout: none when it is already formatted or does not parse.
   * JSON is indented as `options` say.
   */
  format(document: ParsedDocument, options: FormattingOptions): TextEdit[];
  /** Why the document cannot be formatted (its syntax errors, the first named), or undefined when it can. */
  refusal(document: ParsedDocument): string | undefined;
}

/** The formatting provider of the server, with one edit over the lines that change. */
export class DefaultFormattingProvider implements FormattingProvider {
  format(document: ParsedDocument, options: FormattingOptions): TextEdit[] {
    const formatted = document.form === 'text' ? this.formatTextForm(document) : this.formatJson(document, options);
    if (formatted === undefined) return [];
    const edit = minimalEdit(document.textDocument, formatted);
    return edit === undefined ? [] : [edit];
  }

  refusal(document: ParsedDocument): string | undefined {
    const { errors } = document.parse;
    const first = errors[0];
    if (first === undefined) return undefined;
    const name = document.uri.slice(document.uri.lastIndexOf('/') + 1);
    const count = errors.length === 1 ? 'its syntax error' : `its ${errors.length} syntax errors`;
    return `EQL: ${name} was not formatted: fix ${count} first (${first.range.start.line}:${first.range.start.column} ${first.message})`;
  }

  private formatTextForm(document: ParsedDocument): string | undefined {
    if (document.parse.errors.length > 0) return undefined;
    return formatText(document.textDocument.getText()).text;
  }

  private formatJson(document: ParsedDocument, options: FormattingOptions): string | undefined {
    const { value } = document.parse;
    if (value === undefined) return undefined;
    const indent = options.insertSpaces === false ? '\t' : Math.max(1, Math.min(options.tabSize || 2, 8));
    return `${JSON.stringify(value, null, indent)}\n`;
  }
}
