import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeModuleLogger } from '../../../test/support/module-log.js';

// The language commands start without the HTTP host: `eql validate` (or fmt, convert, estimate,
// preview) loads neither @eql/server nor Fastify nor SQLite; `eql keys create` does. The built bin runs
// in a child process whose module resolutions a `module.register` hook logs.

const BIN = fileURLToPath(new URL('../bin/eql.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const HOST_MODULES = /\/(packages\/server|node_modules\/@eql\/server|node_modules\/fastify|node_modules\/better-sqlite3)\//;


const dir = mkdtempSync(join(tmpdir(), 'eql-cli-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const preload = writeModuleLogger(dir);

/** Runs the bin with arguments; answers the exit code and the modules it resolved. */
function modulesOf(name: string, args: string[]): Promise<{ code: number; modules: string[] }> {
  const log = join(dir, `${name}.log`);
  writeFileSync(log, '');
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_OPTIONS' && !key.startsWith('EQL_'))), EQL_TEST_MODULE_LOG: log, EQL_DATA_DIR: join(dir, 'data') };
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', preload, BIN, ...args], { cwd: ROOT, env, timeout: 60_000 }, (error) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) });
    });
  });
}

describe('eql loads the host only for the host commands', () => {
  it('validate runs without @eql/server, Fastify or SQLite', { timeout: 60_000 }, async () => {
    const run = await modulesOf('validate', ['validate', 'examples/price-alert.json']);
    expect(run.code).toBe(0);
    expect(run.modules.some((url) => url.includes('/packages/core/'))).toBe(true);
    expect(run.modules.filter((url) => HOST_MODULES.test(url))).toEqual([]);
  });

  it('--version and --help load neither the language nor the client nor the host: only the command line', { timeout: 60_000 }, async () => {
    const LANGUAGE_MODULES = /\/(packages\/(core|syntax|client)|node_modules\/@eql\/(core|syntax|client)|node_modules\/(ajv|chevrotain|rxjs))\//;
    for (const args of [['--version'], ['--help'], ['remote', '--help']]) {
      const run = await modulesOf(args.join('-'), args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.modules.some((url) => url.includes('/node_modules/commander/')), args.join(' ')).toBe(true);
      expect(run.modules.filter((url) => LANGUAGE_MODULES.test(url) || HOST_MODULES.test(url)), args.join(' ')).toEqual([]);
    }
  });

  it('keys create loads the host', { timeout: 60_000 }, async () => {
    const run = await modulesOf('keys', ['keys', 'create', '--name', 'lazy', '--json']);
    expect(run.code).toBe(0);
    expect(run.modules.some((url) => HOST_MODULES.test(url))).toBe(true);
    // The OpenTelemetry SDK only when traces are asked for (OTEL_EXPORTER_OTLP_ENDPOINT): its API alone here.
    expect(run.modules.filter((url) => /node_modules\/@opentelemetry\/(sdk-trace|exporter|resources|otlp)/.test(url))).toEqual([]);
  });
});
