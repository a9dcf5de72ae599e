#!/usr/bin/env node
// @ts-check
// Writes one self-contained tarball of the `eql` command (eql-cli-<version>.tgz) that
// `npm install -g ./eql-cli-<version>.tgz` installs with no access to this repository: the @eql/*
// packages are not on a registry, so the tarball bundles them.
//   1. `npm pack` of @eql/cli and of every @eql/* package it needs, transitively (read from the
//      manifests: nothing is listed here), as `npm publish` would pack them (their prepack scripts run);
//   2. a stage: the packed CLI, with the packed @eql/* packages extracted into its node_modules/@eql/<name>,
//      named in `bundleDependencies`; its `dependencies` also take the third-party dependencies (and the
//      peer dependencies not marked optional) of every bundled package, so that npm installs them next to
//      the bundle, where Node finds them walking up from node_modules/@eql/<name>/dist; the bundled
//      manifests keep only their @eql/* dependencies (see withBundledDependenciesOnly for why);
//   3. an npm-shrinkwrap.json in the stage: the third-party versions of the repository's package-lock.json
//      (the ones tested), so that a global install resolves the same tree;
//   4. `npm pack` of the stage into --out (default: the current directory).
// Two packages asking for different ranges of one dependency stop it: one range has to be chosen in
// their manifests. The packages are packed from their dist folders: run `npm run build` first.
// Usage: node scripts/pack-cli.mjs [--out <dir>]   (npm run pack:cli -- --out <dir>)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const CLI = '@eql/cli';

/**
 * The fields of a package.json read here.
 * @typedef {{
 *   name: string,
 *   version: string,
 *   private?: boolean,
 *   main?: string,
 *   bin?: string | Record<string, string>,
 *   exports?: unknown,
 *   scripts?: Record<string, string>,
 *   workspaces?: string[] | { packages?: string[] },
 *   dependencies?: Record<string, string>,
 *   optionalDependencies?: Record<string, string>,
 *   peerDependencies?: Record<string, string>,
 *   peerDependenciesMeta?: Record<string, { optional?: boolean }>,
 *   devDependencies?: Record<string, string>,
 *   bundleDependencies?: string[] | boolean,
 *   bundledDependencies?: string[] | boolean,
 * }} Manifest
 */

/** @typedef {{ dir: string, manifest: Manifest }} Workspace */

/** A failure the user can act on: printed without a stack. */
export class PackError extends Error {}

/**
 * @param {string} file
 * @returns {Manifest}
 */
function readManifest(file) {
  return /** @type {Manifest} */ (JSON.parse(readFileSync(file, 'utf8')));
}

/**
 * The workspace packages of the repository, by name (the root's `workspaces`: folders, or `dir/*`).
 * @param {string} repository
 * @returns {Map<string, Workspace>}
 */
