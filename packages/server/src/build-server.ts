import { join } from 'node:path';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { authenticate, isAutoRequest, registerCallerSlots } from './auth/authenticate.js';
import { hmacCheck } from './auth/hmac-check.js';
import { defaultConfig, fastifyTrustProxy, type HostConfig, x402ConfigProblem } from './config.js';
import type { HostContext } from './context.js';
import { publicCcxtExchange } from './host/ccxt-venue.js';
import { ccxtConnector, ProcessRunner, type ProcessRunnerOptions } from './host/process-runner.js';
import { isoStates } from './host/query-service.js';
import { SqlitePriceHistory } from './store/sqlite-price-history.js';
import { ApiError, handleError } from './http/errors.js';
import { registerRawJson } from './http/raw-json.js';
import { consoleRoutes } from './routes/console.js';
import { registerTextFormBody, textFormBodyLimit } from './http/text-form-body.js';
import { refuseMistypedBody } from './http/strict-body.js';
import { refuseNulCharacters } from './http/refuse-nul.js';
import { notFoundOrMethodNotAllowed } from './http/method-not-allowed.js';
import { closeQueryStrings } from './http/strict-query.js';
import { stabilityHeader } from './http/stability.js';
import { refuseApiKeyInUrl, requestSerializer } from './http/url-secrets.js';
import { openApiDocument } from './openapi.js';
import { draftRoutes } from './routes/drafts.js';
import { exchangeRoutes } from './routes/exchanges.js';
import { webhookSecretRoutes } from './routes/webhook-secret.js';
import { queryRoutes } from './routes/queries.js';
import { streamRoutes } from './routes/streams.js';
import { systemRoutes } from './routes/system.js';
import { SecretBox } from './secrets.js';
import { UsageMeter } from './metering/usage-meter.js';
import { PgRateCounter } from './metering/pg-rate-counter.js';
import { requestLimits } from './metering/request-limits.js';
import { SseHub, type SseHubOptions } from './sse/hub.js';
import { PgStreamSlots } from './sse/pg-stream-slots.js';
import { SqliteStore } from './store/sqlite-store.js';
import { privateDatabase, privateDatabaseCompanions, privateDir } from './store/private-files.js';
import { SqliteChatStore } from './store/sqlite-chat-store.js';
import { PgChatStore } from './store/pg/pg-chat-store.js';
import { PgPaymentLedger } from './store/pg/pg-payment-ledger.js';
import { PgHostStore } from './store/pg/pg-store.js';
import { hostSessionTimeouts, type PgSessionTimeouts } from './store/pg/pg-pool.js';
import type { ChatStore } from './store/chat-store.js';
import { type Analyst, createAnalyst, type ChatModel, OpenAiChatModel } from '@eql/llm';
import { QueryBuilder } from '@eql/builder';
import { type MarketData, seedMarketData, SqliteMarketData } from '@eql/market-data';
import { chatRoutes } from './routes/chat/chat-routes.js';
import { marketRoutes } from './routes/market/market-routes.js';
import { x402Routes } from './routes/x402/x402-routes.js';
import { OwnerKeys } from './host/owner-keys.js';
import { createPaymentConfig, MemoryPaymentLedger, MemoryWindowCounter, SqlitePaymentLedger, type PaymentFacilitator } from '@eql/x402';
import type { HostStore } from './store/store.js';
import type { QueryRunner } from './host/query-runner.js';
import { BusConnectionError, DEFAULT_PARTITIONS, oncePerTurnByKey, type PartitionEngine, PartitionedRunner, type PartitionedRunnerOptions, PgLeases, wireBus } from './scale-out/index.js';
import type { CcxtFeed } from './host/ccxt-venue.js';
import type { PgPriceHistory } from './store/pg/pg-price-history.js';
import { type PrunedHistory, RetentionJob } from './store/retention-job.js';
import { type HostTracing, requestParent } from './observability/tracing.js';
import { matchedRoute, registerMatchedRoute } from './http/matched-route.js';
import { OpenedResources } from './opened-resources.js';
import { echoRequestId, requestIdOf } from './http/request-id.js';
import { HostMetrics } from './observability/host-metrics.js';
import { logExecution } from './observability/execution-log.js';
import { timedStore } from './observability/timed-store.js';
import { metricsRoute } from './routes/metrics.js';
import { StartError } from './start-error.js';
import { redactDatabaseUrl } from './store/pg/database-url.js';
import { SecretKeyMismatchError } from './store/secret-key-check.js';
import { limitsOf } from './settings/plans.js';

