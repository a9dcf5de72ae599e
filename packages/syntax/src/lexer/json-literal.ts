import { escapePointerToken } from '@eql/core';
import type { JsonObject, JsonValue } from '../build/context.js';

/**
 * The fast path for JSON written as a parameter value (a webhook's payload and headers, an asset's
 * metadata): a well-formed JSON object or array is read here in one pass, as one token, instead of one
 * token and one grammar rule per bracket, string and number. Such values are what makes a document
 * long (a query has at most 32 conditions and 10 actions, but a payload can run to thousands of lines).
 *
 * The scanner only takes JSON it reads exactly as the grammar would: JSON whitespace, strings without
 * control characters, finite numbers, no repeated key, no comment, at most {@link MAX_DEPTH} deep. For
 * anything else it takes nothing, and the same text is read token by token by the grammar, which
 * explains the mistake. So the fast path changes the speed, never the value, the map or a message.
 */

/** What the token carries: the value and where each of its parts is, for the source map. */
export interface JsonLiteralPayload {
  value: JsonObject | JsonValue[];
  /**
   * Every value inside, after its children (the order the grammar's builder records them): its pointer
   * relative to the literal (`/levels/3`) and, four numbers each in `spans`, the value's start and end
   * offsets and its key's (-1 for an item of an array).
   */
  pointers: string[];
  spans: number[];
}

/** Deeper than this, the literal is left to the grammar (which owns the nesting limit and its message). */
const MAX_DEPTH = 64;

const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** Thrown inside the scanner when the text is not JSON it takes; never leaves this module. */
class NotTaken extends Error {}
const NOT_TAKEN = new NotTaken();

class Scanner {
  offset: number;
  readonly pointers: string[] = [];
  readonly spans: number[] = [];

  constructor(
    private readonly text: string,
    start: number,
  ) {
    this.offset = start;
  }

