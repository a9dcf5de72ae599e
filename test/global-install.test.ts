import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The `eql` command as a release page ships it: `scripts/pack-cli.mjs` (`npm run pack:cli`) writes one
 * tarball of @eql/cli with the @eql/* packages it needs bundled inside (they are not on a registry),
 * and `npm install -g` of that tarball into an empty prefix outside the repository gives a working
 * `eql`: `--version`, `validate` and `preview` run from the prefix's bin. Nothing installed may reach
 * back into the repository: no symlinks into it, no paths of its tree in the bundled code.
 *
 * Third-party packages come from npm's cache (`--prefer-offline`: `npm install` of the repository filled
 * it). Install scripts are skipped and better-sqlite3's native addon, built once by the repository's
 * install for this very Node, is copied in: the packaging of the CLI is under test, not the compilation
 * of a dependency. The packages must be built (`npm run build`): the script packs their dist folders.
 */

const ROOT = new URL('..', import.meta.url).pathname;
const CLI_MANIFEST = JSON.parse(readFileSync(join(ROOT, 'packages', 'cli', 'package.json'), 'utf8')) as { name: string; version: string; dependencies?: Record<string, string> };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, timeout = 240_000): Promise<Run> {
  return new Promise((resolve) => {
    // No NODE_OPTIONS or conditions of the test runner: the installed command resolves as users' would.
    const { NODE_OPTIONS: _options, VITEST: _vitest, ...inherited } = process.env;
    execFile(command, args, { cwd, env: { ...inherited, NO_COLOR: '1' }, timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every path under `dir` (not following symlinks), with whether it is a symlink. */
function walk(dir: string, found: Array<{ path: string; link: boolean }> = []): Array<{ path: string; link: boolean }> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    found.push({ path, link: entry.isSymbolicLink() });
    if (entry.isDirectory()) walk(path, found);
  }
  return found;
}

let work: string;
let prefix: string;
let tarball: string;
/** The installed @eql/cli: `<prefix>/lib/node_modules/@eql/cli`. */
let installed: string;
let eql: string;
/** What npm said on standard error while installing (warnings included). */
let installWarnings = '';

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'eql-global-'));
  const out = join(work, 'out');
  prefix = join(work, 'prefix');
  const pack = await run(process.execPath, [join(ROOT, 'scripts', 'pack-cli.mjs'), '--out', out], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  tarball = resolve(pack.stdout.trim().split('\n').at(-1) ?? '');
  // Installed from a folder of its own: nothing of the repository is at hand but the tarball.
  const install = await run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=warn', tarball], work, 540_000);
  expect(install.code, install.stderr).toBe(0);
  installWarnings = install.stderr;
  installed = join(prefix, 'lib', 'node_modules', ...CLI_MANIFEST.name.split('/'));
  eql = join(prefix, 'bin', 'eql');
  // Wherever npm put better-sqlite3 under the prefix, its addon is the repository's build.
  const addon = join('build', 'Release', 'better_sqlite3.node');
  const sqlite = walk(join(prefix, 'lib', 'node_modules'))
    .filter(({ path, link }) => !link && path.endsWith(join('node_modules', 'better-sqlite3')) && existsSync(join(path, 'package.json')))
    .map(({ path }) => path);
  expect(sqlite.length, 'better-sqlite3 is not installed under the prefix').toBeGreaterThan(0);
  for (const dir of sqlite) {
    mkdirSync(dirname(join(dir, addon)), { recursive: true });
    copyFileSync(join(ROOT, 'node_modules', 'better-sqlite3', addon), join(dir, addon));
  }
  // A folder of the user's own, with a query and a recording in it.
  const cwd = join(work, 'cwd');
  mkdirSync(join(cwd, 'examples'), { recursive: true });
  mkdirSync(join(cwd, 'fixtures', 'recordings'), { recursive: true });
  copyFileSync(join(ROOT, 'examples', 'price-alert.json'), join(cwd, 'examples', 'price-alert.json'));
  copyFileSync(join(ROOT, 'fixtures', 'recordings', 'market-3d.jsonl'), join(cwd, 'fixtures', 'recordings', 'market-3d.jsonl'));
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the eql command installed with npm install -g from the packed tarball', () => {
  it('is one tarball, named as npm names the CLI package, with the @eql packages it needs bundled', () => {
    // npm's name for @eql/cli: eql-cli-<version>.tgz
    const name = `${CLI_MANIFEST.name.slice(1).replace('/', '-')}-${CLI_MANIFEST.version}.tgz`;
    expect(readdirSync(join(work, 'out'))).toEqual([name]);
    expect(tarball).toBe(join(work, 'out', name));
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { version: string; dependencies?: Record<string, string>; bundleDependencies?: string[] };
    expect(manifest.version).toBe(CLI_MANIFEST.version);
    const direct = Object.keys(CLI_MANIFEST.dependencies ?? {}).filter((name) => name.startsWith('@eql/'));
    expect(direct.length).toBeGreaterThan(0);
    for (const name of [...direct, '@eql/core']) {
      expect(manifest.bundleDependencies, name).toContain(name);
    }
    // Bundled or fetched, every dependency is there with its files (npm can leave empty folders for
    // packages it counts as part of a bundle).
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      expect(existsSync(join(installed, 'node_modules', ...name.split('/'), 'package.json')), name).toBe(true);
    }
    expect(Object.keys(manifest.dependencies ?? {})).toContain('better-sqlite3');
  });

  it('installs the third-party versions the repository tested (its package-lock.json), with no engine warning on Node 20', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; link?: boolean }> };
    const wrap = JSON.parse(readFileSync(join(installed, 'npm-shrinkwrap.json'), 'utf8')) as { packages: Record<string, { version?: string; inBundle?: boolean }> };
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(installWarnings).not.toMatch(/EBADENGINE/);
    // The repository's override (light-my-request 6.6.0, whose cookie runs on Node 20) holds in the install.
    for (const name of ['light-my-request', 'cookie', '@nats-io/nuid', 'fastify', 'better-sqlite3', '@opentelemetry/sdk-trace-node']) {
      const version = (JSON.parse(readFileSync(join(installed, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')) as { version: string }).version;
      expect(version, name).toBe(lock.packages[`node_modules/${name}`]?.version ?? lock.packages[`packages/server/node_modules/${name}`]?.version);
    }
    // Every package the tarball pins is installed at its version, and every version is one the lock holds.
    const lockVersions = new Set(Object.entries(lock.packages).map(([path, entry]) => `${path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${entry.version}`));
    for (const [name, version] of Object.entries(manifest.dependencies)) {
      if (name.startsWith('@eql/')) continue;
      expect(lockVersions.has(`${name}@${version}`), `${name}@${version}`).toBe(true);
      const file = join(installed, 'node_modules', ...name.split('/'), 'package.json');
      expect((JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version, name).toBe(version);
    }
    expect(Object.values(wrap.packages).filter((entry) => !entry.inBundle).length).toBeGreaterThan(100);
  });

  it('installs real files: no symlink leads into the repository, and the bundled code names no path of it', () => {
    for (const { path } of walk(prefix).filter(({ link }) => link)) {
      const target = resolve(dirname(path), readlinkSync(path));
      expect(target.startsWith(ROOT), `${path} -> ${target}`).toBe(false);
    }
    const core = join(installed, 'node_modules', '@eql', 'core');
    expect(lstatSync(core).isSymbolicLink()).toBe(false);
    const files = walk(join(core, 'dist')).filter(({ path }) => lstatSync(path).isFile());
    expect(files.map(({ path }) => path)).toContain(join(core, 'dist', 'index.js'));
    for (const { path } of files) expect(readFileSync(path, 'utf8').includes(ROOT), path).toBe(false);
  });

  it('eql --version prints the version of the package', { timeout: 60_000 }, async () => {
    const version = await run(eql, ['--version'], work);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(CLI_MANIFEST.version);
  });

  it('eql serve of the production install (no dev dependencies) serves: /ready, /metrics, then stops on SIGTERM', { timeout: 120_000 }, async () => {
    const { NODE_OPTIONS: _options, VITEST: _vitest, ...inherited } = process.env;
    const clean = Object.fromEntries(Object.entries(inherited).filter(([name]) => !name.startsWith('EQL_')));
    const child = spawn(eql, ['serve'], { cwd: work, env: { ...clean, EQL_PORT: '0', EQL_HOST: '127.0.0.1', EQL_DATA_DIR: join(work, 'serve-data'), EQL_MARKET_SEED: 'none' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const found = /listening on (http:\/\/\S+)/.exec(said)?.[1];
        if (found) resolve(found);
      };
      child.stderr.on('data', look);
      void exited.then(() => reject(new Error(`eql serve exited:\n${said}`)));
    });
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('# TYPE eql_queries_active gauge');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('eql validate checks a query file', { timeout: 60_000 }, async () => {
    const valid = await run(eql, ['validate', join(ROOT, 'examples', 'price-alert.json')], work);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toContain('is valid');
  });

  it('eql preview replays a query on a recording, from a folder of the user', { timeout: 60_000 }, async () => {
    const preview = await run(eql, ['preview', 'examples/price-alert.json', '--data', 'fixtures/recordings/market-3d.jsonl', '--json'], join(work, 'cwd'));
    expect(preview.code, preview.stderr).toBe(0);
    const report = JSON.parse(preview.stdout) as { triggers?: unknown[] };
    expect(report.triggers?.length).toBeGreaterThan(0);
  });
});
