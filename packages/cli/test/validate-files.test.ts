import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../src/index.js';

// `eql validate` over several files and globs: each file judged as it would be alone, a summary, the
// worst outcome as the exit code (2 unusable > 1 invalid > 0 valid), and the same as JSON.

const examples = new URL('../../../examples/', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'eql-validate-files-'));
mkdirSync(join(dir, 'nested'));
writeFileSync(join(dir, 'a.json'), readFileSync(new URL('price-alert.json', examples)));
writeFileSync(join(dir, 'nested', 'b.eql'), readFileSync(new URL('btc-breakout.eql', examples)));
writeFileSync(join(dir, 'nested', 'bad.eql'), readFileSync(new URL('bad.eql', examples)));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function eql(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), readStdin: () => Promise.resolve(''), readFile: (path) => readFile(path, 'utf8'), color: false };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('eql validate FILES...', () => {
  it('checks every file of the globs and names, prints each result and a summary; exit 1 when one is invalid', async () => {
    const run = await eql(['validate', join(dir, 'a.json'), `${dir}/nested/*.eql`]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`✓ ${join(dir, 'a.json')} is valid`);
    expect(run.stdout).toContain(`✓ ${join(dir, 'nested', 'b.eql')} is valid`);
    expect(run.stdout).toContain(`✗ ${join(dir, 'nested', 'bad.eql')} is invalid: 2 errors`);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('3 files: 2 valid, 1 invalid');
  });

  it('counts a missing file and a glob that matches nothing as unusable, checks the others, and exits 2', async () => {
    const run = await eql(['validate', join(dir, 'a.json'), join(dir, 'missing.json'), `${dir}/none/*.eql`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`no file matches ${dir}/none/*.eql`);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('3 files: 1 valid, 0 invalid, 2 unusable');
  });

  it('--json gives each file\'s result of spec 2.4 and the summary', async () => {
    const run = await eql(['validate', `${dir}/**/*.{json,eql}`, '--json']);
    const report = JSON.parse(run.stdout) as { files: Array<{ file: string; valid: boolean }>; summary: Record<string, number> };
    expect(report.summary).toEqual({ files: 3, valid: 2, invalid: 1, unusable: 0 });
    expect(report.files.map((file) => [file.file.slice(dir.length), file.valid])).toEqual([
      ['/a.json', true],
      ['/nested/b.eql', true],
      ['/nested/bad.eql', false],
    ]);
  });

  it('one file alone answers as before (no summary)', async () => {
    const run = await eql(['validate', join(dir, 'a.json')]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('files:');
  });
});
