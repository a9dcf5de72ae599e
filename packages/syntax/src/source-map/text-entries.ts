import type { LineIndex } from './line-index.js';
import type { SourceMapEntry } from './types.js';

/**
 * The parts of a JSON literal of the text, kept as the lexer found them: relative pointers and, four
 * numbers each, the value's start and end offsets and its key's (-1 for an array item).
 */
export interface LiteralParts {
  pointers: readonly string[];
  spans: readonly number[];
}

interface LiteralSegment {
  /** The pointer of the literal itself; its parts are below it. */
  base: string;
  parts: LiteralParts;
  /** How many direct entries came before it: where its parts go in the map's order. */
  position: number;
}

/**
 * The entries of a text-form source map. Most entries of a long document are the parts of its JSON
 * literals (a webhook payload of thousands of lines); those are turned into ranges only when asked
 * for: `get` of one pointer looks it up in its literal, and iterating builds them all once, in the
 * order the grammar's builder records them (each literal's parts just before the literal itself).
 * A clean document whose map nobody reads pays for none of it.
 */
export class TextSourceMapEntries implements ReadonlyMap<string, SourceMapEntry> {
  /** Pointer → index of its four offsets in `directSpans`. */
  private readonly direct = new Map<string, number>();
  private readonly directSpans: number[] = [];
  private readonly literals: LiteralSegment[] = [];
  private full: Map<string, SourceMapEntry> | undefined;

  constructor(private readonly lines: LineIndex) {}

  /**
   * Records where the value at `pointer` is, and its key's place (a key start below 0: none). A later
   * record of the same pointer replaces it, keeping its place in the order.
   */
  set(pointer: string, valueStart: number, valueEnd: number, keyStart = -1, keyEnd = -1): void {
    const known = this.direct.get(pointer);
    const at = known ?? this.directSpans.length;
    if (known === undefined) this.direct.set(pointer, at);
    this.directSpans[at] = valueStart;
    this.directSpans[at + 1] = valueEnd;
    this.directSpans[at + 2] = keyStart;
    this.directSpans[at + 3] = keyEnd;
    this.full = undefined;
  }

  /** Records the parts of the JSON literal at `base`, to be read when asked for. */
  addLiteral(base: string, parts: LiteralParts): void {
    if (parts.pointers.length === 0) return;
    this.literals.push({ base, parts, position: this.direct.size });
    this.full = undefined;
  }

  get size(): number {
    return this.all().size;
  }

  get(pointer: string): SourceMapEntry | undefined {
    if (this.full !== undefined) return this.full.get(pointer);
    const found = this.direct.get(pointer);
    if (found !== undefined) return this.entryAt(this.directSpans, found);
    for (let i = this.literals.length - 1; i >= 0; i -= 1) {
      const segment = this.literals[i] as LiteralSegment;
      if (pointer.length <= segment.base.length || !pointer.startsWith(segment.base) || pointer.charCodeAt(segment.base.length) !== 47) continue;
      const index = segment.parts.pointers.lastIndexOf(pointer.slice(segment.base.length));
      if (index >= 0) return this.entryAt(segment.parts.spans, index * 4);
    }
    return undefined;
  }

  has(pointer: string): boolean {
    return this.get(pointer) !== undefined;
  }

  forEach(callback: (value: SourceMapEntry, key: string, map: ReadonlyMap<string, SourceMapEntry>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.all()) callback.call(thisArg, value, key, this);
  }

  entries(): MapIterator<[string, SourceMapEntry]> {
    return this.all().entries();
  }

  keys(): MapIterator<string> {
    return this.all().keys();
  }

  values(): MapIterator<SourceMapEntry> {
    return this.all().values();
  }

  [Symbol.iterator](): MapIterator<[string, SourceMapEntry]> {
    return this.all().entries();
  }

  private entryAt(spans: readonly number[], at: number): SourceMapEntry {
    const entry: SourceMapEntry = { value: this.lines.range(spans[at] as number, spans[at + 1] as number) };
    const keyStart = spans[at + 2] as number;
    if (keyStart >= 0) entry.key = this.lines.range(keyStart, spans[at + 3] as number);
    return entry;
  }

  /** Every entry, in the builder's order, built once. */
  private all(): Map<string, SourceMapEntry> {
    if (this.full !== undefined) return this.full;
    const full = new Map<string, SourceMapEntry>();
    let next = 0;
    const flushUpTo = (position: number): void => {
      for (; next < this.literals.length && (this.literals[next] as LiteralSegment).position <= position; next += 1) {
        const { base, parts } = this.literals[next] as LiteralSegment;
        for (let index = 0; index < parts.pointers.length; index += 1) full.set(base + (parts.pointers[index] as string), this.entryAt(parts.spans, index * 4));
      }
    };
    let position = 0;
    for (const [pointer, at] of this.direct) {
      flushUpTo(position);
      full.set(pointer, this.entryAt(this.directSpans, at));
      position += 1;
    }
    flushUpTo(Number.POSITIVE_INFINITY);
    this.full = full;
    return full;
  }
}
