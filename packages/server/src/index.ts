/**
 * @eql/server: the reference HTTP host of EQL. `buildServer` builds it (a Fastify app over a store, the
 * engine and the SSE hub) and `startServer` starts it as `eql serve` does; its configuration, SQLite store,
 * keys and secrets are exported for the CLI and for embedders.
 *
 * @packageDocumentation
 */
export { buildServer, REDACTED_PATHS, type BuildOptions, type Host } from './build-server.js';
export { startServer, type Started } from './start.js';
export { ConfigurationError, configFromEnv, defaultConfig, PLANS, type HostConfig, type Plan } from './config.js';
export { createApiKey, ensureKey, rotateApiKey, rotateWebhookSecret, type CreatedKey, type KeyOptions, type RotatedApiKey, type RotatedWebhookSecret } from './auth/api-keys.js';
export { SecretBox, hashKey } from './secrets.js';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite-store.js';
export { SecretKeyMismatchError } from './store/secret-key-check.js';
export { StartError } from './start-error.js';
export { PgHostStore, type PgHostStoreOptions } from './store/pg/pg-store.js';
export { PgChatStore } from './store/pg/pg-chat-store.js';
export { PgPaymentLedger } from './store/pg/pg-payment-ledger.js';
export { PG_MIGRATIONS, migratePg, type PgMigration } from './store/pg/pg-migrations.js';
export { redactDatabaseUrl } from './store/pg/database-url.js';
export { SECRET_MASK, sealRequestSecrets, openRequestSecrets, maskRequestSecrets } from './store/request-secrets.js';
export { SqlitePriceHistory, type SqlitePriceHistoryOptions } from './store/sqlite-price-history.js';
export type { HostStore, KeyPatch } from './store/store.js';
export { DEFAULT_RETENTION, RETENTION_KINDS, type RetentionKind, type RetentionPolicy } from './store/retention.js';
export { RetentionJob, type PrunedHistory, type RetentionJobOptions, type RetentionReport } from './store/retention-job.js';
export { type Fence, FencedWriteError, StaleNotificationError } from './store/fence.js';
export * from './store/records.js';
export { ProcessRunner, ccxtConnector, type ExchangeConnector, type ProcessRunnerOptions } from './host/process-runner.js';
export type { ConditionStatesChange, HostProblem, QueryRunner, StatusChange } from './host/query-runner.js';
export { SseHub, type SseHubOptions } from './sse/hub.js';
export { MarketBus, BusConnectionError, type BusObservation, type BusReading, type HintSeal, type MarketBusOptions, DEFAULT_MARKET_STREAM } from './scale-out/index.js';
export { natsAuthFromEnv, NATS_AUTH_SETTINGS, type NatsAuth } from './scale-out/index.js';
export { natsConnectionOptions, redactNatsUrl } from './scale-out/index.js';
export { BusPublisher, LeaseLostError, type Publication, type PublishOutcome } from './scale-out/index.js';
export { checkBusObservation, readBusMessage, type BusMessageCheck, type BusMessageProblem } from './scale-out/index.js';
export { readRetryDelayMs, type BusEnd, type BusReadOptions } from './scale-out/index.js';
export { clusterStatus, readClusterStatus, type ClusterStatus } from './scale-out/index.js';
export { ApiError } from './http/errors.js';
export type { HostContext } from './context.js';
export { HOST_SETTINGS } from './settings/host-settings.js';
export { printedSettings, readSettings, settingsWarnings, type PrintedSetting, type SettingSource } from './settings/read-settings.js';
export { configurationMarkdown } from './settings/configuration-doc.js';
export { backupSqliteHost, migrateSqlite, pgMigrations, restoreSqliteHost, sqliteMigrationStates, type BackupResult, type MigrationState, type RestoreResult } from './store/backup.js';
