import type { CompletionItem, Position } from 'vscode-languageserver-types';
import type { SchemaModel } from '../schema/schema-model.js';
import type { SettingsStore } from '../settings.js';
import type { ParsedDocument } from '../workspace/eql-document.js';
import { JsonCompletion } from './completion/json-completion.js';
import { placeholderCompletion } from './placeholders.js';
import { TextCompletion } from './completion/text-completion.js';

/**
 * Completion from the schema in both forms: sources and measures, methods per source, arguments per
 * method (type, default, description), operators, action types and their params, the symbols of
 * `eql.symbols`, and after `{{` in a text the placeholders of the query.
 */
export interface CompletionProvider {
  /** The completion items at a position, for the document's form; empty when nothing fits there. */
  complete(document: ParsedDocument, position: Position): CompletionItem[];
}

/** The completion provider of the server: reads the schema, and the symbols from the `eql.symbols` setting. */
export class DefaultCompletionProvider implements CompletionProvider {
  private readonly text: TextCompletion;
  private readonly json: JsonCompletion;

  constructor(schema: SchemaModel, settings: SettingsStore) {
    const symbols = () => settings.current.symbols;
    this.text = new TextCompletion(schema, symbols);
    this.json = new JsonCompletion(schema, symbols);
  }

  complete(document: ParsedDocument, position: Position): CompletionItem[] {
    const offset = document.textDocument.offsetAt(position);
    const placeholders = placeholderCompletion(document, offset);
    if (placeholders !== undefined) return placeholders;
    return document.form === 'text' ? this.text.complete(document, offset) : this.json.complete(document, offset);
  }
}
