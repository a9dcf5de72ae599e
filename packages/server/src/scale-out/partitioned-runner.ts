import type { Exchange, QueryInspection, Recording, ServedData } from '@eql/core';
import type pg from 'pg';
import type { ConditionStatesChange, HostActivity, HostProblem, HostReadiness, HostStats, QueryRunner, StatusChange } from '../host/query-runner.js';
import type { QueryRecord, StoredNotification } from '../store/records.js';
import type { HostStore } from '../store/store.js';
import type { PgLeases } from './leases.js';
import { FEED_PARTITION, ownerOf, partitionOf, partitionsOf } from './partitions.js';

/**
 * What an engine of a cluster host does when partitions change hands, beyond adding and removing their
 * queries: the bus's engines ({@link BusPartitions}) read the market bus per partition, from where its
 * previous owner stopped.
 */
export interface PartitionLifecycle {
  /**
   * Prepares a partition just taken (called before its queries are added). `leased()` says whether its
   * lease is surely still this host's (renewed within 80 % of the TTL): while it is not, the partition
   * hands no message to its engine.
   */
  openPartition(partition: number, epoch: number, leased: () => boolean): Promise<void>;
  /** Starts the partitions opened (their queries are added by now); called again while a start is under way, it does not begin that one again. */
  startPartitions(): Promise<void>;
  /** Closes a partition lost or handed over (its queries removed already); resolves when its effects are stored. */
  closePartition(partition: number): Promise<void>;
  /**
   * Called when a partition stops on its own: a write of its engine was refused as fenced or failed. The
   * cluster drops it (its close is under way) and takes it again at a later round if it is still this
   * host's, from the position and the state the store has.
   */
  onPartitionStopped?(listener: (partition: number, epoch: number, reason: 'fenced' | 'failed') => void): () => void;
}

/** The engine a {@link PartitionedRunner} runs its partitions' queries in. */
export type PartitionEngine = Omit<QueryRunner, 'inspect' | 'start'> &
  Partial<PartitionLifecycle> & {
    start(include: (query: QueryRecord) => boolean): Promise<number>;
    /** What the engine knows of a query it runs here (undefined when it does not run it). */
    inspect(queryId: string): QueryInspection | undefined;
  };

/** Most queries read in one statement when the host brings its partitions' queries in line with the store. */
const RECONCILE_CHUNK = 500;

/** What a {@link PartitionedRunner} runs on. */
export interface PartitionedRunnerOptions {
  /** This process's engine: it runs the queries of the partitions this host holds. */
  engine: PartitionEngine;
  store: HostStore;
  /** The PostgreSQL pool of the store (the lists of active and ended queries are read from it). */
  pool: pg.Pool;
  leases: PgLeases;
  /** How many partitions the queries fall into (the same on every host: a cluster setting). */
  partitions: number;
  /**
   * The cluster's feed, read by one host at a time into the market bus: the host rendezvous hashing gives
   * the feed's lease to starts it, and stops it when it loses the lease. `leased()` says whether the lease
   * is surely still this host's (renewed within 80 % of the TTL): the feed publishes nothing when it is
   * not, because another host may lead by then.
   */
  feed?: { start(epoch: number, leased: () => boolean): Promise<void>; stop(): Promise<void> };
  /**
   * Hints between the hosts (the market bus's signals): a query created, cancelled or deleted through a
   * host that does not run it reaches its owner at once rather than at its next beat.
   */
  signals?: { send: (kind: string, data: Record<string, unknown>) => void; on: (kind: string, handler: (data: Record<string, unknown>) => void) => () => void };
  /** Called with what went wrong in a beat (PostgreSQL unreachable, say); the host goes on beating. */
  warn?: (message: string, error?: unknown) => void;
}

