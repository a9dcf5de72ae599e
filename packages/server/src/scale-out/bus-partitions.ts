import { type DataSource, type Exchange, type PriceHistory, PushSource, type QueryInspection, type Recording, type ServedData } from '@eql/core';
import type { ProcessRunner } from '../host/process-runner.js';
import { addIntake, type ConditionStatesChange, type HostActivity, type HostProblem, type HostReadiness, type HostStats, type QueryRunner, type StatusChange } from '../host/query-runner.js';
import type { QueryRecord, StoredNotification } from '../store/records.js';
import type { HostStore } from '../store/store.js';
import { FEED_PARTITION, partitionOf } from './partitions.js';
import type { PartitionLifecycle } from './partitioned-runner.js';
import { FeedClock } from './feed-clock.js';
import type { HistoryRecorder } from './history-recorder.js';
import type { MalformedMessageLog } from './malformed-messages.js';
import type { BusObservation, BusReading, MarketBus } from './market-bus.js';
import type { PartitionPosition, PgPartitionPositions } from './partition-positions.js';
import { isFencedWrite } from '../store/fence.js';
import { fencedStore } from './fenced-store.js';
import { type ReadingMember, type SharedMessage, SharedBusReading, type SharedBusReadingOptions } from './shared-reading.js';

/** Builds the engine of one partition: its clock, its source (the bus), its history and its store (writes tracked). */
export type PartitionEngineFactory = (wiring: { scheduler: FeedClock; sources: DataSource[]; history: PriceHistory[]; store: HostStore }) => ProcessRunner;

/** What {@link BusPartitions} runs on. */
export interface BusPartitionsOptions {
  bus: MarketBus;
  positions: PgPartitionPositions;
  /** The store the engines write to. */
  store: HostStore;
  /** The cluster's price history (PostgreSQL), read up to a partition's position when it starts. */
  history: PriceHistory;
  /** How many partitions the queries fall into. */
  partitions: number;
  /** The engine of this host that runs no query: validation (`served`), exchanges and secrets. */
  base: ProcessRunner;
  /** A partition's engine. */
  engineFor: PartitionEngineFactory;
  /**
   * Longest a partition taken over waits for the history recorder to pass its position before its
   * queries warm (ms, default 10,000; then they warm from what the history has, with a warning).
   */
  historyWaitMs?: number;
  /** How often a partition's position is saved while it reads (ms, default 200). */
  saveEveryMs?: number;
  /** The host's log of messages that are no observation (each kind once per host). */
  malformedLog?: MalformedMessageLog;
  /** The host's history recorder (its state is shown in the readiness while it runs). */
  recorder?: HistoryRecorder;
  /** The host's one reading of the bus: how many messages it keeps for partitions joining behind it, and lets wait per partition (see SharedBusReading). */
  sharedReading?: Pick<SharedBusReadingOptions, 'keep' | 'queueLimit'>;
  warn?: (message: string, error?: unknown) => void;
}

interface Partition {
  partition: number;
  epoch: number;
  /** Whether the partition's lease is surely still this host's: no message is handed to the engine while it is not. */
  leased: () => boolean;
  /** The start of its reading, under way or done. */
  starting?: Promise<void>;
  engine: ProcessRunner;
  push: PushSource;
  clock: FeedClock;
  /** Store writes and history loads under way (the position passes a message only once what it caused is done). */
  writes: Set<Promise<unknown>>;
  /** It in the host's shared reading of the bus. */
  member: ReadingMember;
  /** Whether it reads in the host's shared reading (else on a reading of its own, catching up). */
  shared: boolean;
  /** Its own reading, while it catches up to the shared one; and that reading's stop once it joined. */
  reading?: BusReading;
  ownStopping?: Promise<void>;
  /** The last message handed to the engine. */
  handled: PartitionPosition;
  /** The last message whose writes are all done. */
  safe: PartitionPosition;
  /** The position last saved. */
  saved: PartitionPosition;
  /** The stream's last sequence when reading started: until it is handled, the partition catches up. */
  backlogUntil: number;
  /** Observations handed to the engine, and messages skipped as no observation, since this host opened the partition. */
  judged: number;
  malformed: number;
  unsubscribe: Array<() => void>;
  saving?: Promise<void>;
  timer?: NodeJS.Timeout;
  closed: boolean;
  /** Whether a save was refused (the lease at this epoch is no longer this host's): said once. */
  refused?: boolean;
  /**
   * Why the partition stopped before it was closed, if it did: a write of its engine was refused as
   * fenced (its lease is another host's), or a write or history load failed (its engine's memory may be
   * ahead of the store). From then on its engine gets no message and its writes are refused.
   */
  stopped?: 'fenced' | 'failed';
}

