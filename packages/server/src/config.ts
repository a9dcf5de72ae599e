import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LlmConfig, llmConfigFromEnv } from '@eql/llm';
import { DEFAULT_PAYMENT_NETWORK, parsePaymentNetwork, settlementProblem } from '@eql/x402';
import { KEY_PATTERN, MIN_HMAC_SECRET_LENGTH } from './auth/key-format.js';
import { type NatsAuth, natsAuthFromEnv } from './bus/nats-settings.js';
import { DEFAULT_MAX_STREAMS_PER_KEY } from './sse/hub.js';
import { checkDatabaseUrl } from './store/pg/database-url.js';
import type { PgSessionTimeouts } from './store/pg/pg-pool.js';
import type { Plan } from './store/records.js';

export type { Plan } from './store/records.js';

/** What a host needs to start; `configFromEnv` reads it from the environment (see README). */
export interface HostConfig {
  port: number;
  host: string;
  /** Where the SQLite database and the generated secret key live. */
  dataDir: string;
  /**
   * The host's store on PostgreSQL instead of SQLite (EQL_DATABASE_URL, `postgres://user:password@host:5432/db`):
   * see docs/scale-out.md. Never logged with its password (store/pg/database-url.ts `redactDatabaseUrl`).
   */
  databaseUrl?: string;
  /**
   * This host's id among the hosts of one PostgreSQL database (EQL_NODE_ID; default `<hostname>-<pid>-<random>`),
   * shown in logs and in `GET /ready`.
   */
  nodeId: string;
  /**
   * How many partitions the queries of a PostgreSQL database fall into (EQL_PARTITIONS): fixed by the first
   * host to boot (32 when it sets none); a host set to another count refuses to start.
   */
  partitions?: number;
  /**
   * The cluster's market bus on NATS JetStream (EQL_NATS_URL, `nats://host:4222`; needs EQL_DATABASE_URL):
   * each partition of queries reads the market from one stream, from where its previous owner stopped
   * (docs/scale-out.md). With `feed: 'bus'` the host reads no feed itself: publishers (`eql bus publish`)
   * fill the stream.
   */
  natsUrl?: string;
  /** The JetStream stream of the market bus (EQL_NATS_STREAM, default EQL_MARKET). */
  natsStream?: string;
  /**
   * How the host authenticates to the bus's NATS server and the TLS it requires (EQL_NATS_USER and
   * EQL_NATS_PASSWORD, EQL_NATS_TOKEN, EQL_NATS_NKEY_SEED or EQL_NATS_NKEY_SEED_FILE, EQL_NATS_CREDS;
   * EQL_NATS_TLS_CA, EQL_NATS_TLS_CERT, EQL_NATS_TLS_KEY), files read at start (bus/nats-settings.ts).
   * Credentials in EQL_NATS_URL are used too. Never logged.
   */
  natsAuth?: NatsAuth;
  /** How long a host's leases on partitions last without renewal (EQL_LEASE_TTL_MS, default 6000): a dead host's queries run elsewhere within about 4/3 of it. */
  leaseTtlMs: number;
  /**
   * The timeouts of the host's PostgreSQL sessions, in ms, 0 for none (EQL_PG_STATEMENT_TIMEOUT_MS,
   * EQL_PG_LOCK_TIMEOUT_MS, EQL_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS; defaults 30,000, 10,000 and 60,000:
   * store/pg/pg-pool.ts).
   */
  pgTimeouts?: Partial<PgSessionTimeouts>;
  /** Ensure a key with this value exists at boot (EQL_API_KEY), with this HMAC secret (EQL_HMAC_SECRET). */
  seedApiKey?: string;
  seedHmacSecret?: string;
  seedPlan: Plan;
  /**
   * The payment model (`/x402/v2/*`, docs/x402.md): where payments go (EQL_X402_PAY_TO; the x402 routes
   * exist only with it), the network (EQL_X402_NETWORK, eip155:84532 Base Sepolia by default), a
   * facilitator that settles (EQL_X402_FACILITATOR_URL; none: local verification only, which Base
   * mainnet allows only with EQL_X402_OFFLINE=1), and the agent secrets (EQL_AGENT_SECRET, comma
   * separated, 16 characters at least). Limits: requests a minute per client address on `/x402/*`
   * (EQL_X402_REQUESTS_PER_MINUTE, default 300), and refused payment signatures a minute per claimed
   * payer and per client address (EQL_X402_BAD_SIGNATURES_PER_PAYER, default 20, and
   * EQL_X402_BAD_SIGNATURES_PER_ADDRESS, default 60; 0 turns one off).
   */
  x402: {
    payTo?: string;
    network?: string;
    facilitatorUrl?: string;
    agentSecrets: string[];
    /** Without a facilitator on purpose (EQL_X402_OFFLINE): payments verified, never settled. */
    offline?: boolean;
    /**
     * The demo payee on purpose (EQL_X402_DEMO, `eql serve --x402-demo`): without `payTo`, `eql serve`
     * makes a receiving address nobody settles to, so the routes can be tried; it never serves a route
     * that spends a real language model. Given to `buildServer` with `payTo`: that `payTo` is a demo.
     */
    demo?: boolean;
    /** Requests a minute per client address on the payment-model routes (default `X402_REQUESTS_PER_MINUTE`). */
    requestsPerMinute?: number;
    /** Refused signature checks a minute per claimed payer and per client address (`@eql/x402`'s `PaymentRateLimits`). */
    badSignaturesPerPayer?: number;
    badSignaturesPerAddress?: number;
  };
  /** 32-byte key for secrets at rest, hex or base64 (EQL_SECRET_KEY); generated in dataDir when absent. */
  secretKey?: string;
  /** Market data: `replay` (the shipped recordings, looped in real time) or `ccxt:<exchange id>`. */
  feed: string;
  /** Recording replayed by the `replay` feed and by previews. */
  recordingPath: string;
  /**
   * Market data loaded at start (JSON Lines, schemas/ingest.schema.json), shifted to end at the start
   * time: the seeded demo dataset by default; false for none (EQL_MARKET_SEED=none).
   */
  marketSeed: string | false;
  /** Replay speed of the `replay` feed: 1 is real time, 60 a recorded minute per second. */
  replaySpeed: number;
  /** Exchange ids that can be connected besides `paper` (EQL_EXCHANGES, comma separated). */
  exchanges: string[];
  /** Deliver webhooks to private and loopback hosts (EQL_ALLOW_PRIVATE_WEBHOOKS=1): tests and self-hosting only. */
  allowPrivateWebhooks: boolean;
  /** Bot API base URL of messenger_bot actions (EQL_MESSENGER_BASE_URL). */
  messengerBaseUrl?: string;
  /** An OpenAI-compatible model (EQL_LLM_BASE_URL, EQL_LLM_API_KEY, ...; docs/llm.md); none: the offline analyst. */
  llm?: LlmConfig;
  /**
   * Prometheus metrics at `GET /metrics` (docs/operations.md): on by default (EQL_METRICS=off turns them
   * off); on the host's own port, or only on `port` (EQL_METRICS_PORT, with EQL_METRICS_HOST, default the
   * host's address); with `token` (EQL_METRICS_TOKEN, 16 characters at least) a scrape must send
   * `Authorization: Bearer <token>`.
   */
  metrics: { enabled: boolean; port?: number; host?: string; token?: string };
  /**
   * `GET /ready` answers 503 when the host runs active queries and its engines took no observation for
   * longer than this (EQL_READY_MAX_FEED_AGE_MS, default 300,000: five minutes; 0 turns the check off).
   */
  readyMaxFeedAgeMs: number;
  /**
   * On SIGTERM or SIGINT `/ready` answers 503 at once; the host goes on serving for `delayMs`
   * (EQL_SHUTDOWN_DELAY_MS, default 0: the time a load balancer needs to see it), then closes, and the
   * process exits at the latest `graceMs` after the signal (EQL_SHUTDOWN_GRACE_MS, default 10,000;
   * Kubernetes gives 30 s by default).
   */
  shutdown: { delayMs: number; graceMs: number };
  /** Largest request body in bytes. */
  bodyLimit: number;
  /** Largest text-form body (`text/x-eql`) in bytes (EQL_TEXT_FORM_BODY_LIMIT; default 64 KB, capped by `bodyLimit`). */
  textFormBodyLimit?: number;
  /** `POST /v2/ingest` requests a minute per API key (EQL_INGEST_REQUESTS_PER_MINUTE; default `INGEST_REQUESTS_PER_MINUTE`). */
  ingestRequestsPerMinute?: number;
  /** Most SSE streams one API key may have open at once (EQL_SSE_MAX_STREAMS_PER_KEY); 429 beyond. */
  sseMaxStreamsPerKey: number;
  /**
   * Which proxies' X-Forwarded-For the host believes (EQL_TRUST_PROXY), as Fastify's `trustProxy`:
   * false (the default: the client address is the socket's peer), true (every proxy: only behind one
   * that overwrites the header), a number of hops, or the addresses and CIDR ranges of the proxies.
   * It sets `request.ip`, which the per-address rate limits count by.
   */
  trustProxy: TrustProxy;
  logLevel: string;
}

