import { formatText, jsonSourceMap, looksLikeJson, rangeOfPointer, toJson, toText } from '@eql/syntax';
import { syntaxErrorLines } from '../format.js';
import { describeJsonError, parseJson, readInput } from '../input.js';
import { type CliIo, UnusableInput } from '../io.js';

export interface ConvertFlags {
  to: 'json' | 'text';
}

/**
 * `eql convert FILE --to json|text`: JSON (when the file parses as JSON) to the text form or the
 * text form to JSON; the same format is normalized (JSON indented, text formatted). Exit 0, 1 when
 * the input has syntax errors or says something the text form cannot, 2 for unusable input.
 */
export async function convertCommand(file: string, flags: ConvertFlags, io: CliIo): Promise<number> {
  const input = await readInput(file, io);
  const json = parseJson(input.text);
  if (json === undefined && looksLikeJson(input.text)) {
    throw new UnusableInput(`${input.name} is not valid JSON: ${describeJsonError(new Error('invalid JSON'), input.text)}`);
  }
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
    const map = jsonSourceMap(input.text);
    for (const problem of converted.problems) {
      const range = problem.pointer === undefined ? undefined : rangeOfPointer(map, problem.pointer);
      const place = range ? `${range.start.line}:${range.start.column}: ` : '';
      io.stderr(`${input.name}:${place}${problem.message}${problem.pointer ? ` (at ${problem.pointer})` : ''}\n`);
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