/**
 * How long the messages handed over in a row may hold the event loop before it gets a turn (timers: the
 * leases' renewal; requests): a backlog read in a burst must not hold a host's heartbeat back.
 */
const YIELD_AFTER_MS = 10;

/** How often a partition whose lease is not surely this host's looks again whether it was renewed (ms). */
const LEASE_RECHECK_MS = 20;

/** `target` with the promises its methods return tracked in `pending` until they settle (store writes, history loads); a rejection is told to `failed`. */
function tracking<T extends object>(target: T, pending: Set<Promise<unknown>>, failed: (error: unknown) => void): T {
  return new Proxy(target, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) {
          pending.add(result);
          void result.then(
            () => pending.delete(result),
            (error: unknown) => {
              pending.delete(result);
              failed(error);
            },
          );
        }
        return result;
      };
    },
  });
}

/**
 * The queries of the partitions this host holds, each partition in an engine of its own that reads the
 * market bus in order, like a member of a consumer group: a partition taken over (from a host that
 * died, or handed over) goes on from the position its previous owner saved, so the observations that
 * came meanwhile are judged as they would have been, at their own instants, before the live ones.
 *
 * A partition's position is the last message whose effects (runtime state, triggers, executions,
 * notifications, outbox entries) are all in the store; it is saved every `saveEveryMs` and when the
 * partition closes. Messages after it may be judged twice (by the old owner before it died, and by
 * the new one): the engine never fires a query at or before its last trigger, and actions go through
 * the outbox under stable keys, so nothing fires or runs twice.
 */
export class BusPartitions implements QueryRunner, PartitionLifecycle {
  readonly recording: Recording;
  private readonly open = new Map<number, Partition>();
  /** Partitions being closed: closing one again waits for the same close. */
  private readonly closing = new Map<number, Promise<void>>();
  /** When the event loop last had a turn between two messages (see {@link YIELD_AFTER_MS}). */
  private turnAt = performance.now();
  /** The host's one reading of the bus, which the partitions join once they are not far behind it. */
  private readonly shared: SharedBusReading;
  private readonly listeners = {
    stopped: new Set<(partition: number, epoch: number, reason: 'fenced' | 'failed') => void>(),
    notification: new Set<(notification: StoredNotification) => void>(),
    states: new Set<(change: ConditionStatesChange) => void>(),
    status: new Set<(change: StatusChange) => void>(),
    problem: new Set<(problem: HostProblem) => void>(),
    activity: new Set<(activity: HostActivity) => void>(),
  };

  constructor(private readonly options: BusPartitionsOptions) {
    this.recording = options.base.recording;
    this.shared = new SharedBusReading({
      bus: options.bus,
      ...options.sharedReading,
      onMalformed: (message) => options.malformedLog?.report(message),
      onError: (error, { seq, delayMs }) => options.warn?.(`bus: the host's reading failed to read message ${seq} (reading again from there in ${delayMs} ms)`, error),
      warn: options.warn,
    });
  }

  /** Takes back the paper venue's orders (the base engine's); queries start with their partitions. */
  async start(): Promise<number> {
    await this.options.base.start(() => false);
    return 0;
  }

