import { loadDocument as readDocument, type LoadedDocument as ReadDocument, type SourceMap, type SyntaxIssue } from '@eql/syntax';
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
  /** The document as @eql/syntax read it (for `checkDocument`: the other layers beside syntax errors). */
  source: ReadDocument;
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
 * Reads a query request with `loadDocument` of @eql/syntax: JSON when it parses as JSON, the text form
 * otherwise. A document that starts like JSON (`{` or `[`) but does not parse is unusable, with the
 * place where it broke.
 */
export async function loadDocument(file: string, io: CliIo): Promise<LoadedDocument> {
  const input = await readInput(file, io);
  const document = readDocument(input.text);
  if (document.form === 'json') {
    if (document.errors.length > 0) throw unusableJson(input.name, document);
    return { ...input, format: 'json', value: document.value, map: document.map, syntaxErrors: [], source: document };
  }
  return { ...input, format: 'text', value: document.value, map: document.map, syntaxErrors: [...document.errors], source: document };
}

/** A broken JSON document: unusable, with its first error and where it is. */
export function unusableJson(name: string, document: ReadDocument): UnusableInput {
  const first = document.errors[0];
  const where = first ? `${first.message.replace(/^JSON: /, '')} at line ${first.range.start.line}, column ${first.range.start.column}` : 'invalid JSON';
  return new UnusableInput(`${name} is not valid JSON: ${where}`);
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
