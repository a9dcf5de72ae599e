import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validate } from '@eql/core';
import { formatText, loadDocument } from '@eql/syntax';

/**
 * The commands of README.md and examples/README.md run here as a user runs them, from the repository
 * root: `npx eql …` as `node packages/cli/bin/eql.js …` (the built CLI: `npx tsc -b` first, as `npm
 * test` does) and `node examples/…` as it is. Where a ```text block shows `$ command` and its output,
 * the output must be the same, line for line; a line `…` stands for any number of lines. Every other
 * command must exit 0. Commands that start a server are skipped; the ones that write the host's store
 * (`ingest`, `keys`) write to a temporary directory. Every `examples/` and `fixtures/` path that
 * README.md, docs/*.md and examples/README.md name must exist.
 */

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'packages', 'cli', 'bin', 'eql.js');
const RUN_FROM = ['README.md', 'examples/README.md'];
const PATHS_FROM = [...RUN_FROM, ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** Commands not run, and why. */
const SKIPPED: Array<[RegExp, string]> = [
  [/^npx eql serve\b/, 'starts the HTTP host'],
  [/^node examples\/webhook-receiver\.mjs\b/, 'a server that runs until it is stopped'],
  [/^npx eql sign\b/, "needs a key's HMAC secret and a host: run by test/readme-walkthrough.test.ts"],
  [/^npx eql remote\b/, 'needs a host: run by test/readme-walkthrough.test.ts and packages/cli/test/remote.test.ts'],
  [/^npx eql record\b/, "reads a venue over the network: run against a local server answering as Binance by packages/cli/test/record.test.ts"],
];
/** `eql` subcommands that write the host's store: run with `--data-dir` set to a temporary directory. */
const WRITES_STORE = new Set(['ingest', 'keys']);

interface Example {
  source: string;
  line: number;
  command: string;
  /** The output shown after `$ command`, when the README shows one. */
  expected?: string[];
}

const CODE_BLOCK = /^```([\w-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** `a # comment` → `a` (a # that starts a word, outside quotes). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '#' && (index === 0 || /\s/.test(line[index - 1] ?? ''))) {
      return line.slice(0, index).trimEnd();
    }
  }
  return line.trimEnd();
}

/** The `npx eql …` and `node examples/…` commands of a Markdown file, with the outputs it shows. */
function examplesOf(source: string): Example[] {
  const markdown = readFileSync(join(ROOT, source), 'utf8');
  const examples: Example[] = [];
  for (const match of markdown.matchAll(CODE_BLOCK)) {
    const [, language = '', body = ''] = match;
    const first = lineOf(markdown, match.index ?? 0) + 1;
    const lines = body.replace(/\n$/, '').split('\n');
    const head = lines[0] ?? '';
    if (language === 'text' && head.startsWith('$ ')) {
      examples.push({ source, line: first, command: head.slice(2).trim(), expected: lines.slice(1) });
      continue;
    }
    if (!['sh', 'bash', 'shell'].includes(language)) continue;
    lines.forEach((text, index) => {
      const command = withoutComment(text).trim();
      if (/^(?:npx eql(?:\s|$)|node examples\/)/.test(command)) examples.push({ source, line: first + index, command });
    });
  }
  return examples;
}

