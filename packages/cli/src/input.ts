import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { type CliIo, UnusableInput } from './io.js';

export interface LoadedDocument {
  /** File name for messages, `<stdin>` for `-`. */
  name: string;
  value: unknown;
}

/** Reads FILE, or standard input for `-`, and parses it as JSON with a message that says where it broke. */
export async function loadDocument(file: string, io: CliIo): Promise<LoadedDocument> {
  const name = file === '-' ? '<stdin>' : file;
  let text: string;
  try {
    text = file === '-' ? await io.readStdin() : await io.readFile(file);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String((cause as Error).message);
    throw new UnusableInput(`cannot read ${name}: ${why}`);
  }
  if (text.trim() === '') throw new UnusableInput(`${name} is empty: expected a query request as JSON`);
  try {
    return { name, value: JSON.parse(stripBom(text)) as unknown };
  } catch (cause) {
    throw new UnusableInput(`${name} is not valid JSON: ${describeJsonError(cause as Error, text)}`);
  }
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
