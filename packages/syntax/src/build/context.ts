import { joinPointer } from '@eql/core';
import type { SyntaxIssue } from '../errors.js';
import type { LineIndex } from '../source-map/line-index.js';
import { type LiteralParts, TextSourceMapEntries } from '../source-map/text-entries.js';
import type { Span } from './cst.js';

/** JSON values as the builder makes them. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
/** A JSON object as the builder makes it: string keys to JSON values. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A construct that the formatter keeps on its own line (and that comments attach to). */
export interface LineItem {
  pointer: string;
  start: number;
  end: number;
}

/** Sets a property; `__proto__` becomes an own property, as JSON.parse makes it. */
export function setProperty(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export function hasProperty(target: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(target, key);
}

/** What the builder collects while it walks: problems, the source map and the line items. */
export class BuildContext {
  readonly errors: SyntaxIssue[] = [];
  readonly entries: TextSourceMapEntries;
  readonly lineItems: LineItem[] = [];

  constructor(readonly lines: LineIndex) {
    this.entries = new TextSourceMapEntries(lines);
  }

  /** Records an error at `span` (the end of the text without one); `replacement` makes its quick fix: the span rewritten. */
  error(message: string, span: Span | undefined, replacement?: { title: string; text: string }): void {
    const at = span ?? { start: this.lines.text.length, end: this.lines.text.length };
    const range = this.lines.range(at.start, at.end);
    this.errors.push(replacement && span ? { message, range, fix: { title: replacement.title, range, text: replacement.text } } : { message, range });
  }

  /** Records where the value at `pointer` (and the key naming it) comes from. */
  record(pointer: string, value: Span | undefined, key?: Span): void {
    if (value === undefined) return;
    if (key === undefined) this.entries.set(pointer, value.start, value.end);
    else this.entries.set(pointer, value.start, value.end, key.start, key.end);
  }

  /** Records the parts of a JSON literal at `pointer`; their ranges are made when the map is read. */
  recordLiteral(pointer: string, parts: LiteralParts): void {
    this.entries.addLiteral(pointer, parts);
  }

  line(pointer: string, span: Span | undefined): void {
    if (span !== undefined) this.lineItems.push({ pointer, start: span.start, end: span.end });
  }

  /** Sets `key` on `target` at `pointer` unless it is there already (then reports it, at `span`). */
  put(target: JsonObject, pointer: string, key: string, value: JsonValue, span: Span | undefined, keySpan?: Span): boolean {
    if (hasProperty(target, key)) {
      this.error(`${JSON.stringify(key)} is given twice`, keySpan ?? span);
      return false;
    }
    setProperty(target, key, value);
    this.record(joinPointer(pointer, key), span, keySpan);
    return true;
  }
}
