import { KEYWORDS } from '@eql/syntax';
import { type CompletionItem, CompletionItemKind, type Range } from 'vscode-languageserver-types';
import { propertyMarkdown } from '../../schema/describe.js';
import type { PropertyInfo } from '../../schema/schema-model.js';

/** Builds completion items that replace `range` (the word being typed), in the order they are added. */
export class ItemList {
  readonly items: CompletionItem[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly range: Range) {}

  add(label: string, kind: CompletionItemKind, options: { insert?: string; detail?: string; doc?: string; filter?: string } = {}): void {
    if (this.seen.has(label)) return;
    this.seen.add(label);
    const item: CompletionItem = {
      label,
      kind,
      sortText: String(this.items.length).padStart(4, '0'),
      textEdit: { range: this.range, newText: options.insert ?? label },
    };
    if (options.detail !== undefined) item.detail = options.detail;
    if (options.doc !== undefined) item.documentation = { kind: 'markdown', value: options.doc };
    if (options.filter !== undefined) item.filterText = options.filter;
    this.items.push(item);
  }

  keyword(label: string, doc?: string, insert?: string): void {
    this.add(label, CompletionItemKind.Keyword, { insert: insert ?? label, ...(doc === undefined ? {} : { doc }) });
  }

  property(property: PropertyInfo, insert: string): void {
    this.add(property.name, CompletionItemKind.Property, { insert, detail: property.type, doc: propertyMarkdown(property) });
  }
}

const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.-]+)?(?::[A-Za-z0-9_.-]+)?$/;

/** A name as the text form writes it: bare when it can be, quoted otherwise (keywords, `1000PEPE`). */
export function textName(name: string): string {
  return BARE_NAME.test(name) && !KEYWORDS.has(name) ? name : JSON.stringify(name);
}

export const KIND = CompletionItemKind;
