import { toText } from '@eql/syntax';
import { convertedUri, type DocumentForm, LANGUAGE_IDS } from '../workspace/document-form.js';
import type { ParsedDocument } from '../workspace/eql-document.js';
import type { ConvertResult } from './commands.js';

/** A document in the other form (`@eql/syntax`'s `toJson` / `toText`), with the URI it would go to. */
export interface ConversionProvider {
  /** The document converted to `to` (by default its other form), or the problems that keep it from converting. */
  convert(document: ParsedDocument, to?: DocumentForm): ConvertResult;
}

/** The conversion provider of the server: JSON indented by two spaces, the text form in its canonical layout. */
export class DefaultConversionProvider implements ConversionProvider {
  convert(document: ParsedDocument, to: DocumentForm = document.form === 'text' ? 'json' : 'text'): ConvertResult {
    const { value, errors } = document.parse;
    if (value === undefined) {
      return { ok: false, to, problems: errors.length > 0 ? errors.map((error) => `${error.range.start.line}:${error.range.start.column} ${error.message}`) : ['the document is empty'] };
    }
    const conversion = to === 'json' ? ({ ok: true, text: `${JSON.stringify(value, null, 2)}\n` } as const) : toText(value);
    if (!conversion.ok) return { ok: false, to, problems: conversion.problems.map((problem) => (problem.pointer ? `${problem.pointer}: ${problem.message}` : problem.message)) };
    const targetUri = to === document.form ? document.uri : convertedUri(document.uri, to);
    return { ok: true, text: conversion.text, to, languageId: LANGUAGE_IDS[to], targetUri };
  }
}
