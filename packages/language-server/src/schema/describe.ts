import { isRecord, parsePointer, valueAtPointer } from '@eql/core';
import { METHOD_DOCS, SOURCE_DOCS } from './docs.js';
import type { PropertyInfo, SchemaModel } from './schema-model.js';

/** Markdown for a property: `**period** · duration · required`, then its description. */
export function propertyMarkdown(property: PropertyInfo): string {
  const facts = [`\`${property.type}\``, property.required ? 'required' : 'optional'];
  if (property.default !== undefined) facts.push(`default ${JSON.stringify(property.default)}`);
  return `**${property.name}** · ${facts.join(' · ')}${property.description === undefined ? '' : `\n\n${property.description}`}`;
}

/** The description of a source (schema first, then the docs of this package). */
export function sourceDoc(schema: SchemaModel, source: string): string | undefined {
  return schema.conditionDoc(source) ?? SOURCE_DOCS[source];
}

/** The description of a condition's method (the indicator docs first: the schema shares one description among several). */
export function methodDoc(schema: SchemaModel, source: string, method: string): string | undefined {
  return METHOD_DOCS[`${source}.${method}`] ?? schema.conditionDoc(source, method);
}

/**
 * Markdown for the value at a JSON pointer of a request: the property that holds it (type,
 * required, default, description) and, for a source, method, action type or operator, what that
 * value means.
 */
export function describePointer(schema: SchemaModel, request: unknown, pointer: string): string | undefined {
  const tokens = parsePointer(pointer);
  const name = tokens.at(-1);
  if (name === undefined) return undefined;
  const parts: string[] = [];
  const value = valueAtPointer(request, pointer);
  const parent = valueAtPointer(request, pointer.slice(0, pointer.lastIndexOf('/')));
  const meaning = isRecord(parent) ? valueMeaning(schema, parent, name, value) : undefined;
  if (meaning !== undefined) parts.push(meaning);
  if (/^\d+$/.test(name)) {
    const item = schema.schemaAt(request, pointer);
    const title = typeof item?.title === 'string' ? item.title : undefined;
    const description = typeof item?.description === 'string' ? item.description : undefined;
    if (title !== undefined || description !== undefined) parts.push([title && `**${title}**`, description].filter(Boolean).join('\n\n'));
  } else {
    const property = schema.propertyAt(request, pointer);
    if (property !== undefined) parts.push(propertyMarkdown(property));
  }
  return parts.length === 0 ? undefined : parts.join('\n\n---\n\n');
}

/** What a discriminating value means: `rsi` of a ta condition, `notify` as an action type, `>` as an operator. */
function valueMeaning(schema: SchemaModel, parent: Record<string, unknown>, name: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if ((name === 'source' || name === 'method') && typeof parent.source === 'string') {
    const source = parent.source;
    const method = typeof parent.method === 'string' ? parent.method : undefined;
    if (method !== undefined) {
      const doc = methodDoc(schema, source, method);
      return `**${source}.${method}**${doc === undefined ? '' : `: ${doc}`}`;
    }
    const doc = sourceDoc(schema, source);
    return `**${source}**${doc === undefined ? '' : `: ${doc}`}`;
  }
  if (name === 'type' && ('params' in parent || 'stepId' in parent)) {
    const type = schema.actionTypes().find((choice) => choice.name === value);
    return type === undefined ? undefined : `**${type.name}**${type.description === undefined ? '' : `: ${type.description}`}`;
  }
  if (name === 'operator') {
    const operator = schema.operators().find((choice) => choice.name === value);
    return operator === undefined ? undefined : `**${operator.name}**${operator.description === undefined ? '' : `: ${operator.description}`}`;
  }
  return undefined;
}
