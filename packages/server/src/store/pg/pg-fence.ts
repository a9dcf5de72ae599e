import type pg from 'pg';
import { type Fence, FencedWriteError } from '../fence.js';
import { prepared } from './prepared-statement.js';

const leaseHeld = prepared('lease_held', 'SELECT 1 FROM partition_leases WHERE partition = $1 AND epoch = $2 AND node_id = $3 FOR SHARE');

/**
 * Checks, inside a write's transaction, that the partition's lease is still the fence's (same node, same
 * epoch), and share-locks the lease row until the transaction ends; throws a {@link FencedWriteError}
 * (the caller rolls back) when it is not. The share lock conflicts with a take-over's `UPDATE` of the
 * row: a fenced write either commits before the take-over or, when the take-over came first, sees its
 * new epoch and is refused. There is no in between.
 *
 * Call it last, just before `COMMIT`, after the transaction's other locks (a notification's key lock,
 * the rows written): the lease row is then share-locked only for the commit, so a renewal of the lease
 * never waits on a write blocked elsewhere. A transaction writing for many triggers of one partition
 * (a group commit) calls it once.
 */
export async function checkFence(client: pg.ClientBase, fence: Fence, what: string): Promise<void> {
  const { rowCount } = await client.query(leaseHeld([fence.partition, fence.epoch, fence.nodeId]));
  if (!rowCount) throw new FencedWriteError(fence, what);
}