/** Resolves true when `work` settles within `ms`, false when it is still under way then (it goes on beside). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(
      () => true,
      () => true,
    ), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The queries of a cluster of hosts on one PostgreSQL database, shared out by partition (a hash of the
 * query id). Every `ttl/3` each host beats: it records its heartbeat and renews its leases (on the
 * leases' own connections, see {@link PgLeases.ownPool}). Beside the beat, never inside it, the host
 * works: it hands over the partitions rendezvous hashing now gives to another live host, takes the
 * free or expired ones it is given, and reconciles: it starts the active queries of its partitions it
 * does not run yet (created through another host, or owned by a host that died) from their persisted
 * state, and stops those cancelled or deleted through another host.
 *
 * The beat never awaits engine or data-path work: a partition that opens or closes slowly, a write
 * waiting on a lock or a full pool hold back the work (each of its steps bounded by the TTL) but no
 * renewal. Each partition's lease is surely this host's until 80 % of the TTL after the renewal that
 * kept it was sent (its validity): past it, the partition hands no message to its engine
 * (`openPartition`'s `leased`), and the next tick drops it. A partition dropped is
 * not taken again before its close ended (or was abandoned, a TTL after it began), so two hosts
 * never run a partition at once while the database's clock and theirs agree to within a fifth of the
 * TTL.
 */
