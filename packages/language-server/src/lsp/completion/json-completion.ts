import { isRecord, joinPointer, valueAtPointer } from '@eql/core';
import { getLocation } from 'jsonc-parser';
import type { CompletionItem, Range } from 'vscode-languageserver-types';
import { methodDoc, sourceDoc } from '../../schema/describe.js';
import type { SchemaModel } from '../../schema/schema-model.js';
import type { ParsedDocument } from '../../workspace/eql-document.js';
import { ItemList, KIND } from './items.js';

const DURATIONS = ['5m', '15m', '1h', '4h', '24h', '7d'];

/**
 * Completion in JSON, from the JSON path at the cursor (jsonc-parser's `getLocation`): property
 * names of the object there (by the schema, after its discriminators: `source`, `method`, `type`),
 * and values: sources, methods of the source, action types, operators, enum values, symbols.
 */
export class JsonCompletion {
  constructor(
    private readonly schema: SchemaModel,
    private readonly symbols: () => readonly string[],
  ) {}

  complete(document: ParsedDocument, offset: number): CompletionItem[] {
    const { textDocument } = document;
    const text = textDocument.getText();
    const location = getLocation(text, offset);
    const request = document.parse.value ?? document.parse.partial;
    const node = location.previousNode;
    const onNode = node !== undefined && offset >= node.offset && offset <= node.offset + node.length && node.type !== 'object' && node.type !== 'array';
    const range: Range = onNode
      ? { start: textDocument.positionAt(node.offset), end: textDocument.positionAt(node.offset + node.length) }
      : { start: textDocument.positionAt(offset), end: textDocument.positionAt(offset) };
    const list = new ItemList(range);
    const path = location.path.map((segment) => (typeof segment === 'number' ? String(segment) : segment));
    if (location.isAtPropertyKey) {
      const objectPointer = joinPointer('', ...path.slice(0, -1));
      const object = valueAtPointer(request, objectPointer);
      const typing = path.at(-1);
      const present = new Set(isRecord(object) ? Object.keys(object).filter((key) => key !== typing) : []);
      const colon = onNode && /^\s*:/.test(text.slice(node.offset + node.length));
      for (const property of this.schema.propertiesAt(request, objectPointer, typing === undefined ? {} : { without: typing })) {
        if (present.has(property.name)) continue;
        list.property(property, colon ? JSON.stringify(property.name) : `${JSON.stringify(property.name)}: `);
      }
      return list.items;
    }
    const pointer = joinPointer('', ...path);
    this.values(list, request, pointer);
    return list.items;
  }

  private values(list: ItemList, request: unknown, pointer: string): void {
    const name = pointer.slice(pointer.lastIndexOf('/') + 1);
    const parent = valueAtPointer(request, pointer.slice(0, pointer.lastIndexOf('/')));
    const property = this.schema.propertyAt(request, pointer);
    if (name === 'source' && isRecord(parent) && ('args' in parent || 'method' in parent || 'operator' in parent || Object.keys(parent).length <= 1)) {
      const operand = pointer.endsWith('/value/source');
      for (const source of this.schema.sources()) {
        if (operand && source.name !== 'price' && source.name !== 'ta') continue;
        list.add(source.name, KIND.EnumMember, { insert: JSON.stringify(source.name), detail: 'source', ...doc(sourceDoc(this.schema, source.name)) });
      }
      return;
    }
    if (name === 'method' && isRecord(parent) && typeof parent.source === 'string') {
      const source = parent.source;
      for (const method of this.schema.methods(source)) list.add(method.name, KIND.Function, { insert: JSON.stringify(method.name), detail: `${source}.${method.name}`, ...doc(methodDoc(this.schema, source, method.name)) });
      return;
    }
    if (name === 'type' && property !== undefined && (pointer.includes('/actions/') || pointer.endsWith('/action/type'))) {
      const allowed = new Set((property.values ?? []).map(String));
      for (const type of this.schema.actionTypes()) {
        if (allowed.size > 0 && !allowed.has(type.name)) continue;
        list.add(type.name, KIND.EnumMember, { insert: JSON.stringify(type.name), detail: 'action type', ...doc(type.description) });
      }
      return;
    }
    if (name === 'operator') {
      const allowed = new Set((property?.values ?? []).map(String));
      for (const operator of this.schema.operators()) {
        if (allowed.size > 0 && !allowed.has(operator.name)) continue;
        list.add(operator.name, KIND.Operator, { insert: JSON.stringify(operator.name), detail: 'operator', ...doc(operator.description) });
      }
      return;
    }
    if (name === 'symbol') {
      for (const symbol of this.symbols()) list.add(symbol, KIND.Constant, { insert: JSON.stringify(symbol), detail: 'symbol' });
      return;
    }
    if (property === undefined) return;
    for (const value of property.values ?? []) list.add(String(value), KIND.EnumMember, { insert: JSON.stringify(value), detail: property.name });
    if (property.schema.type === 'boolean') for (const value of ['true', 'false']) list.add(value, KIND.Value, { detail: property.name });
    if (property.type.startsWith('duration')) for (const value of DURATIONS) list.add(value, KIND.Value, { insert: JSON.stringify(value), detail: 'duration' });
  }
}

function doc(text: string | undefined): { doc?: string } {
  return text === undefined ? {} : { doc: text };
}
