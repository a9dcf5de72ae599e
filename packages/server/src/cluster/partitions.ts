import { createHash } from 'node:crypto';

/** Partitions of the queries of a cluster by default (EQL_PARTITIONS): the unit a host owns and hands over. */
export const DEFAULT_PARTITIONS = 32;

/** The lease of the cluster's feed (the host holding it reads the feed into the market bus): not a partition of queries. */
export const FEED_PARTITION = -1;

/** The partition of a query: the first 32 bits of the SHA-256 of its id, modulo the partition count (the same on every host). */
export function partitionOf(queryId: string, partitions: number): number {
  return createHash('sha256').update(queryId).digest().readUInt32BE(0) % partitions;
}

/**
 * The host a partition belongs to among the live ones: rendezvous (highest random weight) hashing, so
 * that when a host joins or leaves only the partitions it gains or held move, and every host computes
 * the same answer from the same list. Undefined when no host is live.
 */
export function ownerOf(partition: number, nodes: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1n;
  for (const node of nodes) {
    const weight = createHash('sha256').update(`${node}\u0000${partition}`).digest().readBigUInt64BE(0);
    if (weight > bestWeight || (weight === bestWeight && best !== undefined && node < best)) {
      best = node;
      bestWeight = weight;
    }
  }
  return best;
}

/** The partitions, of `partitions`, that rendezvous hashing gives to `node` among `nodes`. */
export function partitionsOf(node: string, nodes: readonly string[], partitions: number): number[] {
  const mine: number[] = [];
  for (let partition = 0; partition < partitions; partition += 1) if (ownerOf(partition, nodes) === node) mine.push(partition);
  return mine;
}
