import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { KEY_PATTERN, MIN_HMAC_SECRET_LENGTH } from '../auth/key-format.js';
import { checkDatabaseUrl, redactDatabaseUrl } from '../store/pg/database-url.js';
import type { Setting } from './setting.js';

// The host's environment variables, one row each: the single source of `configFromEnv`, of the unknown
// variable warnings, of `eql config print` and of docs/configuration.md (generated, checked for drift).

/** The {@link HostConfig.trustProxy} setting: off, all, a hop count, or proxy addresses and CIDR ranges. */
export type TrustProxy = boolean | number | string[];

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

/** A NATS server URL (`nats://`, `tls://` or `ws://`), refused with its password masked when malformed. */
export function checkNatsUrl(text: string): string {
  for (const server of text.split(',')) {
    let url: URL;
    try {
      url = new URL(server.trim());
    } catch {
      throw new Error(`EQL_NATS_URL is not a URL: ${maskUrlCredentials(server)}`);
    }
    if (!['nats:', 'tls:', 'ws:', 'wss:'].includes(url.protocol)) throw new Error(`EQL_NATS_URL must start with nats://, tls://, ws:// or wss:// (got ${url.protocol}//)`);
  }
  return text;
}

/** A URL (or a comma list of them) with any user and password replaced by `***`. */
export function maskUrlCredentials(text: string): string {
  return text.replace(/\/\/[^@/]*@/g, '//***@');
}

/** A host id: letters, digits, `.`, `_`, `-` and `:`, at most 64 (it appears in logs and in the readiness route). */
export function nodeIdOf(text: string): string {
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(text)) throw new Error(`EQL_NODE_ID must be 1 to 64 letters, digits, ".", "_", "-" or ":", not "${text}"`);
  return text;
}

/** EQL_FEED: the shipped recording, the market bus, or a venue through ccxt. */
export function parseFeed(text: string): string {
  if (text === 'replay' || text === 'bus' || /^ccxt:[a-z0-9]+$/.test(text)) return text;
  throw new Error(`EQL_FEED must be replay, bus or ccxt:<exchange id> (such as ccxt:binance), not "${text.slice(0, 40)}"`);
}

