import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildHost, killChildren, serveChild } from '../packages/server/test/support/child-host.js';

// The README's signed-trade walk-through (between <!-- walkthrough:start --> and <!-- walkthrough:end -->),
// run as a newcomer would: a real `eql serve` in a fresh folder (its data in ./.eql-data), each command in
// bash from that folder, the `export` lines kept for the commands after them, and each output compared
// with the `# → ` lines under its command (`…` matches anything).

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Step {
  line: number;
  command: string;
  expected: string[];
}

function walkthrough(): Step[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('<!-- walkthrough:start -->');
  const end = readme.indexOf('<!-- walkthrough:end -->');
  if (start < 0 || end < start) throw new Error('README.md has no walkthrough block');
  const firstLine = readme.slice(0, start).split('\n').length;
  const lines = readme.slice(start, end).split('\n');
  const steps: Step[] = [];
  lines.forEach((text, index) => {
    if (text.startsWith('# → ')) steps.at(-1)?.expected.push(text.slice(4));
    else if (text.trim() !== '' && !text.startsWith('#') && !text.startsWith('```') && !text.startsWith('<!--')) steps.push({ line: firstLine + index, command: text, expected: [] });
  });
  return steps;
}

/** A shown output line as a pattern: `…` matches anything, the rest literally. */
const pattern = (shown: string): RegExp => new RegExp(`^${shown.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);

let dir: string;
let host: ChildHost;
let base: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'eql-walkthrough-'));
  mkdirSync(join(dir, 'examples'));
  copyFileSync(join(ROOT, 'examples', 'paper-trade.json'), join(dir, 'examples', 'paper-trade.json'));
  copyFileSync(join(ROOT, 'examples', 'quick-alert.json'), join(dir, 'examples', 'quick-alert.json'));
  // `npx eql` finds the command of this checkout, as in the repository.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"name":"walkthrough","private":true}\n');
  host = await serveChild({ EQL_DATA_DIR: join(dir, '.eql-data'), EQL_PORT: '0', EQL_HOST: '127.0.0.1', EQL_MARKET_SEED: 'none' });
  base = /listening on (http:\/\/\S+)/.exec(host.output())![1]!;
}, 60_000);
afterAll(() => {
  killChildren();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EQL_') && name !== 'NODE_OPTIONS'));
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: dir, env: { ...env, EQL_URL: base, NO_COLOR: '1' }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('the README walk-through of a signed trade', () => {
  it('runs every command against a real host and gets the outputs it shows', { timeout: 120_000 }, async () => {
    const steps = walkthrough();
    expect(steps.filter((step) => step.expected.length > 0).length).toBeGreaterThanOrEqual(5);
    const exports: string[] = [];
    for (const step of steps) {
      if (step.command.startsWith('export ')) {
        exports.push(step.command);
        continue;
      }
      const run = await bash([...exports, step.command].join('\n'));
      const where = `README.md:${step.line} ${step.command}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.code, where).toBe(0);
      const output = run.stdout.split('\n').filter((line) => line.trim() !== '');
      expect(output.length, where).toBe(step.expected.length);
      step.expected.forEach((shown, index) => expect(output[index], `${where}\nline ${index + 1} should be: ${shown}`).toMatch(pattern(shown)));
    }
    // The signed create made one active query of the demo key, which a poll shows.
    const key = (JSON.parse(readFileSync(join(dir, '.eql-data', 'demo-key.json'), 'utf8')) as { apiKey: string }).apiKey;
    const list = (await (await fetch(`${base}/v2/auto/queries`, { headers: { 'x-svc-api-key': key } })).json()) as { data?: Array<{ status: string }>; queries?: Array<{ status: string }> };
    expect(JSON.stringify(list)).toContain('"status":"active"');
  });
});

describe('the README quick start', () => {
  it('creates the alert on the running host, and its notification comes', { timeout: 120_000 }, async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /## Quick start\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    // The host runs already (npm install && npm start are the first step); the rest as written, comments dropped.
    const commands = block
      .split('\n')
      .map((line) => line.replace(/\s+# \d\..*$/, '').trim())
      .filter((line) => line !== '' && !line.startsWith('npm '));
    expect(commands).toEqual([expect.stringMatching(/^export EQL_API_KEY=/), 'npx eql remote create examples/quick-alert.json', 'npx eql remote watch --from 0 --count 1']);
    const run = await bash(commands.join('\n'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^created .* \(active, 5 credits\)$/m);
    expect(run.stdout).toMatch(/BTC is at [\d.]+, above 90k/);
  });
});
