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
 * 100k queries most of them are out of the cache. Taking the earliest out moves the hole down along the
 * earlier child to the bottom, then fills it with the last item and sifts that up: queries expire in about
 * the order they came, so the last item is among the latest and rarely moves up, and each level costs one
 * comparison instead of two.
 *
 * **Removal** (a query that fired, was cancelled or removed) leaves its slot in the heap, emptied: it costs
 * no sift through queries out of the cache. An emptied slot keeps its instant, so the heap's order holds;
 * it leaves when it comes to the top, and the heap is rebuilt without the emptied slots once they are half
 * of it.
 */
export class ExpiryQueue<T extends Expiring> {
  private heap: Array<T | undefined> = [];
  private keys: number[] = [];
  /** Emptied slots in the heap. */
  private emptied = 0;
  private timer: Subscription | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly now: () => number,
    private readonly schedule: (delayMs: number, work: () => void) => Subscription,
    private readonly expire: (item: T) => void,
  ) {}

  get size(): number {
    return this.heap.length - this.emptied;
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
    const heap = this.heap;
    if (index < 0 || heap[index] !== item) return;
    item.expiryIndex = -1;
    if (index === heap.length - 1) {
      heap.pop();
      this.keys.pop();
    } else {
      heap[index] = undefined;
      this.emptied += 1;
    }
    if (this.size === 0) this.clear();
    else if (this.emptied * 2 > heap.length) this.rebuild();
  }

  /** Forgets every item and stops the timer (the engine is disposed). */
  clear(): void {
    for (const item of this.heap) if (item !== undefined) item.expiryIndex = -1;
    this.heap.length = 0;
    this.keys.length = 0;
    this.emptied = 0;
    this.disarm();
  }

  /** The heap again without its emptied slots (a heap built from the items in place: O(N)). */
  private rebuild(): void {
    const heap: T[] = [];
    const keys: number[] = [];
    for (let index = 0; index < this.heap.length; index += 1) {
      const item = this.heap[index];
      if (item === undefined) continue;
      heap.push(item);
      keys.push(this.keys[index] as number);
    }
    this.heap = heap;
    this.keys = keys;
    this.emptied = 0;
    for (let index = 0; index < heap.length; index += 1) (heap[index] as T).expiryIndex = index;
    for (let index = (heap.length >> 1) - 1; index >= 0; index -= 1) this.down(index);
  }

  /** Sifts the item at `index` down to where its children are not earlier (for `rebuild`: no slot is emptied). */
  private down(index: number): void {
    const heap = this.heap as T[];
    const keys = this.keys;
    const item = heap[index] as T;
    const key = keys[index] as number;
    const length = heap.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && (keys[right] as number) < (keys[left] as number) ? right : left;
      if ((keys[child] as number) >= key) break;
      const moved = heap[child] as T;
      heap[index] = moved;
      keys[index] = keys[child] as number;
      moved.expiryIndex = index;
      index = child;
    }
    heap[index] = item;
    keys[index] = key;
    item.expiryIndex = index;
  }

  /** Takes the earliest slot out (an item or an emptied slot). */
  private takeFirst(): void {
    const { heap, keys } = this;
    const first = heap[0];
    if (first === undefined) this.emptied -= 1;
    else first.expiryIndex = -1;
    const last = heap.pop();
    const lastKey = keys.pop() as number;
    if (heap.length > 0) this.up(this.holeToBottom(0), last, lastKey);
  }

  private arm(): void {
    // Emptied slots at the top leave first: the timer is for an item.
    while (this.heap.length > 0 && this.heap[0] === undefined) this.takeFirst();
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
      const head = this.heap[0];
      this.takeFirst();
      if (head !== undefined) this.expire(head);
    }
    if (this.size === 0) this.clear();
    this.arm();
  }

  /** Puts `item` (instant `key`; undefined for an emptied slot) at the hole `index` or above it, moving later parents down. */
  private up(index: number, item: T | undefined, key: number): void {
    const { heap, keys } = this;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parentKey = keys[parentIndex] as number;
      if (parentKey <= key) break;
      const parent = heap[parentIndex];
      heap[index] = parent;
      keys[index] = parentKey;
      if (parent !== undefined) parent.expiryIndex = index;
      index = parentIndex;
    }
    heap[index] = item;
    keys[index] = key;
    if (item !== undefined) item.expiryIndex = index;
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
      const moved = heap[child];
      heap[index] = moved;
      keys[index] = keys[child] as number;
      if (moved !== undefined) moved.expiryIndex = index;
      index = child;
    }
  }
}
