import { type Observable, type Subscription } from 'rxjs';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Subscribes and records what the stream does. */
export function record<T>(stream: Observable<T>): { values: T[]; errors: unknown[]; completed: () => boolean; subscription: Subscription } {
  const values: T[] = [];
  const errors: unknown[] = [];
  let done = false;
  const subscription = stream.subscribe({
    next: (value) => values.push(value),
    error: (error: unknown) => errors.push(error),
    complete: () => {
      done = true;
    },
  });
  return { values, errors, completed: () => done, subscription };
}

/** Waits until the condition holds, polling every 5 ms; `timeoutMs` is a safety net for one that never does, not a budget. */
export async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}
