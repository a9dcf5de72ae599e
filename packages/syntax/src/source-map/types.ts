/** A place in a document: offset in UTF-16 code units from the start, 1-based line and column. */
export interface Position {
  offset: number;
  line: number;
  column: number;
}

/** A span of a document; `end` is exclusive (the position just after the last character). */
export interface SourceRange {
  start: Position;
  end: Position;
}

/** Where one JSON pointer of a request comes from: its value, and the key that names it when there is one. */
export interface SourceMapEntry {
  value: SourceRange;
  key?: SourceRange;
}

/**
 * JSON pointer → source range for every node of a request read from a document, the text form
 * (`textSourceMap`) or JSON (`jsonSourceMap`). `''` is the whole request.
 */
export interface SourceMap {
  readonly format: 'text' | 'json';
  readonly entries: ReadonlyMap<string, SourceMapEntry>;
}
