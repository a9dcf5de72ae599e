import { formatText, loadDocument, rangeOfPointer, toJson, toText } from '@eql/syntax';
import { syntaxErrorLines } from '../format.js';
import { readInput, unusableJson } from '../input.js';
import type { CliIo } from '../io.js';
import { terminalText } from '../terminal-text.js';

/** Options of `eql convert`. */
export interface ConvertFlags {
  /** The format to write; by default the other form than the input's. */
  to?: 'json' | 'text';
}

/**
 * `eql convert FILE [--to json|text]`: JSON (when the file parses as JSON) to the text form or the
 * text form to JSON, the direction told by the input unless `--to` says; the same format is
 * normalized (JSON indented, text formatted). Exit 0, 1 when the input has syntax errors or says
 * something the text form cannot, 2 for unusable input.
 */
export async function convertCommand(file: string, options: ConvertFlags, io: CliIo): Promise<number> {
  const input = await readInput(file, io);
  const document = loadDocument(input.text);
  const flags = { to: options.to ?? (document.form === 'json' ? 'text' : 'json') };
  if (document.form === 'json' && document.errors.length > 0) throw unusableJson(input.name, document);
  const json = document.form === 'json' ? { value: document.value } : undefined;
  if (json !== undefined) {
    if (flags.to === 'json') {
      io.stdout(`${JSON.stringify(json.value, null, 2)}\n`);
      return 0;
    }
    const converted = toText(json.value);
    if (converted.ok) {
      io.stdout(converted.text);
      return 0;
    }
    const map = document.map;
    for (const problem of converted.problems) {
      const range = problem.pointer === undefined ? undefined : rangeOfPointer(map, problem.pointer);
      const place = range ? `${range.start.line}:${range.start.column}: ` : '';
      io.stderr(`${terminalText(`${input.name}:${place}${problem.message}${problem.pointer ? ` (at ${problem.pointer})` : ''}`)}\n`);
    }
    return 1;
  }
  const converted = flags.to === 'json' ? toJson(input.text) : formatResult(input.text);
  if (converted.ok) {
    io.stdout(converted.text);
    return 0;
  }
  io.stderr(syntaxErrorLines(input.name, converted.problems.flatMap((problem) => (problem.issue ? [problem.issue] : []))));
  return 1;
}

function formatResult(text: string): ReturnType<typeof toJson> {
  const result = formatText(text);
  return result.text !== undefined ? { ok: true, text: result.text } : { ok: false, problems: result.errors.map((issue) => ({ message: issue.message, issue })) };
}
