import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { createApiKey, ensureKey } from './auth/api-keys.js';
import { buildServer, type Host } from './build-server.js';
import { describeLlmConfig } from '@eql/llm';
import { type HostConfig, x402ConfigProblem } from './config.js';
import { redactDatabaseUrl } from './store/pg/database-url.js';
import { busHasCredentials, DEFAULT_MARKET_STREAM, redactNatsUrl } from './scale-out/index.js';
import { StartError } from './start-error.js';
import { startTracing, tracesEndpoint } from './observability/tracing.js';

/** A running host, as {@link startServer} resolves it: the built host and the URL it listens on. */
export interface Started {
  host: Host;
  url: string;
}

/**
 * Starts the host: builds it, makes sure the configured key exists (EQL_API_KEY / EQL_HMAC_SECRET),
 * creates a demo key on the first start of an empty data directory (kept in `demo-key.json`, mode
 * 0600, so it can be shown again), listens, and prints `listening on http://HOST:PORT`. A start that
 * fails closes whatever it had opened (the process can end) and throws; a failure the configuration or
 * the machine explains (a port in use, a database or a bus out of reach, a directory that cannot be
 * made) is a {@link StartError}, whose message is the one line to show.
 */
export async function startServer(config: HostConfig, print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<Started> {
  try {
    return await buildAndListen(config, print);
  } catch (error) {
    // A system call refused (mkdir of the data directory, a file it cannot write): its message says which.
    throw isSystemError(error) ? new StartError(error.message, { cause: error }) : error;
  }
}

async function buildAndListen(config: HostConfig, print: (line: string) => void): Promise<Started> {
  // Checked before a demo payee is made: a facilitator would settle real transfers to it.
  const x402Problem = x402ConfigProblem(config.x402);
  if (x402Problem) throw new StartError(x402Problem);
  // The keyless payment routes exist with a real payee, or with the demo payee when asked for (EQL_X402_DEMO,
  // `eql serve --x402-demo`): never by default, since a demo payee takes payments that are never settled.
  const demoPayments = config.x402.payTo || !config.x402.demo ? undefined : demoPaymentSettings(config.dataDir);
  const { demo: _demo, ...x402 } = config.x402;
  config = { ...config, x402: demoPayments ? { ...x402, demo: true, payTo: demoPayments.payTo, agentSecrets: x402.agentSecrets.length > 0 ? x402.agentSecrets : [demoPayments.agentSecret] } : x402 };
  // OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT asks for them (docs/operations.md, "Traces").
  const tracing = await startTracing(process.env, config.nodeId);
  const host = await buildServer({ config, ...(tracing ? { tracing } : {}) }).catch(async (error: unknown) => {
    await tracing?.shutdown().catch(() => undefined);
    throw error;
  });
  if (tracing) print(`traces: OTLP to ${otlpTarget(process.env)}`);
  try {
    return await announceAndListen(host, config, print, demoPayments);
  } catch (error) {
    // Built, then failed: the host is closed (its store, engine, bus and timers), else the process would hang.
    await host.close().catch(() => undefined);
    throw error;
  }
}

/** The keys and what the host says at start, then `listen`. */
async function announceAndListen(host: Host, config: HostConfig, print: (line: string) => void, demoPayments: { payTo: string; agentSecret: string } | undefined): Promise<Started> {
  const { store, box } = host.context;
  if (config.seedApiKey) {
    const seeded = await ensureKey(store, box, { key: config.seedApiKey, plan: config.seedPlan, name: 'EQL_API_KEY', scopes: ['ingest'], ...(config.seedHmacSecret ? { hmacSecret: config.seedHmacSecret } : {}) });
    print(`api key from EQL_API_KEY ready (plan ${seeded.record.plan})${seeded.hmacSecret ? `; its HMAC secret: ${seeded.hmacSecret}` : ''}`);
    if (seeded.webhookSecret) print(`its webhook signing secret (shown once): ${seeded.webhookSecret}`);
  } else {
    const demoFile = join(config.dataDir, 'demo-key.json');
    if (!existsSync(demoFile)) {
      const demo = await createApiKey(store, box, { name: 'demo', plan: config.seedPlan, scopes: ['ingest'] });
      mkdirSync(config.dataDir, { recursive: true });
      writeFileSync(demoFile, JSON.stringify({ apiKey: demo.key, hmacSecret: demo.hmacSecret, webhookSecret: demo.webhookSecret }, null, 2), { mode: 0o600 });
    }
    const demo = JSON.parse(readFileSync(demoFile, 'utf8')) as { apiKey: string; hmacSecret: string; webhookSecret?: string };
    print(`demo api key: ${demo.apiKey}`);
    print(`demo hmac secret: ${demo.hmacSecret}`);
    // A demo key made before webhook secrets existed signs webhooks with its HMAC secret until rotated.
    print(`demo webhook signing secret: ${demo.webhookSecret ?? `${demo.hmacSecret} (its HMAC secret, until rotated: POST /v2/auto/webhook-secret/rotate)`}`);
    print(`(kept in ${demoFile}; set EQL_API_KEY to use your own)`);
  }
  if (demoPayments) {
    print(`x402 (demo): payments to ${demoPayments.payTo} on ${config.x402.network ?? 'eip155:84532'}, verified locally, never settled (EQL_X402_DEMO=1 or --x402-demo; set EQL_X402_PAY_TO and EQL_X402_FACILITATOR_URL for real payments)`);
    if (config.x402.agentSecrets[0] === demoPayments.agentSecret) print(`demo agent secret: ${demoPayments.agentSecret}`);
    if (config.llm) print('x402 (demo): the routes that spend the language model (chat, the builder, queries with llm conditions or actions) are refused until EQL_X402_PAY_TO is set');
  }
  if (config.x402.payTo && !config.x402.facilitatorUrl) {
    print(
      `warning: x402 is offline${config.x402.offline ? ' (EQL_X402_OFFLINE)' : ''}: payments on ${config.x402.network ?? 'eip155:84532'} are verified locally and never settled on chain; set EQL_X402_FACILITATOR_URL to settle them`,
    );
  }
  print(`analyst: ${describeLlmConfig(config.llm)}`);
  const address = await host.app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
    throw listenRefusal(error, config);
  });
  const url = address.replace('[::1]', 'localhost');
  print(`feed: ${config.feed}${config.feed === 'replay' ? ` (${config.recordingPath}, speed ${config.replaySpeed}x, looping)` : ''}; data in ${config.dataDir}`);
  // The database URL is shown without its password.
  print(`store: ${config.databaseUrl ? `PostgreSQL at ${redactDatabaseUrl(config.databaseUrl)}` : `SQLite in ${config.dataDir}`}`);
  // The bus's URL is shown without its credentials, with how the host authenticates (never with what).
  if (config.natsUrl) print(`bus: NATS at ${redactNatsUrl(config.natsUrl)}, stream ${config.natsStream ?? DEFAULT_MARKET_STREAM}${busHasCredentials(config.natsUrl, config.natsAuth) ? '' : ', no credentials'}${config.natsAuth?.tls || /^(tls|wss):/.test(config.natsUrl) ? ', TLS' : ''}`);
  if (host.metricsApp) {
    const metricsAddress = await host.metricsApp.listen({ port: config.metrics.port ?? 0, host: config.metrics.host ?? config.host }).catch((error: unknown) => {
      throw listenRefusal(error, { ...config, port: config.metrics.port ?? 0, host: config.metrics.host ?? config.host });
    });
    print(`metrics: ${metricsAddress.replace('[::1]', 'localhost')}/metrics${config.metrics.token ? ' (bearer token)' : ''}`);
  } else if (config.metrics.enabled) print(`metrics: ${url}/metrics${config.metrics.token ? ' (bearer token)' : ''}`);
  print(`listening on ${url}`);
  return { host, url };
}