/** What {@link buildServer} builds the host from: configuration overrides, and parts that replace its defaults (tests, embedders). */
export interface BuildOptions {
  /** Overrides of {@link defaultConfig}. */
  config?: Partial<HostConfig>;
  /** The store (default: PostgreSQL at `config.databaseUrl` when set, else SQLite in `config.dataDir`). */
  store?: HostStore;
  box?: SecretBox;
  /** OpenTelemetry tracing of this process (startTracing): requests, ticks, triggers, steps and what they send are spans. */
  tracing?: HostTracing;
  /** Engine wiring for tests and embedders (sources, scheduler, LLM, HTTP transport, ...). */
  engine?: Omit<ProcessRunnerOptions, 'config' | 'store' | 'box'>;
  /** The wall clock, epoch ms (default `Date.now`). */
  now?: () => number;
  connectExchange?: HostContext['connectExchange'];
  /** The exchange without credentials used for symbol checks (default: a ccxt client of the venue). */
  publicExchange?: HostContext['publicExchange'];
  /** Pino options, or false for no logs. */
  logger?: boolean | Record<string, unknown>;
  sse?: SseHubOptions;
  /** The x402 facilitator (default: one at `config.x402.facilitatorUrl`, or none: local verification). */
  facilitator?: PaymentFacilitator;
  /** Market data (default: SQLite `market.sqlite` in `config.dataDir`, seeded per `config.marketSeed`). */
  market?: MarketData;
  /** The language model of the analyst and the query builder (default: per `config.llm`; none: offline). */
  model?: ChatModel;
  /** The analyst of chat, summaries and narratives (default: per the LLM configuration). */
  analyst?: Analyst;
  /** Chat sessions (default: in the SQLite or PostgreSQL store; required with another store). */
  chats?: ChatStore;
}

/**
 * The settings every host of a PostgreSQL database must share, fixed by the first to boot: the
 * partition count (a host configured otherwise refuses to start: it would place queries elsewhere)
 * and the origin of the replay feed's timeline (every host replays the same instant at the same time).
 */
async function clusterSettings(leases: PgLeases, partitions: number | undefined, now: number): Promise<{ partitions: number; replayOrigin: number }> {
  const fixed = Number(await leases.setting('partitions', String(partitions ?? DEFAULT_PARTITIONS)));
  if (partitions !== undefined && fixed !== partitions) throw new StartError(`EQL_PARTITIONS is ${partitions} but the hosts of this database use ${fixed}: set EQL_PARTITIONS=${fixed} or leave it unset`);
  return { partitions: fixed, replayOrigin: Number(await leases.setting('replay_origin', String(now))) };
}

/** A built host: its Fastify app (not listening yet), the context its routes share, and `close`. */
export interface Host {
  app: FastifyInstance;
  /** The listener of `/metrics` alone, when it has a port of its own (EQL_METRICS_PORT); the caller listens on it. */
  metricsApp?: FastifyInstance;
  context: HostContext;
  /** Stops the engine and the streams and closes the store. */
  close(): Promise<void>;
  /** Tells load balancers to go elsewhere (`/ready` answers 503) while the host still serves: the first step of a shutdown. */
  drain(): void;
  /** The pruning job of EQL_RETENTION_* (running on its timer; `runOnce()` runs it now). */
  retention: RetentionJob;
}

/** Requests a minute per client address on the payment-model routes by default (EQL_X402_REQUESTS_PER_MINUTE). */
export const X402_REQUESTS_PER_MINUTE = 300;

const isPaymentRequest = (request: FastifyRequest): boolean => (matchedRoute(request).url ?? '').startsWith('/x402/');

/** Headers that carry secrets: never logged. */
export const REDACTED_PATHS = [
  'req.headers["x-svc-api-key"]',
  'req.headers["x-svc-signature"]',
  'req.headers["x-svc-agent-secret"]',
  'req.headers["payment-signature"]',
  'req.headers["x-payment"]',
  'req.headers.authorization',
  'req.headers.cookie',
];

