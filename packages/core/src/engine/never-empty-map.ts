/** The key of the one entry a {@link NeverEmptyMap} keeps for itself: no string key equals it. */
const PINNED: unique symbol = Symbol('pinned');

/**
 * A string-keyed map for records that come and go one at a time, which never lets its table empty.
 *
 * V8 shrinks a `Map` from which a delete leaves fewer entries than half its buckets, in a call into its
 * runtime that allocates a new table. At the smallest size that is every delete of the last entry: about
 * 0.65 µs and a new table each time, against 0.08 µs for a delete that leaves one. A store whose queries
 * fire and leave at once (an alert that notifies once) empties its maps of records on every fire. This map
 * keeps one entry of its own under a private symbol, so its table never empties; its methods and views
 * never show that entry.
 */
export class NeverEmptyMap<V> implements Iterable<[string, V]> {
  private readonly table = new Map<string | typeof PINNED, V | undefined>([[PINNED, undefined]]);

  get size(): number {
    return this.table.size - 1;
  }

  get(key: string): V | undefined {
    return this.table.get(key);
  }

  has(key: string): boolean {
    return this.table.has(key);
  }

  set(key: string, value: V): this {
    this.table.set(key, value);
    return this;
  }

  delete(key: string): boolean {
    return this.table.delete(key);
  }

  clear(): void {
    this.table.clear();
    this.table.set(PINNED, undefined);
  }

  *entries(): IterableIterator<[string, V]> {
    for (const [key, value] of this.table) if (key !== PINNED) yield [key, value as V];
  }

  *keys(): IterableIterator<string> {
    for (const key of this.table.keys()) if (key !== PINNED) yield key;
  }

  *values(): IterableIterator<V> {
    for (const [key, value] of this.table) if (key !== PINNED) yield value as V;
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }
}
