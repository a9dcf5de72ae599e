import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { DataSource, Recording } from '@eql/core';
import { BusPartitions, type PartitionEngineFactory } from '../src/scale-out/bus-partitions.js';
import type { BusObservation, BusReadOptions, MarketBus } from '../src/scale-out/market-bus.js';
import type { PartitionPosition, PgPartitionPositions } from '../src/scale-out/partition-positions.js';
import { type ReadingMember, type SharedMessage, SharedBusReading, seqOf } from '../src/scale-out/shared-reading.js';
import type { ProcessRunner } from '../src/host/process-runner.js';
import type { HostStore } from '../src/store/store.js';

// One reading of the bus per host (issue 47): every member gets each message from where it joined, once
// and in order, whatever the others take time for; a member far behind is told to catch up on its own
// and joins later; the partitions of a host read the stream once.

const tick = (seq: number): BusObservation => ({ seq, observation: { at: 1_700_000_000_000 + seq, source: 'price', symbol: 'BTC', price: 100 + seq } });

/** A stream in memory that grows while it is read (every `malformedEvery`-th message is no observation), counting its readings. */
function liveBus(malformedEvery = 0) {
  let last = 0;
  const waiting = new Set<() => void>();
  const readings = { started: 0, running: 0 };
  const isMalformed = (seq: number) => malformedEvery > 0 && seq % malformedEvery === 0;
  const bus = {
    stream: 'LIVE',
    connected: true,
    last: () => Promise.resolve(last === 0 ? undefined : { seq: last, observation: isMalformed(last) ? undefined : tick(last).observation }),
    read: (fromSeq: number, deliver: (message: BusObservation) => Promise<void> | undefined, options: BusReadOptions = {}) => {
      let stopped = false;
      let wake: (() => void) | undefined;
      readings.started += 1;
      readings.running += 1;
      const done = (async () => {
        // As MarketBus: the first message comes on a later turn than the answer.
        await new Promise((resolve) => setImmediate(resolve));
        for (let seq = Math.max(1, fromSeq); !stopped; ) {
          if (seq > last) {
            await new Promise<void>((resolve) => {
              wake = resolve;
              waiting.add(resolve);
            });
            if (wake) waiting.delete(wake);
            continue;
          }
          const settled = isMalformed(seq) ? options.onMalformed?.({ seq, subject: 'live.x', problem: { kind: 'json', reason: 'not JSON' } }) : deliver(tick(seq));
          if (settled) await settled;
          seq += 1;
        }
      })().finally(() => (readings.running -= 1));
      return Promise.resolve({
        done,
        stop: async () => {
          stopped = true;
          wake?.();
          await done;
        },
      });
    },
    close: () => Promise.resolve(),
  };
  const publish = (count: number): void => {
    last += count;
    for (const resolve of [...waiting]) resolve();
    waiting.clear();
  };
  return { bus: bus as unknown as MarketBus, readings, publish };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

async function until(condition: () => boolean, what: string, turns = 20_000): Promise<void> {
  for (let index = 0; index < turns; index += 1) {
    if (condition()) return;
    await turn();
  }
  throw new Error(`never happened: ${what}`);
}

/** A member that records the sequences it takes; `slow(seq)` turns of the event loop held per message (0: taken at once). */
function recordingMember(slow: (seq: number) => number): ReadingMember & { seqs: number[] } {
  const seqs: number[] = [];
  return {
    seqs,
    take(message: SharedMessage) {
      const seq = seqOf(message);
      const turns = slow(seq);
      if (turns === 0) {
        seqs.push(seq);
        return undefined;
      }
      return (async () => {
        for (let index = 0; index < turns; index += 1) await turn();
        seqs.push(seq);
      })();
    },
  };
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

describe('one reading of the bus per host', () => {
  it('every member that joined gets each message from where it joined, once and in order; one that leaves gets a prefix', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          keep: fc.integer({ min: 1, max: 30 }),
          queueLimit: fc.integer({ min: 1, max: 8 }),
          malformedEvery: fc.constantFrom(0, 3, 7),
          members: fc.array(
            fc.record({
              joinAfter: fc.integer({ min: 0, max: 60 }),
              behind: fc.integer({ min: -3, max: 40 }),
              slowEvery: fc.integer({ min: 0, max: 4 }),
              leaveAfter: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
            }),
            { minLength: 1, maxLength: 5 },
          ),
        }),
        async ({ keep, queueLimit, malformedEvery, members }) => {
          const { bus, readings, publish } = liveBus(malformedEvery);
          const shared = new SharedBusReading({ bus, keep, queueLimit });
          const total = 80;
          const joined: Array<{ member: ReturnType<typeof recordingMember>; from: number; leaveAfter?: number; left: boolean }> = [];
          const order = [...members].sort((a, b) => a.joinAfter - b.joinAfter);
          let published = 0;
          for (const plan of order) {
            while (published < plan.joinAfter) {
              publish(1);
              published += 1;
              await turn();
            }
            const from = Math.max(1, published + 1 - plan.behind);
            const member = recordingMember((seq) => (plan.slowEvery > 0 && seq % plan.slowEvery === 0 ? 2 : 0));
            // What a member reading on its own asks first agrees with the answer.
            const expected = shared.canJoin(from);
            const ok = await shared.join(member, from);
            expect(ok).toBe(expected);
            if (ok) joined.push({ member, from, leaveAfter: plan.leaveAfter, left: false });
          }
          while (published < total) {
            publish(1);
            published += 1;
            await turn();
            for (const entry of joined) {
              if (!entry.left && entry.leaveAfter !== undefined && entry.member.seqs.length >= entry.leaveAfter) {
                entry.left = true;
                await shared.leave(entry.member);
              }
            }
          }
          await until(() => joined.every((entry) => entry.left || entry.member.seqs.at(-1) === total), 'every member at the end');
          for (const entry of joined) {
            const want = range(entry.from, total);
            if (entry.left) expect(want.slice(0, entry.member.seqs.length)).toEqual(entry.member.seqs);
            else expect(entry.member.seqs).toEqual(want);
          }
          for (const entry of joined) if (!entry.left) await shared.leave(entry.member);
          await shared.settled();
          // One reading at a time, stopped with its last member.
          expect(readings.running).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a member taking its time holds the others only once its queue is full', async () => {
    const { bus, publish } = liveBus();
    const shared = new SharedBusReading({ bus, queueLimit: 5 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const stuck: ReadingMember & { seqs: number[] } = {
      seqs: [],
      take(message) {
        this.seqs.push(seqOf(message));
        return gate;
      },
    };
    const quick = recordingMember(() => 0);
    expect(await shared.join(stuck, 1)).toBe(true);
    expect(await shared.join(quick, 1)).toBe(true);
    publish(20);
    // The stuck one takes 1 and has 5 waiting (2–6): the reading holds after 6, the quick one has 1–6.
    await until(() => quick.seqs.length === 6, 'the quick member at 6');
    for (let index = 0; index < 200; index += 1) await turn();
    expect(quick.seqs).toEqual(range(1, 6));
    expect(stuck.seqs).toEqual([1]);
    release();
    await until(() => quick.seqs.length === 20 && stuck.seqs.length === 20, 'both at the end');
    expect(stuck.seqs).toEqual(range(1, 20));
    await shared.leave(stuck);
    await shared.leave(quick);
    await shared.settled();
  });
});

/** Engines that record, per partition, the sequences (the instants' offsets) of the observations they judge. */
function recordingEngines(): { engineFor: (partition: number) => PartitionEngineFactory; seen: Map<number, number[]> } {
  const seen = new Map<number, number[]>();
  const engineFor =
    (partition: number): PartitionEngineFactory =>
    ({ sources }) => {
      const list: number[] = [];
      seen.set(partition, list);
      const subscription = (sources[0] as DataSource).observe({ source: 'price', symbol: 'BTC' }).subscribe((observation) => list.push(observation.at - 1_700_000_000_000));
      const off = () => () => undefined;
      return { onNotification: off, onConditionStates: off, onStatusChange: off, onProblem: off, onActivity: off, readiness: () => ({ queries: 0 }), stats: () => ({ activeQueries: 0, intake: new Map() }), dispose: () => subscription.unsubscribe() } as unknown as ProcessRunner;
    };
  return { engineFor, seen };
}

describe('the partitions of a host share one reading', () => {
  it('partitions at the same place read the stream once; one taken over far behind catches up on its own and then joins; each judges every message once, in order', async () => {
    const { bus: liveStream, readings, publish } = liveBus(10);
    publish(200);
    // Partitions 0 and 1 at the end; partition 2 far behind (at 20), beyond the 16 messages kept.
    const saved = new Map<number, PartitionPosition>([
      [0, { seq: 200, at: 0 }],
      [1, { seq: 200, at: 0 }],
      [2, { seq: 20, at: 0 }],
    ]);
    const positions = { nodeId: 'node-a', get: (partition: number) => Promise.resolve(saved.get(partition)), save: () => Promise.resolve(true) } as unknown as PgPartitionPositions;
    const { engineFor, seen } = recordingEngines();
    let opening = 0;
    const base = { recording: { observations: [] } as unknown as Recording, dispose: () => undefined } as unknown as ProcessRunner;
    const host = new BusPartitions({
      bus: liveStream,
      positions,
      store: {} as HostStore,
      history: {} as never,
      partitions: 3,
      base,
      engineFor: (wiring) => engineFor(opening)(wiring),
      historyWaitMs: 0,
      saveEveryMs: 5,
      sharedReading: { keep: 8 },
    });
    for (opening = 0; opening < 3; opening += 1) await host.openPartition(opening, 1);
    await host.startPartitions();
    const reading = () => Object.fromEntries(Object.entries(host.readiness().bus!.positions).map(([partition, position]) => [partition, position.reading]));
    expect(reading()).toEqual({ 0: 'shared', 1: 'shared', 2: 'own' });
    expect(readings.running).toBe(2);
    for (let index = 0; index < 100; index += 1) {
      publish(1);
      await turn();
    }
    await until(() => [0, 1, 2].every((partition) => host.readiness().bus!.positions[partition]!.handled === 300), 'every partition at 300');
    expect(reading()).toEqual({ 0: 'shared', 1: 'shared', 2: 'shared' });
    await until(() => readings.running === 1, 'the catch-up reading stopped');
    const observations = (from: number) => range(from, 300).filter((seq) => seq % 10 !== 0);
    expect(seen.get(0)).toEqual(observations(201));
    expect(seen.get(1)).toEqual(observations(201));
    expect(seen.get(2)).toEqual(observations(21));
    expect(host.readiness().bus!.positions[2]!.malformed).toBe(28);
    await host.dispose();
    expect(readings.running).toBe(0);
  });
});
