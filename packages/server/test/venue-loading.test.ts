import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeModuleLogger } from '../../../test/support/module-log.js';
import { removeDir } from './support/harness.js';

// ccxt (a large library) comes only with @eql/venue-ccxt, which the host imports when its configuration
// asks for a ccxt feed or a real venue. Each case builds the host from the built packages (`npx tsc -b`
// first) in a child Node process whose every module resolution is logged by a `module.register` hook,
// creates a query through the Auto API, closes the host and reports which modules were loaded.

const SERVER = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const CCXT = '/node_modules/ccxt/';
const VENUE = /\/(packages|node_modules\/@eql)\/venue-ccxt\//;

/** Appended to the module logger's preload: every lookup of a public name fails (no venue is reachable). */
const PRELOAD = `
import dns from 'node:dns';
const original = dns.lookup;
const local = (name) => name === 'localhost' || /^[0-9.]+$/.test(name) || name.includes(':');
dns.lookup = function lookup(hostname, options, callback) {
  if (local(hostname)) return original.call(this, hostname, options, callback);
  const done = typeof options === 'function' ? options : callback;
  process.nextTick(done, Object.assign(new Error('getaddrinfo ENOTFOUND ' + hostname), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname }));
};
`;

/**
 * The host as \`eql serve\` configures it (configFromEnv), a query on BTC (validated, then created),
 * then (in the ccxt cases) a wait until ccxt was imported. Writes what it saw as JSON: the query's
 * status code, the modules resolved after the build and at the end (the hook's log), and the
 * CommonJS modules loaded.
 */
const MAIN = `
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const { buildServer, configFromEnv, createApiKey } = await import(process.env.EQL_TEST_SERVER);
const logged = () => readFileSync(process.env.EQL_TEST_MODULE_LOG, 'utf8').split('\\n').filter(Boolean);
const mode = process.env.EQL_TEST_MODE;
/** Waits until a logged module matches, or the time is up. */
const loadedWithin = async (ms, pattern) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !logged().some((url) => pattern.test(url))) await new Promise((resolve) => setTimeout(resolve, 20));
};
const host = await buildServer({ config: configFromEnv(process.env), logger: false });
// A ccxt feed starts importing the venue package at the build; give any import a moment either way.
await loadedWithin(mode === 'ccxt' ? 30_000 : 200, ${VENUE});
const afterBuild = logged();
const { key } = await createApiKey(host.context.store, host.context.box, { name: 'venue-loading', plan: 'pro' });
const query = { title: 'BTC above 1', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'BTC' } }], expiresIn: '1h' } };
const post = (url) => host.app.inject({ method: 'POST', url, headers: { 'x-svc-api-key': key, 'content-type': 'application/json' }, payload: JSON.stringify(query) });
await post('/v2/auto/queries/validate');
const created = await post('/v2/auto/queries');
if (mode === 'exchanges') await host.context.publicExchange('binance');
await loadedWithin(mode === 'default' ? 500 : 30_000, /\\/node_modules\\/ccxt\\//);
await host.close();
const commonJs = Object.keys(createRequire(import.meta.url).cache);
writeFileSync(process.env.EQL_TEST_REPORT, JSON.stringify({ status: created.statusCode, afterBuild, atEnd: logged(), commonJs }));
process.exit(0);
`;

interface Report {
  status: number;
  afterBuild: string[];
  atEnd: string[];
  commonJs: string[];
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

async function hostModules(mode: 'default' | 'ccxt' | 'exchanges', env: Record<string, string> = {}): Promise<Report> {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npx tsc -b\` first`);
  const dir = await mkdtemp(join(tmpdir(), 'eql-venue-loading-'));
  dirs.push(dir);
  await Promise.all([writeFile(join(dir, 'main.mjs'), MAIN), writeFile(join(dir, 'modules.log'), '')]);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EQL_') && name !== 'NODE_OPTIONS'));
  const childEnv = {
    ...inherited,
    EQL_TEST_SERVER: pathToFileURL(SERVER).href,
    EQL_TEST_MODULE_LOG: join(dir, 'modules.log'),
    EQL_TEST_MODE: mode,
    EQL_TEST_REPORT: join(dir, 'report.json'),
    EQL_DATA_DIR: join(dir, 'data'),
    ...env,
  };
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['--import', writeModuleLogger(dir, PRELOAD), join(dir, 'main.mjs')], { env: childEnv, timeout: 60_000 }, (error, _out, err) =>
      error ? reject(new Error(`the host process failed: ${error.message}\n${err}`)) : resolve(),
    );
  });
  return JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
}

const ccxtIn = (modules: string[]): string[] => modules.filter((module) => module.includes(CCXT));
const venueIn = (modules: string[]): string[] => modules.filter((module) => VENUE.test(module));

describe('the host loads the ccxt venue only when configured', () => {
  it('with the default configuration (replay feed, paper venue) and an active query, neither @eql/venue-ccxt nor ccxt is loaded', { timeout: 60_000 }, async () => {
    const report = await hostModules('default');
    expect(report.status).toBe(201);
    // The log does see the host's own modules and its dependencies (the hook works).
    expect(report.atEnd.some((url) => url.includes('/packages/server/dist/'))).toBe(true);
    expect(report.atEnd.some((url) => url.includes('/node_modules/fastify/'))).toBe(true);
    expect(venueIn(report.atEnd)).toEqual([]);
    expect(ccxtIn(report.atEnd)).toEqual([]);
    expect(ccxtIn(report.commonJs)).toEqual([]);
  });

  it('with a ccxt feed (EQL_FEED=ccxt:binance, no venue reachable), @eql/venue-ccxt is loaded at the build and ccxt when a query subscribes', { timeout: 60_000 }, async () => {
    const report = await hostModules('ccxt', { EQL_FEED: 'ccxt:binance' });
    expect(report.status).toBe(201);
    expect(venueIn(report.afterBuild)).not.toEqual([]);
    expect(ccxtIn(report.afterBuild)).toEqual([]);
    expect(ccxtIn(report.atEnd)).not.toEqual([]);
  });

  it('with a real venue (EQL_EXCHANGES=binance) on the replay feed, both are loaded when the venue is first asked for, not at the build', { timeout: 60_000 }, async () => {
    const report = await hostModules('exchanges', { EQL_EXCHANGES: 'binance' });
    expect(report.status).toBe(201);
    expect(venueIn(report.afterBuild)).toEqual([]);
    expect(venueIn(report.atEnd)).not.toEqual([]);
    expect(ccxtIn(report.atEnd)).not.toEqual([]);
  });
});
