import { type DocumentForm, loadDocument, type LoadedDocument } from '@eql/syntax';

/** Reads a document of either form into a `ParseOutcome` (see `loadDocument` of @eql/syntax). */
export interface DocumentParser {
  parse(text: string, form: DocumentForm): LoadedDocument;
}

export class DefaultDocumentParser implements DocumentParser {
  parse(text: string, form: DocumentForm): LoadedDocument {
    return loadDocument(text, form);
  }
}