/** The {@link HostConfig.trustProxy} setting: off, all, a hop count, or proxy addresses and CIDR ranges. */
export type TrustProxy = boolean | number | string[];

/**
 * Fastify's `trustProxy` for a setting. A hop count trusts the `hops` nearest addresses of the chain
 * (the socket's peer first, then X-Forwarded-For from its right end) whatever they are, as Express
 * does; Fastify itself ignores a number (it cannot check the peer), so the count is a function here.
 * Use a count only when clients cannot reach the host except through that many proxies.
 */
export function fastifyTrustProxy(setting: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

/** Names proxy-addr (Fastify's trustProxy) accepts for address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Reads EQL_TRUST_PROXY: `true`/`false` (also yes/no, on/off), a hop count (`0` is off), or a comma list
 * of proxy addresses and CIDR ranges (`10.0.0.1, 192.168.0.0/16, ::1`, or loopback, linklocal,
 * uniquelocal). Anything else is an error: a typo must not silently trust every client's header.
 */
export function parseTrustProxy(text: string): TrustProxy {
  const value = text.trim();
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (value === '' || /^(false|no|off)$/i.test(value)) return false;
  if (/^[0-9]+$/.test(value)) return Number(value) === 0 ? false : Number(value);
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const version = isIP(address);
    const bits = version === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (!(PROXY_RANGE_NAMES.has(entry.toLowerCase()) || (version !== 0 && prefixOk && rest.length === 0))) {
      throw new Error(`EQL_TRUST_PROXY must be true, false, a number of hops, or a comma list of proxy addresses and CIDR ranges; "${entry}" is none of these`);
    }
  }
  return entries.map((entry) => (PROXY_RANGE_NAMES.has(entry.toLowerCase()) ? entry.toLowerCase() : entry));
}