  /**
   * Prepares a partition just taken: its engine, with its clock at the saved position (or the stream's
   * end for a partition never read), so that the history its queries warm from ends there.
   */
  async openPartition(partition: number, epoch: number, leased: () => boolean = () => true): Promise<void> {
    // A close under way (a fenced partition closing itself, or one the cluster abandoned) is left to end on
    // its own: it works on its own engine, whose writes are refused by now.
    if ((this.open.get(partition)?.epoch ?? -1) >= epoch) return;
    let saved = await this.options.positions.get(partition);
    if (saved === undefined) {
      // Never read: it starts at the stream's end, saved at once, so that a host taking it over before
      // its first save starts there too rather than at the end of a stream that has grown meanwhile.
      saved = await this.endOfStream();
      await this.options.positions.save(partition, epoch, saved);
    }
    await this.historyPast(saved.seq);
    // An opening abandoned by the cluster (it took longer than the TTL) may end after a later take-over's: the later epoch stays.
    const current = this.open.get(partition);
    if (current && current.epoch >= epoch) return;
    if (current) await this.closePartition(partition);
    const clock = new FeedClock();
    clock.catchUpFrom(saved.at);
    const push = new PushSource();
    // What the engine has under way: store writes, and history loads (ticks that come meanwhile wait in the engine).
    const writes = new Set<Promise<unknown>>();
    // Every write of the engine is fenced by this lease; once one is refused or fails, the partition stops.
    const fence = { partition, epoch, nodeId: this.options.positions.nodeId };
    const made: { entry?: Partition } = {};
    const failed = (error: unknown): void => {
      if (made.entry) this.stop(made.entry, error);
    };
    const store = tracking(fencedStore(this.options.store, fence, () => made.entry?.stopped !== undefined), writes, failed);
    const engine = this.options.engineFor({ scheduler: clock, sources: [push], history: [tracking(this.options.history, writes, failed)], store });
    const member: ReadingMember = { take: (message) => (message.observation ? this.handle(entry, message.observation) : this.skip(entry, message.malformed.seq)) };
    const entry: Partition = (made.entry = { partition, epoch, leased, engine, push, clock, writes, member, shared: false, handled: saved, safe: saved, saved, backlogUntil: 0, judged: 0, malformed: 0, unsubscribe: [], closed: false });
    entry.unsubscribe.push(
      engine.onNotification((notification) => this.listeners.notification.forEach((listener) => listener(notification))),
      engine.onConditionStates((change) => this.listeners.states.forEach((listener) => listener(change))),
      engine.onStatusChange((change) => this.listeners.status.forEach((listener) => listener(change))),
      engine.onProblem((problem) => this.listeners.problem.forEach((listener) => listener(problem))),
      engine.onActivity((activity) => this.listeners.activity.forEach((listener) => listener(activity))),
    );
    this.open.set(partition, entry);
  }

  /** Starts reading the bus for the partitions opened (their queries are added by now), each on its own: a slow one holds back no other. */
  async startPartitions(): Promise<void> {
    const starts: Array<Promise<void>> = [];
    for (const entry of this.open.values()) if (!entry.closed) starts.push((entry.starting ??= this.startReading(entry)));
    await Promise.all(starts);
  }

  private async startReading(entry: Partition): Promise<void> {
    // The history of its queries first: the backlog is judged on warm series.
    await this.quiesce(entry);
    const last = await this.options.bus.last();
    entry.backlogUntil = last?.seq ?? 0;
    if (entry.backlogUntil <= entry.handled.seq) entry.clock.live();
    const from = entry.handled.seq + 1;
    if (this.shared.canJoin(from) && (await this.shared.join(entry.member, from))) entry.shared = true;
    else {
      // Far behind the host's reading (or ahead of it): it catches up on its own, and joins when close.
      entry.reading = await this.options.bus.read(from, (observation) => this.readOwn(entry, { observation }), {
        onMalformed: (malformed) => {
          this.options.malformedLog?.report(malformed);
          return this.readOwn(entry, { malformed });
        },
        onError: (error, { seq, delayMs }) => this.options.warn?.(`bus: partition ${entry.partition} failed to read message ${seq} (reading again from there in ${delayMs} ms)`, error),
      });
    }
    if (entry.closed) {
      await this.leaveReadings(entry);
      return;
    }
    entry.timer = setInterval(() => void this.save(entry), this.options.saveEveryMs ?? 200);
    entry.timer.unref();
  }

