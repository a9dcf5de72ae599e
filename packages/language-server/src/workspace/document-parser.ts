import { type DocumentForm, loadDocument, type LoadedDocument } from '@eql/syntax';

/** Reads a document of either form into a `ParseOutcome` (see `loadDocument` of @eql/syntax). */
export interface DocumentParser {
  /** Reads a document's text in the given form. */
  parse(text: string, form: DocumentForm): LoadedDocument;
}

/** The document parser of the server: `loadDocument` of @eql/syntax. */
export class DefaultDocumentParser implements DocumentParser {
  parse(text: string, form: DocumentForm): LoadedDocument {
    return loadDocument(text, form);
  }
}
