import { joinPointer, parsePointer } from '@eql/core';

/** Offsets of a value and of the key that names it. */
export interface Located {
  start: number;
  end: number;
  keyStart?: number;
  keyEnd?: number;
}

/**
 * Finds the values at some JSON pointers of a text that is valid JSON (`JSON.parse` accepted it), in
 * one pass that only descends into the objects and arrays on the way to them and skips the rest
 * character by character. Placing a few diagnostics this way costs a fraction of building the
 * source map of every value (`jsonSourceMap`); hover and the outline still use the full map.
 */
export function locateJsonPointers(text: string, pointers: Iterable<string>): Map<string, Located> {
  const onPath = new Set<string>(['']);
  for (const pointer of pointers) {
    const tokens = parsePointer(pointer);
    for (let i = 1; i <= tokens.length; i += 1) onPath.add(joinPointer('', ...tokens.slice(0, i)));
  }
  const found = new Map<string, Located>();
  new Scanner(text, onPath, found).value(skipSpace(text, 0), '', undefined);
  return found;
}

class Scanner {
  constructor(
    private readonly text: string,
    private readonly onPath: ReadonlySet<string>,
    private readonly found: Map<string, Located>,
  ) {}

  /** Reads the value at `at` (no leading space), records it when on a path; returns the offset after it. */
  value(at: number, pointer: string, key: { start: number; end: number } | undefined): number {
    const code = this.text.charCodeAt(at);
    let end: number;
    if (!this.onPath.has(pointer)) return code === 123 || code === 91 ? skipComposite(this.text, at) : code === 34 ? skipString(this.text, at) : skipLiteral(this.text, at);
    if (code === 123) end = this.object(at, pointer);
    else if (code === 91) end = this.array(at, pointer);
    else end = code === 34 ? skipString(this.text, at) : skipLiteral(this.text, at);
    this.found.set(pointer, key === undefined ? { start: at, end } : { start: at, end, keyStart: key.start, keyEnd: key.end });
    return end;
  }

  private object(open: number, pointer: string): number {
    const { text } = this;
    let at = skipSpace(text, open + 1);
    if (text.charCodeAt(at) === 125) return at + 1;
    for (;;) {
      const keyStart = at;
      const keyEnd = skipString(text, at);
      const raw = text.slice(keyStart + 1, keyEnd - 1);
      const name = raw.includes('\\') ? (JSON.parse(text.slice(keyStart, keyEnd)) as string) : raw;
      at = skipSpace(text, keyEnd);
      at = skipSpace(text, at + 1); // the colon
      at = skipSpace(text, this.value(at, joinPointer(pointer, name), { start: keyStart, end: keyEnd }));
      if (text.charCodeAt(at) === 125) return at + 1;
      at = skipSpace(text, at + 1); // the comma
    }
  }

  private array(open: number, pointer: string): number {
    const { text } = this;
    let at = skipSpace(text, open + 1);
    if (text.charCodeAt(at) === 93) return at + 1;
    for (let index = 0; ; index += 1) {
      at = skipSpace(text, this.value(at, joinPointer(pointer, index), undefined));
      if (text.charCodeAt(at) === 93) return at + 1;
      at = skipSpace(text, at + 1);
    }
  }
}

function skipSpace(text: string, at: number): number {
  let i = at;
  for (;;) {
    const code = text.charCodeAt(i);
    if (code === 32 || code === 10 || code === 13 || code === 9 || code === 0xfeff) i += 1;
    else return i;
  }
}

/** From an opening quote to just after the closing one. */
function skipString(text: string, at: number): number {
  let i = at + 1;
  for (;;) {
    const next = text.indexOf('"', i);
    if (next < 0) return text.length;
    let backslashes = 0;
    for (let j = next - 1; text.charCodeAt(j) === 92; j -= 1) backslashes += 1;
    if (backslashes % 2 === 0) return next + 1;
    i = next + 1;
  }
}

function skipLiteral(text: string, at: number): number {
  let i = at;
  for (;;) {
    const code = text.charCodeAt(i);
    if (Number.isNaN(code) || code === 44 || code === 125 || code === 93 || code === 32 || code === 10 || code === 13 || code === 9) return i;
    i += 1;
  }
}

/** From `{` or `[` to just after its match, skipping strings. */
function skipComposite(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 34) i = skipString(text, i) - 1;
    else if (code === 123 || code === 91) depth += 1;
    else if (code === 125 || code === 93) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}
