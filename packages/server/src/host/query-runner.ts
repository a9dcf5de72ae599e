import type { ConditionState, Exchange, ExecutionRecord, MaybePromise, QueryInspection, Recording, ServedData } from '@eql/core';
import type { QueryRecord, StoredNotification } from '../store/records.js';

/** The readiness of a query's conditions changed. */
export interface ConditionStatesChange {
  keyId: number;
  queryId: string;
  /** The instant of the observation that changed it (epoch ms). */
  at: number;
  conditionStates: ConditionState[];
}

/** A query left the active status (triggered, expired, cancelled, failed). */
export interface StatusChange {
  queryId: string;
  status: string;
}

/** Something that keeps a query from being evaluated as written (no feed serves its symbol, a history failed). */
export interface HostProblem {
  code: string;
  message: string;
  queryId?: string;
}

/** A trigger of a query, or an execution of one of its steps that finished (metrics and logs listen). */
export type HostActivity =
  | { type: 'trigger'; queryId: string; triggerIndex: number; final: boolean; at: number }
  | { type: 'execution'; queryId: string; execution: ExecutionRecord };

/** What a host's engines run and took in, for metrics and readiness. */
export interface HostStats {
  /** Queries active in this host's engines. */
  activeQueries: number;
  /** Observations the engines took, by source (`price`, `tweet`, `news`, `llm`): how many, and how long ago the last (ms, by the engine's clock). */
  intake: Map<string, { count: number; ageMs: number }>;
}

/** Adds the intake of `more` into `into` (counts summed, the newest kept). */
export function addIntake(into: HostStats['intake'], more: HostStats['intake']): void {
  for (const [source, taken] of more) {
    const known = into.get(source);
    if (known === undefined) into.set(source, { ...taken });
    else {
      known.count += taken.count;
      known.ageMs = Math.min(known.ageMs, taken.ageMs);
    }
  }
}

/** What a host runs, for the readiness route: its queries, and in a cluster its id and partitions. */
export interface HostReadiness {
  /** Queries in this host's engine (active, and ended ones kept for inspection). */
  queries: number;
  /** This host's id in the cluster (EQL_NODE_ID). */
  nodeId?: string;
  /** The partitions this host holds, of how many. */
  partitions?: { owned: number[]; count: number };
  /** Why this host should get no traffic now, when so (a cluster host whose leases were not renewed within the TTL): `/ready` answers 503 with it. */
  unready?: string;
  /** On the market bus: its stream, whether this host is connected to it, and per partition the last message handed to the engine and the last saved position. */
  /** Whether this host reads the cluster's feed into the market bus (a cluster with a bus and a feed). */
  feedLeader?: boolean;
  bus?: {
    stream: string;
    connected: boolean;
    /**
     * Per partition held: also, while it catches up, how many stream sequences it is behind the end the
     * stream had when it opened (`behind`), the observations handed to its engine and the messages skipped
     * as no observation, since this host opened it.
     */
    positions: Record<number, { handled: number; saved: number; catchingUp: boolean; behind: number; judged: number; malformed: number; reading: 'shared' | 'own' }>;
    /** While this host writes the cluster's price history (it leads the feed): see HistoryRecorder.status. */
    history?: { handled: number; saved: number; malformed: number; dropped: number };
  };
}

/**
 * What the routes ask of whatever runs the queries: one engine in this process ({@link ProcessRunner}), or
 * the partitions of a cluster (`ClusterEngine`). Inspection may be remote (a query another host
 * runs), hence a promise; commands are fire-and-forget once the store holds the change.
 */
export interface QueryRunner {
  /** The recording of the replay feed and of previews. */
  readonly recording: Recording;
  /** Starts running the active queries of the store (those this host owns); returns how many. */
  start(): Promise<number>;
  /** Starts running a query just stored (on the host that owns it). */
  add(query: QueryRecord): void;
  /** What the engine running the query knows of it now, or undefined when none runs it. */
  inspect(queryId: string): MaybePromise<QueryInspection | undefined>;
  /** Cancels a running query (its status is already cancelled in the store). */
  cancel(queryId: string): void;
  /** Stops running a query that was deleted. */
  remove(queryId: string): void;
  /** What the feeds serve, for validation. */
  served(): ServedData;
  /** Whether the feed has prices of a symbol's asset (the paper venue trades only those). */
  hasPrice(symbol: string): boolean;
  /** The connected exchange of a key. */
  exchangeFor(exchangeId: string, keyId: number): Promise<Exchange | undefined>;
  /** Forgets cached connections of a key's exchange (after a disconnect or a reconnect), on every host. */
  forgetExchange(keyId: number, exchangeId: string): void;
  /** Forgets a key's cached webhook secrets (after they changed), on every host. */
  forgetSecret(keyId: number): void;
  /** Called on every stored notification of every query (the SSE hub listens). */
  onNotification(listener: (notification: StoredNotification) => void): () => void;
  /** Called when the readiness of a query's conditions changes. */
  onConditionStates(listener: (change: ConditionStatesChange) => void): () => void;
  /** Called when a query leaves the active status. */
  onStatusChange(listener: (change: StatusChange) => void): () => void;
  /** Called on what keeps queries from being evaluated as written. */
  onProblem(listener: (problem: HostProblem) => void): () => void;
  /** Called on each trigger and each finished execution of the queries this host runs. */
  onActivity(listener: (activity: HostActivity) => void): () => void;
  /** What this host runs now (the readiness route). */
  readiness(): HostReadiness;
  /** What this host's engines run and took in (metrics, readiness). */
  stats(): HostStats;
  /** Stops running queries and lets go of connections; resolves once handed over (a cluster) or stopped. */
  dispose(): MaybePromise<void>;
}
