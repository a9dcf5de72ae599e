import { createHash } from 'node:crypto';

/** Partitions of the queries of a cluster by default (EQL_PARTITIONS): the unit a host owns and hands over. */
export const DEFAULT_PARTITIONS = 32;

/** The lease of the cluster's feed (the host holding it reads the feed into the market bus): not a partition of queries. */
export const FEED_PARTITION = -1;

/** The partition of a query: the first 32 bits of the SHA-256 of its id, modulo the partition count (the same on every host). */
export function partitionOf(queryId: string, partitions: number): number {
  return createHash('sha256').update(queryId).digest().readUInt32BE(0) % partitions;
}

/** The rendezvous weight of a node for a partition: the same on every host. */
function weightOf(node: string, partition: number): bigint {
  return createHash('sha256').update(`${node}\u0000${partition}`).digest().readBigUInt64BE(0);
}

/** The live node of highest weight for a partition (plain rendezvous hashing); ties go to the smaller name. */
function rendezvousOwner(partition: number, nodes: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1n;
  for (const node of nodes) {
    const weight = weightOf(node, partition);
    if (weight > bestWeight || (weight === bestWeight && best !== undefined && node < best)) {
      best = node;
      bestWeight = weight;
    }
  }
  return best;
}

/**
 * The owner of every partition among the live nodes: bounded-load rendezvous. Plain rendezvous hashing
 * leaves some of 3 or more hosts with few partitions or none, so each node here holds ⌊P/N⌋ or ⌈P/N⌉
 * partitions: every (partition, node) pair is taken in order of its rendezvous weight, highest first,
 * and a partition goes to the node of the first pair whose partition is still free and whose node has
 * room (⌊P/N⌋, or ⌈P/N⌉ while fewer than P mod N nodes hold that many). It depends only on the set of
 * nodes (duplicates and order ignored), so every host computes the same answer. With the weights
 * deciding, a node joining mostly takes partitions that rank it first, and little moves between the
 * others (not nothing: measured and bounded in `test/partition-spread.test.ts`). Empty with no node.
 */
export function assignPartitions(nodes: readonly string[], partitions: number): readonly string[] {
  const live = [...new Set(nodes)].sort();
  if (live.length === 0) return [];
  // A host asks for the same list every beat, and a test once per query: remember the last answer.
  const key = `${partitions}\u0000${live.join('\u0000')}`;
  if (lastAssignment?.key === key) return lastAssignment.owners;
  const floor = Math.floor(partitions / live.length);
  const roomier = partitions % live.length;
  const pairs: { partition: number; node: string; weight: bigint }[] = [];
  for (let partition = 0; partition < partitions; partition += 1) {
    for (const node of live) pairs.push({ partition, node, weight: weightOf(node, partition) });
  }
  // Ties (a 64-bit coincidence) are broken by node name, then partition, so the order is total.
  pairs.sort((a, b) => (a.weight !== b.weight ? (a.weight > b.weight ? -1 : 1) : a.node !== b.node ? (a.node < b.node ? -1 : 1) : a.partition - b.partition));
  const owners = new Array<string | undefined>(partitions).fill(undefined);
  const load = new Map(live.map((node) => [node, 0]));
  let atCeiling = 0;
  let assigned = 0;
  for (const { partition, node } of pairs) {
    if (assigned === partitions) break;
    if (owners[partition] !== undefined) continue;
    const held = load.get(node)!;
    if (held < floor || (held === floor && atCeiling < roomier)) {
      if (held === floor) atCeiling += 1;
      load.set(node, held + 1);
      owners[partition] = node;
      assigned += 1;
    }
  }
  lastAssignment = { key, owners: owners as string[] };
  return lastAssignment.owners;
}

let lastAssignment: { key: string; owners: readonly string[] } | undefined;

/**
 * The host a partition belongs to among the live ones, the same on every host from the same list.
 * A partition of queries needs the partition count (its owner is given by `assignPartitions`); the
 * feed's lease (FEED_PARTITION) goes by plain rendezvous hashing, so it moves only when its host
 * leaves or a host of higher weight joins. Undefined when no host is live.
 */
export function ownerOf(partition: number, nodes: readonly string[], partitions?: number): string | undefined {
  if (partition === FEED_PARTITION) return rendezvousOwner(partition, nodes);
  if (partitions === undefined) throw new Error(`ownerOf: partition ${partition} needs the partition count`);
  return assignPartitions(nodes, partitions)[partition];
}

/** The partitions, of `partitions`, that `assignPartitions` gives to `node` among `nodes`. */
export function partitionsOf(node: string, nodes: readonly string[], partitions: number): number[] {
  const owners = assignPartitions(nodes, partitions);
  const mine: number[] = [];
  for (let partition = 0; partition < partitions; partition += 1) if (owners[partition] === node) mine.push(partition);
  return mine;
}
