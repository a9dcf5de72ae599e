/**
 * A double-ended queue over an array with a moving head: O(1) amortized `push`, `pop`, `shift`, and
 * indexed reads from either end. Shifted slots are reclaimed by compacting once the dead prefix is
 * at least half of the array, so memory stays proportional to the live size.
 */
export class Deque<T> {
  private items: T[] = [];
  private head = 0;

  /** Number of live items. */
  get length(): number {
    return this.items.length - this.head;
  }

  /** The oldest item, if any. */
  front(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  /** The newest item, if any. */
  back(): T | undefined {
    return this.head < this.items.length ? this.items[this.items.length - 1] : undefined;
  }

  /** Appends at the back. */
  push(item: T): void {
    this.items.push(item);
  }

  /** Removes and returns the newest item. */
  pop(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items.pop();
    if (this.head >= this.items.length) this.clear();
    return item;
  }

  /** Removes and returns the oldest item. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.head += 1;
    if (this.head >= this.items.length) this.clear();
    else if (this.head >= 32 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes every item. */
  clear(): void {
    this.items = [];
    this.head = 0;
  }

  /** The live items, oldest first. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = this.head; i < this.items.length; i += 1) yield this.items[i] as T;
  }
}