  private space(): void {
    const text = this.text;
    let at = this.offset;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === SPACE || code === LF || code === CR || code === TAB) at += 1;
      else break;
    }
    this.offset = at;
  }

  value(pointer: string, depth: number): JsonValue {
    const code = this.text.charCodeAt(this.offset);
    if (code === OPEN_BRACE) return this.object(pointer, depth + 1);
    if (code === OPEN_BRACKET) return this.array(pointer, depth + 1);
    if (code === QUOTE) return this.string();
    if (code === MINUS || (code >= ZERO && code <= NINE)) return this.number();
    if (this.word('true')) return true;
    if (this.word('false')) return false;
    if (this.word('null')) return null;
    throw NOT_TAKEN;
  }

  private object(pointer: string, depth: number): JsonObject {
    if (depth > MAX_DEPTH) throw NOT_TAKEN;
    this.offset += 1;
    const result: JsonObject = {};
    this.space();
    if (this.text.charCodeAt(this.offset) === CLOSE_BRACE) {
      this.offset += 1;
      return result;
    }
    for (;;) {
      if (this.text.charCodeAt(this.offset) !== QUOTE) throw NOT_TAKEN;
      const keyStart = this.offset;
      const key = this.string();
      const keyEnd = this.offset;
      if (Object.prototype.hasOwnProperty.call(result, key)) throw NOT_TAKEN;
      this.space();
      if (this.text.charCodeAt(this.offset) !== COLON) throw NOT_TAKEN;
      this.offset += 1;
      this.space();
      const at = `${pointer}/${escapePointerToken(key)}`;
      const valueStart = this.offset;
      const value = this.value(at, depth);
      // `__proto__` becomes an own property, as JSON.parse (and the grammar's builder) make it.
      if (key === '__proto__') Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      else result[key] = value;
      this.pointers.push(at);
      this.spans.push(valueStart, this.offset, keyStart, keyEnd);
      this.space();
      const next = this.text.charCodeAt(this.offset);
      this.offset += 1;
      if (next === CLOSE_BRACE) return result;
      if (next !== COMMA) throw NOT_TAKEN;
      this.space();
    }
  }

  private array(pointer: string, depth: number): JsonValue[] {
    if (depth > MAX_DEPTH) throw NOT_TAKEN;
    this.offset += 1;
    const result: JsonValue[] = [];
    this.space();
    if (this.text.charCodeAt(this.offset) === CLOSE_BRACKET) {
      this.offset += 1;
      return result;
    }
    for (;;) {
      const at = `${pointer}/${result.length}`;
      const valueStart = this.offset;
      result.push(this.value(at, depth));
      this.pointers.push(at);
      this.spans.push(valueStart, this.offset, -1, -1);
      this.space();
      const next = this.text.charCodeAt(this.offset);
      this.offset += 1;
      if (next === CLOSE_BRACKET) return result;
      if (next !== COMMA) throw NOT_TAKEN;
      this.space();
    }
  }

  private string(): string {
    const text = this.text;
    const start = this.offset;
    let at = start + 1;
    let escaped = false;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === QUOTE) break;
      if (code < 0x20 || Number.isNaN(code)) throw NOT_TAKEN;
      if (code === BACKSLASH) {
        escaped = true;
        at += 1;
        if (text.charCodeAt(at) < 0x20 || at >= text.length) throw NOT_TAKEN;
      }
      at += 1;
    }
    this.offset = at + 1;
    if (!escaped) return text.slice(start + 1, at);
    try {
      return JSON.parse(text.slice(start, at + 1)) as string;
    } catch {
      throw NOT_TAKEN;
    }
  }

  private number(): number {
    const text = this.text;
    const start = this.offset;
    let at = start;
    if (text.charCodeAt(at) === MINUS) at += 1;
    const first = text.charCodeAt(at);
    if (first === ZERO) at += 1;
    else if (first > ZERO && first <= NINE) at = this.digits(at);
    else throw NOT_TAKEN;
    if (text.charCodeAt(at) === DOT) {
      const after = this.digits(at + 1);
      if (after === at + 1) throw NOT_TAKEN;
      at = after;
    }
    const exponent = text.charCodeAt(at);
    if (exponent === 101 || exponent === 69) {
      at += 1;
      const sign = text.charCodeAt(at);
      if (sign === 43 || sign === MINUS) at += 1;
      const after = this.digits(at);
      if (after === at) throw NOT_TAKEN;
      at = after;
    }
    this.offset = at;
    this.delimiter();
    const value = Number(text.slice(start, at));
    if (!Number.isFinite(value)) throw NOT_TAKEN;
    return value;
  }

  private digits(from: number): number {
    let at = from;
    for (;;) {
      const code = this.text.charCodeAt(at);
      if (code >= ZERO && code <= NINE) at += 1;
      else return at;
    }
  }

  private word(word: string): boolean {
    if (!this.text.startsWith(word, this.offset)) return false;
    this.offset += word.length;
    this.delimiter();
    return true;
  }

  /** A number or word of JSON ends at whitespace or punctuation, as the grammar's tokens do. */
  private delimiter(): void {
    const code = this.text.charCodeAt(this.offset);
    if (!(code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || code === SPACE || code === LF || code === CR || code === TAB)) throw NOT_TAKEN;
  }
}

/**
 * Reads the JSON object or array at `start` of `text`; undefined when it is not JSON the scanner
 * takes (see the module comment). `end` is the offset after the closing bracket.
 */
export function scanJsonLiteral(text: string, start: number): { end: number; payload: JsonLiteralPayload } | undefined {
  const scanner = new Scanner(text, start);
  try {
    const value = scanner.value('', 0) as JsonObject | JsonValue[];
    return { end: scanner.offset, payload: { value, pointers: scanner.pointers, spans: scanner.spans } };
  } catch (cause) {
    if (cause === NOT_TAKEN) return undefined;
    throw cause;
  }
}