  /**
   * One message of the bus, handed to its partition's engine at its instant. When it caused store writes
   * (a trigger: its runtime state, execution, notification, outbox entry), the next message waits until
   * they and the writes they lead to are done: a backlog read in a burst is judged as it was live, each
   * trigger settled before the next observation (a query still firing would not fire again).
   */
  private handle(entry: Partition, message: BusObservation): Promise<void> | undefined {
    if (entry.closed || message.seq <= entry.handled.seq) return undefined;
    // Another host may hold the lease by now: the message waits (the reading holds) until it is renewed or the partition closes.
    if (!entry.leased()) return this.whenLeased(entry).then(() => this.handle(entry, message));
    entry.clock.at(message.observation.at, () => entry.push.push(message.observation));
    entry.judged += 1;
    return this.passed(entry, { seq: message.seq, at: message.observation.at });
  }

  /** A message of the partition's own reading: handled, then the partition joins the host's reading when it can. */
  private readOwn(entry: Partition, message: SharedMessage): Promise<void> | undefined {
    if (entry.shared) return undefined;
    const taken = entry.member.take(message);
    return taken ? taken.then(() => this.joinShared(entry)) : this.joinShared(entry);
  }

  /** Joins the host's reading when it holds the partition's next message; its own reading then stops. */
  private joinShared(entry: Partition): Promise<void> | undefined {
    const from = entry.handled.seq + 1;
    if (entry.closed || !this.shared.canJoin(from)) return undefined;
    return this.shared.join(entry.member, from).then((joined) => {
      if (!joined || entry.closed) {
        if (joined) void this.shared.leave(entry.member);
        return;
      }
      entry.shared = true;
      const own = entry.reading;
      entry.reading = undefined;
      // Not awaited: the own reading waits for this very message to settle before it stops.
      entry.ownStopping = own?.stop();
    });
  }

  /** Stops the partition's readings: its own, and its place in the host's. */
  private async leaveReadings(entry: Partition): Promise<void> {
    await entry.reading?.stop();
    await entry.ownStopping;
    await this.shared.leave(entry.member);
  }

  /** Resolves once the partition's lease is surely this host's again, or the partition is closed. */
  private async whenLeased(entry: Partition): Promise<void> {
    while (!entry.closed && !entry.leased()) await new Promise((resolve) => setTimeout(resolve, LEASE_RECHECK_MS));
  }

  /** A message that is no observation: the engine never sees it, and the position moves past it (at the instant of the last observation). */
  private skip(entry: Partition, seq: number): Promise<void> | undefined {
    if (entry.closed || seq <= entry.handled.seq) return undefined;
    entry.malformed += 1;
    return this.passed(entry, { seq, at: entry.handled.at });
  }

  /** The partition has handled the message at `position`: it is safe once the writes it set going are done. */
  private passed(entry: Partition, position: PartitionPosition): Promise<void> | undefined {
    entry.handled = position;
    if (entry.clock.isCatchingUp && position.seq >= entry.backlogUntil) entry.clock.live();
    if (entry.writes.size === 0) {
      if (entry.stopped === undefined) entry.safe = position;
      return this.turn();
    }
    return this.quiesce(entry).then(() => {
      // A write that failed meanwhile leaves the position where it was: the message is judged again.
      if (entry.stopped === undefined && position.seq > entry.safe.seq) entry.safe = position;
    });
  }

  /** A turn of the event loop when the messages handed over in a row have held it for {@link YIELD_AFTER_MS}; else nothing to wait for. */
  private turn(): Promise<void> | undefined {
    if (performance.now() - this.turnAt < YIELD_AFTER_MS) return undefined;
    return new Promise((resolve) =>
      setImmediate(() => {
        this.turnAt = performance.now();
        resolve();
      }),
    );
  }

  /** Resolves once the partition's store writes and history loads are done and no new one follows within a turn of the event loop. */
  private async quiesce(entry: Partition): Promise<void> {
    for (;;) {
      while (entry.writes.size > 0) await Promise.allSettled([...entry.writes]);
      await new Promise((resolve) => setImmediate(resolve));
      if (entry.writes.size === 0) return;
    }
  }

