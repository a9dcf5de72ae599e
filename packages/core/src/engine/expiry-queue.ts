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
 *
 * The instants sit in an array of their own beside the items (`keys[i]` is `heap[i].expiresAt`), so a
 * sift compares numbers next to each other in memory instead of reading a query object for each: with
 * 100k queries most of them are out of the cache. A removal moves the hole down along the earlier child
 * to the bottom, then fills it with the last item and sifts that up: queries expire in about the order
 * they came, so the last item is among the latest and rarely moves up, and each level costs one
 * comparison instead of two.
 */
export class ExpiryQueue<T extends Expiring> {
  private readonly heap: T[] = [];
  private readonly keys: number[] = [];
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
    this.heap.push(item);
    this.keys.push(item.expiresAt);
    this.up(this.heap.length - 1, item, item.expiresAt);
    this.arm();
  }

  remove(item: T): void {
    const index = item.expiryIndex;
    if (index < 0 || this.heap[index] !== item) return;
    item.expiryIndex = -1;
    const last = this.heap.pop() as T;
    const lastKey = this.keys.pop() as number;
    if (last !== item) this.up(this.holeToBottom(index), last, lastKey);
    if (this.heap.length === 0) this.disarm();
  }

  /** Stops the timer (the engine is disposed). */
  clear(): void {
    for (const item of this.heap) item.expiryIndex = -1;
    this.heap.length = 0;
    this.keys.length = 0;
    this.disarm();
  }

  private arm(): void {
    if (this.heap.length === 0) return;
    const first = this.keys[0] as number;
    if (first >= this.timerAt) return;
    this.timer?.unsubscribe();
    this.timerAt = first;
    this.timer = this.schedule(Math.max(0, first - this.now()), () => this.run());
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
    while (this.heap.length > 0 && (this.keys[0] as number) <= now) {
      const head = this.heap[0] as T;
      this.remove(head);
      this.expire(head);
    }
    this.arm();
  }

  /** Puts `item` (instant `key`) at the hole `index` or above it, moving later parents down. */
  private up(index: number, item: T, key: number): void {
    const { heap, keys } = this;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parentKey = keys[parentIndex] as number;
      if (parentKey <= key) break;
      const parent = heap[parentIndex] as T;
      heap[index] = parent;
      keys[index] = parentKey;
      parent.expiryIndex = index;
      index = parentIndex;
    }
    heap[index] = item;
    keys[index] = key;
    item.expiryIndex = index;
  }

  /** Moves the hole at `index` down to the bottom, each level filled by its earlier child; where it ends. */
  private holeToBottom(index: number): number {
    const { heap, keys } = this;
    const length = heap.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) return index;
      const right = left + 1;
      const child = right < length && (keys[right] as number) < (keys[left] as number) ? right : left;
      const moved = heap[child] as T;
      heap[index] = moved;
      keys[index] = keys[child] as number;
      moved.expiryIndex = index;
      index = child;
    }
  }
}
