import { getNodeValue, type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { SyntaxIssue } from '../errors.js';
import { parseText, type ParseResult } from '../parse.js';
import { jsonSourceMap } from '../source-map/json-map.js';
import { locateJsonPointers } from '../source-map/json-locator.js';
import { LineIndex } from '../source-map/line-index.js';
import { rangeOfPointer } from '../source-map/lookup.js';
import type { SourceMap, SourceRange } from '../source-map/types.js';
import { looksLikeJson } from '../convert.js';

/** The two forms of an EQL document: JSON (`*.eql.json`) and the text form (`*.eql`). */
export type DocumentForm = 'json' | 'text';

/** A place to locate in a document: a JSON pointer, and whether the range wanted is the property's name. */
export interface PointerQuery {
  pointer: string;
  /** The range of the property's name rather than of its value, when it has one. */
  key?: boolean;
}

/**
 * What reading a document gave: the request when it parses, as much as could be read otherwise, the
 * syntax errors (JSON's too, each with its place), and the JSON pointer → range map (built on first
 * use for JSON). The command line, the language server and the host all read documents with
 * `loadDocument`.
 */
export interface LoadedDocument {
  readonly form: DocumentForm;
  /** The request; present only when there are no syntax errors. */
  readonly value?: unknown;
  /** As much of the request as could be read, also with syntax errors (completion, hover). */
  readonly partial?: unknown;
  readonly errors: readonly SyntaxIssue[];
  readonly map: SourceMap;
  /**
   * Where each pointer lands, as `rangeOfPointer(map, pointer, {key})` says (the nearest ancestor when
   * it is missing), possibly without building the whole map: how diagnostics are placed.
   */
  locate(queries: readonly PointerQuery[]): Array<SourceRange | undefined>;
}

/**
 * Reads an EQL document in the given form, or, without one, as JSON when it parses as JSON or starts
 * like JSON (`{`, `[`), else as the text form. Offsets are those of `text` as given (a JSON document's
 * byte order mark is skipped for parsing only).
 */
export function loadDocument(text: string, form: DocumentForm = detectForm(text)): LoadedDocument {
  return form === 'json' ? new JsonDocument(text) : new TextDocument(parseText(text));
}

/** JSON when the text parses as JSON or starts like it, else the text form. */
export function detectForm(text: string): DocumentForm {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (looksLikeJson(body)) return 'json';
  try {
    JSON.parse(body);
    return 'json';
  } catch {
    return 'text';
  }
}

/** The text form: `parseText`'s result, its source map built with it. */
class TextDocument implements LoadedDocument {
  readonly form = 'text';
  readonly value?: unknown;
  readonly partial?: unknown;
  readonly errors: readonly SyntaxIssue[];
  readonly map: SourceMap;

  constructor(parsed: ParseResult) {
    if (parsed.value !== undefined) this.value = parsed.value;
    this.partial = parsed.partial;
    this.errors = parsed.errors;
    this.map = parsed.map;
  }

  locate(queries: readonly PointerQuery[]): Array<SourceRange | undefined> {
    return queries.map((query) => rangeOfPointer(this.map, query.pointer, { key: query.key === true }));
  }
}

/**
 * A JSON document. `JSON.parse` decides whether it is valid (the fast path: a document that parses has
 * no syntax errors to find); only a broken document is read again with jsonc-parser for the place of
 * each error and a partial value. The source map is built on first use: a valid document needs it
 * only to place diagnostics.
 */
class JsonDocument implements LoadedDocument {
  readonly form = 'json';
  readonly value?: unknown;
  readonly errors: readonly SyntaxIssue[];
  private partialValue?: unknown;
  private partialRead = false;
  private sourceMap?: SourceMap;

  constructor(private readonly text: string) {
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    let parsed: { value: unknown } | undefined;
    try {
      parsed = { value: JSON.parse(body) as unknown };
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined) {
      this.value = parsed.value;
      this.errors = [];
    } else {
      const { root, errors } = readTree(text);
      this.errors = errors;
      this.partialValue = root === undefined ? undefined : (getNodeValue(root) as unknown);
      this.partialRead = true;
    }
  }

  get partial(): unknown {
    if (!this.partialRead) {
      this.partialValue = this.value;
      this.partialRead = true;
    }
    return this.partialValue;
  }

  get map(): SourceMap {
    this.sourceMap ??= jsonSourceMap(this.text);
    return this.sourceMap;
  }

  /** With the map when it exists (or the text is broken); otherwise by one targeted pass over the valid text. */
  locate(queries: readonly PointerQuery[]): Array<SourceRange | undefined> {
    if (this.sourceMap !== undefined || this.value === undefined || queries.length > 16) {
      return queries.map((query) => rangeOfPointer(this.map, query.pointer, { key: query.key === true }));
    }
    const found = locateJsonPointers(this.text, queries.map((query) => query.pointer));
    const lines = new LineIndex(this.text);
    return queries.map(({ pointer, key }) => {
      for (let at = pointer; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/')))) {
        const place = found.get(at);
        if (place !== undefined) {
          return key === true && place.keyStart !== undefined && place.keyEnd !== undefined ? lines.range(place.keyStart, place.keyEnd) : lines.range(place.start, place.end);
        }
        if (at === '') return undefined;
      }
    });
  }
}

/** jsonc-parser's tree and its errors, strict JSON: comments and trailing commas are errors too. */
function readTree(text: string): { root: Node | undefined; errors: SyntaxIssue[] } {
  const problems: ParseError[] = [];
  const root = parseTree(text, problems, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const lines = new LineIndex(text);
  const errors = problems.map((problem) => ({
    message: jsonErrorMessage(printParseErrorCode(problem.error)),
    range: lines.range(problem.offset, problem.offset + Math.max(problem.length, 0)),
  }));
  if (errors.length === 0) errors.push({ message: 'the document is not valid JSON', range: lines.range(0, text.length) });
  return { root, errors };
}

const JSON_ERRORS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: "expected ':' after the property name",
  CommaExpected: "expected ',' between values",
  CloseBraceExpected: "expected '}' to close the object",
  CloseBracketExpected: "expected ']' to close the array",
  EndOfFileExpected: 'expected the end of the document after the value',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character in a string',
  InvalidCharacter: 'invalid character in a string',
};

function jsonErrorMessage(code: string): string {
  return `JSON: ${JSON_ERRORS[code] ?? code}`;
}
