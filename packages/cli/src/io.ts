import { readFile, writeFile } from 'node:fs/promises';
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
  /** Whether to colour human output. */
  color: boolean;
  /** Whether to show progress on standard error (it is a terminal). */
  progress?: boolean;
}

export function processIo(): CliIo {
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
    color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
    progress: process.stderr.isTTY === true,
  };
}

type Style = Parameters<typeof styleText>[0];

export function paint(io: CliIo, style: Style, text: string): string {
  return io.color ? styleText(style, text) : text;
}

/** A failure that makes the input unusable: exit 2 with a message on stderr. */
export class UnusableInput extends Error {}
