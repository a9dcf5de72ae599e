import { valueAtPointer } from '@eql/core';
import { KEYWORDS, pointerAt, type SourceMap, type SourceRange } from '@eql/syntax';
import type { Hover, Position, Range } from 'vscode-languageserver-types';
import { describePointer } from '../schema/describe.js';
import { KEYWORD_DOCS } from '../schema/docs.js';
import type { SchemaModel } from '../schema/schema-model.js';
import type { ValidatedDocument } from '../workspace/eql-document.js';
import { lspRange } from '../workspace/lsp-ranges.js';
import { costMarkdown, costOf } from './cost.js';
import { placeholderHover } from './placeholders.js';

/**
 * Hover: the docs of a keyword of the text form, the schema's description of the field or value
 * under the cursor, what a `{{placeholder}}` gives, and on `when` / `"query"` / the document itself
 * the estimated cost.
 */
export interface HoverProvider {
  /** The hover at a position (markdown), or null when there is nothing to say there. */
  hover(document: ValidatedDocument, position: Position): Hover | null;
}

/** The hover provider of the server, reading descriptions from the schema model. */
export class DefaultHoverProvider implements HoverProvider {
  constructor(private readonly schema: SchemaModel) {}

  hover(document: ValidatedDocument, position: Position): Hover | null {
    const { textDocument } = document;
    const text = textDocument.getText();
    const offset = textDocument.offsetAt(position);
    const placeholder = placeholderHover(document, offset);
    if (placeholder !== undefined) return placeholder;
    const { map } = document.parse;
    const request = document.parse.value ?? document.parse.partial;
    const onKey = keyPointerAt(map, offset);
    const pointer = onKey?.pointer ?? pointerAt(map, offset);
    const parts: string[] = [];
    let range: Range | undefined = onKey === undefined ? undefined : lspRange(onKey.range);
    let withCost = pointer === '' || (document.form === 'json' && onKey?.pointer === '/query');

    if (document.form === 'text') {
      const word = wordAt(text, offset);
      const inString = pointer !== undefined && typeof valueAtPointer(request, pointer) === 'string' && text.charAt(map.entries.get(pointer)?.value.start.offset ?? -1) === '"';
      if (word !== undefined && KEYWORDS.has(word.text) && !inString) {
        parts.push(`**${word.text}** (keyword): ${KEYWORD_DOCS[word.text] ?? ''}`);
        range = { start: textDocument.positionAt(word.start), end: textDocument.positionAt(word.end) };
        if (word.text === 'when') withCost = true;
      }
    }
    if (pointer !== undefined && pointer !== '' && request !== undefined) {
      const doc = describePointer(this.schema, request, pointer);
      if (doc !== undefined) parts.push(doc);
      // A key the schema does not have: say so, with the keys allowed there (the validator's own words).
      const unknown = onKey === undefined ? undefined : document.validation?.diagnostics.find((diagnostic) => diagnostic.code === 'unknown-property' && diagnostic.path === onKey.pointer);
      if (unknown !== undefined && doc === undefined && onKey !== undefined) {
        const parent = onKey.pointer.slice(0, onKey.pointer.lastIndexOf('/'));
        const allowed = this.schema.propertiesAt(request, parent).map((property) => property.name);
        parts.push(`**${keyName(onKey.pointer)}**: ${unknown.message}${allowed.length > 0 ? `\n\nAllowed here: ${allowed.join(', ')}` : ''}`);
      }
      const valueRange = map.entries.get(pointer)?.value;
      if (range === undefined && valueRange !== undefined) range = lspRange(valueRange);
    }
    if (withCost) {
      const cost = costOf(document);
      if (cost !== undefined) parts.push(costMarkdown(cost));
    }
    if (parts.length === 0) return null;
    const hover: Hover = { contents: { kind: 'markdown', value: parts.join('\n\n---\n\n') } };
    if (range !== undefined) hover.range = range;
    return hover;
  }
}

/** The last token of a JSON pointer (the property's name). */
function keyName(pointer: string): string {
  return (pointer.slice(pointer.lastIndexOf('/') + 1) || pointer).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The innermost pointer whose key (a property name) holds `offset`. */
function keyPointerAt(map: SourceMap, offset: number): { pointer: string; range: SourceRange } | undefined {
  let best: { pointer: string; range: SourceRange } | undefined;
  for (const [pointer, entry] of map.entries) {
    const key = entry.key;
    if (key === undefined || offset < key.start.offset || offset > key.end.offset) continue;
    if (best === undefined || key.end.offset - key.start.offset < best.range.end.offset - best.range.start.offset) best = { pointer, range: key };
  }
  return best;
}

/** The word (letters, digits, `_`) at an offset. */
function wordAt(text: string, offset: number): { text: string; start: number; end: number } | undefined {
  const isWord = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
  let start = offset;
  while (start > 0 && isWord(text.charCodeAt(start - 1))) start -= 1;
  let end = offset;
  while (end < text.length && isWord(text.charCodeAt(end))) end += 1;
  return end > start ? { text: text.slice(start, end), start, end } : undefined;
}