/** Splits a command into words (quotes as in sh) and a `< file` for standard input; refuses other shell syntax. */
function parseCommand(command: string): { words: string[]; stdinFile?: string } {
  const words: string[] = [];
  let stdinFile: string | undefined;
  const tokens = command.match(/"[^"]*"|'[^']*'|[^\s"']+/g) ?? [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] ?? '';
    if (token === '<') {
      stdinFile = tokens[(index += 1)];
      continue;
    }
    if (/^[|&;>]|[$`]/.test(token)) throw new Error(`unsupported shell syntax in ${command}: ${token}`);
    words.push(token.replace(/^(["'])(.*)\1$/, '$2'));
  }
  return stdinFile === undefined ? { words } : { words, stdinFile };
}

const scratch = mkdtempSync(join(tmpdir(), 'eql-readme-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The argv of `node` for a README command, with the safe variants applied. */
function argvOf(words: string[], id: number): string[] {
  if (words[0] === 'node') return words.slice(1);
  if (words[0] !== 'npx' || words[1] !== 'eql') throw new Error(`not an eql or node command: ${words.join(' ')}`);
  const args = words.slice(2);
  if (WRITES_STORE.has(args[0] ?? '') && !args.includes('--data-dir')) args.push('--data-dir', join(scratch, `store-${id}`));
  return [CLI, ...args];
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command shown twice (a synopsis, then with its output) runs once. */
const runs = new Map<string, Promise<Run>>();
function runOnce(key: string, argv: string[], stdin: string): Promise<Run> {
  let result = runs.get(key);
  if (!result) runs.set(key, (result = run(argv, stdin)));
  return result;
}

function run(argv: string[], stdin: string): Promise<Run> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EQL_')));
  return new Promise((resolve) => {
    const child = execFile(process.execPath, argv, { cwd: ROOT, timeout: 60_000, maxBuffer: 8 * 1024 * 1024, env: { ...env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const failure = error as (Error & { code?: number | string }) | null;
      resolve({ code: failure ? (typeof failure.code === 'number' ? failure.code : -1) : 0, stdout, stderr: failure && !stderr ? failure.message : stderr });
    });
    child.stdin?.end(stdin);
  });
}

/** What may differ between two runs: durations. */
function normalise(line: string): string {
  return line.replace(/\b\d+(?:\.\d+)? ?(?:ms|s)\b/g, '<duration>');
}

/** Whether `part` is in `lines` at `at`. */
const isAt = (lines: string[], part: string[], at: number) => part.every((line, offset) => lines[at + offset] === line);

/** Whether the output is the one shown, line for line, where a line `…` stands for any number of lines. */
function matchesShown(output: string[], shown: string[]): boolean {
  const lines = output.map(normalise);
  const parts: string[][] = [[]];
  for (const line of shown) {
    if (line === '…') parts.push([]);
    else parts[parts.length - 1]?.push(normalise(line));
  }
  const first = parts[0] ?? [];
  const last = parts[parts.length - 1] ?? [];
  if (parts.length === 1) return lines.length === first.length && isAt(lines, first, 0);
  const end = lines.length - last.length;
  if (end < first.length || !isAt(lines, first, 0) || !isAt(lines, last, end)) return false;
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    while (at + part.length <= end && !isAt(lines, part, at)) at += 1;
    if (at + part.length > end) return false;
    at += part.length;
  }
  return true;
}

const examples = RUN_FROM.flatMap(examplesOf);

describe('the commands of the READMEs', () => {
  it('finds commands and shown outputs in README.md', () => {
    const readme = examples.filter((example) => example.source === 'README.md');
    expect(readme.length).toBeGreaterThan(5);
    expect(readme.filter((example) => example.expected).length).toBeGreaterThan(2);
  });

  it('has the built CLI to run them with (npx tsc -b)', () => {
    expect(existsSync(join(ROOT, 'packages', 'cli', 'dist', 'main.js')), 'packages/cli/dist is missing: run npx tsc -b first').toBe(true);
  });

  describe.concurrent('run', () => {
    examples.forEach((example, id) => {
      const title = `${example.source}:${example.line} ${example.command}`;
      const skip = SKIPPED.find(([pattern]) => pattern.test(example.command));
      if (skip) {
        it.skip(`${title} (${skip[1]})`, () => {});
        return;
      }
      it(title, { timeout: 120_000 }, async () => {
        const { words, stdinFile } = parseCommand(example.command);
        const stdin = stdinFile === undefined ? '' : readFileSync(join(ROOT, stdinFile), 'utf8');
        const argv = argvOf(words, id);
        const result = await runOnce(argv.join('\0') + (stdinFile === undefined ? '' : `\0<${stdinFile}`), argv, stdin);
        const shown = example.expected;
        const exit = shown?.[0]?.startsWith('✗') ? 1 : 0;
        const report = `exit ${result.code}\n--- stdout\n${result.stdout}--- stderr\n${result.stderr}`;
        expect(result.code, report).toBe(exit);
        if (shown) {
          const actual = result.stdout.replace(/\n$/, '').split('\n');
          // On a difference, compare the texts for a readable diff.
          if (!matchesShown(actual, shown)) expect(actual.join('\n'), `the output differs from ${example.source}:${example.line} (exit ${result.code})`).toBe(shown.join('\n'));
        } else {
          expect(result.stdout.trim(), 'the command prints something').not.toBe('');
        }
      });
    });
  });
});

describe('paths the docs name', () => {
  const PATH = /(?<![\w/.-])(?:examples|fixtures)\/[^\s`'"()[\]<>*,;|]*/g;
  for (const source of PATHS_FROM) {
    it(`every examples/ and fixtures/ path of ${source} exists`, () => {
      const text = readFileSync(join(ROOT, source), 'utf8');
      const paths = [...new Set([...text.matchAll(PATH)].map((match) => match[0].replace(/[.:]+$/, '')))];
      expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
    });
  }
});

describe('the example queries', () => {
  const dir = join(ROOT, 'examples');
  const files = readdirSync(dir).filter((name) => /\.(json|eql)$/.test(name));
  const INVALID = new Set(['bad.eql', 'broken.eql']);
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');

  it('come in pairs: NAME.json and NAME.eql are the same request', () => {
    const names = [...new Set(files.filter((name) => !INVALID.has(name)).map((name) => name.replace(/\.(json|eql)$/, '')))];
    expect(names.length).toBeGreaterThanOrEqual(4);
    for (const name of names) {
      const json = loadDocument(read(`${name}.json`), 'json');
      const text = loadDocument(read(`${name}.eql`), 'text');
      expect([json.errors, text.errors], name).toEqual([[], []]);
      expect(text.value, `${name}.eql and ${name}.json differ`).toEqual(json.value);
    }
  });

  it('are valid, and the text ones are formatted (except the deliberately wrong ones)', () => {
    for (const name of files.filter((file) => !INVALID.has(file))) {
      const document = loadDocument(read(name));
      const result = validate(document.value, { now: Date.parse('2026-01-05T00:00:00Z') });
      expect(result.errors, name).toEqual([]);
      if (name.endsWith('.eql')) expect(formatText(read(name)).text, `${name} is not in the canonical layout`).toBe(read(name));
    }
    for (const name of INVALID) {
      const document = loadDocument(read(name), 'text');
      const invalid = document.errors.length > 0 || !validate(document.value).valid;
      expect(invalid, `${name} should be invalid`).toBe(true);
    }
  });

  it("README.md's example is examples/btc-breakout.json, and its text form examples/btc-breakout.eql", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(CODE_BLOCK)].map(([, language = '', body = '']) => ({ language, body }));
    const json = blocks.find((block) => block.language === 'json');
    const text = blocks.find((block) => block.language === 'eql');
    expect(JSON.parse(json?.body ?? 'null')).toEqual(JSON.parse(read('btc-breakout.json')));
    expect(text?.body).toBe(read('btc-breakout.eql'));
  });
});