  /** Saves a partition's position when it moved (one save at a time). */
  private save(entry: Partition): Promise<void> {
    if (entry.saving) return entry.saving;
    const position = entry.safe;
    if (position.seq <= entry.saved.seq) return Promise.resolve();
    entry.saving = this.options.positions
      .save(entry.partition, entry.epoch, position)
      .then(
        (written) => {
          if (written) entry.saved = position;
          else if (!entry.refused) {
            entry.refused = true;
            this.options.warn?.(`bus: the position of partition ${entry.partition} was not saved: its lease at epoch ${entry.epoch} is no longer this host's`);
          }
        },
        (error: unknown) => this.options.warn?.(`bus: could not save the position of partition ${entry.partition}`, error),
      )
      .finally(() => (entry.saving = undefined));
    return entry.saving;
  }

  /**
   * A write of the partition's engine was refused as fenced (another host holds its lease now) or failed
   * (the database cut the connection, a timeout), or a history load failed: the engine's memory may be
   * ahead of what the store holds (a trigger fired whose alert was never stored). The partition stops
   * handing messages to its engine at once, its further writes are refused, and it is closed with its
   * position left at the last message whose writes all succeeded; the cluster opens it again from there,
   * on what the store has ({@link onPartitionStopped}). The host goes on with its other partitions.
   */
  private stop(entry: Partition, error: unknown): void {
    // Once per opening (its writes under way fail too).
    if (entry.stopped !== undefined) return;
    entry.stopped = isFencedWrite(error) ? 'fenced' : 'failed';
    entry.closed = true;
    const { partition, epoch } = entry;
    this.options.warn?.(
      entry.stopped === 'fenced'
        ? `bus: partition ${partition} stops: a write was refused, its lease at epoch ${epoch} is no longer this host's`
        : `bus: partition ${partition} stops: a write failed; it is opened again from its last message whose writes all succeeded`,
      error,
    );
    this.listeners.stopped.forEach((listener) => listener(partition, epoch, entry.stopped!));
    if (this.open.get(partition) === entry) this.closePartition(partition).catch((closeError: unknown) => this.options.warn?.(`bus: partition ${partition} did not close cleanly`, closeError));
  }

  /** Called when a partition stops on its own (see {@link stop}): the cluster drops it, and takes it again if it is still this host's. */
  onPartitionStopped(listener: (partition: number, epoch: number, reason: 'fenced' | 'failed') => void): () => void {
    this.listeners.stopped.add(listener);
    return () => this.listeners.stopped.delete(listener);
  }

  /** Stops reading a partition lost or handed over, saves its position once its writes are done, and disposes its engine. */
  closePartition(partition: number): Promise<void> {
    const under = this.closing.get(partition);
    if (under) return under;
    const entry = this.open.get(partition);
    if (!entry) return Promise.resolve();
    const closed = this.close(entry).finally(() => this.closing.delete(partition));
    this.closing.set(partition, closed);
    return closed;
  }

  private async close(entry: Partition): Promise<void> {
    this.open.delete(entry.partition);
    entry.closed = true;
    // A reading being started stops itself once started (it finds the partition closed).
    await entry.starting?.catch(() => undefined);
    if (entry.timer) clearInterval(entry.timer);
    await this.leaveReadings(entry);
    // What the messages read set going (a history load with ticks waiting on it, a trigger's writes) ends before the engine goes.
    await this.quiesce(entry);
    entry.engine.dispose();
    await Promise.allSettled([...entry.writes]);
    // Every message handed over is stored by now, unless a write failed: then the position stays at the last safe one.
    if (entry.stopped === undefined) entry.safe = entry.handled;
    await entry.saving;
    await this.save(entry);
    for (const unsubscribe of entry.unsubscribe) unsubscribe();
  }

