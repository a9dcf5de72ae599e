import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignPartitions, FEED_PARTITION, ownerOf, partitionsOf } from '../src/scale-out/partitions.js';
import { fuzzRuns } from './support/fuzz-runs.js';

// Issue 46, "Partitions spread": every host up to the partition count gets work, every host computes
// the same owners from the same live list, and a host joining or leaving moves few partitions.

const nodeName = fc.string({ minLength: 1, maxLength: 12 });
const liveNodes = (max: number) => fc.uniqueArray(nodeName, { minLength: 1, maxLength: max });
const partitionCount = fc.integer({ min: 1, max: 64 });

function loads(owners: readonly string[], nodes: readonly string[]): number[] {
  return nodes.map((node) => owners.filter((owner) => owner === node).length);
}

/**
 * The most partitions a join may move beyond the joiner's own share: a bound measured (random names,
 * P up to 64: at most 3 extra moves at P = 4, 4 at 8, 6 at 16, 9 at 32, 11 at 64), not proved. The
 * greedy pass in order of weight can shift a partition between two old nodes when the joiner takes one
 * of theirs and frees room; plain rendezvous moves none but leaves hosts without work.
 */
function extraMovesAllowed(partitions: number): number {
  return Math.ceil(partitions / 4) + 3;
}

describe('partition spread', () => {
  it('gives every partition to exactly one live node, and loads differ by at most one', () => {
    fc.assert(
      fc.property(liveNodes(40), partitionCount, (nodes, partitions) => {
        const owners = assignPartitions(nodes, partitions);
        expect(owners).toHaveLength(partitions);
        for (const owner of owners) expect(nodes).toContain(owner);
        const perNode = loads(owners, nodes);
        expect(Math.max(...perNode) - Math.min(...perNode)).toBeLessThanOrEqual(1);
        // partitionsOf is the same assignment seen from one node: together they cover each partition once.
        const covered = nodes.flatMap((node) => partitionsOf(node, nodes, partitions)).sort((a, b) => a - b);
        expect(covered).toEqual(Array.from({ length: partitions }, (_, partition) => partition));
        for (let partition = 0; partition < partitions; partition += 1) expect(ownerOf(partition, nodes, partitions)).toBe(owners[partition]);
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('gives every host at least one partition while there are no more hosts than partitions', () => {
    fc.assert(
      fc.property(liveNodes(64), partitionCount, (nodes, partitions) => {
        fc.pre(nodes.length <= partitions);
        for (const node of nodes) expect(partitionsOf(node, nodes, partitions).length).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: fuzzRuns(300) },
    );
    // The case of the issue: 8 partitions and 3 hosts, and the default 32 with 3 to 32 hosts.
    for (const [count, partitions] of [[3, 8], [3, 32], [5, 32], [32, 32]] as const) {
      const nodes = Array.from({ length: count }, (_, index) => `eql-${index + 1}`);
      for (const node of nodes) expect(partitionsOf(node, nodes, partitions).length).toBeGreaterThanOrEqual(Math.floor(partitions / count));
    }
  });

  it('depends only on the set of live nodes: their order and repeats do not matter', () => {
    fc.assert(
      fc.property(
        liveNodes(20).chain((nodes) => fc.tuple(fc.constant(nodes), fc.shuffledSubarray(nodes, { minLength: nodes.length }), fc.subarray(nodes))),
        partitionCount,
        ([nodes, shuffled, repeated], partitions) => {
          expect(assignPartitions([...shuffled, ...repeated], partitions)).toEqual(assignPartitions(nodes, partitions));
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('moves the joiner its share and at most a bounded few others when a node joins (and the same when it leaves)', () => {
    fc.assert(
      fc.property(liveNodes(20), nodeName, partitionCount, (nodes, joiner, partitions) => {
        fc.pre(!nodes.includes(joiner));
        const before = assignPartitions(nodes, partitions);
        const after = assignPartitions([...nodes, joiner], partitions);
        const moved = before.filter((owner, partition) => after[partition] !== owner).length;
        const joinersShare = after.filter((owner) => owner === joiner).length;
        expect(moved).toBeGreaterThanOrEqual(joinersShare);
        expect(moved - joinersShare).toBeLessThanOrEqual(extraMovesAllowed(partitions));
      }),
      { numRuns: fuzzRuns(500) },
    );
  });

  it('gives the feed\'s lease by plain rendezvous: one live node, the same for any order, unmoved by a node that leaves unless it held it', () => {
    fc.assert(
      fc.property(liveNodes(20), (nodes) => {
        const leader = ownerOf(FEED_PARTITION, nodes);
        expect(nodes).toContain(leader);
        expect(ownerOf(FEED_PARTITION, [...nodes].reverse())).toBe(leader);
        for (const leaving of nodes) {
          if (leaving !== leader) expect(ownerOf(FEED_PARTITION, nodes.filter((node) => node !== leaving))).toBe(leader);
        }
      }),
      { numRuns: fuzzRuns(200) },
    );
    expect(ownerOf(FEED_PARTITION, [])).toBeUndefined();
    expect(assignPartitions([], 8)).toEqual([]);
    expect(() => ownerOf(0, ['a'])).toThrow(/partition count/);
  });
});
