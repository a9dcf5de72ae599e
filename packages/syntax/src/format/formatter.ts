import type { SyntaxIssue } from '../errors.js';
import { parseDocument } from '../parse.js';
import { printText } from '../print/printer.js';
import { PrintError } from '../print/words.js';
import { LineIndex } from '../source-map/line-index.js';
import { rangeOfPointer } from '../source-map/lookup.js';
import { attachComments } from './comments.js';

/** What {@link formatText} gives: the formatted text, or the syntax errors that kept it from formatting. */
export interface FormatResult {
  /** The canonical text; absent when the text does not parse. */
  text?: string;
  errors: SyntaxIssue[];
}

/**
 * Formats the text form: the canonical layout of `printText`, with the comments kept (each with the
 * construct on its line or below it). Blank lines are not kept. Text with syntax errors is not
 * formatted: the errors come back instead.
 */
export function formatText(text: string): FormatResult {
  const document = parseDocument(text);
  if (document.value === undefined) return { errors: document.errors };
  const lines = new LineIndex(text);
  const comments = attachComments(document.comments, document.tokens, document.lineItems, lines);
  try {
    return { text: printText(document.value, { comments }), errors: [] };
  } catch (error) {
    if (!(error instanceof PrintError)) throw error;
    const range = rangeOfPointer(document.map, error.pointer) ?? lines.range(0, 0);
    return { errors: [{ message: error.message, range }] };
  }
}

/** Whether `text` is already in the canonical layout. */
export function isFormatted(text: string): boolean {
  return formatText(text).text === text;
}
