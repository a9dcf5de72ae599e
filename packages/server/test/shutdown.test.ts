import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { call, createQuery, freePort, notifyQuery, RawStream, removeDir, until } from './support/harness.js';

// `eql serve` (what `npm start` runs) as a child process, stopped with SIGTERM or SIGINT after a query
// fired and with an SSE client connected: it must exit with code 0 within 2 s, on the replay feed
// (whose looping timer once outlived its last subscriber and kept the process alive for ever) and on
// a ccxt feed whose venue cannot be reached.

const bin = fileURLToPath(new URL('../../cli/bin/eql.js', import.meta.url));
const API_KEY = 'eql_shutdown_test_key_0123456789abcdef';
/*
 * The requirement: the host is gone soon after the signal. No test measures it with a clock (a loaded
 * machine would fail it): the host closes what it holds, and its watchdog ends the process
 * EQL_SHUTDOWN_GRACE_MS (10 s) after the signal whatever is left (200 ms once the host closed). The tests check that the host
 * exits by itself, cleanly, and (where nothing holds it) without the watchdog.
 */
/** At speed 60 a recorded minute is a second: BTC first shows up 5 s after the start, on the replay's timer. */
const SPEED = 60;
const BTC_FROM_MINUTE = 5;

/**
 * Loaded with `--import` in the ccxt cases: no name resolves, so no venue is reachable whatever the
 * machine's network. `fail`: every lookup fails at once (ENOTFOUND, like a machine offline). `hang`:
 * lookups never answer (like a network that drops packets), so a ccxt request waits for its own
 * 10 s timeout; the preload says so on stderr when that happens.
 */
const OFFLINE_DNS = `
import dns from 'node:dns';
const mode = process.env.EQL_TEST_DNS;
const original = dns.lookup;
const local = (name) => name === 'localhost' || /^[0-9.]+$/.test(name) || name.includes(':');
dns.lookup = function lookup(hostname, options, callback) {
  const done = typeof options === 'function' ? options : callback;
  if (local(hostname)) return original.call(this, hostname, options, callback);
  if (mode === 'hang') {
    process.stderr.write('offline-dns: holding the lookup of ' + hostname + '\\n');
    return;
  }
  const error = Object.assign(new Error('getaddrinfo ENOTFOUND ' + hostname), { code: 'ENOTFOUND', errno: -3008, syscall: 'getaddrinfo', hostname });
  process.nextTick(done, error);
};
dns.promises.lookup = (hostname, options) => new Promise((resolve, reject) => dns.lookup(hostname, options ?? {}, (error, address, family) => (error ? reject(error) : resolve(Array.isArray(address) ? address : { address, family }))));
`;

interface Child {
  process: ChildProcess;
  /** Both streams as they came. */
  output: () => string;
  /** Standard output alone. */
  stdout: () => string;
  /** Resolves with the exit code and the time of the exit (performance.now()). */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) await removeDir(dir);
});

/** A temporary data directory, the recording and the DNS preload; the environment of a host there. */
async function workspace(): Promise<{ dir: string; preload: string; env: Record<string, string>; base: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'eql-shutdown-'));
  dirs.push(dir);
  const recording = join(dir, 'recording.jsonl');
  const lines = ['// ETH from the start, BTC at 100 from minute 5 (shutdown test)'];
  for (let minute = 0; minute <= 12; minute += 1) {
    const at = new Date(Date.UTC(2026, 0, 5, 0, minute)).toISOString();
    lines.push(JSON.stringify({ at, source: 'price', symbol: 'ETH', price: 10 }));
    if (minute >= BTC_FROM_MINUTE) lines.push(JSON.stringify({ at, source: 'price', symbol: 'BTC', price: 100 }));
  }
  await writeFile(recording, `${lines.join('\n')}\n`);
  const preload = join(dir, 'offline-dns.mjs');
  await writeFile(preload, OFFLINE_DNS);
  const port = await freePort();
  const env = {
    EQL_PORT: String(port),
    EQL_HOST: '127.0.0.1',
    EQL_DATA_DIR: join(dir, 'data'),
    EQL_API_KEY: API_KEY,
    EQL_RECORDING: recording,
    EQL_REPLAY_SPEED: String(SPEED),
    EQL_LOG_LEVEL: 'warn',
  };
  return { dir, preload, env, base: `http://127.0.0.1:${port}` };
}