export function workspacePackages(repository) {
  const declared = readManifest(join(repository, 'package.json')).workspaces;
  const patterns = Array.isArray(declared) ? declared : (declared?.packages ?? []);
  /** @type {Map<string, Workspace>} */
  const packages = new Map();
  for (const pattern of patterns) {
    const dirs = pattern.endsWith('/*')
      ? readdirSync(join(repository, pattern.slice(0, -2)), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern];
    for (const dir of dirs) {
      const file = join(repository, dir, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = readManifest(file);
      packages.set(manifest.name, { dir, manifest });
    }
  }
  return packages;
}

/**
 * The workspace packages `start` needs, itself first, then the others in the order found (transitively,
 * through `dependencies`, `optionalDependencies` and peer dependencies not marked optional).
 * @param {Map<string, Workspace>} packages
 * @param {string} start
 * @returns {Workspace[]}
 */
export function closureOf(packages, start) {
  const first = packages.get(start);
  if (first === undefined) throw new PackError(`${start} is not a workspace package`);
  /** @type {Workspace[]} */
  const found = [first];
  for (let index = 0; index < found.length; index += 1) {
    const current = /** @type {Workspace} */ (found[index]);
    for (const [name] of requiredEntries(current.manifest)) {
      const workspace = packages.get(name);
      if (workspace === undefined) {
        if (name.startsWith('@eql/')) throw new PackError(`${current.manifest.name} depends on ${name}, which is not a workspace package (the @eql packages are not on a registry)`);
        continue;
      }
      if (workspace.manifest.private === true) throw new PackError(`${current.manifest.name} depends on ${name}, which is private`);
      if (!found.includes(workspace)) found.push(workspace);
    }
  }
  return found;
}

/**
 * What a package needs installed: its dependencies, optional dependencies and peer dependencies not
 * marked optional, with the field each comes from.
 * @param {Manifest} manifest
 * @returns {Array<[name: string, range: string, kind: 'dependencies' | 'optionalDependencies']>}
 */
function requiredEntries(manifest) {
  /** @type {Array<[string, string, 'dependencies' | 'optionalDependencies']>} */
  const entries = [];
  for (const [name, range] of Object.entries(manifest.dependencies ?? {})) entries.push([name, range, 'dependencies']);
  for (const [name, range] of Object.entries(manifest.optionalDependencies ?? {})) entries.push([name, range, 'optionalDependencies']);
  for (const [name, range] of Object.entries(manifest.peerDependencies ?? {})) {
    if (manifest.peerDependenciesMeta?.[name]?.optional !== true) entries.push([name, range, 'dependencies']);
  }
  return entries;
}

/**
 * The third-party dependencies of the bundled packages, one range each, sorted by name. A dependency
 * that any package needs is a dependency, one that all ask for as optional stays optional.
 * @param {Workspace[]} bundled
 * @param {Map<string, Workspace>} packages
 * @returns {{ dependencies: Record<string, string>, optionalDependencies: Record<string, string> }}
 */
export function thirdPartyDependencies(bundled, packages) {
  /** @type {Map<string, { range: string, from: string, optional: boolean }>} */
  const wanted = new Map();
  for (const { manifest } of bundled) {
    for (const [name, range, kind] of requiredEntries(manifest)) {
      if (packages.has(name)) continue;
      const seen = wanted.get(name);
      if (seen === undefined) {
        wanted.set(name, { range, from: manifest.name, optional: kind === 'optionalDependencies' });
        continue;
      }
      if (seen.range !== range) {
        throw new PackError(`${seen.from} asks for ${name}@${seen.range} and ${manifest.name} for ${name}@${range}: make the ranges the same in their package.json files`);
      }
      seen.optional &&= kind === 'optionalDependencies';
    }
  }
  /** @type {Record<string, string>} */
  const dependencies = {};
  /** @type {Record<string, string>} */
  const optionalDependencies = {};
  for (const [name, { range, optional }] of [...wanted].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    (optional ? optionalDependencies : dependencies)[name] = range;
  }
  return { dependencies, optionalDependencies };
}

/**
 * The built files a package's manifest points at (main, bin, export targets but the sources' condition).
 * @param {Manifest} manifest
 * @returns {string[]}
 */
function entryFiles(manifest) {
  /** @type {string[]} */
  const files = [];
  /** @param {unknown} target */
  const visit = (target) => {
    if (typeof target === 'string') files.push(target);
    else if (Array.isArray(target)) target.forEach(visit);
    else if (typeof target === 'object' && target !== null) {
      for (const [condition, value] of Object.entries(target)) if (condition !== '@eql/source') visit(value);
    }
  };
  if (manifest.main !== undefined) files.push(manifest.main);
  visit(manifest.exports);
  visit(manifest.bin);
  return files;
}

/**
 * Stops when a package has not been built: its dist folder or a file its manifest names is missing.
 * @param {string} repository
 * @param {Workspace[]} bundled
 */
function checkBuilt(repository, bundled) {
  for (const { dir, manifest } of bundled) {
    const dist = join(repository, dir, 'dist');
    if (!existsSync(dist) || !statSync(dist).isDirectory()) throw new PackError(`${dir}/dist is missing (${manifest.name} is not built): run npm run build first`);
    for (const file of entryFiles(manifest)) {
      if (!existsSync(join(repository, dir, file))) throw new PackError(`${join(dir, file)} is missing (${manifest.name} is not built): run npm run build first`);
    }
  }
}

/**
 * A bundled package's manifest without its third-party dependencies (the CLI's manifest lists them):
 * npm counts a package that a bundled package depends on, placed beside the bundle, as part of the
 * bundle, and then neither unpacks nor fetches it. A global install puts every dependency beside the
 * bundle (in the CLI's own node_modules), so with their edges kept npm 11 left empty folders there.
 * Only the edges between bundled packages stay.
 * @param {Manifest} manifest
 * @param {Map<string, Workspace>} packages
 * @returns {Manifest}
 */
function withBundledDependenciesOnly(manifest, packages) {
  /** @param {Record<string, string> | undefined} entries */
  const bundledOnly = (entries) => Object.fromEntries(Object.entries(entries ?? {}).filter(([name]) => packages.has(name)));
  const result = { ...manifest, dependencies: bundledOnly(manifest.dependencies) };
  for (const field of /** @type {const} */ (['optionalDependencies', 'peerDependencies'])) {
    const kept = bundledOnly(manifest[field]);
    if (Object.keys(kept).length > 0) result[field] = kept;
    else delete result[field];
  }
  const meta = Object.fromEntries(Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([name]) => packages.has(name)));
  if (Object.keys(meta).length > 0) result.peerDependenciesMeta = meta;
  else delete result.peerDependenciesMeta;
  return result;
}