export class PartitionedRunner implements QueryRunner {
  readonly recording: Recording;
  /** Partitions held, with the epoch of their lease. */
  private readonly owned = new Map<number, number>();
  /** Partitions whose lease the work has taken and whose engine it is opening, with their epoch (renewed too; a lost one is not added). */
  private readonly opening = new Map<number, number>();
  /** Partitions dropped whose engine is still closing: not taken again before it is closed (or abandoned). */
  private readonly closing = new Map<number, Promise<void>>();
  /** Ids of the active queries this host started (its engine may also keep ended ones for inspection). */
  private readonly running = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** The heartbeat and renewal under way. */
  private beating: Promise<void> | undefined;
  /** The hand-over, take-over and reconciliation under way, beside the beats. */
  private working: Promise<void> | undefined;
  /** A reconciliation under way (one at a time; one that outlasts its bound goes on beside). */
  private reconciling: Promise<void> | undefined;
  /** Partitions opened so far, and how many of them the last reconciliation that ended had begun after: those have their queries added. */
  private opened = 0;
  private reconciled = 0;
  /** Local time (ms) until which each lease held or being opened is surely this host's: 80 % of the TTL after the renewal that kept it was sent. */
  private readonly validUntil = new Map<number, number>();
  /** When (local ms) the last beat that was answered (heartbeat and renewal) was sent; the readiness says when it is older than the TTL. */
  private renewedAt: number | undefined;
  /** When the next beat is due (the timer's), to see how late it ran; and when lateness was last logged. */
  private beatDueAt: number | undefined;
  private lateLoggedAt = Number.NEGATIVE_INFINITY;
  /** The live hosts, as the last heartbeat answered. */
  private nodes: string[] = [];
  /** Local time (ms) until which the feed's lease is surely this host's. */
  private feedValidUntil = 0;
  private stopped = false;
  /** The epoch of the feed's lease while this host reads the feed into the bus. */
  private feedEpoch: number | undefined;
  /** The feed's stop under way (its lease lost): the feed is not started again before it ended. */
  private feedStopping: Promise<void> | undefined;

  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly options: PartitionedRunnerOptions) {
    this.recording = options.engine.recording;
    if (options.signals) this.unsubscribe.push(options.signals.on('query', (data) => void this.reconcileOne(data.queryId)));
    if (options.engine.onPartitionStopped) this.unsubscribe.push(options.engine.onPartitionStopped((partition, epoch) => this.partitionStopped(partition, epoch)));
  }

  /** A partition stopped on its own (a write refused or failed): dropped now; a later round takes it again if it is still this host's. */
  private partitionStopped(partition: number, epoch: number): void {
    if (this.stopped) return;
    // Stopped while it opened: the opening finds it lost, and closes it.
    if (this.opening.get(partition) === epoch) {
      this.opening.delete(partition);
      this.validUntil.delete(partition);
    } else if (this.owned.get(partition) === epoch) void this.drop([partition]);
  }

  /** A query another host created or ended: brought in line with the store now when its partition is this host's. */
  private async reconcileOne(queryId: unknown): Promise<void> {
    if (typeof queryId !== 'string' || this.stopped || !this.owned.has(partitionOf(queryId, this.options.partitions))) return;
    try {
      const record = await this.options.store.queryById(queryId);
      if (this.stopped || !this.owned.has(partitionOf(queryId, this.options.partitions))) return;
      const running = this.options.engine.inspect(queryId);
      if (!record || record.deletedAt !== null) {
        if (running) this.stopQuery(queryId);
      } else if (record.status === 'active' && running === undefined) this.startQuery(record);
      else if (record.status === 'cancelled' && running?.status === 'active') this.options.engine.cancel(queryId);
    } catch (error) {
      this.options.warn?.('cluster: a query signal could not be applied (the next beat does it)', error);
    }
  }

  /** This host's id. */
  get nodeId(): string {
    return this.options.leases.nodeId;
  }

  private get ttlMs(): number {
    return this.options.leases.ttlMs;
  }

  /** Takes back the paper venue, beats every TTL/3 from now on, and resolves after the first beat and round of work (this host's partitions taken, their queries started). */
  async start(): Promise<number> {
    await this.options.engine.start(() => false);
    this.renewedAt ??= Date.now();
    // Beating from now on: the first round of work may outlast the TTL (a partition slow to open).
    const every = Math.max(50, Math.floor(this.ttlMs / 3));
    this.beatDueAt = Date.now() + every;
    this.timer = setInterval(() => {
      const now = Date.now();
      // A beat a third of the TTL late: the event loop was held that long (a storm, a long synchronous loop).
      if (this.beatDueAt !== undefined && now - this.beatDueAt > this.ttlMs / 3) this.late(`a beat ran ${now - this.beatDueAt} ms late (the event loop was held)`);
      this.beatDueAt = now + every;
      this.tick();
    }, every);
    this.timer.unref();
    await this.beat();
    return this.running.size;
  }

  /** A beat (unless the last one is still waiting for its answer), and the partitions whose lease has surely expired dropped. */
  private tick(): void {
    this.beating ??= this.renewal().finally(() => (this.beating = undefined));
    this.dropExpired();
  }

  /** A beat and then a round of work, awaited (the first beat at start; tests). */
  async beat(): Promise<void> {
    this.beating ??= this.renewal().finally(() => (this.beating = undefined));
    await this.beating;
    await this.working;
    if (this.stopped) return;
    // Tracked like the rounds the beats start: never two at once.
    this.working ??= this.work().finally(() => (this.working = undefined));
    await this.working;
  }

  /** Whether the lease of `partition` at `epoch` is surely still this host's (held or being opened, and within its validity). */
  private leased(partition: number, epoch: number): boolean {
    return (this.owned.get(partition) ?? this.opening.get(partition)) === epoch && Date.now() < (this.validUntil.get(partition) ?? 0);
  }

  /**
   * The beat: heartbeat and renewal of the leases held and being opened (and the feed's), on the
   * leases' own connections. It awaits no engine work: a lease lost drops its partition beside it, and
   * the work that follows (hand-over, take-over) is started beside it.
   */
  private async renewal(): Promise<void> {
    if (this.stopped) return;
    const { leases } = this.options;
    const feedEpoch = this.feedEpoch;
    const mine = new Map([...this.owned, ...this.opening]);
    const sentAt = Date.now();
    try {
      const [nodes, renewed] = await Promise.all([leases.heartbeat(), leases.renew(feedEpoch === undefined ? [...mine.keys()] : [...mine.keys(), FEED_PARTITION])]);
      const took = Date.now() - sentAt;
      if (took > leases.ttlMs / 3) this.late(`a lease renewal was answered after ${took} ms`);
      const held = new Set(renewed);
      this.nodes = nodes;
      this.renewedAt = Math.max(this.renewedAt ?? 0, sentAt);
      if (feedEpoch !== undefined && feedEpoch === this.feedEpoch) {
        if (held.has(FEED_PARTITION)) this.feedValidUntil = Math.max(this.feedValidUntil, sentAt + leases.ttlMs * 0.8);
        else this.stopFeed();
      }
      const lost: number[] = [];
      for (const [partition, epoch] of mine) {
        const still = this.owned.get(partition) === epoch || this.opening.get(partition) === epoch;
        if (!still) continue;
        if (held.has(partition)) this.validUntil.set(partition, Math.max(this.validUntil.get(partition) ?? 0, sentAt + leases.ttlMs * 0.8));
        else if (this.opening.delete(partition)) this.validUntil.delete(partition);
        else lost.push(partition);
      }
      if (lost.length > 0) {
        this.options.warn?.(`cluster: the leases of partitions ${lost.join(',')} are no longer this host's; stopping them`);
        void this.drop(lost);
      }
    } catch (error) {
      this.options.warn?.('cluster: a heartbeat or lease renewal failed', error);
      return;
    }
    if (!this.stopped) this.working ??= this.work().finally(() => (this.working = undefined));
  }

  /** Logs that the beats are late (at most one line a minute): leases kept this way are close to lost. */
  private late(what: string): void {
    const now = Date.now();
    if (now - this.lateLoggedAt < 60_000) return;
    this.lateLoggedAt = now;
    this.options.warn?.(`cluster: ${what}; leases last ${this.ttlMs} ms and are renewed every ${Math.max(50, Math.floor(this.ttlMs / 3))} ms`);
  }

  /** Stops the feed at once (its lease is lost or not surely this host's): it publishes nothing from now on. */
  private stopFeed(): void {
    if (this.feedEpoch === undefined) return;
    this.feedEpoch = undefined;
    const stopping = (async () => {
      try {
        await this.options.feed?.stop();
      } catch (error) {
        this.options.warn?.('cluster: the feed did not stop cleanly', error);
      }
    })();
    this.feedStopping = stopping.finally(() => {
      if (this.feedStopping === stopping) this.feedStopping = undefined;
    });
  }

  /**
   * Drops the partitions (and stops the feed) whose validity has passed (not renewed within 80 % of
   * the TTL): another host may take them soon. From that moment they handed no message to their
   * engines already; the drop stops their queries before the lease can expire.
   */
  private dropExpired(): void {
    const now = Date.now();
    if (this.feedEpoch !== undefined && now >= this.feedValidUntil) this.stopFeed();
    const expired = [...this.owned.keys()].filter((partition) => now >= (this.validUntil.get(partition) ?? 0));
    if (expired.length === 0) return;
    this.options.warn?.(`cluster: leases not renewed within ${Math.round(this.ttlMs * 0.8)} ms; stopping partitions ${expired.join(',')}`);
    void this.drop(expired);
  }

  /**
   * The work beside the beats: the feed's lease, the hand-over of what another live host is now given,
   * the take-over of what this host is given (one partition opened at a time, each bounded by the TTL),
   * then reconciliation and the start of the partitions opened (each bounded by the TTL).
   */
  private async work(): Promise<void> {
    // Before a heartbeat has been answered the live hosts are unknown: nothing is taken or handed over.
    if (this.stopped || this.nodes.length === 0) return;
    const { leases, partitions, engine, warn } = this.options;
    try {
      const nodes = this.nodes.includes(this.nodeId) ? this.nodes : [...this.nodes, this.nodeId].sort();
      const desired = new Set(partitionsOf(this.nodeId, nodes, partitions));
      if (this.options.feed) await this.leadFeed(nodes, this.options.feed);
      // Hand over what another live host is now given: stop first, then give the lease back.
      const handOver = [...this.owned.keys()].filter((partition) => !desired.has(partition));
      if (handOver.length > 0) {
        await this.drop(handOver);
        await leases.release(handOver);
      }
      // A partition whose previous engine is still closing is not taken again yet.
      const wanted = [...desired].filter((partition) => !this.owned.has(partition) && !this.opening.has(partition) && !this.closing.has(partition));
      const acquiring = Date.now();
      const taken = this.stopped ? [] : await leases.acquire(wanted);
      // Renewed by the beats from now on: opening them may take longer than their TTL.
      for (const lease of taken) {
        this.opening.set(lease.partition, lease.epoch);
        this.validUntil.set(lease.partition, acquiring + this.ttlMs * 0.8);
      }
      for (const lease of taken) await this.open(lease.partition, lease.epoch);
      if (this.stopped) return;
      // A partition starts reading once its queries are added: after a reconciliation begun since it opened.
      let inTime = await within(this.reconcileOnce(), this.ttlMs);
      if (inTime && this.reconciled < this.opened) inTime = await within(this.reconcileOnce(), this.ttlMs);
      if (!inTime) warn?.(`cluster: reconciling the queries took longer than ${this.ttlMs} ms (it goes on beside)`);
      // Called each round (a start under way for one partition is not begun again), so that one slow to start holds back no other.
      if (engine.startPartitions && this.reconciled >= this.opened) {
        const starting = engine.startPartitions().catch((error: unknown) => warn?.('cluster: starting the partitions failed (tried again after the next beat)', error));
        if (!(await within(starting, this.ttlMs))) warn?.(`cluster: starting the partitions took longer than ${this.ttlMs} ms (it goes on beside)`);
      }
    } catch (error) {
      warn?.('cluster: taking partitions over failed (tried again after the next beat)', error);
    }
  }

  /** Opens a partition just taken, within the TTL: one that opens slower is given back (and closed once opened), fencing only itself. */
  private async open(partition: number, epoch: number): Promise<void> {
    const { engine, leases } = this.options;
    if (this.opening.get(partition) !== epoch || this.stopped) {
      // Lost before it opened (a beat found it another host's), or the host is leaving.
      if (this.opening.get(partition) === epoch) this.opening.delete(partition);
      this.validUntil.delete(partition);
      return;
    }
    let failed = false;
    const opened = (async () => {
      try {
        await engine.openPartition?.(partition, epoch, () => this.leased(partition, epoch));
      } catch (error) {
        failed = true;
        this.options.warn?.(`cluster: partition ${partition} did not open`, error);
      }
    })();
    const inTime = await within(opened, this.ttlMs);
    if (inTime && !failed && this.opening.get(partition) === epoch) {
      this.opening.delete(partition);
      this.owned.set(partition, epoch);
      this.opened += 1;
      return;
    }
    // Never run: lost while it opened, failed, or too slow. Closed once it has opened, and not taken again before.
    if (this.opening.get(partition) === epoch) this.opening.delete(partition);
    this.validUntil.delete(partition);
    if (!inTime) this.options.warn?.(`cluster: partition ${partition} did not open within ${this.ttlMs} ms; given back`);
    void this.close(partition, opened);
    if (!inTime || failed) await leases.release([partition]).catch((error: unknown) => this.options.warn?.(`cluster: could not give partition ${partition} back (its lease expires after the TTL)`, error));
  }

  /** Gives the feed's lease back when another host is now given it, or takes it (and starts the feed) when this host is; the beats renew it. */
  private async leadFeed(nodes: string[], feed: NonNullable<PartitionedRunnerOptions['feed']>): Promise<void> {
    const { leases } = this.options;
    const mine = ownerOf(FEED_PARTITION, nodes) === this.nodeId;
    if (this.feedEpoch !== undefined && !mine) {
      this.stopFeed();
      await this.feedStopping;
      await leases.release([FEED_PARTITION]);
    }
    if (!mine || this.feedEpoch !== undefined || this.stopped) return;
    // A feed stopped (its lease lost) is not started again before it has stopped.
    if (this.feedStopping && !(await within(this.feedStopping, this.ttlMs))) return;
    const acquiredAt = Date.now();
    const [lease] = await leases.acquire([FEED_PARTITION]);
    if (!lease || this.stopped) return;
    this.feedEpoch = lease.epoch;
    this.feedValidUntil = acquiredAt + leases.ttlMs * 0.8;
    const epoch = lease.epoch;
    await feed.start(epoch, () => this.feedEpoch === epoch && Date.now() < this.feedValidUntil);
  }

  /** Starts the active queries of the held partitions not running here; stops those ended through another host. */
  /** The reconciliation under way, or a new one; a failure is logged (the next round tries again). */
  private reconcileOnce(): Promise<void> {
    this.reconciling ??= (async () => {
      const opened = this.opened;
      try {
        await this.reconcile();
        this.reconciled = Math.max(this.reconciled, opened);
      } catch (error) {
        this.options.warn?.('cluster: reconciling the queries failed (tried again after the next beat)', error);
      } finally {
        this.reconciling = undefined;
      }
    })();
    return this.reconciling;
  }

  private async reconcile(): Promise<void> {
    const { pool, partitions, engine } = this.options;
    const { rows } = await pool.query<{ id: string }>("SELECT id FROM queries WHERE status = 'active' AND deleted_at IS NULL");
    const active = new Set<string>();
    for (const { id } of rows) if (this.owned.has(partitionOf(id, partitions))) active.add(id);
    // Read in chunks, many ids to a statement: a partition taken over (or a storm's ended queries) may be thousands.
    const starting = [...active].filter((id) => !this.running.has(id) && engine.inspect(id) === undefined);
    for (let from = 0; from < starting.length; from += RECONCILE_CHUNK) {
      for (const record of await this.options.store.queriesByIds(starting.slice(from, from + RECONCILE_CHUNK))) {
        const { id } = record;
        // Checked again after the read: a query signal may have started it meanwhile.
        if (record.status === 'active' && record.deletedAt === null && this.owned.has(partitionOf(id, partitions)) && !this.running.has(id) && engine.inspect(id) === undefined) this.startQuery(record);
      }
    }
    // The queries running here that are no longer active: their status and whether they were deleted are enough.
    const ended = [...this.running].filter((id) => !active.has(id));
    for (let from = 0; from < ended.length; from += RECONCILE_CHUNK) {
      const chunk = ended.slice(from, from + RECONCILE_CHUNK);
      const { rows: found } = await pool.query<{ id: string; status: string; deleted: boolean }>('SELECT id, status, deleted_at IS NOT NULL AS deleted FROM queries WHERE id = ANY($1::text[])', [chunk]);
      const states = new Map(found.map((row) => [row.id, row]));
      for (const id of chunk) {
        if (!this.running.has(id)) continue;
        const state = states.get(id);
        if (!state || state.deleted) this.stopQuery(id);
        else if (state.status === 'cancelled' && engine.inspect(id)?.status === 'active') engine.cancel(id);
        else if (state.status !== 'active') this.running.delete(id);
      }
    }
  }

  private startQuery(record: QueryRecord): void {
    this.options.engine.add(record);
    this.running.add(record.id);
  }

  private stopQuery(id: string): void {
    this.options.engine.remove(id);
    this.running.delete(id);
  }

  /**
   * Stops the queries of partitions this host no longer holds; resolves when their engines are closed,
   * or a TTL after (an engine that has not closed by then is abandoned, which is logged).
   */
  private async drop(partitions: number[]): Promise<void> {
    const dropped = new Set(partitions);
    for (const partition of partitions) {
      this.owned.delete(partition);
      this.validUntil.delete(partition);
    }
    // A partition stops reading before its queries go: no observation is counted as read that no query saw.
    const closing = partitions.map((partition) => this.close(partition));
    for (const id of [...this.running]) if (dropped.has(partitionOf(id, this.options.partitions))) this.stopQuery(id);
    await Promise.all(closing);
  }

  /**
   * Closes a partition's engine (after `before`, its opening); the partition is not taken again until
   * the close ended or, a TTL after it began, its engine was abandoned.
   */
  private close(partition: number, before?: Promise<unknown>): Promise<void> {
    const under = this.closing.get(partition);
    if (under) return under;
    const closed = (async () => {
      // Without an opening to wait for, the engine's close begins now, before `drop` removes the queries:
      // the partition stops reading first, and its queries leave with its engine, never from a running one.
      if (before) await before;
      // Taken again meanwhile (this close was abandoned): the engine keeps the later opening, not this one's.
      if (this.owned.has(partition) || this.opening.has(partition)) return;
      await this.options.engine.closePartition?.(partition);
    })().catch((error: unknown) => this.options.warn?.(`cluster: partition ${partition} did not close cleanly`, error));
    const bounded = within(closed, this.ttlMs)
      .then((inTime) => {
        if (!inTime) this.options.warn?.(`cluster: partition ${partition} did not close within ${this.ttlMs} ms; its engine is abandoned`);
      })
      .finally(() => {
        if (this.closing.get(partition) === bounded) this.closing.delete(partition);
      });
    this.closing.set(partition, bounded);
    return bounded;
  }

  /** Starts a query just stored when its partition is this host's; else its owner starts it at its next beat. */
  add(query: QueryRecord): void {
    if (!this.owned.has(partitionOf(query.id, this.options.partitions))) this.options.signals?.send('query', { queryId: query.id });
    else if (this.options.engine.inspect(query.id) === undefined) this.startQuery(query);
  }

  /** What this host's engine knows of a query (undefined when another host runs it). */
  inspect(queryId: string): QueryInspection | undefined {
    return this.options.engine.inspect(queryId);
  }

  /** Cancels a query running here; its owner elsewhere finds it cancelled in the store at its next beat. */
  cancel(queryId: string): void {
    if (this.options.engine.inspect(queryId) !== undefined) this.options.engine.cancel(queryId);
    else this.options.signals?.send('query', { queryId });
  }

  /** Stops a deleted query running here; its owner elsewhere finds it deleted at its next beat. */
  remove(queryId: string): void {
    if (this.options.engine.inspect(queryId) !== undefined) this.stopQuery(queryId);
    else this.options.signals?.send('query', { queryId });
  }

  /** This host's id, its partitions and its queries. */
  readiness(): HostReadiness {
    return {
      ...this.options.engine.readiness(),
      nodeId: this.nodeId,
      partitions: { owned: [...this.owned.keys()].sort((a, b) => a - b), count: this.options.partitions },
      ...(this.options.feed ? { feedLeader: this.feedEpoch !== undefined } : {}),
      ...(this.renewedAt !== undefined && !this.stopped && Date.now() - this.renewedAt > this.ttlMs ? { unready: `leases not renewed within ${this.ttlMs} ms` } : {}),
    };
  }

  served(): ServedData {
    return this.options.engine.served();
  }

  hasPrice(symbol: string): boolean {
    return this.options.engine.hasPrice(symbol);
  }

  exchangeFor(exchangeId: string, keyId: number): Promise<Exchange | undefined> {
    return this.options.engine.exchangeFor(exchangeId, keyId);
  }

  forgetExchange(keyId: number, exchangeId: string): void {
    this.options.engine.forgetExchange(keyId, exchangeId);
  }

  forgetSecret(keyId: number): void {
    this.options.engine.forgetSecret(keyId);
  }

  onNotification(listener: (notification: StoredNotification) => void): () => void {
    return this.options.engine.onNotification(listener);
  }

  onConditionStates(listener: (change: ConditionStatesChange) => void): () => void {
    return this.options.engine.onConditionStates(listener);
  }

  onStatusChange(listener: (change: StatusChange) => void): () => void {
    return this.options.engine.onStatusChange(listener);
  }

  onProblem(listener: (problem: HostProblem) => void): () => void {
    return this.options.engine.onProblem(listener);
  }

  onActivity(listener: (activity: HostActivity) => void): () => void {
    return this.options.engine.onActivity(listener);
  }

  stats(): HostStats {
    return this.options.engine.stats();
  }

  /**
   * Leaves the cluster gracefully: stops beating, stops its queries, gives its leases back and removes
   * its heartbeat (the other hosts take its partitions at their next beat, without waiting for the
   * leases to expire), then stops the engine.
   */
  async dispose(): Promise<void> {
    this.stopped = true;
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    if (this.timer) clearInterval(this.timer);
    await this.beating;
    await this.working;
    const partitions = [...this.owned.keys()];
    const ledFeed = this.feedEpoch !== undefined;
    this.stopFeed();
    await this.feedStopping;
    await this.drop(partitions);
    try {
      await this.options.leases.release(ledFeed ? [...partitions, FEED_PARTITION] : partitions);
      await this.options.leases.leave();
    } catch (error) {
      this.options.warn?.('cluster: could not give the leases back (they expire after the TTL)', error);
    }
    await this.options.engine.dispose();
  }
}
