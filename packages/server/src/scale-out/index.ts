/**
 * Scale-out: the hosts of one PostgreSQL database sharing the queries by partition under leases, and the
 * market bus on NATS JetStream that each partition reads from where its previous owner stopped
 * (docs/scale-out.md). What the rest of the host uses of it comes through here.
 */
export { PgLeases } from './leases.js';
export { DEFAULT_PARTITIONS } from './partitions.js';
export { type PartitionEngine, PartitionedRunner, type PartitionedRunnerOptions } from './partitioned-runner.js';
export { wireBus } from './bus-wiring.js';
export { oncePerTurnByKey } from './notification-hints.js';
export { BusConnectionError, DEFAULT_MARKET_STREAM, MarketBus, readRetryDelayMs, type BusEnd, type BusObservation, type BusReading, type BusReadOptions, type HintSeal, type MarketBusOptions } from './market-bus.js';
export { NATS_AUTH_SETTINGS, natsAuthFromEnv, type NatsAuth } from '../settings/nats-settings.js';
export { busHasCredentials, natsConnectionOptions, redactNatsUrl } from './nats-connection.js';
export { BusPublisher, LeaseLostError, type Publication, type PublishOutcome } from './bus-publisher.js';
export { checkBusObservation, readBusMessage, type BusMessageCheck, type BusMessageProblem } from './bus-message.js';
export { clusterStatus, readClusterStatus, type ClusterStatus } from './cluster-status.js';