/**
 * An entry of a package-lock.json's `packages`.
 * @typedef {{ version?: string, resolved?: string, integrity?: string, link?: boolean, license?: string,
 *   dependencies?: Record<string, string>, optionalDependencies?: Record<string, string>,
 *   peerDependencies?: Record<string, string>, peerDependenciesMeta?: Record<string, { optional?: boolean }>,
 *   engines?: unknown, bin?: unknown, os?: unknown, cpu?: unknown, optional?: boolean, hasInstallScript?: boolean }} LockEntry
 */

/** The fields of a lock entry a shrinkwrap keeps (flags of the repository's tree, dev and peer, are not the CLI's). */
const KEPT_FIELDS = /** @type {const} */ (['version', 'resolved', 'integrity', 'license', 'dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'engines', 'bin', 'os', 'cpu', 'optional', 'hasInstallScript']);

/**
 * The lock entry Node would load for `name` required from the package at lock path `from` (`''` the root,
 * `packages/server` a workspace, `node_modules/a/node_modules/b` a nested package): the nearest
 * `node_modules/<name>` walking up, as Node resolves.
 * @param {Record<string, LockEntry>} lock
 * @param {string} from
 * @param {string} name
 * @returns {{ path: string, entry: LockEntry } | undefined}
 */
function resolveInLock(lock, from, name) {
  let location = from;
  for (;;) {
    const path = location === '' ? `node_modules/${name}` : `${location}/node_modules/${name}`;
    const entry = lock[path];
    if (entry !== undefined && !entry.link) return { path, entry };
    if (location === '') return undefined;
    const nested = location.lastIndexOf('/node_modules/');
    location = nested >= 0 ? location.slice(0, nested) : '';
  }
}

/**
 * An npm-shrinkwrap.json for the stage: the third-party packages the repository's package-lock.json resolved
 * and tested, at the same versions and integrity, laid out for the CLI's own node_modules (hoisted where
 * free, nested under the package that needs another version). A global install of the tarball then gets
 * those versions, not whatever the ranges allow on the day (npm honours a published package's shrinkwrap).
 * @param {{ repository: string, staged: Manifest, needed: Workspace[], packages: Map<string, Workspace>, bundled: string[] }} options
 * @returns {{ lockfileVersion: number, name: string, version: string, requires: boolean, packages: Record<string, Record<string, unknown>> }}
 */
export function shrinkwrapFor({ repository, staged, needed, packages, bundled }) {
  const lockFile = join(repository, 'package-lock.json');
  if (!existsSync(lockFile)) throw new PackError('package-lock.json is missing: run npm install first');
  const lock = /** @type {{ packages?: Record<string, LockEntry> }} */ (JSON.parse(readFileSync(lockFile, 'utf8'))).packages ?? {};
  /** @type {Record<string, Record<string, unknown>>} */
  const tree = {};
  /** @type {Array<{ stagePath: string, lockPath: string, entry: LockEntry }>} */
  const queue = [];
  /** @param {LockEntry} entry */
  const kept = (entry) => Object.fromEntries(KEPT_FIELDS.filter((field) => entry[field] !== undefined).map((field) => [field, entry[field]]));
  /**
   * Places `name` as the lock resolved it from `lockFrom`, seen from the stage package at `stageFrom`.
   * @param {string} stageFrom
   * @param {string} lockFrom
   * @param {string} name
   * @param {boolean} optional
   */
  const place = (stageFrom, lockFrom, name, optional) => {
    const found = resolveInLock(lock, lockFrom, name);
    if (found === undefined) {
      if (optional) return;
      throw new PackError(`package-lock.json has no ${name} for ${lockFrom || 'the root'}: run npm install`);
    }
    // What Node finds from stageFrom today: the nearest placed copy walking up.
    let location = stageFrom;
    for (;;) {
      const path = location === '' ? `node_modules/${name}` : `${location}/node_modules/${name}`;
      const placed = tree[path];
      if (placed !== undefined) {
        if (placed.version === found.entry.version) return;
        break;
      }
      if (location === '') {
        tree[path] = kept(found.entry);
        queue.push({ stagePath: path, lockPath: found.path, entry: found.entry });
        return;
      }
      const nested = location.lastIndexOf('/node_modules/');
      location = nested >= 0 ? location.slice(0, nested) : '';
    }
    // Another version is in the way: nested under the package that needs this one.
    const path = stageFrom === '' ? `node_modules/${name}` : `${stageFrom}/node_modules/${name}`;
    if (tree[path] !== undefined) throw new PackError(`two versions of ${name} would have to sit at ${path}`);
    tree[path] = kept(found.entry);
    queue.push({ stagePath: path, lockPath: found.path, entry: found.entry });
  };
  // The bundled packages' third-party dependencies, each as the lock resolved it for the workspace that asks.
  for (const { dir, manifest } of needed) {
    for (const [name, , kind] of requiredEntries(manifest)) if (!packages.has(name)) place('', dir, name, kind === 'optionalDependencies');
  }
  for (let index = 0; index < queue.length; index += 1) {
    const { stagePath, lockPath, entry } = /** @type {{ stagePath: string, lockPath: string, entry: LockEntry }} */ (queue[index]);
    for (const [name] of Object.entries(entry.dependencies ?? {})) place(stagePath, lockPath, name, false);
    for (const [name] of Object.entries(entry.optionalDependencies ?? {})) place(stagePath, lockPath, name, true);
    for (const [name] of Object.entries(entry.peerDependencies ?? {})) place(stagePath, lockPath, name, entry.peerDependenciesMeta?.[name]?.optional === true);
  }
  /** @type {Record<string, Record<string, unknown>>} */
  const entries = {
    '': Object.fromEntries(
      Object.entries({ name: staged.name, version: staged.version, license: /** @type {{ license?: string }} */ (staged).license, bin: staged.bin, dependencies: staged.dependencies, optionalDependencies: staged.optionalDependencies, bundleDependencies: bundled, engines: /** @type {{ engines?: unknown }} */ (staged).engines }).filter(([, value]) => value !== undefined),
    ),
  };
  for (const name of bundled) {
    const workspace = packages.get(name);
    if (workspace === undefined) continue;
    const bundledManifest = withBundledDependenciesOnly(workspace.manifest, packages);
    entries[`node_modules/${name}`] = { version: workspace.manifest.version, inBundle: true, ...(Object.keys(bundledManifest.dependencies ?? {}).length > 0 ? { dependencies: bundledManifest.dependencies } : {}) };
  }
  for (const path of Object.keys(tree).sort()) entries[path] = /** @type {Record<string, unknown>} */ (tree[path]);
  return { name: staged.name, version: staged.version, lockfileVersion: 3, requires: true, packages: entries };
}

/**
 * The top level of a shrinkwrap's tree as exact dependencies (the bundled packages left out): a package
 * the lock marks optional, or one made for some platforms only, as an optional dependency.
 * @param {{ packages: Record<string, Record<string, unknown>> }} wrap
 * @param {string[]} bundled
 * @returns {{ dependencies: Record<string, string>, optionalDependencies: Record<string, string> }}
 */
export function pinnedDependencies(wrap, bundled) {
  /** @type {Record<string, string>} */
  const dependencies = {};
  /** @type {Record<string, string>} */
  const optionalDependencies = {};
  for (const [path, entry] of Object.entries(wrap.packages)) {
    const name = path.startsWith('node_modules/') ? path.slice('node_modules/'.length) : undefined;
    if (name === undefined || name.includes('/node_modules/') || bundled.includes(name)) continue;
    const optional = entry.optional === true || entry.os !== undefined || entry.cpu !== undefined;
    (optional ? optionalDependencies : dependencies)[name] = String(entry.version);
  }
  return { dependencies, optionalDependencies };
}

/**
 * Runs npm and returns its standard output; a failure stops with npm's error output.
 * @param {string[]} args
 * @param {string} cwd
 * @returns {string}
 */
function npm(args, cwd) {
  try {
    return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, shell: process.platform === 'win32' });
  } catch (error) {
    const failure = /** @type {{ stderr?: string, stdout?: string, message: string }} */ (error);
    throw new PackError(`npm ${args.join(' ')} failed in ${cwd}:\n${failure.stderr || failure.stdout || failure.message}`);
  }
}

