import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { styleText } from 'node:util';

/** Where a command reads and writes; tests pass their own. */
export interface CliIo {
  /** Writes text to standard output as is (no newline added). */
  stdout: (text: string) => void;
  /** Writes text to standard error as is (no newline added). */
  stderr: (text: string) => void;
  /** Reads all of standard input as UTF-8 (for a file argument of `-`). */
  readStdin: () => Promise<string>;
  /** Reads a file as UTF-8. */
  readFile: (path: string) => Promise<string>;
  /** Writes a file (`eql fmt --write`); an IO without it cannot write. */
  writeFile?: (path: string, text: string) => Promise<void>;
  /** Adds to the end of a file (`eql record`); an IO without it cannot write. */
  appendFile?: (path: string, text: string) => Promise<void>;
  /** Whether to colour human output. */
  color: boolean;
  /** Whether to show progress on standard error (it is a terminal). */
  progress?: boolean;
}

/**
 * Whether to colour output written to a terminal or not: `FORCE_COLOR` set to anything but `0` or
 * `false` forces it, `FORCE_COLOR=0` refuses it; else `NO_COLOR` set to a non-empty value refuses it
 * (no-color.org: an empty one counts as unset); else colour when the output is a terminal.
 */
export function wantsColor(env: Readonly<Record<string, string | undefined>>, isTerminal: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTerminal;
}

/**
 * Ends the process quietly (exit 0) when the reader of standard output went away (`eql preview --json |
 * head`): what was asked for was read, the rest is not wanted. Any other write error is a failure.
 */
function quietOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`eql: cannot write the output: ${error.message}\n`);
    process.exit(1);
  });
}

let pipeWatched = false;

export function processIo(): CliIo {
  if (!pipeWatched) {
    pipeWatched = true;
    quietOnClosedPipe();
  }
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: (path, text) => writeFile(path, text, 'utf8'),
    appendFile: (path, text) => appendFile(path, text, 'utf8'),
    color: wantsColor(process.env, process.stdout.isTTY === true),
    progress: process.stderr.isTTY === true,
  };
}

type Style = Parameters<typeof styleText>[0];

export function paint(io: CliIo, style: Style, text: string): string {
  return io.color ? styleText(style, text) : text;
}

/** A failure that makes the input unusable: exit 2 with a message on stderr. */
export class UnusableInput extends Error {}