/**
 * Builds the host (spec 4.1, 4.4, 5, 6) without listening: a Fastify app whose routes share one
 * context (store, sealed secrets, the engine, the SSE hub). `listen` is the caller's (see start.ts);
 * tests use `app.inject`.
 */
export async function buildServer(options: BuildOptions = {}): Promise<Host> {
  const opened = new OpenedResources();
  try {
    return await buildHost(options, opened);
  } catch (error) {
    // A host that fails to build holds nothing: what it opened is closed, so a failed start ends its process.
    await opened.closeAll();
    throw error;
  }
}

/** {@link buildServer}, noting in `opened` how to close each part as it opens (the store it was given is the caller's). */
async function buildHost(options: BuildOptions, opened: OpenedResources): Promise<Host> {
  const config = defaultConfig(options.config);
  // A payment model that must not run (real money and no facilitator, say) stops the host before it opens anything.
  const x402Problem = config.x402.payTo ? x402ConfigProblem(config.x402, config.x402.facilitatorUrl !== undefined || options.facilitator !== undefined) : undefined;
  if (x402Problem) throw new StartError(x402Problem);
  // The data directory is its owner's only (0700), its files 0600 (store/private-files.ts).
  if (!options.store || !options.market || !(options.box || config.secretKey)) privateDir(config.dataDir);
  const box = options.box ?? (config.secretKey ? SecretBox.fromKey(config.secretKey) : SecretBox.fromFile(join(config.dataDir, 'secret.key')));
  // PostgreSQL when EQL_DATABASE_URL is set (migrated at boot under an advisory lock), else the embedded SQLite file.
  const openedStore = options.store ?? (config.databaseUrl ? await openPgStore(config.databaseUrl, box, hostSessionTimeouts(config.leaseTtlMs, config.pgTimeouts)) : new SqliteStore(join(config.dataDir, 'eql.sqlite'), { box }));
  if (!options.store) opened.add(() => openedStore.close());
  // Prometheus metrics (docs/operations.md): every store call is timed.
  const metrics = config.metrics.enabled ? new HostMetrics() : undefined;
  const store = metrics ? timedStore(openedStore, metrics.storeDuration) : openedStore;
  // The prices the host observes, as minutes: the past of its own feed after a restart (in memory beside a given store;
  // in the data directory beside a PostgreSQL store too: per process for now, docs/scale-out.md).
  const pricesPath = options.store ? ':memory:' : join(config.dataDir, 'prices.sqlite');
  privateDatabase(pricesPath);
  // EQL_RETENTION_PRICES=off keeps every minute.
  const prices = new SqlitePriceHistory(pricesPath, config.retention.prices === undefined ? {} : { retentionMs: config.retention.prices || Number.POSITIVE_INFINITY });
  opened.add(() => prices.close());
  privateDatabaseCompanions(pricesPath);
  let warnCluster: (message: string, error?: unknown) => void = () => undefined;
  const warn = (message: string, error?: unknown) => warnCluster(message, error);
  // On PostgreSQL other hosts store notifications too: streams read them from the store, in id order; and
  // the streams each key has open are counted in the database, for all the hosts together (sse/pg-stream-slots.ts).
  const pgStreams = store instanceof PgHostStore ? { pollStoreMs: 1_000, slots: new PgStreamSlots(store.pool, { nodeId: config.nodeId, ttlMs: config.leaseTtlMs, warn }) } : {};
  const hub = new SseHub(store, { maxStreamsPerKey: config.sseMaxStreamsPerKey, ...pgStreams, ...options.sse });
  opened.add(() => {
    hub.close();
    return hub.slots.close();
  });
  const now = options.now ?? (() => Date.now());
  const marketPath = join(config.dataDir, 'market.sqlite');
  if (options.market === undefined) privateDatabase(marketPath);
  const ownMarket = options.market === undefined ? new SqliteMarketData(marketPath) : undefined;
  opened.add(() => ownMarket?.close());
  if (ownMarket) privateDatabaseCompanions(marketPath);
  if (ownMarket && config.marketSeed !== false) seedMarketData(ownMarket, config.marketSeed, now());
  const market: MarketData = ownMarket ?? (options.market as MarketData);
  const model = options.model ?? (config.llm ? new OpenAiChatModel(config.llm) : undefined);
  const analyst = options.analyst ?? createAnalyst({ market, ...(model ? { model } : {}) });
  const builders = { 'api-key': new QueryBuilder({ mode: 'api-key', now, ...(model ? { model } : {}) }), payment: new QueryBuilder({ mode: 'payment', now, ...(model ? { model } : {}) }) };
  const chats = options.chats ?? (store instanceof SqliteStore ? new SqliteChatStore(store.db) : store instanceof PgHostStore ? new PgChatStore(store.pool) : undefined);
  if (!chats) throw new Error('buildServer: pass `chats` (a chat session store) with a store other than SqliteStore');
  // On PostgreSQL the hosts of the database share the queries out by partition, with leases (scale-out/).
  // The leases on connections of their own: a renewal never waits behind the data path (docs/scale-out.md).
  const leases = store instanceof PgHostStore ? PgLeases.ownPool(store.pool, config.nodeId, config.leaseTtlMs) : undefined;
  if (leases) opened.add(() => leases.close());
  const cluster = leases ? await clusterSettings(leases, config.partitions, now()) : undefined;
  if (config.natsUrl && !(store instanceof PgHostStore)) throw new StartError('EQL_NATS_URL needs EQL_DATABASE_URL: the market bus serves the hosts of one PostgreSQL database');
  if (config.feed === 'bus' && !config.natsUrl) throw new StartError('EQL_FEED=bus needs EQL_NATS_URL (the market bus to read)');
  const engineOptions = (): ProcessRunnerOptions => ({
    analyst: analyst.provider,
    prices,
    ...(cluster ? { replayOrigin: cluster.replayOrigin } : {}),
    ...(options.tracing ? { tracer: options.tracing.tracer } : {}),
    ...options.engine,
    config,
    store,
    box,
    connectExchange: options.connectExchange ?? options.engine?.connectExchange ?? ccxtConnector,
  });
  let runner: QueryRunner;
  let feed: PartitionedRunnerOptions['feed'];
  let signals: PartitionedRunnerOptions['signals'];
  /** The venue the feed's leader publishes into the bus (closed with the host). */
  let venueFeed: CcxtFeed | undefined;
  /** The cluster's shared price history, on the bus (the retention job prunes it). */
  let sharedHistory: PgPriceHistory | undefined;
  /** Why anyone could publish prices into the bus (logged once the logger exists). */
  let openBus: string | undefined;
  if (leases && cluster && store instanceof PgHostStore) {
    let engine: PartitionEngine;
    if (config.natsUrl) {
      // The market bus: every partition reads the market from the stream, from where its previous owner stopped.
      const wired = await wireBus({ config, store, cluster, engineOptions: engineOptions(), ...(options.engine?.sources ? { sources: options.engine.sources } : {}), warn }).catch((error: unknown) => {
        // A bus that cannot be reached or refuses the credentials: its message names it, credentials masked.
        throw error instanceof BusConnectionError ? new StartError(error.message, { cause: error }) : error;
      });
      ({ engine, feed, signals, venueFeed, openWarning: openBus, history: sharedHistory } = wired);
      if (venueFeed) opened.add(() => venueFeed?.close());
    } else engine = new ProcessRunner(engineOptions());
    runner = new PartitionedRunner({ engine, store, pool: store.pool, leases, partitions: cluster.partitions, warn, ...(feed ? { feed } : {}), ...(signals ? { signals } : {}) });
  } else runner = new ProcessRunner(engineOptions());
  // The engine (the bus's connection with it), then what the host adds: closed before the store.
  opened.add(() => runner.dispose());
  const usage = new UsageMeter(store);
  opened.add(() => usage.close());
  const context: HostContext = {
    config,
    store,
    box,
    runner,
    hub,
    usage,
    connectExchange: options.connectExchange ?? ccxtConnector,
    publicExchange: options.publicExchange ?? publicCcxtExchange,
    market,
    analyst,
    builders,
    chats,
    now,
    lifecycle: { startedAt: now(), draining: false },
  };
  runner.onNotification((notification) => hub.publish(notification));
  // With the bus, a notification stored here reaches the streams of the other hosts at once (else at their next look at the store).
  if (signals) {
    const hints = signals;
    const hint = oncePerTurnByKey((keyId) => hints.send('notification', { keyId }));
    runner.onNotification((notification) => hint(notification.keyId));
    hints.on('notification', (data) => {
      if (typeof data.keyId === 'number') hub.catchUp(data.keyId);
    });
  }
  runner.onConditionStates(({ keyId, queryId, at, conditionStates }) =>
    hub.publishState(keyId, queryId, { at: new Date(at).toISOString(), conditionStates: conditionStates.map(isoStates) }),
  );
  runner.onStatusChange(({ queryId, status }) => hub.end(queryId, status));
  metrics?.watch({ host: runner, store, sseConnections: () => hub.size, now });

  // URLs are logged with the values of secret-looking query parameters redacted (http/url-secrets.ts).
  const logger = options.logger === false ? false : { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { req: requestSerializer }, ...(typeof options.logger === 'object' ? options.logger : {}) };
  const app = Fastify({
    logger,
    bodyLimit: config.bodyLimit,
    // Which proxies' X-Forwarded-For sets request.ip (and so the per-address rate limits): none by default.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Errors the router raises before any hook (an undecodable path, an over-long parameter) get the envelope too.
    frameworkErrors: (error, request, reply) => {
      void handleError(error, request, reply);
    },
    ajv: { customOptions: { coerceTypes: true, removeAdditional: false, allErrors: false } },
    // A caller's X-Request-Id (a proxy's, a client's) names the request in the logs and comes back in the
    // answer; one that is not a plain token is replaced, never logged or echoed (http/request-id.ts).
    requestIdHeader: false,
    genReqId: requestIdOf,
  });
  app.addHook('onSend', echoRequestId);
  opened.add(() => app.close());
  if (options.tracing) traceRequests(app, options.tracing.tracer);
  // What keeps a query from being evaluated as written (no feed serves its symbol, a history failed) is logged.
  runner.onProblem(({ code, queryId, message }) => app.log.warn({ code, ...(queryId ? { queryId } : {}) }, `engine: ${message}`));
  // Every trigger counted, every execution's outcome logged (a failure as a warning) and counted.
  runner.onActivity((activity) => {
    metrics?.observeActivity(activity);
    if (activity.type === 'execution') logExecution(app.log, activity.execution);
  });
  if (metrics) {
    app.addHook('onResponse', (request, reply, done) => {
      metrics.observeRequest(request.method, matchedRoute(request).url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
  warnCluster = (message, error) => app.log.warn({ nodeId: config.nodeId, ...(error ? { error: error instanceof Error ? error.message : JSON.stringify(error) } : {}) }, message);
  if (openBus) app.log.warn({ nodeId: config.nodeId }, `warning: ${openBus}`);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'EQL reference host', version: '0.1.0', license: { name: 'MIT', identifier: 'MIT' }, description: 'The service interface specification, parts 4.1 to 4.5, 5 and 6: the Auto API, market data, chat, the query builder and the x402 payment model (docs/http-api.md, docs/x402.md).' },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-svc-api-key' },
          x402Payment: { type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE', description: 'An x402 payment (v2; X-PAYMENT for v1); a 402 answer says what to pay' },
          agentSecret: { type: 'apiKey', in: 'header', name: 'x-svc-agent-secret' },
        },
      },
      security: [{ apiKey: [] }],
    },
  });
  registerMatchedRoute(app);
  registerCallerSlots(app);
  registerRawJson(app);
  registerTextFormBody(app, { bodyLimit: textFormBodyLimit(config) });
  app.setErrorHandler(handleError);
  // 404 route_not_found, or 405 method_not_allowed with Allow when the path exists for other methods.
  app.setNotFoundHandler(notFoundOrMethodNotAllowed(app));
  // A query parameter no route declares is a 400 unknown_parameter, on every route.
  closeQueryStrings(app);
  // Beta (Auto) and experimental (spec 4.2) routes say so in x-eql-stability (spec 9).
  app.addHook('onRequest', stabilityHeader);

  // An API key in the URL is refused (400 api_key_in_url) before anything else reads the request.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      refuseApiKeyInUrl(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  const auth = authenticate(context);
  app.addHook('onRequest', (request, _reply, done) => {
    // The route the router matched, not the raw URL: percent-escapes cannot dodge authentication.
    const route = matchedRoute(request).url;
    if (route === undefined || !route.startsWith('/v2/') || route === '/v2/ping') return done();
    try {
      const checked = auth(request);
      if (checked instanceof Promise) checked.then(() => done(), done);
      else done();
    } catch (error) {
      done(error as Error);
    }
  });
  app.addHook('preValidation', hmacCheck(context));
  // JSON bodies keep their types: the schema's coercion is for query strings and path parameters only.
  app.addHook('preValidation', refuseMistypedBody);
  // No text holds a NUL (PostgreSQL refuses it): a 400 naming the field, on every route and either store.
  app.addHook('preValidation', refuseNulCharacters);
  // Requests a minute (spec 8). On PostgreSQL the counters are in the database, shared by every host on it
  // (a failure of it counts in memory meanwhile: metering/pg-rate-counter.ts); else in this process's memory.
  const sharedRateLimits = store instanceof PgHostStore ? new PgRateCounter(store.pool, { log: app.log, prefix: 'request:' }) : undefined;
  app.addHook(
    'preHandler',
    requestLimits({
      counter: sharedRateLimits ?? new MemoryWindowCounter(),
      windowMs: 60_000,
      // Auto routes per key (per address before a key is known), payment-model routes per address; others,
      // and paths no route serves (a 404), are not bounded.
      boundOf: (request) => {
        if (matchedRoute(request).url === undefined) return undefined;
        const payment = isPaymentRequest(request);
        if (!payment && !isAutoRequest(request)) return undefined;
        const key = request.apiKey;
        if (key) return { key: `key:${key.id}`, max: limitsOf(config.plans, key.plan).requestsPerMinute };
        return { key: `ip:${request.ip}`, max: payment ? (config.x402.requestsPerMinute ?? X402_REQUESTS_PER_MINUTE) : 60 };
      },
      refusal: (request, bound, ttlMs) =>
        new ApiError('rate_limited', `more than ${bound.max} requests a minute on ${isPaymentRequest(request) ? 'payment-model' : 'Auto'} routes; retry in ${Math.ceil(ttlMs / 1000)} s`),
    }),
  );
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.apiKey) void reply.header('x-svc-credits-used', String(request.creditsUsed ?? 0));
    done(null, payload);
  });

  systemRoutes(app, context);
  // Metrics on the host's port, or on a listener of their own (EQL_METRICS_PORT) that serves nothing else.
  let metricsApp: FastifyInstance | undefined;
  if (metrics && config.metrics.port !== undefined) {
    metricsApp = Fastify({ logger: false });
    opened.add(() => metricsApp?.close());
    metricsRoute(metricsApp, metrics, config.metrics.token);
  } else if (metrics) metricsRoute(app, metrics, config.metrics.token);
  queryRoutes(app, context);
  draftRoutes(app, context);
  exchangeRoutes(app, context);
  webhookSecretRoutes(app, context);
  streamRoutes(app, context);
  marketRoutes(app, context, sharedRateLimits ? { ingestCounter: sharedRateLimits.withPrefix('ingest:') } : {});
  chatRoutes(app, context);
  if (config.x402.payTo) {
    const payments = createPaymentConfig({
      payTo: config.x402.payTo,
      agentSecrets: config.x402.agentSecrets,
      ...(config.x402.network ? { network: config.x402.network } : {}),
      ...(config.x402.facilitatorUrl ? { facilitatorUrl: config.x402.facilitatorUrl } : {}),
      ...(config.x402.offline ? { offline: true } : {}),
    });
    if (!payments.facilitatorUrl && !options.facilitator) {
      app.log.warn({ network: payments.network, payTo: payments.payTo }, 'x402 offline: payments are verified locally and never settled on chain (no facilitator)');
    }
    const rateLimits = {
      ...(config.x402.badSignaturesPerPayer === undefined ? {} : { perPayer: config.x402.badSignaturesPerPayer }),
      ...(config.x402.badSignaturesPerAddress === undefined ? {} : { perAddress: config.x402.badSignaturesPerAddress }),
      ...(sharedRateLimits ? { counter: sharedRateLimits.withPrefix('x402:') } : {}),
    };
    const ledger = store instanceof SqliteStore ? new SqlitePaymentLedger(store.db) : store instanceof PgHostStore ? new PgPaymentLedger(store.pool) : new MemoryPaymentLedger();
    await x402Routes(app, context, { payments, ledger, owners: new OwnerKeys(store, box), rateLimits, ...(options.facilitator ? { facilitator: options.facilitator } : {}), ...(config.x402.demo && model ? { refuseModelSpending: true } : {}) });
  }
  // The generated document with the EQL schema in place (the same as schemas/openapi.json).
  let openapi: Record<string, unknown> | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, () => (openapi ??= openApiDocument(app.swagger())));
  // The API reference page (Swagger UI, its assets served by the host: no CDN) over that document.
  await app.register(swaggerUi, {
    routePrefix: '/reference',
    transformSpecification: () => (openapi ??= openApiDocument(app.swagger())),
    uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
    theme: { title: 'EQL host: API reference' },
    staticCSP: true,
  });

  // The web console (packages/console), served from its built files.
  await consoleRoutes(app);

  // Records kept no longer than EQL_RETENTION_* says; on a cluster, by the host holding partition 0.
  const histories: PrunedHistory[] = [{ name: 'prices', keepMs: prices.retentionMs, prune: (before, limit) => prices.prune(before, limit) }];
  const ticks = sharedHistory;
  if (ticks) histories.push({ name: 'price_ticks', keepMs: ticks.retentionMs, prune: (before, limit) => ticks.prune(before, limit) });
  const retention = new RetentionJob({
    store,
    policy: config.retention,
    histories,
    now,
    leads: () => runner.readiness().partitions?.owned.includes(0) ?? true,
    onRun: (report) => {
      metrics?.observeRetention(report);
      if (Object.keys(report.pruned).length > 0) app.log.info({ pruned: report.pruned, durationMs: Math.round(report.durationMs) }, 'retention: pruned old records');
    },
    onError: (error) => app.log.warn({ error: error instanceof Error ? error.message : String(error) }, 'retention: a run failed; the next one tries again'),
  });
  opened.add(() => retention.stop());

  // Nothing runs before the engine starts: a `running` execution is one the previous process left.
  await store.interruptRunningExecutions(new Date(context.now()).toISOString());
  await runner.start();
  retention.start();
  return {
    app,
    ...(metricsApp ? { metricsApp } : {}),
    context,
    drain: () => {
      context.lifecycle.draining = true;
    },
    retention,
    close: async () => {
      await retention.stop();
      hub.close();
      await hub.slots.close();
      await metricsApp?.close();
      await app.close();
      await runner.dispose();
      await leases?.close();
      await venueFeed?.close().catch(() => undefined);
      prices.close();
      await usage.close();
      await store.close();
      ownMarket?.close();
      // The last spans (this shutdown's requests among them) are exported before the process ends.
      await options.tracing?.shutdown().catch(() => undefined);
    },
  };
}

/**
 * A server span per request (`GET /v2/auto/queries/:queryId`: the matched route, never the raw URL or its
 * query string), a child of the caller's `traceparent` when it sent one, with the status code and the
 * request id.
 */
function traceRequests(app: FastifyInstance, tracer: Tracer): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const route = matchedRoute(request).url;
    const span = tracer.startSpan(
      `${request.method} ${route ?? 'unmatched'}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route ?? 'unmatched', 'url.scheme': request.protocol, 'eql.request_id': request.id } },
      requestParent(request.headers),
    );
    spans.set(request, span);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}

/**
 * The PostgreSQL store at `url`: a database that cannot be reached or migrated is a {@link StartError}
 * naming it without its password (a refused secret key says so itself).
 */
async function openPgStore(url: string, box: SecretBox, timeouts: Partial<PgSessionTimeouts> | undefined): Promise<PgHostStore> {
  try {
    return await PgHostStore.open(url, { box, ...(timeouts ? { timeouts } : {}) });
  } catch (error) {
    if (error instanceof SecretKeyMismatchError) throw error;
    throw new StartError(`cannot open the PostgreSQL store at ${redactDatabaseUrl(url)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
