import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The packages as strangers get them: every public package is packed with `npm pack` (as `npm publish`
 * would), the tarballs are installed into an empty folder outside the repository, and there the `eql`
 * bin, the embedding example and a host on its defaults run. Nothing may reach back into the
 * repository: no workspace links, no `@eql/source` sources, no paths of the repository's tree.
 *
 * Third-party packages come from npm's cache (`--prefer-offline`: `npm install` of the repository filled
 * it). Install scripts are skipped and better-sqlite3's native addon, built once by the repository's
 * install for this very Node, is copied in: the packaging of our packages is under test, not the
 * compilation of a dependency.
 */

const ROOT = new URL('..', import.meta.url).pathname;
const RECORDING = join(ROOT, 'fixtures', 'recordings', 'market-3d.jsonl');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    // No NODE_OPTIONS or conditions of the test runner: the installed packages resolve as users' would.
    const { NODE_OPTIONS: _options, VITEST: _vitest, ...inherited } = process.env;
    execFile(command, args, { cwd, env: { ...inherited, NO_COLOR: '1', ...env }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const node = (args: string[], cwd: string, env?: Record<string, string>): Promise<Run> => run(process.execPath, args, cwd, env);

interface PackedPackage {
  name: string;
  version: string;
  filename: string;
  files: Array<{ path: string }>;
}

const publicPackages = readdirSync(join(ROOT, 'packages'))
  .filter((dir) => existsSync(join(ROOT, 'packages', dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as { name: string; version: string; main?: string; types?: string; exports?: Record<string, { default?: string; types?: string }>; private?: boolean; dependencies?: Record<string, string> } }))
  .filter(({ manifest }) => manifest.private !== true);

let work: string;
let consumer: string;
let packed: PackedPackage[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'eql-pack-'));
  const tarballs = join(work, 'tarballs');
  consumer = join(work, 'consumer');
  mkdirSync(tarballs);
  mkdirSync(consumer);
  const workspaces = publicPackages.flatMap(({ dir }) => ['--workspace', `packages/${dir}`]);
  const pack = await run('npm', ['pack', ...workspaces, '--pack-destination', tarballs, '--json', '--silent'], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as PackedPackage[];
  const specs = Object.fromEntries(packed.map((entry) => [entry.name, `file:${join(tarballs, entry.filename)}`]));
  // The overrides make every @eql/* dependency, at any depth, the packed tarball (never the registry).
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'eql-outside', private: true, type: 'module', dependencies: specs, overrides: specs }, null, 2));
  const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], consumer);
  expect(install.code, install.stderr).toBe(0);
  const addon = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  mkdirSync(join(consumer, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
  copyFileSync(join(ROOT, addon), join(consumer, addon));
  cpSync(join(ROOT, 'examples'), join(consumer, 'examples'), { recursive: true });
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packages installed outside the repository', () => {
  it('packs every public package at the workspace version, with its README and built code, no sources of tests', () => {
    expect(packed.map((entry) => entry.name).sort()).toEqual(publicPackages.map(({ manifest }) => manifest.name).sort());
    for (const entry of packed) {
      const manifest = publicPackages.find(({ manifest }) => manifest.name === entry.name)?.manifest;
      expect(entry.version, entry.name).toBe(manifest?.version);
      const paths = entry.files.map((file) => file.path);
      expect(paths, entry.name).toContain('README.md');
      // The entry point and its types, as the manifest names them (dist/index.js for the code packages).
      const root = manifest?.exports?.['.'];
      for (const file of [manifest?.main ?? root?.default, manifest?.types ?? root?.types]) expect(paths, entry.name).toContain(String(file).replace(/^\.\//, ''));
      if (entry.name === '@eql/console') expect(paths, entry.name).toContain('dist/index.html');
      expect(paths.filter((path) => path.startsWith('test/') || path.endsWith('.test.ts') || path.endsWith('.tsbuildinfo')), entry.name).toEqual([]);
      // Workspace dependencies are pinned to versions that are published together.
      for (const [dependency, range] of Object.entries(manifest?.dependencies ?? {})) {
        if (dependency.startsWith('@eql/')) expect(range, `${entry.name} -> ${dependency}`).toBe(publicPackages.find(({ manifest: other }) => other.name === dependency)?.manifest.version);
      }
    }
  });

  it('installs as real packages (no links into the repository)', () => {
    for (const entry of packed) {
      const installed = join(consumer, 'node_modules', entry.name, 'package.json');
      expect(existsSync(installed), entry.name).toBe(true);
      expect(readFileSync(installed, 'utf8')).toContain(`"version": "${entry.version}"`);
    }
    expect(readFileSync(join(consumer, 'node_modules', '@eql', 'core', 'dist', 'index.js'), 'utf8')).not.toContain(ROOT);
  });

  it('eql validate checks a query file and says why another is invalid (exit 1)', async () => {
    const valid = await run(join(consumer, 'node_modules', '.bin', 'eql'), ['validate', 'examples/price-alert.json'], consumer);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toContain('is valid');
    const invalid = await run(join(consumer, 'node_modules', '.bin', 'eql'), ['validate', 'examples/bad.eql'], consumer);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout + invalid.stderr).toContain('is invalid');
  });

  it('eql preview replays a query on a recording and shows when it fires', async () => {
    const preview = await run(join(consumer, 'node_modules', '.bin', 'eql'), ['preview', 'examples/price-alert.json', '--data', RECORDING, '--json'], consumer);
    expect(preview.code, preview.stderr).toBe(0);
    const report = JSON.parse(preview.stdout) as { triggers?: unknown[] };
    expect(report.triggers?.length).toBeGreaterThan(0);
  });

  it('eql preview without --data replays the sample recording shipped in @eql/server', async () => {
    const preview = await run(join(consumer, 'node_modules', '.bin', 'eql'), ['preview', 'examples/price-alert.json', '--json'], consumer);
    expect(preview.code, preview.stderr).toBe(0);
    const report = JSON.parse(preview.stdout) as { from: string; triggers?: unknown[] };
    expect(report.from).toBe('2026-01-05T00:00:00.000Z');
    expect(report.triggers?.length).toBeGreaterThan(0);
  });

  it('runs the embedding service example against the installed @eql/core and @eql/syntax', async () => {
    const service = await node(['examples/embedding-service/index.mjs', '--data', RECORDING], consumer);
    expect(service.code, service.stderr).toBe(0);
    expect(service.stdout).toMatch(/fire|trigger/i);
  });

  it('builds a host on its defaults (the shipped demo recording and mentions), and validates a query over HTTP', async () => {
    const script = `
      import { mkdtempSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      import { buildServer, createApiKey, defaultConfig } from '@eql/server';
      const config = defaultConfig({ dataDir: mkdtempSync(join(tmpdir(), 'eql-outside-host-')) });
      const host = await buildServer({ config, logger: false });
      const { key } = await createApiKey(host.context.store, host.context.box, { name: 'outside', plan: 'pro' });
      const headers = { 'x-svc-api-key': key, 'content-type': 'application/json' };
      const request = JSON.parse(await (await import('node:fs/promises')).readFile('examples/price-alert.json', 'utf8'));
      const validated = await host.app.inject({ method: 'POST', url: '/v2/auto/queries/validate', headers, payload: JSON.stringify(request) });
      const trending = await host.app.inject({ method: 'GET', url: '/v2/aggregations/trending-tokens?timeWindow=7d', headers });
      console.log(JSON.stringify({ recording: config.recordingPath, seed: config.marketSeed, valid: validated.json().valid, trending: trending.statusCode, tokens: trending.json().data?.length ?? 0 }));
      await host.close();
    `;
    writeFileSync(join(consumer, 'host.mjs'), script);
    const host = await node(['host.mjs'], consumer);
    expect(host.code, host.stderr).toBe(0);
    const result = JSON.parse(host.stdout.trim().split('\n').at(-1) ?? '{}') as { recording: string; seed: string; valid: boolean; trending: number; tokens: number };
    expect(result.recording.startsWith(join(consumer, 'node_modules', '@eql', 'server', 'data'))).toBe(true);
    expect(result.seed.startsWith(join(consumer, 'node_modules', '@eql', 'server', 'data'))).toBe(true);
    expect(result.valid).toBe(true);
    expect(result.trending).toBe(200);
    expect(result.tokens).toBeGreaterThan(0);
  });
});
