import { constants } from 'node:os';
import { configFromEnv, settingsWarnings, StartError, startServer } from '@eql/server';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';
import { terminalText } from '../terminal-text.js';

export interface ServeFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  /** `--x402-demo`: the payment routes to a demo payee (as EQL_X402_DEMO=1; `npm start` sets it). */
  x402Demo?: boolean;
}

/**
 * After the host closed: how long anything still open may hold the process. It never delays an exit (the
 * timer is unref'd: the process ends as soon as nothing holds it); it is the bound for sockets still closing,
 * such as a database pool's after its end resolved, which on a loaded machine take more than a few ms.
 */
export const CLOSED_LINGER_MS = 2_000;

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * `eql serve`: starts the HTTP host (defaults from EQL_PORT, EQL_HOST, EQL_DATA_DIR and the other EQL_*
 * variables; flags win). Runs until the process gets SIGINT or SIGTERM, then closes cleanly (exit 0):
 * the streams end, the server stops, the engine lets go of its feeds and the store is closed, after
 * which nothing holds the event loop. `/ready` answers 503 from the signal on; the host serves on for
 * EQL_SHUTDOWN_DELAY_MS (default 0) so that load balancers see it, then closes (in-flight requests are
 * answered). Should the host not have closed EQL_SHUTDOWN_GRACE_MS (default 10 s) after the signal, the
 * process exits anyway with 1; once closed, anything outside it still holding the process gets
 * {@link CLOSED_LINGER_MS}, then the process exits 0 and says what was open. A second signal exits at once. A start that
 * fails closes what it had opened and ends the process: exit 2 with one line when the configuration or
 * the machine explains it (`StartError`: a port in use, a database out of reach, a refused key), else
 * exit 70 with the stack of the unexpected failure.
 */
export async function serveCommand(flags: ServeFlags, io: CliIo): Promise<number> {
  let config;
  try {
    config = configFromEnv(process.env, {
      ...(flags.port !== undefined ? { port: Number(flags.port) } : {}),
      ...(flags.host !== undefined ? { host: flags.host } : {}),
      ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
    });
  } catch (error) {
    throw new UnusableInput((error as Error).message);
  }
  if (flags.x402Demo) config = { ...config, x402: { ...config.x402, demo: true } };
  // A misspelt variable would be ignored in silence: it is named, with the one it was likely meant to be.
  for (const warning of settingsWarnings(process.env)) io.stderr(`warning: ${warning}\n`);
  const level = terminalLogLevel(config.logLevel, process.stdout.isTTY === true, process.env.EQL_LOG_LEVEL);
  if (level !== config.logLevel) {
    config = { ...config, logLevel: level };
    io.stderr(`log: warnings and errors only on this terminal (set EQL_LOG_LEVEL=info for every request, as JSON)\n`);
  }
  let closed = false;
  let stopSignal: ((signal: NodeJS.Signals) => void) | undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => (stopSignal = resolve));
  let signals = 0;
  // Listened to before the start: a signal during the start stops the host as soon as it is up.
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals === 1) {
      stopSignal?.(signal);
      return;
    }
    io.stderr(closed ? `${signal} again: exiting now\n` : `${signal} again: exiting now, without waiting for the host to close\n`);
    process.exit(closed ? 0 : 128 + (constants.signals[signal] ?? 0));
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);

  let started;
  try {
    // What the host says at start goes to stderr: stdout carries the JSON log alone, for a log shipper.
    started = await startServer(config, (line) => io.stderr(`${line}\n`));
  } catch (error) {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    // The start closed what it had opened: should something still hold the process, it ends anyway.
    setTimeout(() => {
      io.stderr(`the start failed, and still open ${CLOSED_LINGER_MS} ms later: ${openResources().join(', ')}; exiting anyway\n`);
      process.exit(error instanceof StartError ? 2 : 70);
    }, CLOSED_LINGER_MS).unref();
    // A refusal its operator fixes in the configuration or the machine: one line, no stack trace (exit 2).
    if (error instanceof StartError) throw new UnusableInput(error.message);
    throw error;
  }
  const { host } = started;
  const signal = await stopped;
  const { delayMs, graceMs } = config.shutdown;
  host.drain();
  io.stderr(`${signal}: closing${delayMs > 0 ? ` in ${delayMs} ms (/ready answers 503 meanwhile)` : ''} (send it again to exit at once)\n`);
  const watchdog = setTimeout(() => {
    io.stderr(`the host did not close within ${graceMs} ms of ${signal}; exiting anyway\n`);
    process.exit(1);
  }, graceMs);
  // The watchdog never holds the process itself: it only acts when something else does.
  watchdog.unref();
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  try {
    await host.close();
  } catch (error) {
    io.stderr(`eql serve: closing the host failed: ${terminalText(error instanceof Error ? error.message : String(error))}\n`);
    return 1;
  }
  closed = true;
  // Closed: what still holds the process (a DNS lookup of an unreachable venue, a library's timer) gets
  // a short while to let go, not the whole grace period.
  clearTimeout(watchdog);
  setTimeout(() => {
    io.stderr(`closed, but still open ${CLOSED_LINGER_MS} ms later: ${openResources().join(', ')}; exiting anyway\n`);
    process.exit(0);
  }, CLOSED_LINGER_MS).unref();
  return 0;
}

/** What holds the event loop, by kind (`Timeout`, `TCPSocketWrap`, ...), without the standard streams. */
function openResources(): string[] {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'TTYWrap' || kind === 'PipeWrap') continue;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, count]) => (count > 1 ? `${kind} x${count}` : kind));
}

/**
 * The log level of a host started on a terminal: a person reading it gets warnings and errors, not a JSON
 * line per request between the lines the host says; when standard output is a pipe or a file (a service,
 * a container, a log shipper), or EQL_LOG_LEVEL is set, the configured level.
 */
export function terminalLogLevel(configured: string, stdoutIsTerminal: boolean, explicit: string | undefined): string {
  return stdoutIsTerminal && (explicit === undefined || explicit === '') && configured === 'info' ? 'warn' : configured;
}
