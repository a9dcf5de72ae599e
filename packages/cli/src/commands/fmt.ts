import { formatText } from '@eql/syntax';
import { syntaxErrorLines } from '../format.js';
import { parseJson, readInput } from '../input.js';
import { type CliIo, UnusableInput } from '../io.js';
import { terminalText } from '../terminal-text.js';

export interface FmtFlags {
  write: boolean;
  check: boolean;
}

/**
 * `eql fmt FILE [--write | --check]`: prints the text form in its canonical layout (comments kept),
 * writes it back with --write, or with --check only says whether the file is formatted (exit 1 when
 * not). Syntax errors go to stderr as `file:line:column: message`, exit 1.
 */
export async function fmtCommand(file: string, flags: FmtFlags, io: CliIo): Promise<number> {
  if (flags.write && file === '-') throw new UnusableInput('--write needs a file, not standard input');
  const input = await readInput(file, io);
  if (parseJson(input.text) !== undefined) {
    throw new UnusableInput(`${input.name} is JSON: eql fmt formats the text form (eql convert ${file} --to text turns JSON into it)`);
  }
  const result = formatText(input.text);
  if (result.text === undefined) {
    io.stderr(syntaxErrorLines(input.name, result.errors));
    return 1;
  }
  const formatted = result.text === input.text;
  if (flags.check) {
    io.stdout(`${terminalText(formatted ? `${input.name} is formatted` : `${input.name} is not formatted (run eql fmt ${file} --write)`)}\n`);
    return formatted ? 0 : 1;
  }
  if (flags.write) {
    if (formatted) return 0;
    if (io.writeFile === undefined) throw new UnusableInput(`cannot write ${input.name}`);
    try {
      await io.writeFile(file, result.text);
    } catch (cause) {
      throw new UnusableInput(`cannot write ${input.name}: ${cause instanceof Error ? cause.message : String(cause)}`);
    }
    io.stdout(`formatted ${terminalText(input.name)}\n`);
    return 0;
  }
  io.stdout(result.text);
  return 0;
}