/**
 * The result of `npm pack --json`: one entry per package. Lifecycle scripts may print before the JSON.
 * @param {string} stdout
 * @returns {Array<{ name: string, version: string, filename: string, files: Array<{ path: string }> }>}
 */
function packResult(stdout) {
  const start = stdout.search(/^\[/m);
  if (start < 0) throw new PackError(`npm pack printed no JSON:\n${stdout}`);
  return JSON.parse(stdout.slice(start));
}

/**
 * Extracts an npm tarball (its files are under package/) into `dir`.
 * @param {string} tarball
 * @param {string} dir
 */
function extract(tarball, dir) {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const failure = /** @type {{ stderr?: string, message: string }} */ (error);
    throw new PackError(`tar could not extract ${tarball}: ${failure.stderr || failure.message}`);
  }
}

/**
 * Packs the CLI with the @eql packages it needs into one tarball in `out`.
 * @param {{ out: string, repository?: string, log?: (line: string) => void }} options
 * @returns {{ tarball: string, bundled: string[], dependencies: Record<string, string>, optionalDependencies: Record<string, string> }}
 */
export function packCli({ out, repository = root, log = () => {} }) {
  const packages = workspacePackages(repository);
  const needed = closureOf(packages, CLI);
  const bundledPackages = needed.slice(1);
  const { dependencies, optionalDependencies } = thirdPartyDependencies(needed, packages);
  checkBuilt(repository, needed);

  const work = mkdtempSync(join(tmpdir(), 'eql-pack-cli-'));
  try {
    const tarballs = join(work, 'tarballs');
    const stage = join(work, 'stage');
    mkdirSync(tarballs);
    log(`packing ${needed.map(({ manifest }) => manifest.name).join(', ')}`);
    const workspaceArgs = needed.flatMap(({ dir }) => ['--workspace', dir]);
    const packed = packResult(npm(['pack', ...workspaceArgs, '--pack-destination', tarballs, '--json', '--loglevel=error'], repository));
    const fileOf = new Map(packed.map((entry) => [entry.name, join(tarballs, entry.filename)]));
    for (const { manifest } of needed) {
      if (!fileOf.has(manifest.name)) throw new PackError(`npm pack did not pack ${manifest.name}`);
    }

    extract(/** @type {string} */ (fileOf.get(CLI)), stage);
    for (const { manifest } of bundledPackages) {
      const dir = join(stage, 'node_modules', ...manifest.name.split('/'));
      extract(/** @type {string} */ (fileOf.get(manifest.name)), dir);
      writeFileSync(join(dir, 'package.json'), `${JSON.stringify(withBundledDependenciesOnly(readManifest(join(dir, 'package.json')), packages), null, 2)}\n`);
    }

    const staged = readManifest(join(stage, 'package.json'));
    const bundled = bundledPackages.map(({ manifest }) => manifest.name).sort();
    // bundled packages stay listed in dependencies, at the version bundled: npm does not fetch them.
    const versionOf = new Map(bundledPackages.map(({ manifest }) => [manifest.name, manifest.version]));
    staged.dependencies = { ...Object.fromEntries(bundled.map((name) => [name, versionOf.get(name) ?? ''])), ...dependencies };
    if (Object.keys(optionalDependencies).length > 0) staged.optionalDependencies = optionalDependencies;
    else delete staged.optionalDependencies;
    staged.bundleDependencies = bundled;
    delete staged.bundledDependencies;
    delete staged.devDependencies;
    // Packing the stage must not run the CLI's pack scripts again: its files are already the packed ones.
    if (staged.scripts) {
      for (const script of ['prepack', 'prepare', 'postpack']) delete staged.scripts[script];
      if (Object.keys(staged.scripts).length === 0) delete staged.scripts;
    }
    // The versions the repository tested, pinned for whoever installs the tarball: npm honours a shrinkwrap
    // only in a package from a registry, so the tree's top level is also named in `dependencies` at exact
    // versions (what a package deeper asks for then resolves to them); the shrinkwrap pins the rest there.
    const wrap = shrinkwrapFor({ repository, staged, needed, packages, bundled });
    const pinned = pinnedDependencies(wrap, bundled);
    staged.dependencies = { ...Object.fromEntries(bundled.map((name) => [name, versionOf.get(name) ?? ''])), ...pinned.dependencies };
    if (Object.keys(pinned.optionalDependencies).length > 0) staged.optionalDependencies = pinned.optionalDependencies;
    else delete staged.optionalDependencies;
    const top = /** @type {Record<string, unknown>} */ (wrap.packages['']);
    top.dependencies = staged.dependencies;
    if (staged.optionalDependencies) top.optionalDependencies = staged.optionalDependencies;
    else delete top.optionalDependencies;
    // npm packs a shrinkwrap only when the files list names it.
    const files = /** @type {{ files?: string[] }} */ (staged).files;
    if (Array.isArray(files) && !files.includes('npm-shrinkwrap.json')) files.push('npm-shrinkwrap.json');
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);
    writeFileSync(join(stage, 'npm-shrinkwrap.json'), `${JSON.stringify(wrap, null, 2)}\n`);

    mkdirSync(out, { recursive: true });
    const [result] = packResult(npm(['pack', '--pack-destination', resolve(out), '--json', '--loglevel=error'], stage));
    if (result === undefined) throw new PackError('npm pack of the stage printed no result');
    const paths = new Set(result.files.map((file) => file.path));
    const missing = bundled.filter((name) => !paths.has(`node_modules/${name}/package.json`));
    if (missing.length > 0) throw new PackError(`npm pack left bundled packages out of ${result.filename}: ${missing.join(', ')}`);
    return { tarball: join(resolve(out), result.filename), bundled, dependencies, optionalDependencies };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * `--out <dir>` (or `--out=<dir>`), default the current directory.
 * @param {string[]} argv
 * @returns {{ out: string }}
 */
function parseArgs(argv) {
  let out = process.cwd();
  for (let index = 0; index < argv.length; index += 1) {
    const arg = /** @type {string} */ (argv[index]);
    if (arg === '--out') {
      const value = argv[(index += 1)];
      if (value === undefined || value === '') throw new PackError('--out needs a directory');
      out = resolve(value);
    } else if (arg.startsWith('--out=')) {
      out = resolve(arg.slice('--out='.length));
    } else if (arg === '--help' || arg === '-h') {
      console.log('usage: node scripts/pack-cli.mjs [--out <dir>]\nwrites eql-cli-<version>.tgz, the eql command with the @eql packages it needs, for npm install -g');
      process.exit(0);
    } else {
      throw new PackError(`unknown argument ${arg} (usage: node scripts/pack-cli.mjs [--out <dir>])`);
    }
  }
  return { out };
}

function main() {
  try {
    const { out } = parseArgs(process.argv.slice(2));
    const { tarball, bundled, dependencies } = packCli({ out, log: (line) => console.error(line) });
    console.error(`bundled ${bundled.length} @eql packages; ${Object.keys(dependencies).length} third-party dependencies installed beside them`);
    // The path to give npm install -g: ./name when it is under the current directory.
    const inside = relative(process.cwd(), tarball);
    console.log(inside.startsWith('..') || isAbsolute(inside) ? tarball : `./${inside}`);
  } catch (error) {
    if (!(error instanceof PackError)) throw error;
    console.error(`pack-cli: ${error.message}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
