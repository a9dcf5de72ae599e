import { type DataSource, PushSource } from '@eql/core';
import { asyncScheduler } from 'rxjs';
import type { HostConfig } from '../config.js';
import type { PartitionedRunnerOptions } from './partitioned-runner.js';
import { CcxtFeed } from '../host/ccxt-venue.js';
import { ProcessRunner, type ProcessRunnerOptions } from '../host/process-runner.js';
import { PgPriceHistory } from '../store/pg/pg-price-history.js';
import type { PgHostStore } from '../store/pg/pg-store.js';
import { BusPartitions } from './bus-partitions.js';
import { BusPublisher } from './bus-publisher.js';
import { HistoryRecorder } from './history-recorder.js';
import { MalformedMessageLog } from './malformed-messages.js';
import { MarketBus } from './market-bus.js';
import { PgPartitionPositions } from './partition-positions.js';
import { topicsOfRequest } from './query-topics.js';
import { ReplayPublisher } from './replay-publisher.js';
import { VenuePublisher } from './venue-publisher.js';

/** What a host on the market bus runs: its partitions' engines, the feed it reads when it leads, the hints, and the venue it opened. */
export interface BusWiring {
  engine: BusPartitions;
  feed: NonNullable<PartitionedRunnerOptions['feed']>;
  signals: NonNullable<PartitionedRunnerOptions['signals']>;
  /** The ccxt venue the host opened for the feed (closed with the host), if any. */
  venueFeed?: CcxtFeed;
  /** Why anyone who reaches the bus's server could publish prices (logged at start), if it is so. */
  openWarning?: string;
  /** The cluster's shared price history (`price_ticks`): the retention job prunes it. */
  history: PgPriceHistory;
}

/**
 * The parts of a host on the market bus (EQL_NATS_URL): the connection, the engines of the partitions
 * (reading the stream from their saved positions, warming from the cluster's price history), and what
 * the feed's leader runs: the history recorder, and the feed itself (the replay's timeline, or a live
 * venue or the embedder's sources for the topics of the active queries; nothing with EQL_FEED=bus).
 */
export async function wireBus(options: {
  config: HostConfig;
  store: PgHostStore;
  cluster: { partitions: number; replayOrigin: number };
  /** The options of a ProcessRunner of this host (sources, history and scheduler are the bus's). */
  engineOptions: ProcessRunnerOptions;
  /** An embedder's or a test's own feeds (they replace the configured one). */
  sources?: DataSource[];
  warn: (message: string, error?: unknown) => void;
}): Promise<BusWiring> {
  const { config, store, cluster, warn } = options;
  const bus = await MarketBus.connect(config.natsUrl as string, {
    name: config.nodeId,
    ...(config.natsStream ? { stream: config.natsStream } : {}),
    ...(config.natsAuth ? { auth: config.natsAuth } : {}),
    // The hints carry query and key ids: sealed with a key every host of the cluster derives from the secret key.
    hints: options.engineOptions.box.derive('eql market bus hints'),
    warn,
  });
  const history = new PgPriceHistory(store.pool, { epoch: cluster.replayOrigin, ...(config.retention.prices ? { retentionMs: config.retention.prices } : {}) });
  // The base engine runs no query: it answers what the feeds serve (the recording's symbols; any with
  // EQL_FEED=bus, where publishers decide), exchanges and secrets.
  const base = new ProcessRunner({ ...options.engineOptions, ...(config.feed === 'bus' ? { sources: [new PushSource()] } : {}), history: [] });
  const positions = new PgPartitionPositions(store.pool, config.nodeId);
  // One host of the cluster, the feed's leader (its lease), writes the stream's ticks into the price
  // history and reads the feed into the bus.
  // Every reading of this host meets the same malformed messages: one log for them all.
  const malformedLog = new MalformedMessageLog(warn);
  const recorder = new HistoryRecorder({ bus, history, positions, malformedLog, warn });
  const venueFeed = !options.sources && config.feed.startsWith('ccxt:') ? new CcxtFeed(config.feed.slice(5), { scheduler: asyncScheduler }) : undefined;
  const liveSources = options.sources ?? (venueFeed ? [venueFeed] : undefined);
  // The feed publishes only while its lease is surely this host's (PartitionedRunner says so at each start).
  let leased: () => boolean = () => false;
  const publisher = new BusPublisher(bus, () => leased());
  const read =
    config.feed === 'bus'
      ? undefined
      : liveSources
        ? new VenuePublisher({ sources: liveSources, topics: async () => (await store.activeQueries()).flatMap((query) => topicsOfRequest(query.request)), publisher, warn })
        : new ReplayPublisher({ recording: base.recording, timeline: { origin: cluster.replayOrigin, speed: config.replaySpeed }, publisher, lastPublishedAt: async () => (await bus.last())?.observation?.at, warn });
  const { prices: _prices, sources: _sources, history: _history, scheduler: _scheduler, ...shared } = options.engineOptions;
  const engine = new BusPartitions({
    bus,
    positions,
    // A take-over waits at most half a TTL for the history recorder, then warms from what the history has.
    historyWaitMs: Math.floor(config.leaseTtlMs / 2),
    store,
    history,
    partitions: cluster.partitions,
    base,
    engineFor: (wiring) => new ProcessRunner({ ...shared, ...wiring, recording: base.recording }),
    malformedLog,
    recorder,
    warn,
  });
  return {
    engine,
    history,
    feed: {
      start: async (epoch, isLeased) => {
        leased = isLeased;
        await recorder.start(epoch);
        await read?.start();
      },
      stop: async () => {
        await read?.stop();
        await recorder.stop();
      },
    },
    signals: { send: (kind, data) => bus.signal(kind, data), on: (kind, handler) => bus.onSignal(kind, handler) },
    ...(venueFeed ? { venueFeed } : {}),
    ...(bus.openWarning ? { openWarning: bus.openWarning } : {}),
  };
}