/**
 * A file of the demo data the host runs on by default: in the package's `data/` folder when installed
 * (`npm pack` copies it there), else in the repository's `fixtures/`.
 */
function demoData(shipped: string, inRepository: string): string {
  const packaged = fileURLToPath(new URL(`../data/${shipped}`, import.meta.url));
  return existsSync(packaged) ? packaged : fileURLToPath(new URL(`../../../fixtures/${inRepository}`, import.meta.url));
}

/**
 * The configuration of a host on its defaults, with `overrides` applied: 127.0.0.1:8787, data in `./.eql-data`,
 * the replay feed of the demo recording and the demo market data, no real exchanges, no language model.
 */
export function defaultConfig(overrides: Partial<HostConfig> = {}): HostConfig {
  return {
    port: 8787,
    host: '127.0.0.1',
    dataDir: join(process.cwd(), '.eql-data'),
    seedPlan: 'pro',
    nodeId: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    leaseTtlMs: 6_000,
    feed: 'replay',
    recordingPath: demoData('market-3d.jsonl', 'recordings/market-3d.jsonl'),
    replaySpeed: 1,
    marketSeed: demoData('demo-mentions.jsonl', 'mentions/demo.jsonl'),
    exchanges: [],
    x402: { agentSecrets: [] },
    allowPrivateWebhooks: false,
    bodyLimit: 256 * 1024,
    metrics: { enabled: true },
    readyMaxFeedAgeMs: 300_000,
    shutdown: { delayMs: 0, graceMs: 10_000 },
    sseMaxStreamsPerKey: DEFAULT_MAX_STREAMS_PER_KEY,
    trustProxy: false,
    logLevel: 'info',
    ...overrides,
  };
}

