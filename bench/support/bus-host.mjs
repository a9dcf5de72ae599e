// One `eql serve` child on PostgreSQL and the NATS bus, as the cluster and storm benchmarks start them.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATS_URL } from './pg-admin.mjs';

const BIN = fileURLToPath(new URL('../../packages/cli/bin/eql.js', import.meta.url));

/**
 * Starts a host (this process's environment without its EQL_ variables, then the bus settings and
 * `extraEnv`) and resolves with `{ child, base, exited }` once it listens; rejects with its output
 * when it exits first.
 */
export function startBusHost({ databaseUrl, stream, nodeId, partitions, secret, dir, extraEnv = {} }) {
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EQL_') && name !== 'NODE_OPTIONS')),
    EQL_DATABASE_URL: databaseUrl,
    EQL_NATS_URL: NATS_URL,
    EQL_NATS_STREAM: stream,
    EQL_FEED: 'bus',
    EQL_SECRET_KEY: secret,
    EQL_NODE_ID: nodeId,
    EQL_PARTITIONS: String(partitions),
    EQL_PORT: '0',
    EQL_HOST: '127.0.0.1',
    EQL_DATA_DIR: join(dir, nodeId),
    EQL_MARKET_SEED: 'none',
    EQL_LOG_LEVEL: 'error',
    ...extraEnv,
  };
  return new Promise((resolve, reject) => {
    // BENCH_HOST_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the hosts (written when they stop on SIGTERM).
    const nodeArgs = (process.env.BENCH_HOST_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let listening = false;
    const exited = new Promise((done) => child.once('exit', done));
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match && !listening) {
        listening = true;
        resolve({ child, base: match[1], exited });
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('exit', () => {
      if (!listening) reject(new Error(`eql serve exited:\n${output}`));
    });
  });
}
