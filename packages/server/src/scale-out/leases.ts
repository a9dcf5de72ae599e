import pg from 'pg';

/** A lease a host holds on a partition: its epoch grows each time the partition changes hands. */
export interface Lease {
  partition: number;
  epoch: number;
}

/**
 * Leases on partitions of queries, and the heartbeats of the hosts, in PostgreSQL (migration 3). Every
 * time is the database's clock (`now()`), so the hosts' clocks do not matter. A lease expires `ttlMs`
 * after its last renewal: a host that dies (SIGKILL, a lost network) loses its partitions then, and
 * the live hosts take them.
 */
export class PgLeases {
  /** Whether {@link close} ends the pool (it is the leases' own). */
  private ownsPool = false;

  constructor(
    private readonly pool: pg.Pool,
    /** This host's id (EQL_NODE_ID). */
    readonly nodeId: string,
    /** How long a lease and a heartbeat last without renewal. */
    readonly ttlMs: number,
  ) {}

  /**
   * Leases on a pool of their own (at most two connections, the settings of `from`): a renewal never
   * waits for a connection behind the data path's transactions (a full pool, a write waiting on a
   * lock), and a statement of theirs that hangs is cancelled by the server after the TTL.
   */
  static ownPool(from: pg.Pool, nodeId: string, ttlMs: number): PgLeases {
    const pool = new pg.Pool({
      ...from.options,
      // Not enumerable in pg-pool's copy of the options: taken explicitly.
      password: from.options.password,
      max: 2,
      connectionTimeoutMillis: ttlMs,
      statement_timeout: ttlMs,
      keepAlive: true,
    });
    // An idle connection the server closes is dropped by the pool; without a listener its error would end the process.
    pool.on('error', () => undefined);
    const leases = new PgLeases(pool, nodeId, ttlMs);
    leases.ownsPool = true;
    return leases;
  }

  /** Closes the leases' own pool (nothing when they run on a pool they were given). */
  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }

  /**
   * Reads a setting of the cluster, storing `proposed` when it has none: the first host to boot fixes
   * it for all (the partition count, the replay's origin).
   */
  async setting(name: string, proposed: string): Promise<string> {
    await this.pool.query('INSERT INTO cluster_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, proposed]);
    const { rows } = await this.pool.query<{ value: string }>('SELECT value FROM cluster_settings WHERE name = $1', [name]);
    return rows[0]?.value ?? proposed;
  }

  /** Records that this host is alive; returns the ids of the live hosts (heartbeat within the TTL), this one included. */
  async heartbeat(): Promise<string[]> {
    await this.pool.query(
      'INSERT INTO cluster_nodes (node_id, started_at, heartbeat_at) VALUES ($1, now(), now()) ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now()',
      [this.nodeId],
    );
    // Hosts gone for long are forgotten (their partitions were taken long ago).
    await this.pool.query("DELETE FROM cluster_nodes WHERE heartbeat_at < now() - make_interval(secs => $1::double precision * 10 / 1000)", [this.ttlMs]);
    const { rows } = await this.pool.query<{ node_id: string }>('SELECT node_id FROM cluster_nodes WHERE heartbeat_at > now() - make_interval(secs => $1::double precision / 1000) ORDER BY node_id', [this.ttlMs]);
    return rows.map((row) => row.node_id);
  }

  /**
   * Takes the partitions whose lease is free or expired (or already this host's); returns those taken, with
   * their new epochs. Epochs come from one sequence (migration 8), so a partition's epoch only grows, even
   * when its lease was released (deleted) in between: a fence of an earlier lease never matches again.
   *
   * A lease row another session has locked is skipped, not waited for: a host paused inside a fenced write
   * holds its row share-locked (`checkFence`) until the server ends its idle session, and that holds back
   * the take-over of that one partition only, never the others' or this host's renewals (the leases'
   * pool is small).
   */
  async acquire(partitions: readonly number[]): Promise<Lease[]> {
    if (partitions.length === 0) return [];
    const { rows } = await this.pool.query<{ partition: number; epoch: string }>(
      `WITH free AS (
         SELECT partition FROM partition_leases
          WHERE partition = ANY($1::int[]) AND (expires_at < now() OR node_id = $2)
          FOR UPDATE SKIP LOCKED
       ), taken AS (
         UPDATE partition_leases AS lease SET node_id = $2, epoch = nextval('partition_lease_epochs'), expires_at = now() + make_interval(secs => $3::double precision / 1000)
           FROM free WHERE lease.partition = free.partition
         RETURNING lease.partition, lease.epoch
       ), fresh AS (
         INSERT INTO partition_leases (partition, node_id, epoch, expires_at)
           SELECT p, $2, nextval('partition_lease_epochs'), now() + make_interval(secs => $3::double precision / 1000) FROM unnest($1::int[]) AS p
            WHERE NOT EXISTS (SELECT 1 FROM partition_leases WHERE partition = p)
         ON CONFLICT (partition) DO NOTHING
         RETURNING partition, epoch
       )
       SELECT partition, epoch FROM taken UNION ALL SELECT partition, epoch FROM fresh`,
      [partitions, this.nodeId, this.ttlMs],
    );
    return rows.map((row) => ({ partition: Number(row.partition), epoch: Number(row.epoch) }));
  }

  /** Extends this host's leases on `partitions`; returns the partitions it still holds (a lease taken by another host is not renewed). */
  async renew(partitions: readonly number[]): Promise<number[]> {
    if (partitions.length === 0) return [];
    const { rows } = await this.pool.query<{ partition: number }>(
      `UPDATE partition_leases SET expires_at = now() + make_interval(secs => $3::double precision / 1000)
       WHERE node_id = $2 AND partition = ANY($1::int[]) AND expires_at >= now() RETURNING partition`,
      [partitions, this.nodeId, this.ttlMs],
    );
    return rows.map((row) => Number(row.partition));
  }

  /** Gives partitions back at once (a hand-over), so that their next owner need not wait for the leases to expire. */
  async release(partitions: readonly number[]): Promise<void> {
    if (partitions.length === 0) return;
    await this.pool.query('DELETE FROM partition_leases WHERE node_id = $2 AND partition = ANY($1::int[])', [partitions, this.nodeId]);
  }

  /** Leaves the cluster: this host's heartbeat is removed, so the others stop counting it at their next beat. */
  async leave(): Promise<void> {
    await this.pool.query('DELETE FROM cluster_nodes WHERE node_id = $1', [this.nodeId]);
  }

  /** Every lease: partition, holder, epoch, and whether it has expired (the readiness route and tests). */
  async all(): Promise<Array<Lease & { nodeId: string; expired: boolean }>> {
    const { rows } = await this.pool.query<{ partition: number; node_id: string; epoch: string; expired: boolean }>('SELECT partition, node_id, epoch, expires_at < now() AS expired FROM partition_leases ORDER BY partition');
    return rows.map((row) => ({ partition: Number(row.partition), nodeId: row.node_id, epoch: Number(row.epoch), expired: row.expired }));
  }
}
