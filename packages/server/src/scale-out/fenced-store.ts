import { type Fence, FencedWriteError } from '../store/fence.js';
import type { HostStore } from '../store/store.js';

/** The writes of a partition's engine, with how many arguments they take before the fence. */
const FENCED_WRITES: Partial<Record<keyof HostStore, number>> = {
  saveRuntime: 2,
  saveExecution: 2,
  saveSession: 2,
  addNotification: 2,
  saveOutbox: 2,
  claimOutbox: 2,
};

/**
 * The version of the runtime states this process saves: it only grows, so the saves of one lease (one
 * node, one epoch) are ordered by it, whatever partitions the process opened and closed meanwhile.
 */
let runtimeVersion = 0;

/**
 * `store` as a partition's engine writes to it: every write of the engine carries the partition's lease
 * (`fence`; runtime states a growing version too), so that the store refuses it once the lease moved on.
 * Once `stopped()` says the partition has stopped (a write of it was refused or failed), every further
 * write is refused here, without reaching the store: the engine's memory may be ahead of what the store
 * holds, and the partition is opened again from what the store has. Reads and the host's other writes
 * pass as they are.
 */
export function fencedStore(store: HostStore, fence: Fence, stopped: () => boolean): HostStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      const before = FENCED_WRITES[property as keyof HostStore];
      if (typeof value !== 'function' || before === undefined) return value;
      return (...args: unknown[]) => {
        if (stopped()) return Promise.reject(new FencedWriteError(fence, `${String(property)} after partition ${fence.partition} stopped`));
        const given = args.slice(0, before);
        const call = property === 'saveRuntime' ? [...given, fence, (runtimeVersion += 1)] : [...given, fence];
        return (value as (...a: unknown[]) => unknown).apply(target, call);
      };
    },
  });
}
