import type pg from 'pg';
import { openPgPool } from '../store/pg/pg-pool.js';
import { FEED_PARTITION } from './partitions.js';
import { MarketBus } from './market-bus.js';
import type { NatsAuth } from '../settings/nats-settings.js';

/** What `eql bus status` shows of a cluster: the stream, the hosts, the feed's leader and each partition's holder and lag. */
export interface ClusterStatus {
  /** `lastAt`: the instant of the last message's observation (null when the stream is empty or that message is no observation). */
  stream: { name: string; lastSeq: number; lastAt: string | null };
  hosts: Array<{ nodeId: string; heartbeatMsAgo: number; live: boolean }>;
  feed: { leader: string | null; historyUpTo: number | null };
  partitions: Array<{ partition: number; host: string | null; leaseExpired: boolean | null; readUpTo: number | null; behind: number | null }>;
}

/**
 * The state of the hosts of one PostgreSQL database on the market bus, read from the database (hosts,
 * leases, positions; every time by the database's clock) and from the stream's last message. A host is
 * live while its heartbeat is younger than `ttlMs`.
 */
export async function clusterStatus(pool: pg.Pool, bus: MarketBus, ttlMs: number): Promise<ClusterStatus> {
  const last = await bus.last();
  const lastSeq = last?.seq ?? 0;
  const hosts = await pool.query<{ node_id: string; ago: string }>("SELECT node_id, (extract(epoch FROM now() - heartbeat_at) * 1000)::bigint AS ago FROM cluster_nodes ORDER BY node_id");
  const leases = await pool.query<{ partition: number; node_id: string; expired: boolean }>('SELECT partition, node_id, expires_at < now() AS expired FROM partition_leases ORDER BY partition');
  const positions = new Map((await pool.query<{ partition: number; seq: string }>('SELECT partition, seq FROM partition_positions')).rows.map((row) => [Number(row.partition), Number(row.seq)]));
  const count = await pool.query<{ value: string }>("SELECT value FROM cluster_settings WHERE name = 'partitions'");
  const partitionCount = Number(count.rows[0]?.value ?? 0);
  const leaseOf = new Map(leases.rows.map((row) => [Number(row.partition), row]));
  const feedLease = leaseOf.get(FEED_PARTITION);
  const historyUpTo = positions.get(FEED_PARTITION);
  return {
    stream: { name: bus.stream, lastSeq, lastAt: last?.observation ? new Date(last.observation.at).toISOString() : null },
    hosts: hosts.rows.map((row) => ({ nodeId: row.node_id, heartbeatMsAgo: Number(row.ago), live: Number(row.ago) < ttlMs })),
    feed: { leader: feedLease && !feedLease.expired ? feedLease.node_id : null, historyUpTo: historyUpTo ?? null },
    partitions: Array.from({ length: partitionCount }, (_, partition) => {
      const lease = leaseOf.get(partition);
      const read = positions.get(partition);
      return { partition, host: lease?.node_id ?? null, leaseExpired: lease ? lease.expired : null, readUpTo: read ?? null, behind: read === undefined ? null : Math.max(0, lastSeq - read) };
    }),
  };
}

/** {@link clusterStatus} over connections of its own (`eql bus status`), closed before it returns. */
export async function readClusterStatus(options: { databaseUrl: string; natsUrl: string; natsAuth?: NatsAuth; stream?: string; ttlMs: number }): Promise<ClusterStatus> {
  const pool = openPgPool(options.databaseUrl, { maxConnections: 1 });
  try {
    const bus = await MarketBus.connect(options.natsUrl, { name: 'eql bus status', ...(options.stream ? { stream: options.stream } : {}), ...(options.natsAuth ? { auth: options.natsAuth } : {}) });
    try {
      return await clusterStatus(pool, bus, options.ttlMs);
    } finally {
      await bus.close();
    }
  } finally {
    await pool.end();
  }
}
