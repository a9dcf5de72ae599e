import { ActionError } from '@eql/core';

/**
 * The lease a write is made under (Kleppmann's fencing token): a partition's engine writes as the holder
 * of `partition`'s lease at `epoch`, and the store refuses the write once that lease is no longer that
 * node's at that epoch (it was taken over). Writes of a host without partitions carry no fence.
 */
export interface Fence {
  partition: number;
  epoch: number;
  nodeId: string;
}

/**
 * A write refused because its fence is stale: the partition's lease is held at another epoch or by
 * another node (or, for runtime state, a newer state was saved under a later lease). The writer has
 * lost the partition and must stop: nothing it does for that partition can take effect any more.
 */
export class FencedWriteError extends Error {
  constructor(
    readonly fence: Fence,
    what: string,
  ) {
    super(`${what} refused: the lease of partition ${fence.partition} at epoch ${fence.epoch} is no longer node ${fence.nodeId}'s`);
    this.name = 'FencedWriteError';
  }
}

/** Whether an error (or the cause it wraps) is a {@link FencedWriteError}. */
export function isFencedWrite(error: unknown): error is FencedWriteError {
  for (let seen = error, depth = 0; seen instanceof Error && depth < 5; seen = seen.cause, depth += 1) if (seen instanceof FencedWriteError) return true;
  return false;
}

/**
 * A notify step's notification was stored before with another observation: the same query, trigger and
 * step fired at another instant. The trigger index was reused (the runtime state the engine ran on was
 * older than what the store had seen), so the old alert is not this trigger's and is not answered: the
 * step fails with code `STALE_STATE` (docs/scale-out.md, "Fenced writes").
 */
export class StaleNotificationError extends ActionError {
  constructor(queryId: string, triggerIndex: number, stepId: string, stored: unknown, given: unknown) {
    super('STALE_STATE', `query ${queryId}: trigger ${triggerIndex} step ${stepId} was notified for the observation at ${String(stored)}, not ${String(given)}: the runtime state was stale`);
    this.name = 'StaleNotificationError';
  }
}

/** The observation a notification was made for (`data.observedAt`), compared by the de-duplication of a notify step. */
export function observationOf(data: Record<string, unknown>): unknown {
  return data.observedAt;
}

/**
 * Whether a stored notification answers a draft of the same query, trigger index and step: their
 * observations are the same. One without an observation (stored before notifications carried one, or a
 * draft made without) cannot be told apart and is taken as the same, as before.
 */
export function sameObservation(stored: Record<string, unknown>, given: Record<string, unknown>): boolean {
  const [was, is] = [observationOf(stored), observationOf(given)];
  return was === undefined || is === undefined || was === is;
}
