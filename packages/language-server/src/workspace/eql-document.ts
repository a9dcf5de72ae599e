import type { ValidationResult } from '@eql/core';
import type { SourceMap, SourceRange, SyntaxIssue } from '@eql/syntax';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentForm } from './document-form.js';

/**
 * What reading a document gave: the request when it parses, as much as could be read otherwise,
 * the syntax errors, and the JSON pointer → range map (built on first use for JSON).
 */
export interface ParseOutcome {
  /** The request; present only when there are no syntax errors. */
  readonly value?: unknown;
  /** As much of the request as could be read, also with syntax errors (completion, hover). */
  readonly partial?: unknown;
  readonly errors: readonly SyntaxIssue[];
  readonly map: SourceMap;
  /**
   * Where each pointer lands, as `rangeOfPointer(map, pointer, {key})` says (the nearest ancestor
   * when it is missing), possibly without building the whole map: how diagnostics are placed.
   */
  locate(queries: readonly PointerQuery[]): Array<SourceRange | undefined>;
}

export interface PointerQuery {
  pointer: string;
  /** The range of the property's name rather than of its value, when it has one. */
  key?: boolean;
}

/**
 * The states a document moves through (Langium's habit): `changed` (new text, nothing computed),
 * `parsed` (syntax errors, value and source map), `validated` (the core validator's result). Each
 * LSP feature asks the document manager for the state it needs; the manager brings the latest text
 * up to it.
 */
export type DocumentState = 'changed' | 'parsed' | 'validated';

/** A document read at one version. Immutable: a new version is a new object. */
export interface ParsedDocument {
  readonly state: 'parsed' | 'validated';
  readonly uri: string;
  readonly form: DocumentForm;
  readonly version: number;
  readonly textDocument: TextDocument;
  readonly parse: ParseOutcome;
}

/** A parsed document with the validator's verdict (absent when the document has syntax errors). */
export interface ValidatedDocument extends ParsedDocument {
  readonly state: 'validated';
  readonly validation?: ValidationResult;
}
