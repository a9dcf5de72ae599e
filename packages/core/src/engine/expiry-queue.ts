import type { Subscription } from 'rxjs';

export interface Expiring {
  readonly expiresAt: number;
  /** Position in the queue's heap, kept by the queue (-1 when not queued). */
  expiryIndex: number;
}

/**
 * One timer for every query's expiry: a binary min-heap by `expiresAt` and a single scheduled
 * action for the earliest. Adding and removing are O(log N); a query costs one heap slot instead of
 * a timer of its own.
 */
export class ExpiryQueue<T extends Expiring> {
  private readonly heap: T[] = [];
  private timer: Subscription | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly now: () => number,
    private readonly schedule: (delayMs: number, work: () => void) => Subscription,
    private readonly expire: (item: T) => void,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  add(item: T): void {
    if (item.expiryIndex >= 0) return;
    item.expiryIndex = this.heap.length;
    this.heap.push(item);
    this.up(item.expiryIndex);
    this.arm();
  }

  remove(item: T): void {
    const index = item.expiryIndex;
    if (index < 0 || this.heap[index] !== item) return;
    const last = this.heap.pop() as T;
    item.expiryIndex = -1;
    if (last !== item) {
      this.heap[index] = last;
      last.expiryIndex = index;
      this.down(index);
      this.up(last.expiryIndex);
    }
    if (this.heap.length === 0) this.disarm();
  }

  /** Stops the timer (the engine is disposed). */
  clear(): void {
    for (const item of this.heap) item.expiryIndex = -1;
    this.heap.length = 0;
    this.disarm();
  }

  private arm(): void {
    const head = this.heap[0];
    if (!head || head.expiresAt >= this.timerAt) return;
    this.timer?.unsubscribe();
    this.timerAt = head.expiresAt;
    this.timer = this.schedule(Math.max(0, head.expiresAt - this.now()), () => this.run());
  }

  private disarm(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private run(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    while (this.heap.length > 0 && (this.heap[0] as T).expiresAt <= now) {
      const head = this.heap[0] as T;
      this.remove(head);
      this.expire(head);
    }
    this.arm();
  }

  private up(index: number): void {
    const heap = this.heap;
    const item = heap[index] as T;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex] as T;
      if (parent.expiresAt <= item.expiresAt) break;
      heap[index] = parent;
      parent.expiryIndex = index;
      index = parentIndex;
    }
    heap[index] = item;
    item.expiryIndex = index;
  }

  private down(index: number): void {
    const heap = this.heap;
    const length = heap.length;
    const item = heap[index] as T;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && (heap[right] as T).expiresAt < (heap[left] as T).expiresAt ? right : left;
      if ((heap[child] as T).expiresAt >= item.expiresAt) break;
      heap[index] = heap[child] as T;
      (heap[index] as T).expiryIndex = index;
      index = child;
    }
    heap[index] = item;
    item.expiryIndex = index;
  }
}