/** EQL_MARKET_SEED: a file of market data, or none. */
export function parseMarketSeed(text: string): string | false {
  return /^(none|off|false|0)$/i.test(text) ? false : resolve(text);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const DAY = 86_400_000;
/** A retention: a duration of at least `minMs`, or off (kept for ever). */
const kept = (minMs = 60_000) => ({ type: 'duration', minMs, off: true }) as const;

const whole = (min: number, max?: number) => ({ type: 'integer', min, ...(max === undefined ? {} : { max }) }) as const;

/** Every environment variable of the host, grouped as docs/configuration.md shows them. */
export const HOST_SETTINGS: readonly Setting[] = [
  // ---- HTTP
  { name: 'EQL_PORT', config: 'port', group: 'HTTP', kind: whole(0, 65535), defaultText: '8787', description: 'The port the API listens on (0: any free port).' },
  { name: 'EQL_HOST', config: 'host', group: 'HTTP', kind: { type: 'text' }, defaultText: '127.0.0.1', description: 'The address the API listens on (`0.0.0.0` for every interface).' },
  { name: 'EQL_BODY_LIMIT', config: 'bodyLimit', group: 'HTTP', kind: whole(1024, 1_073_741_824), defaultText: '262144', description: 'Largest request body in bytes (413 above; `POST /v2/ingest` takes up to 16 MB).' },
  { name: 'EQL_TEXT_FORM_BODY_LIMIT', config: 'textFormBodyLimit', group: 'HTTP', kind: whole(1), defaultText: '65536 (at most EQL_BODY_LIMIT)', description: 'Largest text-form body (`text/x-eql`) in bytes.' },
  {
    name: 'EQL_TRUST_PROXY',
    config: 'trustProxy',
    group: 'HTTP',
    kind: { type: 'custom', parse: parseTrustProxy, says: 'true, false, a number of hops, or a comma list of proxy addresses and CIDR ranges' },
    defaultText: 'off',
    description: "Whose `X-Forwarded-For` gives the client address (per-address rate limits): `true` (every hop), `false`, a hop count, or proxy addresses and CIDR ranges (`10.0.0.1, 192.168.0.0/16`, `loopback`, ...).",
  },
  { name: 'EQL_LOG_LEVEL', config: 'logLevel', group: 'HTTP', kind: { type: 'choice', values: LOG_LEVELS }, defaultText: 'info', description: 'The level of the JSON log on standard output.' },
  { name: 'EQL_SSE_MAX_STREAMS_PER_KEY', config: 'sseMaxStreamsPerKey', group: 'HTTP', kind: whole(1), defaultText: '10', description: 'Most SSE streams one API key may have open at once, on all the hosts of a database together (429 beyond).' },
  { name: 'EQL_INGEST_REQUESTS_PER_MINUTE', config: 'ingestRequestsPerMinute', group: 'HTTP', kind: whole(1), defaultText: '10', description: '`POST /v2/ingest` requests a minute per API key.' },
  // ---- Data and secrets
  { name: 'EQL_DATA_DIR', config: 'dataDir', group: 'Data', kind: { type: 'path' }, defaultText: './.eql-data', description: 'Where the SQLite databases, the generated secret key and the demo key live (mode 0700).' },
  {
    name: 'EQL_DATABASE_URL',
    config: 'databaseUrl',
    group: 'Data',
    kind: { type: 'custom', parse: checkDatabaseUrl, says: 'a postgres:// URL' },
    defaultText: 'none (SQLite)',
    secret: true,
    mask: redactDatabaseUrl,
    description: 'The store on PostgreSQL (`postgres://user:password@host:5432/db`) instead of SQLite: the hosts of one database share the queries (docs/scale-out.md).',
  },
  { name: 'EQL_SECRET_KEY', config: 'secretKey', group: 'Data', kind: { type: 'text' }, defaultText: 'generated in EQL_DATA_DIR/secret.key', secret: true, description: 'The 32-byte key (64 hex digits or base64) that seals secrets at rest. Losing it loses every sealed secret: back it up.' },
  // ---- Keys
  { name: 'EQL_API_KEY', config: 'seedApiKey', group: 'Keys', kind: { type: 'text', pattern: KEY_PATTERN, patternSays: '16 to 128 letters, digits, "_", "." or "-"' }, defaultText: 'none (a demo key is made)', secret: true, description: 'An API key made sure to exist at start.' },
  { name: 'EQL_HMAC_SECRET', config: 'seedHmacSecret', group: 'Keys', kind: { type: 'text', minLength: MIN_HMAC_SECRET_LENGTH }, defaultText: 'generated', secret: true, description: 'The HMAC secret of EQL_API_KEY (signs trade-flavoured requests).' },
  { name: 'EQL_API_PLAN', group: 'Keys', kind: { type: 'text' }, defaultText: 'pro', description: 'The plan of EQL_API_KEY (and of the demo key): free, pro, or one of EQL_PLANS_FILE.' },
  {
    name: 'EQL_PLANS_FILE',
    group: 'Keys',
    kind: { type: 'path' },
    defaultText: 'none (free and pro)',
    description:
      'A JSON file of plans by name, each with `requestsPerMinute`, `dailyRequestLimit`, `monthlyRequestLimit`, `maxActiveQueries` (whole numbers up to 10^12), optionally `allowOverage`, `maxOverage` and `tier`: it redefines free and pro or adds plans (docs/operations.md, "Plans").',
  },
  // ---- Feed and actions
  { name: 'EQL_FEED', config: 'feed', group: 'Feed', kind: { type: 'custom', parse: parseFeed, says: 'replay, bus or ccxt:<exchange id>' }, defaultText: 'replay', description: '`replay` (the recording, looped), `ccxt:<exchange>` (live prices), or `bus` (with EQL_NATS_URL: publishers fill the market bus).' },
  { name: 'EQL_RECORDING', config: 'recordingPath', group: 'Feed', kind: { type: 'path' }, defaultText: 'the shipped 3-day recording', description: 'The recording of the replay feed and of previews (JSON Lines).' },
  { name: 'EQL_REPLAY_SPEED', config: 'replaySpeed', group: 'Feed', kind: { type: 'number', exclusiveMin: 0, max: 1_000_000 }, defaultText: '1', description: 'Speed of the replay feed: 60 plays a recorded minute per second.' },
  { name: 'EQL_MARKET_SEED', config: 'marketSeed', group: 'Feed', kind: { type: 'custom', parse: parseMarketSeed, says: 'a file of market data, or none' }, defaultText: 'the shipped demo data', description: 'Market data (posts, news) loaded at start, shifted to end at the start time; `none` for none.' },
  { name: 'EQL_EXCHANGES', config: 'exchanges', group: 'Feed', kind: { type: 'list' }, defaultText: 'none', description: 'Exchange ids that may be connected besides `paper` (comma separated).' },
  { name: 'EQL_ALLOW_PRIVATE_WEBHOOKS', config: 'allowPrivateWebhooks', group: 'Feed', kind: { type: 'flag' }, defaultText: 'off', description: 'Webhooks may target private and loopback hosts (tests, self-hosting only).' },
  { name: 'EQL_MESSENGER_BASE_URL', config: 'messengerBaseUrl', group: 'Feed', kind: { type: 'url', protocols: ['https:', 'http:'] }, defaultText: 'https://api.telegram.org', description: 'The bot API of messenger_bot actions.' },
  // ---- Cluster (PostgreSQL)
  { name: 'EQL_NODE_ID', config: 'nodeId', group: 'Cluster', kind: { type: 'custom', parse: nodeIdOf, says: '1 to 64 letters, digits, ".", "_", "-" or ":"' }, defaultText: '<hostname>-<pid>-<random>', description: "This host's id among the hosts of one database (logs, `/ready`)." },
  { name: 'EQL_PARTITIONS', config: 'partitions', group: 'Cluster', kind: whole(1), defaultText: '32 (fixed by the first host)', description: 'How many partitions the queries fall into; a host set otherwise than its database refuses to start.' },
  { name: 'EQL_LEASE_TTL_MS', config: 'leaseTtlMs', group: 'Cluster', kind: whole(300), defaultText: '6000', description: "How long a host's leases last without renewal: a dead host's queries run elsewhere within about 4/3 of it." },
  { name: 'EQL_PG_STATEMENT_TIMEOUT_MS', config: 'pgTimeouts.statementMs', group: 'Cluster', kind: whole(0), defaultText: '30000', description: 'Statement timeout of the PostgreSQL sessions (0: none).' },
  { name: 'EQL_PG_LOCK_TIMEOUT_MS', config: 'pgTimeouts.lockMs', group: 'Cluster', kind: whole(0), defaultText: '10000', description: 'Lock timeout of the PostgreSQL sessions (0: none).' },
  { name: 'EQL_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS', config: 'pgTimeouts.idleInTransactionMs', group: 'Cluster', kind: whole(0), defaultText: '60000', description: 'Idle-in-transaction timeout of the PostgreSQL sessions (0: none).' },
  // ---- Market bus (NATS JetStream)
  {
    name: 'EQL_NATS_URL',
    config: 'natsUrl',
    group: 'Bus',
    kind: { type: 'custom', parse: checkNatsUrl, says: 'nats://, tls://, ws:// or wss:// URLs' },
    defaultText: 'none',
    secret: true,
    file: false,
    mask: maskUrlCredentials,
    description: "The cluster's market bus (`nats://host:4222`, several comma-separated; needs EQL_DATABASE_URL). Credentials in it are used, never shown.",
  },
  { name: 'EQL_NATS_STREAM', config: 'natsStream', group: 'Bus', kind: { type: 'text', pattern: /^[A-Za-z0-9_-]+$/, patternSays: 'letters, digits, "_" and "-"' }, defaultText: 'EQL_MARKET', description: 'The JetStream stream of the market bus.' },
  { name: 'EQL_NATS_USER', group: 'Bus', kind: { type: 'text' }, defaultText: 'none', description: "The bus's NATS user (with EQL_NATS_PASSWORD)." },
  { name: 'EQL_NATS_PASSWORD', group: 'Bus', kind: { type: 'text' }, defaultText: 'none', secret: true, description: "The bus's NATS password." },
  { name: 'EQL_NATS_TOKEN', group: 'Bus', kind: { type: 'text' }, defaultText: 'none', secret: true, description: 'A NATS token instead.' },
  { name: 'EQL_NATS_NKEY_SEED', group: 'Bus', kind: { type: 'text' }, defaultText: 'none', secret: true, file: false, description: 'An NKey user seed (`SU...`) instead (or EQL_NATS_NKEY_SEED_FILE).' },
  { name: 'EQL_NATS_NKEY_SEED_FILE', group: 'Bus', kind: { type: 'path' }, defaultText: 'none', description: 'A file holding the NKey user seed.' },
  { name: 'EQL_NATS_CREDS', group: 'Bus', kind: { type: 'path' }, defaultText: 'none', description: 'A creds file (user JWT and seed) for a server in operator mode.' },
  { name: 'EQL_NATS_TLS_CA', group: 'Bus', kind: { type: 'path' }, defaultText: 'none', description: "PEM file of the CA of the bus server's certificate (requires TLS)." },
  { name: 'EQL_NATS_TLS_CERT', group: 'Bus', kind: { type: 'path' }, defaultText: 'none', description: 'PEM client certificate (with EQL_NATS_TLS_KEY).' },
  { name: 'EQL_NATS_TLS_KEY', group: 'Bus', kind: { type: 'path' }, defaultText: 'none', description: 'PEM key of the client certificate.' },
  // ---- Language model
  { name: 'EQL_LLM_BASE_URL', group: 'Language model', kind: { type: 'url', protocols: ['https:', 'http:'] }, defaultText: 'none (the offline analyst)', description: 'An OpenAI-compatible API (docs/llm.md).' },
  { name: 'EQL_LLM_API_KEY', group: 'Language model', kind: { type: 'text' }, defaultText: 'none', secret: true, description: "The model API's key." },
  { name: 'EQL_LLM_FAST_MODEL', group: 'Language model', kind: { type: 'text' }, defaultText: 'gpt-4o-mini', description: 'The model of `speed: fast`.' },
  { name: 'EQL_LLM_EXPERT_MODEL', group: 'Language model', kind: { type: 'text' }, defaultText: 'gpt-4o', description: 'The model of `speed: expert`.' },
  { name: 'EQL_LLM_TIMEOUT_MS', group: 'Language model', kind: whole(1, 600_000), defaultText: '30000', description: 'Budget of one completion, retries included.' },
  { name: 'EQL_LLM_MAX_RETRIES', group: 'Language model', kind: whole(0, 5), defaultText: '2', description: 'Retries after a retryable failure.' },
  // ---- Payment model (x402)
  { name: 'EQL_X402_PAY_TO', config: 'x402.payTo', group: 'Payment model', kind: { type: 'text' }, defaultText: 'none (no /x402 routes)', description: 'Where USDC payments go (docs/x402.md).' },
  { name: 'EQL_X402_NETWORK', config: 'x402.network', group: 'Payment model', kind: { type: 'text' }, defaultText: 'eip155:84532', description: 'Base (`eip155:8453`) or Base Sepolia.' },
  { name: 'EQL_X402_FACILITATOR_URL', config: 'x402.facilitatorUrl', group: 'Payment model', kind: { type: 'url', protocols: ['https:', 'http:'] }, defaultText: 'none (verified locally, never settled)', description: 'The facilitator that settles payments.' },
  { name: 'EQL_X402_OFFLINE', config: 'x402.offline', group: 'Payment model', kind: { type: 'flag' }, defaultText: 'off', description: 'Run without a facilitator on purpose (required for that on Base mainnet).' },
  { name: 'EQL_X402_DEMO', group: 'Payment model', kind: { type: 'flag' }, defaultText: 'off (npm start sets it)', description: 'Serve the payment routes to a generated demo payee, never settled.' },
  { name: 'EQL_X402_REQUESTS_PER_MINUTE', config: 'x402.requestsPerMinute', group: 'Payment model', kind: whole(1), defaultText: '300', description: 'Requests a minute per client address on `/x402/*`.' },
  { name: 'EQL_X402_BAD_SIGNATURES_PER_PAYER', config: 'x402.badSignaturesPerPayer', group: 'Payment model', kind: whole(0), defaultText: '20', description: 'Refused payment signatures a minute per claimed payer (0: no limit).' },
  { name: 'EQL_X402_BAD_SIGNATURES_PER_ADDRESS', config: 'x402.badSignaturesPerAddress', group: 'Payment model', kind: whole(0), defaultText: '60', description: 'Refused payment signatures a minute per client address (0: no limit).' },
  { name: 'EQL_AGENT_SECRET', config: 'x402.agentSecrets', group: 'Payment model', kind: { type: 'list' }, defaultText: 'none', secret: true, description: 'Agent secrets of the payment model, comma separated, 16 characters at least.' },
  // ---- Operations
  { name: 'EQL_METRICS', config: 'metrics.enabled', group: 'Operations', kind: { type: 'flag' }, defaultText: 'on', description: 'Prometheus metrics at `GET /metrics` (docs/operations.md).' },
  { name: 'EQL_METRICS_PORT', config: 'metrics.port', group: 'Operations', kind: whole(0, 65535), defaultText: "none (the API's port)", description: 'Serve `/metrics` on this port only.' },
  { name: 'EQL_METRICS_HOST', config: 'metrics.host', group: 'Operations', kind: { type: 'text' }, defaultText: 'EQL_HOST', description: 'The address of the metrics port.' },
  { name: 'EQL_METRICS_TOKEN', config: 'metrics.token', group: 'Operations', kind: { type: 'text', minLength: 16 }, defaultText: 'none', secret: true, description: 'A scrape must send `Authorization: Bearer <token>` (16 characters at least).' },
  { name: 'EQL_READY_MAX_FEED_AGE_MS', config: 'readyMaxFeedAgeMs', group: 'Operations', kind: whole(0), defaultText: '300000', description: '`/ready` answers 503 when queries are active and the feed gave nothing for longer (0: never).' },
  { name: 'EQL_SHUTDOWN_DELAY_MS', config: 'shutdown.delayMs', group: 'Operations', kind: whole(0), defaultText: '0', description: 'After SIGTERM, how long the host serves on with `/ready` at 503 before it closes.' },
  { name: 'EQL_SHUTDOWN_GRACE_MS', config: 'shutdown.graceMs', group: 'Operations', kind: whole(100), defaultText: '10000', description: 'The process exits at the latest this long after SIGTERM.' },

  { name: 'EQL_RETENTION_NOTIFICATIONS', config: 'retention.notifications', group: 'Retention', kind: kept(), defaultText: '30d', description: 'Notifications older than this are deleted (a stream resumed from an older event id starts at the oldest kept).' },
  { name: 'EQL_RETENTION_EXECUTIONS', config: 'retention.executions', group: 'Retention', kind: kept(), defaultText: '90d', description: 'Finished executions and LLM sessions older than this are deleted; running ones are kept.' },
  { name: 'EQL_RETENTION_OUTBOX', config: 'retention.outbox', group: 'Retention', kind: kept(), defaultText: '7d', description: 'Settled outbox entries older than this are deleted; pending ones (in flight or in doubt) are kept.' },
  { name: 'EQL_RETENTION_VALIDATIONS', config: 'retention.validations', group: 'Retention', kind: kept(DAY), defaultText: '2d', description: 'Records of validations and exchange listings older than this are deleted (create needs one of the last 24 hours).' },
  { name: 'EQL_RETENTION_LEDGER', config: 'retention.ledger', group: 'Retention', kind: kept(62 * DAY), defaultText: '400d', description: "Credit ledger lines and daily request counts older than this are folded into one line per key (totals stay exact)." },
  { name: 'EQL_RETENTION_CHAT', config: 'retention.chat', group: 'Retention', kind: kept(), defaultText: '30d', description: 'Chat sessions not used for this long are deleted with their messages.' },
  { name: 'EQL_RETENTION_DELETED_QUERIES', config: 'retention.deletedQueries', group: 'Retention', kind: kept(), defaultText: '30d', description: 'Queries deleted this long ago are removed with their executions, sessions, notifications and outbox entries.' },
  { name: 'EQL_RETENTION_PRICES', config: 'retention.prices', group: 'Retention', kind: kept(3_600_000), defaultText: '60d (SQLite minutes), 7d (PostgreSQL ticks)', description: "The host's price history (warm-up reads it: a shorter one warms fewer candles of long timeframes)." },
  { name: 'EQL_RETENTION_INTERVAL', config: 'retention.intervalMs', group: 'Retention', kind: { type: 'duration', minMs: 1_000 }, defaultText: '1h', description: 'How often the pruning job runs (on a cluster, on the host holding partition 0).' },
  { name: 'EQL_RETENTION_BATCH', config: 'retention.batch', group: 'Retention', kind: whole(10, 100_000), defaultText: '1000', description: 'Rows deleted per transaction: writers wait for one batch at most.' },
];

/**
 * `EQL_*` variables that are not the host's: the CLI's and the tools' (they are not warned about).
 * `EQL_URL`: the host the CLI talks to. The prefixes: the test suite, the fuzzer and the benchmarks.
 */
export const OTHER_VARIABLES = { names: ['EQL_URL', 'EQL_CONSOLE_SCREENSHOTS'], prefixes: ['EQL_TEST_', 'EQL_FUZZ_', 'EQL_BENCH_'] } as const;
