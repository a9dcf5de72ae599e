import type pg from 'pg';

/** Where a partition stopped reading the market bus: the last message whose effects are all in the store. */
export interface PartitionPosition {
  /** The stream sequence of that message. */
  seq: number;
  /** Its observation's instant (epoch ms): the history of a partition taken over is read up to it. */
  at: number;
}

/**
 * The positions of the partitions on the market bus, in PostgreSQL (migration 5). A position only moves
 * forward, and only its partition's lease holder moves it (the write is fenced by the lease's node and
 * epoch, as every write of a partition's engine: store/fence.ts): a host that lost a partition while it
 * hung cannot move the position of its new owner.
 */
export class PgPartitionPositions {
  constructor(
    private readonly pool: pg.Pool,
    /** This host's node id: the holder the leases name (and the fences of its partitions' writes). */
    readonly nodeId: string,
  ) {}

  /** The saved position of a partition, or undefined when none was ever saved. */
  async get(partition: number): Promise<PartitionPosition | undefined> {
    const { rows } = await this.pool.query<{ seq: string; at: string }>('SELECT seq, at FROM partition_positions WHERE partition = $1', [partition]);
    const row = rows[0];
    return row ? { seq: Number(row.seq), at: Number(row.at) } : undefined;
  }

  /** Every saved position (the readiness route and tests). */
  async all(): Promise<Map<number, PartitionPosition>> {
    const { rows } = await this.pool.query<{ partition: number; seq: string; at: string }>('SELECT partition, seq, at FROM partition_positions ORDER BY partition');
    return new Map(rows.map((row) => [Number(row.partition), { seq: Number(row.seq), at: Number(row.at) }]));
  }

  /**
   * Saves a partition's position when this host holds its lease at `epoch` and the position moves
   * forward; returns whether it was saved. The lease row is share-locked (pg-fence.ts): a save either
   * commits before a take-over of the partition or sees its new epoch.
   */
  async save(partition: number, epoch: number, position: PartitionPosition): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO partition_positions AS p (partition, seq, at, node_id, saved_at)
         SELECT $1, $2, $3, $4, now() WHERE EXISTS (SELECT 1 FROM partition_leases WHERE partition = $1 AND node_id = $4 AND epoch = $5 FOR SHARE)
       ON CONFLICT (partition) DO UPDATE SET seq = EXCLUDED.seq, at = EXCLUDED.at, node_id = EXCLUDED.node_id, saved_at = EXCLUDED.saved_at
         WHERE p.seq < EXCLUDED.seq`,
      [partition, position.seq, position.at, this.nodeId, epoch],
    );
    return (rowCount ?? 0) > 0;
  }
}