function flag(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/** Reads the host configuration from `EQL_*` variables; unset ones keep their defaults. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env, overrides: Partial<HostConfig> = {}): HostConfig {
  const config = defaultConfig();
  if (env.EQL_PORT) config.port = Number(env.EQL_PORT);
  if (env.EQL_HOST) config.host = env.EQL_HOST;
  if (env.EQL_DATA_DIR) config.dataDir = resolve(env.EQL_DATA_DIR);
  if (env.EQL_DATABASE_URL?.trim()) config.databaseUrl = checkDatabaseUrl(env.EQL_DATABASE_URL.trim());
  if (env.EQL_NODE_ID?.trim()) config.nodeId = nodeIdOf(env.EQL_NODE_ID.trim());
  if (env.EQL_PARTITIONS) config.partitions = wholeNumber(env, 'EQL_PARTITIONS', 1);
  if (env.EQL_NATS_URL?.trim()) config.natsUrl = checkNatsUrl(env.EQL_NATS_URL.trim());
  if (env.EQL_NATS_STREAM?.trim()) config.natsStream = env.EQL_NATS_STREAM.trim();
  const natsAuth = natsAuthFromEnv(env);
  if (natsAuth) config.natsAuth = natsAuth;
  if (env.EQL_LEASE_TTL_MS) config.leaseTtlMs = wholeNumber(env, 'EQL_LEASE_TTL_MS', 300);
  const pgTimeouts: Partial<PgSessionTimeouts> = {
    ...(env.EQL_PG_STATEMENT_TIMEOUT_MS ? { statementMs: wholeNumber(env, 'EQL_PG_STATEMENT_TIMEOUT_MS', 0) } : {}),
    ...(env.EQL_PG_LOCK_TIMEOUT_MS ? { lockMs: wholeNumber(env, 'EQL_PG_LOCK_TIMEOUT_MS', 0) } : {}),
    ...(env.EQL_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS ? { idleInTransactionMs: wholeNumber(env, 'EQL_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS', 0) } : {}),
  };
  if (Object.keys(pgTimeouts).length > 0) config.pgTimeouts = pgTimeouts;
  // Checked before anything opens (the values are secrets: never repeated).
  if (env.EQL_API_KEY) {
    if (!KEY_PATTERN.test(env.EQL_API_KEY)) throw new Error('EQL_API_KEY must be 16 to 128 letters, digits, "_", "." or "-"');
    config.seedApiKey = env.EQL_API_KEY;
  }
  if (env.EQL_HMAC_SECRET) {
    if (env.EQL_HMAC_SECRET.length < MIN_HMAC_SECRET_LENGTH) throw new Error(`EQL_HMAC_SECRET must have at least ${MIN_HMAC_SECRET_LENGTH} characters`);
    config.seedHmacSecret = env.EQL_HMAC_SECRET;
  }
  if (env.EQL_API_PLAN === 'free' || env.EQL_API_PLAN === 'pro') config.seedPlan = env.EQL_API_PLAN;
  config.x402 = {
    ...(env.EQL_X402_PAY_TO?.trim() ? { payTo: env.EQL_X402_PAY_TO.trim() } : {}),
    ...(env.EQL_X402_NETWORK?.trim() ? { network: env.EQL_X402_NETWORK.trim() } : {}),
    ...(env.EQL_X402_FACILITATOR_URL?.trim() ? { facilitatorUrl: env.EQL_X402_FACILITATOR_URL.trim() } : {}),
    agentSecrets: (env.EQL_AGENT_SECRET ?? '').split(',').map((secret) => secret.trim()).filter(Boolean),
    ...(env.EQL_X402_OFFLINE ? { offline: flag(env.EQL_X402_OFFLINE) } : {}),
    ...(flag(env.EQL_X402_DEMO) ? { demo: true } : {}),
    ...(env.EQL_X402_REQUESTS_PER_MINUTE ? { requestsPerMinute: wholeNumber(env, 'EQL_X402_REQUESTS_PER_MINUTE', 1) } : {}),
    ...(env.EQL_X402_BAD_SIGNATURES_PER_PAYER ? { badSignaturesPerPayer: wholeNumber(env, 'EQL_X402_BAD_SIGNATURES_PER_PAYER', 0) } : {}),
    ...(env.EQL_X402_BAD_SIGNATURES_PER_ADDRESS ? { badSignaturesPerAddress: wholeNumber(env, 'EQL_X402_BAD_SIGNATURES_PER_ADDRESS', 0) } : {}),
  };
  if (env.EQL_SECRET_KEY) config.secretKey = env.EQL_SECRET_KEY;
  if (env.EQL_FEED) config.feed = env.EQL_FEED;
  if (env.EQL_RECORDING) config.recordingPath = resolve(env.EQL_RECORDING);
  if (env.EQL_REPLAY_SPEED) config.replaySpeed = Number(env.EQL_REPLAY_SPEED);
  if (env.EQL_MARKET_SEED) config.marketSeed = /^(none|off|false|0)$/i.test(env.EQL_MARKET_SEED.trim()) ? false : resolve(env.EQL_MARKET_SEED);
  if (env.EQL_EXCHANGES) config.exchanges = env.EQL_EXCHANGES.split(',').map((id) => id.trim()).filter(Boolean);
  if (env.EQL_ALLOW_PRIVATE_WEBHOOKS) config.allowPrivateWebhooks = flag(env.EQL_ALLOW_PRIVATE_WEBHOOKS);
  if (env.EQL_MESSENGER_BASE_URL) config.messengerBaseUrl = env.EQL_MESSENGER_BASE_URL;
  const llm = llmConfigFromEnv(env);
  if (llm) config.llm = llm;
  if (env.EQL_BODY_LIMIT) config.bodyLimit = Number(env.EQL_BODY_LIMIT);
  if (env.EQL_TEXT_FORM_BODY_LIMIT) config.textFormBodyLimit = wholeNumber(env, 'EQL_TEXT_FORM_BODY_LIMIT', 1);
  if (env.EQL_INGEST_REQUESTS_PER_MINUTE) config.ingestRequestsPerMinute = wholeNumber(env, 'EQL_INGEST_REQUESTS_PER_MINUTE', 1);
  if (env.EQL_SSE_MAX_STREAMS_PER_KEY) config.sseMaxStreamsPerKey = Number(env.EQL_SSE_MAX_STREAMS_PER_KEY);
  if (env.EQL_TRUST_PROXY !== undefined) config.trustProxy = parseTrustProxy(env.EQL_TRUST_PROXY);
  if (env.EQL_LOG_LEVEL) config.logLevel = env.EQL_LOG_LEVEL;
  if (env.EQL_READY_MAX_FEED_AGE_MS) config.readyMaxFeedAgeMs = wholeNumber(env, 'EQL_READY_MAX_FEED_AGE_MS', 0);
  if (env.EQL_SHUTDOWN_DELAY_MS) config.shutdown.delayMs = wholeNumber(env, 'EQL_SHUTDOWN_DELAY_MS', 0);
  if (env.EQL_SHUTDOWN_GRACE_MS) config.shutdown.graceMs = wholeNumber(env, 'EQL_SHUTDOWN_GRACE_MS', 100);
  if (config.shutdown.delayMs >= config.shutdown.graceMs) throw new Error(`EQL_SHUTDOWN_DELAY_MS (${config.shutdown.delayMs}) must be less than EQL_SHUTDOWN_GRACE_MS (${config.shutdown.graceMs}): the host must have time to close`);
  if (env.EQL_METRICS !== undefined) config.metrics.enabled = !/^(0|false|no|off)$/i.test(env.EQL_METRICS.trim());
  if (env.EQL_METRICS_PORT) config.metrics.port = wholeNumber(env, 'EQL_METRICS_PORT', 0);
  if (env.EQL_METRICS_HOST?.trim()) config.metrics.host = env.EQL_METRICS_HOST.trim();
  if (env.EQL_METRICS_TOKEN !== undefined) {
    if (env.EQL_METRICS_TOKEN.trim().length < 16) throw new Error('EQL_METRICS_TOKEN must have at least 16 characters');
    config.metrics.token = env.EQL_METRICS_TOKEN.trim();
  }
  const merged = { ...config, ...overrides };
  if (!Number.isInteger(merged.port) || merged.port < 0 || merged.port > 65535) throw new Error(`EQL_PORT must be a port number, not ${String(env.EQL_PORT)}`);
  if (!(merged.replaySpeed > 0)) throw new Error('EQL_REPLAY_SPEED must be a positive number');
  const x402 = x402ConfigProblem(merged.x402);
  if (x402) throw new Error(x402);
  if (!Number.isInteger(merged.sseMaxStreamsPerKey) || merged.sseMaxStreamsPerKey < 1) throw new Error(`EQL_SSE_MAX_STREAMS_PER_KEY must be a whole number above 0, not ${String(env.EQL_SSE_MAX_STREAMS_PER_KEY)}`);
  return merged;
}

/** A host id: letters, digits, `.`, `_`, `-` and `:`, at most 64 (it appears in logs and in the readiness route). */
/** A NATS server URL (`nats://`, `tls://` or `ws://`), refused with its password masked when malformed. */
function checkNatsUrl(text: string): string {
  for (const server of text.split(',')) {
    let url: URL;
    try {
      url = new URL(server.trim());
    } catch {
      throw new Error(`EQL_NATS_URL is not a URL: ${server.replace(/\/\/[^@/]*@/, '//***@')}`);
    }
    if (!['nats:', 'tls:', 'ws:', 'wss:'].includes(url.protocol)) throw new Error(`EQL_NATS_URL must start with nats://, tls://, ws:// or wss:// (got ${url.protocol}//)`);
  }
  return text;
}

function nodeIdOf(text: string): string {
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(text)) throw new Error(`EQL_NODE_ID must be 1 to 64 letters, digits, ".", "_", "-" or ":", not "${text}"`);
  return text;
}

