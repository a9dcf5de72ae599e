/**
 * @eql/syntax: the text form of EQL (lexer, parser, printer, formatter, converters) and JSON
 * pointer → source range maps for the text form and for JSON, and `loadDocument`, which reads a document
 * of either form (the command line, the language server and the host all use it). Platform-neutral.
 *
 * @packageDocumentation
 */
export { parseText, type ParseResult } from './parse.js';
export type { SyntaxFix, SyntaxIssue } from './errors.js';
export type { JsonObject, JsonValue } from './build/context.js';
export { printText, PrintError, type PrintOptions } from './print/printer.js';
export { formatText, isFormatted, type FormatResult } from './format/formatter.js';
export { looksLikeJson, toJson, toText, type Conversion } from './convert.js';
export { jsonSourceMap } from './source-map/json-map.js';
export { rangeOfPointer, pointerAt } from './source-map/lookup.js';
export { textSourceMap } from './source-map/text-map.js';
export { LineIndex } from './source-map/line-index.js';
export { locateJsonPointers, type Located } from './source-map/json-locator.js';
export { checkDocument, type DocumentCheck, type PlacedDiagnostic } from './document/check-document.js';
export { detectForm, loadDocument, type DocumentForm, type LoadedDocument, type PointerQuery } from './document/load-document.js';
export type { Position, SourceMap, SourceMapEntry, SourceRange } from './source-map/types.js';
export { KEYWORDS } from './lexer/tokens.js';
export { HIGHLIGHT_KINDS, highlightTokens, type HighlightKind, type HighlightToken } from './highlight.js';
export { MEASURES } from './language/measures.js';
