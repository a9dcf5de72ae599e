import { jsonSourceMap, looksLikeJson, parseText, type SourceMap, type SyntaxIssue } from '@eql/syntax';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { type CliIo, UnusableInput } from './io.js';

export interface InputText {
  /** File name for messages, `<stdin>` for `-`. */
  name: string;
  text: string;
}

export interface LoadedDocument extends InputText {
  format: 'json' | 'text';
  /** The request; undefined when the text form has syntax errors. */
  value: unknown;
  /** JSON pointer → where in the file, for placing diagnostics. */
  map: SourceMap;
  /** Errors of the text form (always empty for JSON, which is unusable when broken). */
  syntaxErrors: SyntaxIssue[];
}

/** Reads FILE, or standard input for `-`; a missing, unreadable or empty input is unusable (exit 2). */
export async function readInput(file: string, io: CliIo): Promise<InputText> {
  const name = file === '-' ? '<stdin>' : file;
  let text: string;
  try {
    text = file === '-' ? await io.readStdin() : await io.readFile(file);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String((cause as Error).message);
    throw new UnusableInput(`cannot read ${name}: ${why}`);
  }
  if (stripBom(text).trim() === '') {
    throw new UnusableInput(`${name} is empty: expected a query request as JSON or in the text form`);
  }
  return { name, text: stripBom(text) };
}

/** The JSON value of a document, or undefined when it is not JSON. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * Reads a query request: JSON when it parses as JSON, the text form otherwise. A document that
 * starts like JSON (`{` or `[`) but does not parse is unusable, with the place where it broke.
 */
export async function loadDocument(file: string, io: CliIo): Promise<LoadedDocument> {
  const input = await readInput(file, io);
  const json = parseJson(input.text);
  if (json !== undefined) return { ...input, format: 'json', value: json.value, map: jsonSourceMap(input.text), syntaxErrors: [] };
  if (looksLikeJson(input.text)) {
    throw new UnusableInput(`${input.name} is not valid JSON: ${describeJsonError(new Error('invalid JSON'), input.text)}`);
  }
  const parsed = parseText(input.text);
  return { ...input, format: 'text', value: parsed.value, map: parsed.map, syntaxErrors: parsed.errors };
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** JSON.parse says little about where; jsonc-parser finds the first error's offset and kind. */
export function describeJsonError(error: Error, text: string): string {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return error.message;
  const before = text.slice(0, first.offset);
  const line = before.split('\n').length;
  const column = first.offset - before.lastIndexOf('\n');
  return `${describeCode(printParseErrorCode(first.error))} at line ${line}, column ${column}`;
}

function describeCode(code: string): string {
  // "PropertyNameExpected" -> "property name expected"
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