async function serve(env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EQL_') && name !== 'NODE_OPTIONS'));
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let exited = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    }),
  );
  // Waits for the line (or the exit), not for a clock: a host that loads ccxt on a loaded machine may take
  // long to listen; the test's own timeout bounds the wait.
  const listening = new Promise<void>((resolve) => {
    const check = () => {
      if (/listening on http:\/\//.test(output)) resolve();
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
  });
  await Promise.race([listening, exit]);
  if (exited) throw new Error(`eql serve exited early:\n${output}`);
  return { process: child, output: () => output, stdout: () => stdout, exit };
}

/** Polls `read` until it gives a value `done` accepts (no fixed sleeps: each round waits for an answer). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const statusOf = async (base: string, queryId: string): Promise<string | undefined> => {
  const polled = await call(base, 'GET', `/v2/auto/queries/${queryId}`, API_KEY);
  return (polled.body as { status?: string } | undefined)?.status;
};

/** An SSE stream of all the key's queries, once its `ready` event (and, if asked, a notification) came. */
async function openStream(base: string, notifications: number): Promise<RawStream> {
  const stream = await RawStream.open(`${base}/v2/auto/queries/stream`, { 'x-svc-api-key': API_KEY, 'last-event-id': '0' });
  expect(stream.status).toBe(200);
  await until(() => stream.named('ready').length === 1 && stream.named('notification:new').length >= notifications, 'the stream to be ready');
  return stream;
}

/** Sends the signal and waits for the exit: its code and signal. */
async function stop(child: Child, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  expect(child.process.kill(signal)).toBe(true);
  const exit = await child.exit;
  return { code: exit.code, signal: exit.signal };
}

describe('eql serve stops on a signal', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} after a query fired on the replay feed, with an SSE client connected: exit 0, nothing left open`, { timeout: 60_000 }, async () => {
      const { env, base } = await workspace();
      const host = await serve(env);
      const queryId = await createQuery(base, API_KEY, notifyQuery('BTC', 1));
      await eventually(() => statusOf(base, queryId), (status) => status === 'triggered', 'the query to fire');
      const stream = await openStream(base, 1);

      const stopped = await stop(host, signal);
      expect(stopped.signal, host.output()).toBeNull();
      expect(stopped.code, host.output()).toBe(0);
      // It stopped because nothing was left open, not because the shutdown watchdog gave up waiting.
      expect(host.output()).toContain(`${signal}: closing`);
      expect(host.output()).not.toMatch(/exiting anyway/);
      await until(() => stream.ended, 'the stream to end');
    });
  }

  for (const dns of ['fail', 'hang'] as const) {
    it(`SIGTERM on a ccxt feed whose venue is unreachable (lookups ${dns === 'fail' ? 'fail' : 'never answer'}), with a query and an SSE client: exit 0`, { timeout: 60_000 }, async () => {
      const { env, base, preload } = await workspace();
      const host = await serve({ ...env, EQL_FEED: 'ccxt:binance', EQL_TEST_DNS: dns }, ['--import', preload]);
      expect(host.output()).toContain('feed: ccxt:binance');
      // The query subscribes to BTC on binance: ccxt loads and asks the venue for its markets.
      const queryId = await createQuery(base, API_KEY, notifyQuery('BTC', 1));
      expect(await statusOf(base, queryId)).toBe('active');
      if (dns === 'hang') await until(() => /offline-dns: holding the lookup/.test(host.output()), 'ccxt to ask the venue');
      const stream = await openStream(base, 0);

      const stopped = await stop(host, 'SIGTERM');
      expect(stopped.signal, host.output()).toBeNull();
      expect(stopped.code, host.output()).toBe(0);
      await until(() => stream.ended, 'the stream to end');
    });
  }

  it('SIGTERM turns /ready 503 at once; the host serves on for EQL_SHUTDOWN_DELAY_MS, then closes and exits 0', { timeout: 60_000 }, async () => {
    const { env, base } = await workspace();
    const host = await serve({ ...env, EQL_SHUTDOWN_DELAY_MS: '5000', EQL_SHUTDOWN_GRACE_MS: '20000', EQL_LOG_LEVEL: 'info' });
    expect((await fetch(`${base}/ready`)).status).toBe(200);
    expect(host.process.kill('SIGTERM')).toBe(true);
    await until(() => host.output().includes('SIGTERM: closing in 5000 ms (/ready answers 503 meanwhile)'), 'the shutdown to start');
    const readyAnswer = await fetch(`${base}/ready`);
    expect(readyAnswer.status).toBe(503);
    expect(((await readyAnswer.json()) as { reason: string }).reason).toBe('the host is shutting down');
    // Still serving meanwhile: a load balancer that has not seen the 503 yet loses no request.
    expect((await fetch(`${base}/v2/ping`)).status).toBe(200);
    const exit = await host.exit;
    expect(exit, host.output()).toEqual({ code: 0, signal: null });
    expect(host.output()).not.toMatch(/exiting anyway/);
    // Standard output is the JSON log alone (a log shipper reads it); what the host says for people is on stderr.
    const lines = host.stdout().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    expect(lines.some((line) => (JSON.parse(line) as { msg?: string }).msg === 'request completed')).toBe(true);
    expect(host.output()).toContain('listening on http://');
    expect(host.stdout()).not.toContain('listening on');
  });

  it('a second signal during the shutdown exits at once', { timeout: 60_000 }, async () => {
    const { env, base, preload } = await workspace();
    // A ccxt request that never gets an answer holds the process after the host closed, until the watchdog.
    const host = await serve({ ...env, EQL_FEED: 'ccxt:binance', EQL_TEST_DNS: 'hang' }, ['--import', preload]);
    await createQuery(base, API_KEY, notifyQuery('BTC', 1));
    await until(() => /offline-dns: holding the lookup/.test(host.output()), 'ccxt to ask the venue');

    expect(host.process.kill('SIGTERM')).toBe(true);
    await until(() => host.output().includes('SIGTERM: closing'), 'the shutdown to start');
    expect(host.process.kill('SIGINT')).toBe(true);
    const exit = await host.exit;
    expect(exit.signal, host.output()).toBeNull();
    expect(host.output()).toMatch(/SIGINT again: exiting/);
    // It did not wait for the watchdog.
    expect(host.output()).not.toMatch(/exiting anyway/);
    // 0 when the host had closed by then, 130 (128 + SIGINT) when it was still closing.
    expect([0, 130], host.output()).toContain(exit.code);
  });
});
