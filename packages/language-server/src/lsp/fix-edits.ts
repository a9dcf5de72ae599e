import { canonicalJson, isRecord, joinPointer, type JsonEdit, parsePointer } from '@eql/core';
import { parseText, printText, type SourceMap } from '@eql/syntax';
import { applyEdits, type JSONPath, modify } from 'jsonc-parser';
import type { TextEdit } from 'vscode-languageserver-types';
import type { ParsedDocument } from '../workspace/eql-document.js';
import { minimalEdit } from './text-edits.js';

/** The request with JSON-pointer edits applied (a copy; the input is left alone). */
export function applyJsonEdits(request: unknown, edits: readonly JsonEdit[]): unknown {
  let result = structuredClone(request);
  for (const edit of edits) {
    const tokens = parsePointer(edit.path);
    const last = tokens.pop();
    if (last === undefined) {
      result = edit.op === 'replace' ? structuredClone(edit.value) : undefined;
      continue;
    }
    let parent: unknown = result;
    for (const token of tokens) parent = Array.isArray(parent) ? parent[Number(token)] : isRecord(parent) ? parent[token] : undefined;
    if (Array.isArray(parent)) {
      const index = Number(last);
      if (edit.op === 'replace') parent[index] = structuredClone(edit.value);
      else parent.splice(index, 1);
    } else if (isRecord(parent)) {
      if (edit.op === 'replace') parent[last] = structuredClone(edit.value);
      else delete parent[last];
    }
  }
  return result;
}

/**
 * The text edits that apply a fix's JSON-pointer edits to a document, in its own form; undefined when
 * they cannot be applied (the document does not parse, or the text form cannot say the result).
 */
export function fixTextEdits(document: ParsedDocument, edits: readonly JsonEdit[]): TextEdit[] | undefined {
  const request = document.parse.value;
  if (request === undefined || edits.length === 0) return undefined;
  const edited = applyJsonEdits(request, edits);
  const edit = document.form === 'json' ? jsonFormEdit(document, request, edits) : textFormEdit(document, edited, edits);
  return edit === undefined ? undefined : [edit];
}

/** JSON: jsonc-parser's `modify` for each edit (it keeps the layout around the value), then one minimal edit. */
function jsonFormEdit(document: ParsedDocument, request: unknown, edits: readonly JsonEdit[]): TextEdit | undefined {
  let text = document.textDocument.getText();
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let current = request;
  for (const edit of edits) {
    const path = jsonPath(current, edit.path);
    const value = edit.op === 'replace' ? edit.value : undefined;
    text = applyEdits(text, modify(text, path, value, { formattingOptions: { insertSpaces: true, tabSize: indentOf(text), eol } }));
    current = applyJsonEdits(current, [edit]);
  }
  return minimalEdit(document.textDocument, text);
}

/**
 * The text form: print the edited request, then splice into the document only the printed text of
 * the smallest construct that holds every edit (so comments and layout elsewhere stay), checked by
 * parsing the result; when no splice reads back as the edited request, the whole printed request.
 */
function textFormEdit(document: ParsedDocument, edited: unknown, edits: readonly JsonEdit[]): TextEdit | undefined {
  let printed: string;
  try {
    printed = printText(edited);
  } catch {
    return undefined;
  }
  const text = document.textDocument.getText();
  const printedMap = parseText(printed).map;
  const expected = canonicalJson(edited);
  for (let at: string | undefined = commonAncestor(edits.map((edit) => (edit.op === 'remove' ? parentOf(edit.path) : edit.path))); at !== undefined; at = at === '' ? undefined : parentOf(at)) {
    const from = entryRange(document.parse.map, at);
    const to = entryRange(printedMap, at);
    if (from === undefined || to === undefined) continue;
    const candidate = text.slice(0, from.start) + printed.slice(to.start, to.end) + text.slice(from.end);
    const reread = parseText(candidate).value;
    if (reread !== undefined && canonicalJson(reread) === expected) return minimalEdit(document.textDocument, candidate);
  }
  return minimalEdit(document.textDocument, printed);
}

function entryRange(map: SourceMap, pointer: string): { start: number; end: number } | undefined {
  const entry = map.entries.get(pointer);
  return entry === undefined ? undefined : { start: entry.value.start.offset, end: entry.value.end.offset };
}

function parentOf(pointer: string): string {
  return pointer.slice(0, Math.max(0, pointer.lastIndexOf('/')));
}

function commonAncestor(pointers: readonly string[]): string {
  const [first, ...rest] = pointers.map(parsePointer);
  if (first === undefined) return '';
  let length = first.length;
  for (const tokens of rest) {
    let i = 0;
    while (i < length && i < tokens.length && tokens[i] === first[i]) i += 1;
    length = i;
  }
  return joinPointer('', ...first.slice(0, length));
}

/** A JSON pointer as jsonc-parser's path: array indices as numbers. */
function jsonPath(request: unknown, pointer: string): JSONPath {
  const path: JSONPath = [];
  let node = request;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(node)) {
      path.push(Number(token));
      node = node[Number(token)];
    } else {
      path.push(token);
      node = isRecord(node) ? node[token] : undefined;
    }
  }
  return path;
}

/** The indentation width the document uses (2 when it cannot tell). */
function indentOf(text: string): number {
  const match = /\n( +)\S/.exec(text);
  return match?.[1] === undefined ? 2 : Math.min(match[1].length, 8);
}
