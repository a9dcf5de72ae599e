import type { Exchange, QueryInspection, Recording, ServedData } from '@eql/core';
import type pg from 'pg';
import type { ConditionStatesChange, HostProblem, HostReadiness, QueryHost, StatusChange } from '../host/query-host.js';
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
  /** Prepares a partition just taken (called before its queries are added). */
  openPartition(partition: number, epoch: number): Promise<void>;
  /** Starts the partitions opened (their queries are added by now). */
  startPartitions(): Promise<void>;
  /** Closes a partition lost or handed over (its queries removed already); resolves when its effects are stored. */
  closePartition(partition: number): Promise<void>;
}

/** The engine a {@link PartitionedHost} runs its partitions' queries in. */
export type PartitionEngine = Omit<QueryHost, 'inspect' | 'start'> &
  Partial<PartitionLifecycle> & {
    start(include: (query: QueryRecord) => boolean): Promise<number>;
    /** What the engine knows of a query it runs here (undefined when it does not run it). */
    inspect(queryId: string): QueryInspection | undefined;
  };

/** What a {@link PartitionedHost} runs on. */
export interface PartitionedHostOptions {
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

/**
 * The queries of a cluster of hosts on one PostgreSQL database, shared out by partition (a hash of the
 * query id). Every `ttl/3` each host records its heartbeat, renews its leases, hands over the
 * partitions rendezvous hashing now gives to another live host, takes the free or expired ones it is
 * given, and reconciles: it starts the active queries of its partitions it does not run yet (created
 * through another host, or owned by a host that died) from their persisted state, and stops those
 * cancelled or deleted through another host.
 *
 * A host that cannot renew stops its partitions before its leases can expire (at 80 % of the TTL
 * since its last renewal), so two hosts never run a partition at once while the database's clock
 * and theirs agree to within a fifth of the TTL.
 *
 * The renewal never waits behind engine work: a beat that takes partitions over, starts queries or
 * reconciles may last longer than the TTL on a loaded machine, so while one is under way each tick
 * renews the leases held (and those being opened) on its own.
 */
export class PartitionedHost implements QueryHost {
  readonly recording: Recording;
  /** Partitions held, with the epoch of their lease. */
  private readonly owned = new Map<number, number>();
  /** Partitions whose lease a beat has taken and whose engine it is opening (renewed too; a lost one is not added). */
  private readonly opening = new Set<number>();
  /** Ids of the active queries this host started (its engine may also keep ended ones for inspection). */
  private readonly running = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  /** A renewal run beside a beat that is taking long. */
  private renewing: Promise<void> | undefined;
  /** When (local ms) the last renewal that kept each lease held or being opened was sent: it is surely this host's for 80 % of the TTL after. */
  private readonly renewedAt = new Map<number, number>();
  /** Local time (ms) until which the feed's lease is surely this host's. */
  private feedValidUntil = 0;
  private stopped = false;
  /** The epoch of the feed's lease while this host reads the feed into the bus. */
  private feedEpoch: number | undefined;

  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly options: PartitionedHostOptions) {
    this.recording = options.engine.recording;
    if (options.signals) this.unsubscribe.push(options.signals.on('query', (data) => void this.reconcileOne(data.queryId)));
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

  /** Takes back the paper venue, beats once (taking this host's partitions and starting their queries), then beats every TTL/3. */
  async start(): Promise<number> {
    await this.options.engine.start(() => false);
    await this.beat();
    this.timer = setInterval(() => this.tick(), Math.max(50, Math.floor(this.options.leases.ttlMs / 3)));
    this.timer.unref();
    return this.running.size;
  }

  /**
   * A beat; while the last one is still under way, a renewal of the leases beside it; and when neither
   * has renewed them by the leases' safe time (PostgreSQL hangs), the partitions stop.
   */
  private tick(): void {
    if (this.beating === undefined) {
      void this.beat();
      return;
    }
    this.renewing ??= this.renewal().finally(() => (this.renewing = undefined));
    this.fenceIfExpired();
  }

  /** Heartbeat and renewal of the leases held and being opened, beside a beat; a lease lost stops its partition at once. */
  private async renewal(): Promise<void> {
    if (this.stopped) return;
    const { leases } = this.options;
    try {
      await leases.heartbeat();
      const feedEpoch = this.feedEpoch;
      const mine = [...this.owned.keys(), ...this.opening];
      const sentAt = Date.now();
      const held = new Set(await leases.renew(feedEpoch === undefined ? mine : [...mine, FEED_PARTITION]));
      if (feedEpoch !== undefined && feedEpoch === this.feedEpoch) {
        if (held.has(FEED_PARTITION)) this.feedValidUntil = Math.max(this.feedValidUntil, sentAt + leases.ttlMs * 0.8);
        else {
          this.feedEpoch = undefined;
          await this.options.feed?.stop();
        }
      }
      for (const partition of mine) {
        if (held.has(partition)) {
          if (this.renewedAt.has(partition)) this.renewedAt.set(partition, Math.max(this.renewedAt.get(partition) ?? 0, sentAt));
        } else this.opening.delete(partition);
      }
      const lost = mine.filter((partition) => !held.has(partition) && this.owned.has(partition));
      if (lost.length > 0) await this.drop(lost);
    } catch (error) {
      this.options.warn?.('cluster: a lease renewal failed', error);
    }
  }

  /** Stops the feed, and every partition, whose lease was not renewed within 80 % of the TTL: another host may take it soon. */
  private fenceIfExpired(): void {
    const now = Date.now();
    if (this.feedEpoch !== undefined && now >= this.feedValidUntil) {
      this.feedEpoch = undefined;
      void this.options.feed?.stop();
    }
    if (this.owned.size === 0 || now < this.safeUntil()) return;
    this.options.warn?.(`cluster: leases not renewed within ${Math.round(this.options.leases.ttlMs * 0.8)} ms; stopping partitions ${[...this.owned.keys()].join(',')}`);
    void this.drop([...this.owned.keys()]);
  }

  /** Local time (ms) until which every lease held is surely this host's: 80 % of the TTL after the oldest renewal. */
  private safeUntil(): number {
    let oldest = Infinity;
    for (const partition of this.owned.keys()) oldest = Math.min(oldest, this.renewedAt.get(partition) ?? 0);
    return oldest + this.options.leases.ttlMs * 0.8;
  }

  /** One round of heartbeat, lease renewal, hand-over, take-over and reconciliation (never two at once). */
  beat(): Promise<void> {
    this.beating ??= this.round().finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    const { leases, partitions } = this.options;
    try {
      const nodes = await leases.heartbeat();
      const desired = new Set(partitionsOf(this.nodeId, nodes, partitions));
      if (this.options.feed) await this.leadFeed(nodes, this.options.feed);
      const renewing = Date.now();
      const held = new Set(await leases.renew([...this.owned.keys()]));
      for (const partition of held) if (this.owned.has(partition)) this.renewedAt.set(partition, Math.max(this.renewedAt.get(partition) ?? 0, renewing));
      const lost = [...this.owned.keys()].filter((partition) => !held.has(partition));
      if (lost.length > 0) await this.drop(lost);
      // Hand over what another live host is now given: stop first, then give the lease back.
      const handOver = [...this.owned.keys()].filter((partition) => !desired.has(partition));
      if (handOver.length > 0) {
        await this.drop(handOver);
        await leases.release(handOver);
      }
      const wanted = [...desired].filter((partition) => !this.owned.has(partition));
      const acquiring = Date.now();
      const taken = await leases.acquire(wanted);
      // Renewed beside this beat from now on: opening them may take longer than their TTL.
      for (const lease of taken) {
        this.opening.add(lease.partition);
        this.renewedAt.set(lease.partition, acquiring);
      }
      for (const lease of taken) {
        await this.options.engine.openPartition?.(lease.partition, lease.epoch);
        if (this.opening.delete(lease.partition)) this.owned.set(lease.partition, lease.epoch);
        else {
          // Lost while it opened (a renewal beside found it another host's): never run.
          this.renewedAt.delete(lease.partition);
          await this.options.engine.closePartition?.(lease.partition);
        }
      }
      if (this.stopped) return;
      await this.reconcile();
      await this.options.engine.startPartitions?.();
    } catch (error) {
      this.options.warn?.('cluster: a heartbeat failed', error);
      // Not renewed in time: the leases may be another host's soon. Stop before they are.
      this.fenceIfExpired();
    }
  }

  /** Renews, takes or gives back the feed's lease, starting or stopping the feed with it. */
  private async leadFeed(nodes: string[], feed: NonNullable<PartitionedHostOptions['feed']>): Promise<void> {
    const { leases } = this.options;
    const mine = ownerOf(FEED_PARTITION, nodes) === this.nodeId;
    if (this.feedEpoch !== undefined) {
      const renewedAt = Date.now();
      const held = (await leases.renew([FEED_PARTITION])).length > 0;
      if (held) this.feedValidUntil = Math.max(this.feedValidUntil, renewedAt + leases.ttlMs * 0.8);
      if (!held || !mine) {
        this.feedEpoch = undefined;
        await feed.stop();
        if (held) await leases.release([FEED_PARTITION]);
      }
    }
    if (mine && this.feedEpoch === undefined && !this.stopped) {
      const acquiredAt = Date.now();
      const [lease] = await leases.acquire([FEED_PARTITION]);
      if (lease) {
        this.feedEpoch = lease.epoch;
        this.feedValidUntil = acquiredAt + leases.ttlMs * 0.8;
        const epoch = lease.epoch;
        await feed.start(epoch, () => this.feedEpoch === epoch && Date.now() < this.feedValidUntil);
      }
    }
  }

  /** Starts the active queries of the held partitions not running here; stops those ended through another host. */
  private async reconcile(): Promise<void> {
    const { pool, partitions, engine } = this.options;
    const { rows } = await pool.query<{ id: string }>("SELECT id FROM queries WHERE status = 'active' AND deleted_at IS NULL");
    const active = new Set<string>();
    for (const { id } of rows) if (this.owned.has(partitionOf(id, partitions))) active.add(id);
    for (const id of active) {
      if (this.running.has(id) || engine.inspect(id) !== undefined) continue;
      const record = await this.options.store.queryById(id);
      if (record && record.status === 'active' && record.deletedAt === null && this.owned.has(partitionOf(id, partitions))) this.startQuery(record);
    }
    for (const id of [...this.running]) {
      if (active.has(id)) continue;
      const record = await this.options.store.queryById(id);
      if (!record || record.deletedAt !== null) this.stopQuery(id);
      else if (record.status === 'cancelled' && engine.inspect(id)?.status === 'active') engine.cancel(id);
      else if (record.status !== 'active') this.running.delete(id);
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

  /** Stops the queries of partitions this host no longer holds; resolves when the partitions are closed. */
  private async drop(partitions: number[]): Promise<void> {
    const dropped = new Set(partitions);
    for (const partition of partitions) {
      this.owned.delete(partition);
      this.renewedAt.delete(partition);
    }
    // A partition stops reading before its queries go: no observation is counted as read that no query saw.
    const closing = partitions.map((partition) => this.options.engine.closePartition?.(partition) ?? Promise.resolve());
    for (const id of [...this.running]) if (dropped.has(partitionOf(id, this.options.partitions))) this.stopQuery(id);
    for (const result of await Promise.allSettled(closing)) if (result.status === 'rejected') this.options.warn?.('cluster: a partition did not close cleanly', result.reason);
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
    await this.renewing;
    const partitions = [...this.owned.keys()];
    const ledFeed = this.feedEpoch !== undefined;
    if (ledFeed) {
      this.feedEpoch = undefined;
      await this.options.feed?.stop();
    }
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
