import type { ValidationResult } from '@eql/core';
import type { LoadedDocument, PointerQuery } from '@eql/syntax';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentForm } from './document-form.js';

/** What reading a document gave (see `loadDocument` of @eql/syntax). */
export type ParseOutcome = LoadedDocument;
export type { PointerQuery };

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
