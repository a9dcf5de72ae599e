import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '@eql/core';
import { KEYWORDS, parseText } from '@eql/syntax';
import { describe, expect, it } from 'vitest';
import { copySchema } from '../scripts/build.mjs';

// The extension's contributions, checked without VS Code: files exist, the grammar's patterns
// compile and cover the keywords, and every snippet expands to a query the validator accepts.
const root = new URL('../', import.meta.url);
const read = (path: string): unknown => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

interface Manifest {
  main: string;
  engines: { vscode: string };
  contributes: {
    languages: Array<{ id: string; configuration: string }>;
    grammars: Array<{ language: string; path: string; scopeName: string }>;
    snippets: Array<{ language: string; path: string }>;
    jsonValidation: Array<{ fileMatch: string; url: string }>;
  };
  devDependencies: Record<string, string>;
}
const manifest = read('package.json') as Manifest;

/** A snippet body with each placeholder at its default (the first choice of a choice). */
function expand(body: string | string[]): string {
  const text = Array.isArray(body) ? body.join('\n') : body;
  return text
    .replace(/\\\$/g, '\uE000')
    .replace(/\$\{\d+\|([^,|]*)[^|]*\|\}/g, '$1')
    .replace(/\$\{\d+:([^}]*)\}/g, '$1')
    .replace(/\$\d+/g, '')
    .replaceAll('\uE000', '$');
}

function patternsOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(patternsOf);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (typeof value === 'string' && (key === 'match' || key === 'begin' || key === 'end') ? [value] : patternsOf(value)));
}

describe('the extension manifest', () => {
  it('points at files that exist, and targets the VS Code of its language client', () => {
    const { contributes } = manifest;
    for (const path of [...contributes.languages.map((language) => language.configuration), ...contributes.grammars.map((grammar) => grammar.path), ...contributes.snippets.map((snippet) => snippet.path)]) {
      expect(existsSync(new URL(path, root)), path).toBe(true);
    }
    expect(manifest.main).toBe('./dist/extension.js');
    expect(contributes.jsonValidation).toEqual([{ fileMatch: '*.eql.json', url: './dist/eql.schema.json' }]);
    const client = JSON.parse(readFileSync(new URL('../../../node_modules/vscode-languageclient/package.json', import.meta.url), 'utf8')) as { engines: { vscode: string } };
    expect(manifest.engines.vscode).toBe(client.engines.vscode);
    expect(manifest.devDependencies['@types/vscode']).toBe(`~${client.engines.vscode.slice(1)}`);
  });

  it('ships the request schema for jsonValidation', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'eql-vscode-schema-'));
    try {
      await copySchema({ outdir: directory });
      expect(await readFile(join(directory, 'eql.schema.json'), 'utf8')).toBe(readFileSync(new URL('../../../schemas/eql.schema.json', import.meta.url), 'utf8'));
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('the TextMate grammar', () => {
  const grammar = read('syntaxes/eql.tmLanguage.json') as { scopeName: string };
  const patterns = patternsOf(grammar);

  it('has patterns that compile', () => {
    expect(grammar.scopeName).toBe('source.eql');
    for (const pattern of patterns) expect(() => new RegExp(pattern), pattern).not.toThrow();
  });

  it('highlights every keyword of the text form', () => {
    const all = patterns.join('\n');
    expect([...KEYWORDS].filter((keyword) => !new RegExp(`[(|]${keyword}[)|]`).test(all))).toEqual([]);
  });
});

describe('the snippets', () => {
  const text = read('snippets/eql.code-snippets') as Record<string, { prefix: string[]; body: string | string[] }>;
  const json = read('snippets/eql-json.code-snippets') as Record<string, { body: string[] }>;

  it.each(Object.entries(text))('%s expands to a valid query', (_name, snippet) => {
    let source = expand(snippet.body);
    if (!source.includes('when')) source = `when price of BTC > 1\nthen\n  ${source}`;
    const parsed = parseText(source);
    expect(parsed.errors).toEqual([]);
    expect(validate(parsed.value).errors).toEqual([]);
  });

  it.each(Object.entries(json))('%s (JSON) expands to a valid request', (_name, snippet) => {
    expect(validate(JSON.parse(expand(snippet.body))).errors).toEqual([]);
  });
});
