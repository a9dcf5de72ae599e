import { type CONDITION_FIELDS, placeholdersOf } from '@eql/core';
import type { CompletionItem, Hover } from 'vscode-languageserver-types';
import type { ParsedDocument } from '../workspace/eql-document.js';
import { ItemList, KIND } from './completion/items.js';

/** What each placeholder gives (docs/semantics.md, "Placeholders in outputs"). */
const TRIGGER_DOCS: Readonly<Record<string, string>> = {
  title: "the query's title",
  queryId: "the query's id",
  stepId: 'the id of the step that runs',
  triggerIndex: 'which trigger of the query this is (1, 2, …)',
  firedAt: "the trigger's instant, ISO 8601 UTC",
};

const FIELD_DOCS: Readonly<Record<(typeof CONDITION_FIELDS)[number], string>> = {
  symbol: 'symbol',
  value: 'value read when it fired (a price, an indicator)',
  threshold: 'threshold',
  operator: 'operator',
  source: 'source',
  method: 'method',
};

/** `{{` and the name typed so far, just before the cursor on its line. */
const OPENED = /\{\{\s*([A-Za-z0-9_.-]*)$/;

/** Whether the cursor is inside a string on its line: an odd number of unescaped quotes before it. */
function insideString(line: string): boolean {
  let quotes = 0;
  for (let index = 0; index < line.length; index += 1) {
    if (line[index] === '\\') index += 1;
    else if (line[index] === '"') quotes += 1;
  }
  return quotes % 2 === 1;
}

/** What the placeholder `name` gives, in words. */
export function placeholderDoc(name: string): string {
  const trigger = TRIGGER_DOCS[name];
  if (trigger !== undefined) return trigger;
  if (name.startsWith('price.')) return `the last price of ${name.slice('price.'.length)} when it fired`;
  const dot = name.lastIndexOf('.');
  const field = (dot === -1 ? name : name.slice(dot + 1)) as (typeof CONDITION_FIELDS)[number];
  const fact = FIELD_DOCS[field] ?? field;
  return dot === -1 ? `the first condition's ${fact}` : `the ${fact} of the condition at /${name.slice(0, dot).replaceAll('.', '/')}`;
}

/**
 * The placeholders of the document's query after `{{` inside a string, in either form: the trigger's
 * fields, the first condition's, and each condition's by its path. Undefined when the cursor is not
 * after `{{` in a string (the form's own completion answers then).
 */
export function placeholderCompletion(document: ParsedDocument, offset: number): CompletionItem[] | undefined {
  const text = document.textDocument.getText();
  const line = text.slice(text.lastIndexOf('\n', offset - 1) + 1, offset);
  const opened = OPENED.exec(line);
  if (opened === null || !insideString(line)) return undefined;
  const typed = opened[1] ?? '';
  const range = { start: document.textDocument.positionAt(offset - typed.length), end: document.textDocument.positionAt(offset) };
  const closed = /^\s*\}\}/.test(text.slice(offset));
  const request = (document.parse.value ?? document.parse.partial) as { query?: { conditions?: unknown } } | undefined;
  const list = new ItemList(range);
  for (const name of placeholdersOf(request?.query?.conditions)) list.add(name, KIND.Variable, { insert: closed ? name : `${name}}}`, detail: 'placeholder', doc: placeholderDoc(name) });
  return list.items;
}

/**
 * The hover of a placeholder under the cursor (`{{name}}` inside a string of either form): what it
 * gives, or that the query has no such placeholder (the validator's `unknown-placeholder` says more).
 */
export function placeholderHover(document: ParsedDocument, offset: number): Hover | undefined {
  const text = document.textDocument.getText();
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', offset);
  const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
  const at = offset - lineStart;
  for (const match of line.matchAll(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g)) {
    const start = match.index;
    const end = start + match[0].length;
    if (at < start || at > end || !insideString(line.slice(0, start))) continue;
    const name = match[1]!;
    const request = (document.parse.value ?? document.parse.partial) as { query?: { conditions?: unknown } } | undefined;
    const known = placeholdersOf(request?.query?.conditions).includes(name);
    const value = known ? `**{{${name}}}** (placeholder): ${placeholderDoc(name)}` : `**{{${name}}}**: not a placeholder of this query`;
    return {
      contents: { kind: 'markdown', value },
      range: { start: document.textDocument.positionAt(lineStart + start), end: document.textDocument.positionAt(lineStart + end) },
    };
  }
  return undefined;
}
