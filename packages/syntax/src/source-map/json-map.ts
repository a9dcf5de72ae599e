import { joinPointer } from '@eql/core';
import { type Node, parseTree, type ParseError } from 'jsonc-parser';
import { LineIndex } from './line-index.js';
import type { SourceMap, SourceMapEntry } from './types.js';

/**
 * JSON pointer → range for a JSON document, read with jsonc-parser (tolerant: a broken document
 * maps as far as it goes; comments and trailing commas are skipped). A repeated key maps to its
 * last occurrence, the one JSON.parse keeps.
 */
export function jsonSourceMap(text: string): SourceMap {
  const lines = new LineIndex(text);
  const entries = new Map<string, SourceMapEntry>();
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  const range = (node: Node) => lines.range(node.offset, node.offset + node.length);
  const visit = (node: Node, pointer: string, key?: Node) => {
    const entry: SourceMapEntry = { value: range(node) };
    if (key !== undefined) entry.key = range(key);
    entries.set(pointer, entry);
    if (node.type === 'object') {
      for (const property of node.children ?? []) {
        const [name, value] = property.children ?? [];
        if (name === undefined || typeof name.value !== 'string') continue;
        const at = joinPointer(pointer, name.value);
        if (entries.has(at)) forget(at);
        visit(value ?? name, at, name);
      }
    } else if (node.type === 'array') {
      (node.children ?? []).forEach((item, index) => visit(item, joinPointer(pointer, index)));
    }
  };
  /** A repeated key: drop what its earlier occurrence mapped. */
  const forget = (pointer: string) => {
    for (const key of [...entries.keys()]) if (key === pointer || key.startsWith(`${pointer}/`)) entries.delete(key);
  };
  if (root !== undefined) visit(root, '');
  return { format: 'json', entries };
}