/** Where spans go, without a path or credentials (the endpoint of a hosted collector may carry a token in its query). */
function otlpTarget(env: NodeJS.ProcessEnv): string {
  try {
    return new URL(tracesEndpoint(env)).origin;
  } catch {
    return 'an endpoint that is not a URL';
  }
}

/**
 * The payment model's settings of a demo host (no EQL_X402_PAY_TO): a random receiving address and an
 * agent secret, made on the first start and kept in `x402-demo.json` (mode 0600). Nothing is ever
 * settled without a facilitator, so the address only has to be well formed.
 */
function demoPaymentSettings(dataDir: string): { payTo: string; agentSecret: string } {
  const file = join(dataDir, 'x402-demo.json');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify({ payTo: `0x${randomBytes(20).toString('hex')}`, agentSecret: `agent_${randomBytes(24).toString('base64url')}` }, null, 2), { mode: 0o600 });
  }
  return JSON.parse(readFileSync(file, 'utf8')) as { payTo: string; agentSecret: string };
}

/** An error of a system call (`code` and `syscall` set by Node): the machine's answer, not a fault of the host. */
function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** Why `listen` failed, in the settings' words: a {@link StartError} naming the address and what to change. */
function listenRefusal(error: unknown, config: HostConfig): unknown {
  if (!isSystemError(error)) return error;
  const where = `${isIP(config.host) === 6 ? `[${config.host}]` : config.host}:${config.port}`;
  const why: Record<string, string> = {
    EADDRINUSE: 'the port is in use (EADDRINUSE): stop what holds it, or set EQL_PORT (--port) to another',
    EADDRNOTAVAIL: 'no interface of this machine has that address (EADDRNOTAVAIL): set EQL_HOST (--host) to one of its addresses, or 0.0.0.0 for all',
    EACCES: 'not permitted (EACCES): a port below 1024 needs privileges; set EQL_PORT (--port) to 1024 or above',
    ENOTFOUND: 'the host name does not resolve (ENOTFOUND): set EQL_HOST (--host) to an address or a name of this machine',
    EAI_AGAIN: 'the host name could not be resolved now (EAI_AGAIN): set EQL_HOST (--host) to an address, or try again',
  };
  return new StartError(`cannot listen on ${where}: ${why[error.code as string] ?? error.message}`, { cause: error });
}
