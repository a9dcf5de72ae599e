import { execFile } from 'node:child_process';
import { mkdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs the code blocks of a Markdown document as programs, the way a reader would run them: each
 * block is written to a file inside the repository (so bare `@eql/*` imports resolve to the built
 * workspace packages) and run with this Node from the repository root.
 */

export const ROOT = new URL('../..', import.meta.url).pathname;
/** Gitignored; each suite writes into a folder of its own, so suites can run in parallel. */
const EXAMPLES_ROOT = join(ROOT, 'test', '.doc-examples');

export interface CodeBlock {
  /** The info string after the opening fence: `js`, `ts`, `js example`, ... */
  info: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The nearest heading above the block, without its `#`s ('' before the first heading). */
  heading: string;
}

/** Every fenced (```) code block of a Markdown text, in order, with where it is. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  let heading = '';
  for (let index = 0; index < lines.length; index += 1) {
    const text = lines[index] ?? '';
    const fence = /^```(.*)$/.exec(text);
    if (!fence) {
      const title = /^#{1,6}\s+(.*)$/.exec(text);
      if (title) heading = (title[1] ?? '').trim();
      continue;
    }
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !/^```\s*$/.test(lines[index] ?? ''); index += 1) body.push(lines[index] ?? '');
    blocks.push({ info: (fence[1] ?? '').trim(), body: body.length > 0 ? `${body.join('\n')}\n` : '', line: start + 1, heading });
  }
  return blocks;
}

export function lineCount(body: string): number {
  return body.replace(/\n$/, '').split('\n').length;
}

export interface NodeRun {
  code: number | string | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Runs a file with this Node from the repository root; never rejects. */
export function runNode(file: string, timeoutMs = 90_000): Promise<NodeRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd: ROOT, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const failure = error as (Error & { code?: number | string; signal?: string | null }) | null;
      resolve({ code: failure ? (failure.code ?? 1) : 0, signal: failure?.signal ?? null, stdout, stderr: failure && !stderr ? failure.message : stderr });
    });
  });
}

/** A folder for one suite's example files: created on demand, removed (with the root when empty) by `remove`. */
export class ExampleFolder {
  readonly path: string;

  constructor(suite: string) {
    this.path = join(EXAMPLES_ROOT, suite);
  }

  /** Writes `body` to `name` in the folder and returns the file's path. */
  write(name: string, body: string): string {
    mkdirSync(this.path, { recursive: true });
    const file = join(this.path, name);
    writeFileSync(file, body);
    return file;
  }

  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
    try {
      rmdirSync(EXAMPLES_ROOT);
    } catch {
      // Another suite still has files there, or it is already gone.
    }
  }
}
