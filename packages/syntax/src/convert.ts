import { canonicalJson } from '@eql/core';
import type { SyntaxIssue } from './errors.js';
import { parseText } from './parse.js';
import { printText } from './print/printer.js';
import { PrintError } from './print/words.js';

/**
 * The result of {@link toJson} or {@link toText}: the converted text, or the problems that kept the conversion
 * from happening.
 */
export type Conversion =
  | { ok: true; text: string }
  | {
      ok: false;
      /** Syntax errors of the text (toJson), or the values the text form cannot say (toText). */
      problems: Array<{ message: string; pointer?: string; issue?: SyntaxIssue }>;
    };

/**
 * A request (any JSON value) in the text form. Fails, with the JSON pointer, for what the text
 * form cannot say exactly (an unknown property, a source with no measure); the result is checked
 * to parse back to the same request.
 */
export function toText(request: unknown): Conversion {
  let text: string;
  try {
    text = printText(request);
  } catch (error) {
    if (error instanceof PrintError) return { ok: false, problems: [{ message: error.message, pointer: error.pointer }] };
    throw error;
  }
  const back = parseText(text);
  if (back.value === undefined || canonicalJson(back.value) !== canonicalJson(request)) {
    return { ok: false, problems: [{ message: 'the request cannot be written exactly in the text form', pointer: '' }] };
  }
  return { ok: true, text };
}

/** The text form as a JSON document (indented by `indent` spaces), or its syntax errors. */
export function toJson(text: string, indent = 2): Conversion {
  const parsed = parseText(text);
  if (parsed.value === undefined) return { ok: false, problems: parsed.errors.map((issue) => ({ message: issue.message, issue })) };
  return { ok: true, text: `${JSON.stringify(parsed.value, null, indent)}\n` };
}

/** Whether a document is meant as JSON (it starts with `{` or `[`) rather than the text form. */
export function looksLikeJson(text: string): boolean {
  const first = /\S/.exec(text.replace(/^\uFEFF/, ''))?.[0];
  return first === '{' || first === '[';
}