  /** Waits until the history recorder has written the ticks up to `seq` (bounded by `historyWaitMs`). */
  private async historyPast(seq: number): Promise<void> {
    const deadline = Date.now() + (this.options.historyWaitMs ?? 10_000);
    for (;;) {
      const recorded = await this.options.positions.get(FEED_PARTITION);
      if ((recorded?.seq ?? 0) >= seq) return;
      if (Date.now() >= deadline) {
        this.options.warn?.(`bus: the price history has not reached message ${seq} (at ${recorded?.seq ?? 0}); a partition starts with what it has`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** The stream's end as a position (a partition never read starts there). */
  private async endOfStream(): Promise<PartitionPosition> {
    const last = await this.options.bus.last();
    return last ? { seq: last.seq, at: last.observation?.at ?? Date.now() } : { seq: 0, at: Date.now() };
  }

  /** Adds a stored query to the engine of its partition (opened by now: the cluster adds only its partitions' queries). */
  add(query: QueryRecord): void {
    const engine = this.engineOf(query.id);
    if (engine && engine.inspect(query.id) === undefined) engine.add(query);
  }

  /** The engine of a query's partition, when this host has it open. */
  private engineOf(queryId: string): ProcessRunner | undefined {
    return this.open.get(partitionOf(queryId, this.options.partitions))?.engine;
  }

  inspect(queryId: string): QueryInspection | undefined {
    return this.engineOf(queryId)?.inspect(queryId);
  }

  cancel(queryId: string): void {
    this.engineOf(queryId)?.cancel(queryId);
  }

  remove(queryId: string): void {
    this.engineOf(queryId)?.remove(queryId);
  }

  /** The queries of this host's partitions, and how far each partition has read the bus. */
  /** What the partitions' engines (and the base engine) run and took in. */
  stats(): HostStats {
    const stats = this.options.base.stats();
    for (const entry of this.open.values()) {
      const own = entry.engine.stats();
      stats.activeQueries += own.activeQueries;
      addIntake(stats.intake, own.intake);
    }
    return stats;
  }

  onActivity(listener: (activity: HostActivity) => void): () => void {
    this.listeners.activity.add(listener);
    return () => this.listeners.activity.delete(listener);
  }

  readiness(): HostReadiness {
    let queries = 0;
    const bus: NonNullable<HostReadiness['bus']> = { stream: this.options.bus.stream, connected: this.options.bus.connected, positions: {} };
    for (const entry of this.open.values()) {
      queries += entry.engine.readiness().queries;
      const behind = entry.clock.isCatchingUp ? Math.max(0, entry.backlogUntil - entry.handled.seq) : 0;
      bus.positions[entry.partition] = { handled: entry.handled.seq, saved: entry.saved.seq, catchingUp: entry.clock.isCatchingUp, behind, judged: entry.judged, malformed: entry.malformed, reading: entry.shared ? 'shared' : 'own' };
    }
    const history = this.options.recorder?.status();
    if (history) bus.history = history;
    return { queries, bus };
  }

  served(): ServedData {
    return this.options.base.served();
  }

  hasPrice(symbol: string): boolean {
    return this.options.base.hasPrice(symbol);
  }

  exchangeFor(exchangeId: string, keyId: number): Promise<Exchange | undefined> {
    return this.options.base.exchangeFor(exchangeId, keyId);
  }

  forgetExchange(keyId: number, exchangeId: string): void {
    this.options.base.forgetExchange(keyId, exchangeId);
    for (const entry of this.open.values()) entry.engine.forgetExchange(keyId, exchangeId);
  }

  forgetSecret(keyId: number): void {
    this.options.base.forgetSecret(keyId);
    for (const entry of this.open.values()) entry.engine.forgetSecret(keyId);
  }

  onNotification(listener: (notification: StoredNotification) => void): () => void {
    this.listeners.notification.add(listener);
    return () => this.listeners.notification.delete(listener);
  }

  onConditionStates(listener: (change: ConditionStatesChange) => void): () => void {
    this.listeners.states.add(listener);
    return () => this.listeners.states.delete(listener);
  }

  onStatusChange(listener: (change: StatusChange) => void): () => void {
    this.listeners.status.add(listener);
    return () => this.listeners.status.delete(listener);
  }

  onProblem(listener: (problem: HostProblem) => void): () => void {
    this.listeners.problem.add(listener);
    return () => this.listeners.problem.delete(listener);
  }

  /** Closes every partition (positions saved), the base engine and the bus connection. */
  async dispose(): Promise<void> {
    for (const partition of [...this.open.keys()]) await this.closePartition(partition);
    await this.shared.settled();
    this.options.base.dispose();
    await this.options.bus.close();
  }
}
