import { describe, expect, it, vi } from 'vitest';
import type { DataSource, Recording } from '@eql/core';
import { BusPartitions, type PartitionEngineFactory } from '../src/scale-out/bus-partitions.js';
import type { BusObservation, MarketBus } from '../src/scale-out/market-bus.js';
import type { PartitionPosition, PgPartitionPositions } from '../src/scale-out/partition-positions.js';
import type { ProcessRunner } from '../src/host/process-runner.js';
import { type Fence, FencedWriteError, type HostStore } from '../src/store/store.js';

// The partitions of a host on the market bus (docs/scale-out.md, "Who reads it"), on stand-ins for the
// bus, the positions and the engines: a backlog read in a burst leaves the event loop turns (the leases
// are renewed by a timer); a partition never read saves where it starts at once; a position the
// database refused is not shown as saved.

const tick = (seq: number): BusObservation => ({ seq, observation: { at: 1_700_000_000_000 + seq, source: 'price', symbol: 'BTC', price: 100 + seq } });

/** A bus holding `backlog` messages: `read` hands them over in order, as MarketBus does (the next waits for a promise `deliver` returns). */
function stubBus(backlog: number): MarketBus {
  return {
    stream: 'STUB',
    connected: true,
    last: () => Promise.resolve(backlog === 0 ? undefined : tick(backlog)),
    read: (fromSeq: number, deliver: (message: BusObservation) => Promise<void> | undefined) => {
      let stopped = false;
      const done = (async () => {
        for (let seq = Math.max(1, fromSeq); seq <= backlog && !stopped; seq += 1) {
          const settled = deliver(tick(seq));
          if (settled) await settled;
        }
      })();
      return Promise.resolve({
        done,
        stop: async () => {
          stopped = true;
          await done;
        },
      });
    },
    close: () => Promise.resolve(),
  } as unknown as MarketBus;
}

/** Positions in memory; `save` answers `written` (false: the database refused it, the lease being another host's). */
function stubPositions(saved: Map<number, PartitionPosition>, written = true): { positions: PgPartitionPositions; save: ReturnType<typeof vi.fn> } {
  const save = vi.fn((partition: number, _epoch: number, position: PartitionPosition) => {
    if (written) saved.set(partition, position);
    return Promise.resolve(written);
  });
  return { positions: { nodeId: 'node-a', get: (partition: number) => Promise.resolve(saved.get(partition)), save } as unknown as PgPartitionPositions, save };
}

/** An engine that spends `costMs` of CPU on each observation of its partition (a busy engine), counting them; `first` runs at the first. */
function busyEngines(costMs: number, first: () => void = () => undefined): { engineFor: PartitionEngineFactory; handled: () => number } {
  let handled = 0;
  const engineFor: PartitionEngineFactory = ({ sources }) => {
    const subscription = (sources[0] as DataSource).observe({ source: 'price', symbol: 'BTC' }).subscribe(() => {
      const until = performance.now() + costMs;
      while (performance.now() < until) {
        // busy
      }
      handled += 1;
      if (handled === 1) first();
    });
    const off = () => () => undefined;
    return { onNotification: off, onConditionStates: off, onStatusChange: off, onProblem: off, onActivity: off, readiness: () => ({ queries: 0 }), stats: () => ({ activeQueries: 0, intake: new Map() }), dispose: () => subscription.unsubscribe() } as unknown as ProcessRunner;
  };
  return { engineFor, handled: () => handled };
}

function partitions(bus: MarketBus, positions: PgPartitionPositions, engineFor: PartitionEngineFactory, warn = vi.fn(), more: { store?: HostStore; onStopped?: (partition: number, epoch: number, reason: 'fenced' | 'failed') => void } = {}): BusPartitions {
  const base = { recording: { observations: [] } as unknown as Recording, dispose: () => undefined } as unknown as ProcessRunner;
  const host = new BusPartitions({ bus, positions, store: more.store ?? ({} as HostStore), history: {} as never, partitions: 1, base, engineFor, historyWaitMs: 0, saveEveryMs: 5, warn });
  if (more.onStopped) host.onPartitionStopped(more.onStopped);
  return host;
}

