import { isRecord, joinPointer } from '@eql/core';
import { rangeOfPointer } from '@eql/syntax';
import { type DocumentSymbol, type Range, SymbolKind } from 'vscode-languageserver-types';
import type { ParsedDocument } from '../workspace/eql-document.js';
import { comparePositions, lspRange } from '../workspace/lsp-ranges.js';

/** The outline: the condition groups (nested) with their conditions, and the actions by step id. */
export interface DocumentSymbolProvider {
  /** The outline of a document: empty when nothing of it could be read. */
  symbols(document: ParsedDocument): DocumentSymbol[];
}

/** The document symbol provider of the server. */
export class DefaultDocumentSymbolProvider implements DocumentSymbolProvider {
  symbols(document: ParsedDocument): DocumentSymbol[] {
    const request = document.parse.value ?? document.parse.partial;
    const query = isRecord(request) && isRecord(request.query) ? request.query : undefined;
    if (query === undefined) return [];
    const symbols: DocumentSymbol[] = [];
    const place = (pointer: string) => this.place(document, pointer);
    if (isRecord(query.conditions)) {
      const group = this.node(query.conditions, '/query/conditions', place, 0);
      if (group !== undefined) symbols.push(group);
    }
    if (Array.isArray(query.actions)) {
      const children: DocumentSymbol[] = [];
      query.actions.forEach((action, index) => {
        if (!isRecord(action)) return;
        const pointer = joinPointer('/query/actions', index);
        const stepId = typeof action.stepId === 'string' && action.stepId !== '' ? action.stepId : `#${index + 1}`;
        children.push({ name: stepId, detail: typeof action.type === 'string' ? action.type : '', kind: SymbolKind.Function, ...place(pointer) });
      });
      symbols.push({ name: 'actions', detail: `${children.length} step${children.length === 1 ? '' : 's'}`, kind: SymbolKind.Array, ...place('/query/actions'), children });
    }
    return symbols;
  }

  private node(node: Record<string, unknown>, pointer: string, place: (pointer: string) => Placed, depth: number): DocumentSymbol | undefined {
    if (depth > 16) return undefined;
    const key = Array.isArray(node.AND) ? 'AND' : Array.isArray(node.OR) ? 'OR' : undefined;
    const holdFor = typeof node.holdFor === 'string' ? ` for ${node.holdFor}` : '';
    if (key === undefined) {
      return { name: conditionName(node), detail: `${String(node.source)}${typeof node.method === 'string' ? `.${node.method}` : ''}${holdFor}`, kind: SymbolKind.Event, ...place(pointer) };
    }
    const members = node[key] as unknown[];
    const children: DocumentSymbol[] = [];
    members.forEach((member, index) => {
      if (!isRecord(member)) return;
      const child = this.node(member, joinPointer(pointer, key, index), place, depth + 1);
      if (child !== undefined) children.push(child);
    });
    return { name: key === 'AND' ? 'all of' : 'any of', detail: `${key}${holdFor}`, kind: SymbolKind.Namespace, ...place(pointer), children };
  }

  /** The range of a value (with its key in JSON) and the range to select (the key, or the value). */
  private place(document: ParsedDocument, pointer: string): Placed {
    const { map } = document.parse;
    const value = rangeOfPointer(map, pointer);
    const key = rangeOfPointer(map, pointer, { key: true });
    const valueRange = value === undefined ? ZERO : lspRange(value);
    const keyRange = key === undefined ? valueRange : lspRange(key);
    const range = {
      start: comparePositions(keyRange.start, valueRange.start) < 0 ? keyRange.start : valueRange.start,
      end: comparePositions(keyRange.end, valueRange.end) > 0 ? keyRange.end : valueRange.end,
    };
    return { range, selectionRange: keyRange };
  }
}

interface Placed {
  range: Range;
  selectionRange: Range;
}

const ZERO: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** A condition as a short sentence: `rsi of SOL > 70`, `tweet by @elonmusk about "doge"`. */
export function conditionName(node: Record<string, unknown>): string {
  const args = isRecord(node.args) ? node.args : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value) ?? '?');
  const quoted = (value: unknown) => {
    const string = text(value);
    return `"${string.length > 40 ? `${string.slice(0, 39)}…` : string}"`;
  };
  const comparison = () => (node.operator === undefined ? '' : ` ${text(node.operator).replace('_', ' ')} ${operand(node.value)}`);
  switch (node.source) {
    case 'price':
    case 'ta':
      return `${subject(node)}${comparison()}`;
    case 'tweet':
      return `tweet by @${text(args.username).replace(/^@/, '')} about ${quoted(args.text)}${node.operator === undefined ? '' : ` with confidence${comparison()}`}`;
    case 'news':
      return `news about ${quoted(args.text)}${node.operator === undefined ? '' : ` with confidence${comparison()}`}`;
    case 'llm':
      return `llm ${quoted(args.query)} every ${text(args.period)}`;
    case 'cron':
      return node.method === 'once' ? `at ${text(args.at)}` : `every ${text(args.period)}`;
    default:
      return `${text(node.source)}${node.method === undefined ? '' : `.${text(node.method)}`}`;
  }
}

function subject(node: Record<string, unknown>): string {
  const args = isRecord(node.args) ? node.args : {};
  const measure = node.source === 'price' && node.method === 'current' ? 'price' : String(node.method);
  const over = node.source === 'price' && node.method !== 'current' && typeof args.period === 'string' ? ` over ${args.period}` : '';
  return `${measure} of ${typeof args.symbol === 'string' ? args.symbol : '?'}${over}`;
}

function operand(value: unknown): string {
  return isRecord(value) ? subject(value) : JSON.stringify(value) ?? '?';
}
