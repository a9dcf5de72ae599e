import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, it } from 'vitest';
import { freePort } from './harness.js';

/**
 * A PostgreSQL server of a test's own (the machine's PostgreSQL 15 binaries, or EQL_TEST_PG_BIN): a
 * cluster made by initdb in a temporary folder, trust authentication on 127.0.0.1 and a free port, that
 * the test may stop (fast or immediate, as a crash) and start again on the same port and data. fsync is
 * off (a process crash keeps what the kernel holds) but commits are synchronous: a crash loses no
 * acknowledged write, as on a real server. For what
 * the shared server cannot show: a database that goes away under load and comes back.
 *
 * PostgreSQL refuses to run as root: as root, the folder is given to the `postgres` user and the
 * binaries run as that user (runuser).
 */

export const PG_BIN = process.env.EQL_TEST_PG_BIN?.trim() || '/usr/lib/postgresql/15/bin';

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;

export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  port: number;
  dir: string;
  /** Whether the server runs now. */
  running(): boolean;
  /** Stops the server: `immediate` is a crash (no checkpoint, clients cut), `fast` a clean stop that cuts clients. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function command(binary: string, args: string[]): [string, string[]] {
  const path = join(PG_BIN, binary);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

/** Why a test cannot run a PostgreSQL server of its own here (undefined when it can). */
export function ownPostgresProblem(): string | undefined {
  if (!existsSync(join(PG_BIN, 'postgres')) || !existsSync(join(PG_BIN, 'initdb'))) return `no PostgreSQL binaries in ${PG_BIN}`;
  return undefined;
}

/**
 * `describe` when a PostgreSQL of the test's own can run here; else a suite skipped by name, or under
 * CI=true a failing one.
 */
export function describeWithOwnPostgres(name: string, body: () => void): void {
  const problem = ownPostgresProblem();
  if (problem === undefined) describe(name, body);
  else if (process.env.CI === 'true') describe(name, () => it(`needs a PostgreSQL of its own (CI=true): ${problem}`, () => {
    throw new Error(problem);
  }));
  else describe.skip(`${problem}: skipped (${name})`, body);
}

/** Makes a cluster (initdb) and starts it; resolves once it accepts connections. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'eql-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    await chmod(dir, 0o700);
    await chown(dir, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  }
  const [initdb, initArgs] = command('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  await run(initdb, initArgs);
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    const [postgres, args] = command('postgres', ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200']);
    const started = spawn(postgres, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    children.add(started);
    started.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    started.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    started.once('exit', () => {
      children.delete(started);
      if (child === started) child = undefined;
    });
    // Ready when it answers a query (polled: a state, not a time budget; bounded against a server that never comes).
    for (let attempt = 0; ; attempt += 1) {
      if (child !== started) throw new Error(`PostgreSQL exited before it was ready:\n${output}`);
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return;
      } catch (error) {
        if (attempt > 1_200) throw new Error(`PostgreSQL did not answer: ${(error as Error).message}\n${output}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await client.end().catch(() => undefined);
      }
    }
  };

  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    const running = child;
    if (!running) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    // postgres's own signals: SIGINT is a fast shutdown, SIGQUIT an immediate one (a crash, recovered at the next start).
    // The postmaster itself (under runuser, the child is runuser): its pid is the first line of postmaster.pid.
    const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, mode === 'immediate' ? 'SIGQUIT' : 'SIGINT');
    else running.kill('SIGKILL');
    await exited;
  };

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await start();
  return {
    url,
    port,
    dir,
    running: () => child !== undefined,
    stop,
    start,
    destroy: async () => {
      await stop('immediate');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
