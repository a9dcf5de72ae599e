import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LlmConfig, llmConfigFromEnv } from '@eql/llm';
import { DEFAULT_PAYMENT_NETWORK, parsePaymentNetwork, settlementProblem } from '@eql/x402';
import { type NatsAuth, natsAuthFromEnv } from './settings/nats-settings.js';
import { DEFAULT_MAX_STREAMS_PER_KEY } from './sse/hub.js';
import { collectSettings } from './settings/read-settings.js';
import { DEFAULT_PLANS, type PlanLimits, readPlansFile } from './settings/plans.js';
import { ConfigurationError } from './settings/setting.js';
import { HOST_SETTINGS, type TrustProxy } from './settings/host-settings.js';
import type { PgSessionTimeouts } from './store/pg/pg-pool.js';
import type { Plan } from './store/records.js';
import { DEFAULT_RETENTION, type RetentionPolicy } from './store/retention.js';

export type { Plan } from './store/records.js';
export { parseTrustProxy, type TrustProxy } from './settings/host-settings.js';
export { ConfigurationError } from './settings/setting.js';

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
   * EQL_NATS_TLS_CA, EQL_NATS_TLS_CERT, EQL_NATS_TLS_KEY), files read at start (settings/nats-settings.ts).
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
  /** The plans keys may have, by name: free and pro, redefined or joined by others from EQL_PLANS_FILE. */
  plans: Record<string, PlanLimits>;
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
  /**
   * How long the host keeps what it records (EQL_RETENTION_NOTIFICATIONS and the others of docs/operations.md "Retention"): a job prunes
   * older records every `intervalMs` (EQL_RETENTION_INTERVAL, default 1h), `batch` rows per transaction;
   * on a cluster the host holding partition 0 runs it.
   */
  retention: RetentionPolicy;
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
    plans: { ...DEFAULT_PLANS },
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
    retention: { ...DEFAULT_RETENTION },
    sseMaxStreamsPerKey: DEFAULT_MAX_STREAMS_PER_KEY,
    trustProxy: false,
    logLevel: 'info',
    ...overrides,
  };
}

/** Sets `value` at a dotted `path` of `target`, making the objects on the way (`pgTimeouts.lockMs`). */
function setAt(target: object, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = target as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys[keys.length - 1] as string] = value;
}

/**
 * Reads the host configuration from `EQL_*` variables (the table of settings/host-settings.ts, read by
 * `readSettings`: every problem names its variable, all of them at once; a secret may come from
 * `<NAME>_FILE`); unset ones keep their defaults; `overrides` win.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env, overrides: Partial<HostConfig> = {}): HostConfig {
  const config = defaultConfig();
  // Every problem at once: the table's, then those across the variables of a group.
  const { values, resolved, problems } = collectSettings(env);
  // Each setting with a place in the configuration goes there (its `config` path in the table).
  for (const setting of HOST_SETTINGS) {
    if (setting.config !== undefined && values.has(setting.name)) setAt(config, setting.config, values.get(setting.name));
  }
  // Read with others: the plans first (EQL_API_PLAN names one of them), the demo payee only when on.
  if (values.has('EQL_PLANS_FILE')) {
    try {
      config.plans = readPlansFile(values.get('EQL_PLANS_FILE') as string);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (values.has('EQL_API_PLAN')) {
    const value = values.get('EQL_API_PLAN') as Plan;
    if (config.plans[value] !== undefined) config.seedPlan = value;
    else {
      const names = Object.keys(config.plans);
      const near = names.find((name) => name === value.toLowerCase());
      problems.push(`EQL_API_PLAN must be one of ${names.join(', ')}${values.has('EQL_PLANS_FILE') ? ' (with the plans of EQL_PLANS_FILE)' : ''}, not "${value.slice(0, 40)}"${near ? ` (did you mean ${near}?)` : ''}`);
    }
  }
  if (values.get('EQL_X402_DEMO') === true) config.x402.demo = true;
  if (config.shutdown.delayMs >= config.shutdown.graceMs) problems.push(`EQL_SHUTDOWN_DELAY_MS (${config.shutdown.delayMs}) must be less than EQL_SHUTDOWN_GRACE_MS (${config.shutdown.graceMs}): the host must have time to close`);
  // Groups with rules across their variables read them themselves (their messages name them), secrets from files included.
  try {
    const natsAuth = natsAuthFromEnv(resolved);
    if (natsAuth) config.natsAuth = natsAuth;
  } catch (error) {
    problems.push((error as Error).message);
  }
  try {
    const llm = llmConfigFromEnv(resolved);
    if (llm) config.llm = llm;
  } catch (error) {
    problems.push((error as Error).message);
  }
  const merged = { ...config, ...overrides };
  const x402 = x402ConfigProblem(merged.x402);
  if (x402) problems.push(x402);
  if (problems.length > 0) throw new ConfigurationError(problems);
  return merged;
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

/** The default plans (free and pro): requests per minute on Auto routes, daily and monthly request quotas, overage, most active queries. */
export const PLANS = DEFAULT_PLANS;
