import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HostActivity, HostReadiness, QueryRunner } from '../host/query-runner.js';
import type { HostStore } from '../store/store.js';
import type { RetentionReport } from '../store/retention-job.js';

/** What the metrics read at each scrape, besides what they count as it happens. */
export interface MetricsSources {
  host: QueryRunner;
  store: HostStore;
  /** Open SSE streams on this host. */
  sseConnections: () => number;
  /** The wall clock, epoch ms. */
  now: () => number;
}

/** Seconds: HTTP requests answer in milliseconds, a few stream or preview for seconds. */
const REQUEST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: a notify is a store write, a webhook or an order a round trip, an llm step may take a minute. */
const ACTION_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: a store call is a SQLite statement (microseconds) or a PostgreSQL round trip. */
const STORE_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/**
 * The host's Prometheus metrics (prom-client), in a registry of its own: what happens (requests,
 * triggers, executions, store calls) counted as it happens, what is (queries, streams, the outbox, the
 * feed, partitions) read at each scrape. Names and units follow Prometheus conventions
 * (docs/operations.md lists them).
 */
export class HostMetrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly triggers: Counter;
  private readonly executions: Counter<'action' | 'outcome'>;
  private readonly failures: Counter<'action' | 'code'>;
  private readonly actionDuration: Histogram<'action' | 'outcome'>;
  readonly storeDuration: Histogram<'method' | 'outcome'>;
  private readonly retentionPruned: Counter<'kind'>;
  private readonly retentionLastRun: Gauge;
  private readonly retentionDuration: Gauge;
  /** Drops the host's readiness read by the last scrape (set when the cluster gauges exist). */
  private forgetReadiness: () => void = () => undefined;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({ name: 'eql_http_requests_total', help: 'HTTP requests answered, by method, route (the matched pattern, "unmatched" for none) and status code.', labelNames: ['method', 'route', 'status'], registers });
    this.httpDuration = new Histogram({ name: 'eql_http_request_duration_seconds', help: 'Time to answer HTTP requests, by method, route and status code.', labelNames: ['method', 'route', 'status'], buckets: REQUEST_BUCKETS, registers });
    this.triggers = new Counter({ name: 'eql_triggers_total', help: 'Queries fired (each trigger of a repeating query counts).', registers });
    this.executions = new Counter({ name: 'eql_executions_total', help: 'Action steps finished, by action type and outcome (succeeded, failed).', labelNames: ['action', 'outcome'], registers });
    this.failures = new Counter({ name: 'eql_execution_failures_total', help: 'Action steps failed, by action type and error code (such as WEBHOOK_FAILED, DELIVERY_UNCERTAIN).', labelNames: ['action', 'code'], registers });
    this.actionDuration = new Histogram({ name: 'eql_action_duration_seconds', help: 'Time from an action step starting to its outcome, by action type and outcome.', labelNames: ['action', 'outcome'], buckets: ACTION_BUCKETS, registers });
    this.storeDuration = new Histogram({ name: 'eql_store_call_duration_seconds', help: 'Time of calls to the host store, by method and outcome (ok, error).', labelNames: ['method', 'outcome'], buckets: STORE_BUCKETS, registers });
    this.retentionPruned = new Counter({ name: 'eql_retention_pruned_rows_total', help: 'Records the retention job deleted (or folded, for the ledger), by kind (notifications, executions, outbox, ..., prices, price_ticks).', labelNames: ['kind'], registers });
    this.retentionLastRun = new Gauge({ name: 'eql_retention_last_run_timestamp_seconds', help: 'When the retention job last finished a run on this host (0: never; on a cluster only the holder of partition 0 runs it).', registers });
    this.retentionDuration = new Gauge({ name: 'eql_retention_last_run_duration_seconds', help: 'How long the last run of the retention job took.', registers });
  }

  /** Counts what a run of the retention job pruned. */
  observeRetention(report: RetentionReport): void {
    for (const [kind, count] of Object.entries(report.pruned)) this.retentionPruned.inc({ kind }, count);
    this.retentionLastRun.set(report.at / 1000);
    this.retentionDuration.set(report.durationMs / 1000);
  }

  /** Adds the metrics read at each scrape from what the host is made of (once it is built). */
  watch(sources: MetricsSources): void {
    const registers = [this.registry];

    new Gauge({
      name: 'eql_queries_active',
      help: "Queries active in this host's engines.",
      registers,
      collect() {
        this.set(sources.host.stats().activeQueries);
      },
    });
    new Counter({
      name: 'eql_observations_total',
      help: 'Observations the engines took from the feeds, by source (price, tweet, news, llm).',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const [source, taken] of sources.host.stats().intake) this.inc({ source }, taken.count);
      },
    });
    new Gauge({
      name: 'eql_last_observation_age_seconds',
      help: 'Seconds since the engines took the last observation, by source: a silent feed grows it.',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const [source, taken] of sources.host.stats().intake) this.set({ source }, taken.ageMs / 1000);
      },
    });
    new Gauge({
      name: 'eql_sse_connections',
      help: 'Open notification streams (SSE) on this host.',
      registers,
      collect() {
        this.set(sources.sseConnections());
      },
    });
    new Gauge({
      name: 'eql_outbox_pending',
      help: 'Action steps whose outcome is not recorded: in flight, or in doubt after a crash (they end DELIVERY_UNCERTAIN).',
      registers,
      async collect() {
        this.set((await sources.store.outboxPending()).count);
      },
    });
    new Gauge({
      name: 'eql_outbox_pending_oldest_age_seconds',
      help: 'Age of the oldest pending action step (0 with none): a step stuck in doubt grows it.',
      registers,
      async collect() {
        const { oldestAt } = await sources.store.outboxPending();
        this.set(oldestAt === undefined ? 0 : Math.max(0, (sources.now() - Date.parse(oldestAt)) / 1000));
      },
    });
    this.clusterGauges(sources.host, registers);
  }

  /** Counts an answered request; `route` is the matched pattern (bounded), never the raw URL. */
  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    const labels = { method, route: route ?? 'unmatched', status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /** Counts a trigger or a finished execution. */
  observeActivity(activity: HostActivity): void {
    if (activity.type === 'trigger') {
      this.triggers.inc();
      return;
    }
    const { execution } = activity;
    const outcome = execution.status === 'succeeded' ? 'succeeded' : 'failed';
    this.executions.inc({ action: execution.type, outcome });
    if (outcome === 'failed') this.failures.inc({ action: execution.type, code: execution.error?.code ?? 'UNKNOWN' });
    const started = Date.parse(execution.createdAt);
    const finished = execution.finishedAt === undefined ? Number.NaN : Date.parse(execution.finishedAt);
    if (Number.isFinite(started) && Number.isFinite(finished) && finished >= started) this.actionDuration.observe({ action: execution.type, outcome }, (finished - started) / 1000);
  }

  /** The text of a scrape, and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    this.forgetReadiness();
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  /** Partitions, the feed's lead and the market bus, read from the host's readiness (only on a host that has them). */
  private clusterGauges(host: QueryRunner, registers: Registry[]): void {
    const readiness = host.readiness();
    if (readiness.partitions === undefined) return;
    // Read once per scrape, whatever number of gauges read it (scrape() forgets it first).
    let snapshot: HostReadiness | undefined;
    this.forgetReadiness = () => (snapshot = undefined);
    const current = () => (snapshot ??= host.readiness());
    new Gauge({
      name: 'eql_partitions_owned',
      help: 'Partitions of queries this host holds (a cluster on PostgreSQL).',
      registers,
      collect() {
        this.reset();
        const partitions = current().partitions;
        if (partitions) this.set(partitions.owned.length);
      },
    });
    new Gauge({
      name: 'eql_partition_owned',
      help: 'Each partition this host holds (1), by partition.',
      labelNames: ['partition'],
      registers,
      collect() {
        this.reset();
        for (const partition of current().partitions?.owned ?? []) this.set({ partition: String(partition) }, 1);
      },
    });
    if (readiness.bus === undefined) return;
    new Gauge({
      name: 'eql_feed_leader',
      help: "1 when this host reads the cluster's feed into the market bus, else 0.",
      registers,
      collect() {
        this.reset();
        this.set(current().feedLeader === true ? 1 : 0);
      },
    });
    new Gauge({
      name: 'eql_bus_connected',
      help: 'Whether this host is connected to the market bus (1) or reconnecting (0).',
      registers,
      collect() {
        this.reset();
        const bus = current().bus;
        if (bus) this.set(bus.connected ? 1 : 0);
      },
    });
    new Gauge({
      name: 'eql_bus_partition_handled_sequence',
      help: 'Stream sequence of the last bus message handed to the engine, by partition held.',
      labelNames: ['partition'],
      registers,
      collect() {
        this.reset();
        for (const [partition, position] of Object.entries(current().bus?.positions ?? {})) this.set({ partition }, position.handled);
      },
    });
    new Gauge({
      name: 'eql_bus_partition_saved_sequence',
      help: 'Stream sequence of the last position saved (where a new owner starts), by partition held.',
      labelNames: ['partition'],
      registers,
      collect() {
        this.reset();
        for (const [partition, position] of Object.entries(current().bus?.positions ?? {})) this.set({ partition }, position.saved);
      },
    });
    new Gauge({
      name: 'eql_bus_partition_backlog_sequences',
      help: 'While a partition held catches up: stream sequences between its last handled message and the end the stream had when this host took it (0 once live).',
      labelNames: ['partition'],
      registers,
      collect() {
        this.reset();
        for (const [partition, position] of Object.entries(current().bus?.positions ?? {})) this.set({ partition }, position.behind);
      },
    });
    new Gauge({
      name: 'eql_bus_partition_catching_up',
      help: 'Whether a partition held is catching up on a backlog of the bus (1) or live (0).',
      labelNames: ['partition'],
      registers,
      collect() {
        this.reset();
        for (const [partition, position] of Object.entries(current().bus?.positions ?? {})) this.set({ partition }, position.catchingUp ? 1 : 0);
      },
    });
  }
}