/** A variable that must be a whole number of at least `min`. */
function wholeNumber(env: NodeJS.ProcessEnv, name: string, min: number): number {
  const text = (env[name] ?? '').trim();
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, not "${text}"`);
  return value;
}

/**
 * Why a payment-model configuration must not start, or undefined: an unknown network; a facilitator
 * without `payTo` (the host would make a demo address nobody holds the key of, and the facilitator
 * would settle real transfers to it); on a network with real money (Base mainnet), no facilitator
 * unless `offline` is set on purpose (payments would be accepted and never settled); offline with a
 * facilitator. `facilitator`: whether there is one (a URL, or one given to `buildServer`).
 */
export function x402ConfigProblem(x402: HostConfig['x402'], facilitator = x402.facilitatorUrl !== undefined): string | undefined {
  let network;
  try {
    network = x402.network === undefined ? undefined : parsePaymentNetwork(x402.network);
  } catch (error) {
    return `EQL_X402_NETWORK: ${(error as Error).message}`;
  }
  if (x402.facilitatorUrl && !x402.payTo) return 'EQL_X402_FACILITATOR_URL is set but EQL_X402_PAY_TO is not: set the address the facilitator settles payments to';
  return settlementProblem({ network: network ?? DEFAULT_PAYMENT_NETWORK, ...(x402.offline ? { offline: true } : {}) }, facilitator);
}

/** Plans: requests per minute on Auto routes, daily and monthly request quotas, overage. */
export const PLANS: Record<Plan, { requestsPerMinute: number; dailyRequestLimit: number; monthlyRequestLimit: number; allowOverage: boolean; maxOverage: number; tier: string }> = {
  free: { requestsPerMinute: 60, dailyRequestLimit: 1_000, monthlyRequestLimit: 20_000, allowOverage: false, maxOverage: 0, tier: 'free' },
  pro: { requestsPerMinute: 120, dailyRequestLimit: 50_000, monthlyRequestLimit: 1_000_000, allowOverage: true, maxOverage: 100_000, tier: 'pro' },
};
