import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';

/**
 * A nats-server of a test's own (`/usr/sbin/nats-server`, or EQL_TEST_NATS_SERVER): its configuration
 * file and JetStream store in a temporary folder, a port the server picks (`-1`, read back from its
 * log, so two tests never race for one), stopped and removed by `stop()`. For what the shared test
 * server cannot show: authorization, TLS, and who sees what on `>`.
 */

export const NATS_SERVER_BIN = process.env.EQL_TEST_NATS_SERVER?.trim() || '/usr/sbin/nats-server';

export interface TestNatsServer {
  /** `nats://127.0.0.1:<port>` (no credentials). */
  url: string;
  port: number;
  /** The temporary folder (configuration, store, anything the test writes there). */
  dir: string;
  /** Everything the server logged so far. */
  log(): string;
  /**
   * Stops the server (SIGTERM, a clean shutdown, unless `signal` says SIGKILL) and starts it again on the
   * same port with the same store, `downMs` later (default at once); resolves once it is ready. With
   * `jetstream: false` it comes back without JetStream (as a server whose JetStream is not ready yet).
   */
  restart(options?: { signal?: NodeJS.Signals; downMs?: number; jetstream?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts a server with `config` (nats-server configuration text: `authorization`, `tls`, `operator`,
 * ...) added to a listen address (`listen`, default 127.0.0.1, on a port of the server's choosing) and
 * JetStream in the temporary folder. A `config` function gets the folder first (to write certificates
 * the configuration names). Resolves once the server says it is ready.
 */
export async function startNatsServer(config: string | ((dir: string) => string | Promise<string>), options: { listen?: string; env?: Record<string, string> } = {}): Promise<TestNatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'eql-nats-'));
  const body = typeof config === 'string' ? config : await config(dir);
  const file = join(dir, 'server.conf');
  const launch = async (listenPort: number | undefined, withJetStream = true): Promise<{ child: ChildProcess; exited: Promise<void>; port: number }> => {
    await writeFile(file, [`listen: "${options.listen ?? '127.0.0.1'}:${listenPort ?? -1}"`, ...(withJetStream ? [`jetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }`] : []), body].join('\n'));
    // `env`: variables the configuration refers to (`password: $EQL_HOST_PASSWORD`).
    const child = spawn(NATS_SERVER_BIN, ['-c', file, ...(withJetStream ? ['-js'] : [])], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', ...options.env } });
    running.add(child);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let heardSoFar = '';
    const port = await new Promise<number>((resolve, reject) => {
      const heard = (chunk: string) => {
        output += chunk;
        heardSoFar += chunk;
        const listening = /Listening for client connections on [^\n]*:(\d+)/.exec(heardSoFar);
        if (listening && heardSoFar.includes('Server is ready')) resolve(Number(listening[1]));
      };
      child.stdout?.setEncoding('utf8').on('data', heard);
      child.stderr?.setEncoding('utf8').on('data', heard);
      void exited.then(() => reject(new Error(`nats-server exited before it was ready:\n${output}`)));
    });
    return { child, exited, port };
  };
  let output = '';
  let server = await launch(undefined);
  const { port } = server;
  const halt = async (signal: NodeJS.Signals = 'SIGTERM') => {
    server.child.kill(signal);
    await server.exited;
    running.delete(server.child);
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    log: () => output,
    restart: async ({ signal, downMs, jetstream = true } = {}) => {
      await halt(signal);
      if (downMs) await new Promise((resolve) => setTimeout(resolve, downMs));
      server = await launch(port, jetstream);
    },
    stop: async () => {
      await halt();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Why a test cannot start nats-server and openssl here (undefined when it can). */
function serverProblem(): string | undefined {
  if (!existsSync(NATS_SERVER_BIN)) return `no nats-server at ${NATS_SERVER_BIN}`;
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    return 'no openssl';
  }
  return undefined;
}

/** `describe` when nats-server and openssl are here; else skipped by name, or failing under CI=true. */
export function describeWithNatsServer(name: string, body: () => void): void {
  const problem = serverProblem();
  if (problem === undefined) describe(name, body);
  else if (process.env.CI === 'true') {
    describe(name, () => {
      it(`needs nats-server and openssl (CI=true): ${problem}`, () => {
        throw new Error(`${problem}; set EQL_TEST_NATS_SERVER or install nats-server`);
      });
    });
  } else describe.skip(`${problem}: skipped (${name})`, body);
}