describe('the partitions of a host on the market bus', () => {
  it('a backlog read in a burst by a busy engine leaves the event loop turns (a timer runs long before the backlog is read)', async () => {
    const backlog = 400;
    let timerRanAt: number | undefined;
    // Set at the first message: on a loop that never turns, it would run only after the whole backlog.
    const { engineFor, handled } = busyEngines(1, () => setTimeout(() => (timerRanAt = handled()), 0));
    const host = partitions(stubBus(backlog), stubPositions(new Map([[0, { seq: 0, at: 0 }]])).positions, engineFor);
    await host.openPartition(0, 1);
    await host.startPartitions();
    while (handled() < backlog) await new Promise((resolve) => setTimeout(resolve, 5));
    await host.dispose();
    expect(timerRanAt).toBeDefined();
    expect(timerRanAt!).toBeLessThan(backlog / 4);
  });

  it('a partition never read starts at the end of the stream, and saves that at once: a host taking it over before its first save starts there too', async () => {
    const saved = new Map<number, PartitionPosition>();
    const { positions, save } = stubPositions(saved);
    const host = partitions(stubBus(42), positions, busyEngines(0).engineFor);
    await host.openPartition(0, 7);
    expect(save).toHaveBeenCalledWith(0, 7, { seq: 42, at: tick(42).observation.at });
    expect(saved.get(0)).toEqual({ seq: 42, at: tick(42).observation.at });
    await host.dispose();
  });

  it('a position the database refuses (the lease is another host\'s now) is not shown as saved, and is said once', async () => {
    const { positions, save } = stubPositions(new Map([[0, { seq: 0, at: 0 }]]), false);
    const warn = vi.fn();
    const host = partitions(stubBus(5), positions, busyEngines(0).engineFor, warn);
    await host.openPartition(0, 3);
    await host.startPartitions();
    while (host.readiness().bus?.positions[0]?.handled !== 5 || save.mock.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(host.readiness().bus?.positions[0]).toMatchObject({ handled: 5, saved: 0 });
    // Tried again (the position is still to be saved), said once.
    while (save.mock.calls.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/position of partition 0 was not saved/);
    await host.dispose();
  });

  it('a write refused as fenced stops its partition: no message is handed to its engine after it, the partition closes, the host goes on and can take it again', async () => {
    // The store refuses the writes of epoch 1 (the lease was taken over) and takes those of epoch 2.
    const fences: Fence[] = [];
    const store = {
      saveRuntime: (_id: string, _state: unknown, fence: Fence) => {
        fences.push(fence);
        return fence.epoch < 2 ? Promise.reject(new FencedWriteError(fence, 'the runtime state of query q')) : Promise.resolve();
      },
    } as unknown as HostStore;
    let handled = 0;
    let disposed = 0;
    const engineFor: PartitionEngineFactory = ({ sources, store: engineStore }) => {
      const subscription = (sources[0] as DataSource).observe({ source: 'price', symbol: 'BTC' }).subscribe(() => {
        handled += 1;
        // The third observation triggers: its runtime state is saved.
        if (handled === 3 || handled > 100) void Promise.resolve(engineStore.saveRuntime('q', { status: 'triggered', triggerCount: 1, latched: {}, verdicts: {}, cronPulses: {} })).catch(() => undefined);
      });
      const off = () => () => undefined;
      return {
        onNotification: off,
        onConditionStates: off,
        onStatusChange: off,
        onProblem: off,
        onActivity: off,
        readiness: () => ({ queries: 0 }),
        stats: () => ({ activeQueries: 0, intake: new Map() }),
        dispose: () => {
          disposed += 1;
          subscription.unsubscribe();
        },
      } as unknown as ProcessRunner;
    };
    const onFenced = vi.fn();
    const warn = vi.fn();
    const host = partitions(stubBus(50), stubPositions(new Map([[0, { seq: 0, at: 0 }]])).positions, engineFor, warn, { store, onStopped: onFenced });
    await host.openPartition(0, 1);
    await host.startPartitions();
    while (onFenced.mock.calls.length === 0 || disposed === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(onFenced).toHaveBeenCalledWith(0, 1, 'fenced');
    expect(fences[0]).toEqual({ partition: 0, epoch: 1, nodeId: 'node-a' });
    // The message whose writes were refused was the last the engine got.
    expect(handled).toBe(3);
    expect(host.readiness().bus?.positions[0]).toBeUndefined();
    expect(String(warn.mock.calls.find((call) => /stops/.test(String(call[0])))?.[0])).toMatch(/partition 0 stops: a write was refused, its lease at epoch 1/);

    // Taken again at epoch 2: its writes carry the new fence.
    handled = 100;
    await host.openPartition(0, 2);
    await host.startPartitions();
    while (fences.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(fences[1]).toEqual({ partition: 0, epoch: 2, nodeId: 'node-a' });
    expect(host.readiness().bus?.positions[0]).toBeDefined();
    await host.dispose();
    expect(onFenced).toHaveBeenCalledTimes(1);
  });

  it('a write that fails (the connection cut) stops its partition with its position before the message: the engine gets nothing more, its later writes never reach the store, and the partition opened again judges that message again', async () => {
    // The runtime save of the third message fails once, as a write on a connection PostgreSQL cut.
    const calls: Array<{ epoch: number; seq: number }> = [];
    let failures = 1;
    const store = {
      saveRuntime: (_id: string, state: { triggerCount: number }, fence: Fence) => {
        calls.push({ epoch: fence.epoch, seq: state.triggerCount });
        if (state.triggerCount === 3 && failures > 0) {
          failures -= 1;
          return Promise.reject(new Error('Connection terminated unexpectedly'));
        }
        return Promise.resolve();
      },
    } as unknown as HostStore;
    const seen: Array<{ engine: number; seq: number }> = [];
    let engines = 0;
    let disposed = 0;
    const storeOf: HostStore[] = [];
    const engineFor: PartitionEngineFactory = ({ sources, store: engineStore }) => {
      const engine = (engines += 1);
      storeOf.push(engineStore);
      const subscription = (sources[0] as DataSource).observe({ source: 'price', symbol: 'BTC' }).subscribe((observation) => {
        const seq = (observation as { price: number }).price - 100;
        seen.push({ engine, seq });
        // Each observation is a trigger: its runtime state saved (the trigger count is the message here).
        if (seq <= 4) void Promise.resolve(engineStore.saveRuntime('q', { status: 'active', triggerCount: seq, latched: {}, verdicts: {}, cronPulses: {} })).catch(() => undefined);
      });
      const off = () => () => undefined;
      return { onNotification: off, onConditionStates: off, onStatusChange: off, onProblem: off, onActivity: off, readiness: () => ({ queries: 0 }), stats: () => ({ activeQueries: 0, intake: new Map() }), dispose: () => ((disposed += 1), subscription.unsubscribe()) } as unknown as ProcessRunner;
    };
    const saved = new Map([[0, { seq: 0, at: 0 }]]);
    const onStopped = vi.fn();
    const warn = vi.fn();
    const host = partitions(stubBus(6), stubPositions(saved).positions, engineFor, warn, { store, onStopped });
    await host.openPartition(0, 1);
    await host.startPartitions();
    while (onStopped.mock.calls.length === 0 || disposed === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(onStopped).toHaveBeenCalledWith(0, 1, 'failed');
    // The failing message was the last the engine got, and the position stays before it.
    expect(seen).toEqual([1, 2, 3].map((seq) => ({ engine: 1, seq })));
    expect(saved.get(0)?.seq).toBe(2);
    expect(String(warn.mock.calls.find((call) => /stops/.test(String(call[0])))?.[0])).toMatch(/partition 0 stops: a write failed/);
    // A write of the stopped engine (a timer's, say) never reaches the store.
    await expect(storeOf[0]!.saveRuntime('q', { status: 'active', triggerCount: 9, latched: {}, verdicts: {}, cronPulses: {} })).rejects.toThrow(FencedWriteError);
    const stoppedWrites = calls.length;
    await host.openPartition(0, 2);
    await host.startPartitions();
    while (host.readiness().bus?.positions[0]?.handled !== 6) await new Promise((resolve) => setTimeout(resolve, 5));
    await host.dispose();
    expect(calls.slice(0, stoppedWrites)).toEqual([1, 2, 3].map((seq) => ({ epoch: 1, seq })));
    // Opened again: the message whose write failed is judged again, and its write made.
    expect(seen.filter((entry) => entry.engine === 2).map((entry) => entry.seq)).toEqual([3, 4, 5, 6]);
    expect(calls.slice(stoppedWrites)).toEqual([3, 4].map((seq) => ({ epoch: 2, seq })));
    expect(saved.get(0)?.seq).toBe(6);
  });
});
