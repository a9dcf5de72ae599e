/**
 * The entries a {@link NeverEmptyMap} keeps for itself, under keys no string equals: enough that V8 never
 * shrinks its table, and that the table it grows to has room for many records between two rehashes.
 */
const PINS: ReadonlyArray<readonly [symbol, undefined]> = Array.from({ length: 8 }, (_, index) => [Symbol(`pinned ${index}`), undefined] as const);

/**
 * A string-keyed map for records that come and go one at a time, which never lets its table shrink.
 *
 * V8 keeps a `Map`'s entries in a table that a delete only marks; a table full of live and deleted
 * entries is rebuilt (in a call into its runtime that allocates a new table), and one from which a delete
 * leaves fewer entries than a quarter of its room is rebuilt smaller. A store whose queries fire and leave
 * at once (an alert that notifies once) adds and deletes a record or two at each fire: in the smallest
 * table (room for 4) that rebuilt it every second fire or so, and every delete of the last entry shrank it
 * (about 0.65 µs and a new table each time, against 0.08 µs for a delete that leaves one). This map keeps
 * eight entries of its own, so its table never shrinks below room for 16, grows once to room for 32, and is
 * rebuilt about once in 20 records that come and go (the firing 100k benchmark: 1.058 to 1.086× against
 * one entry of its own, docs/performance.md, eighteenth round). Its methods and views never show them.
 */
export class NeverEmptyMap<V> implements Iterable<[string, V]> {
  private readonly table = new Map<string | symbol, V | undefined>(PINS);

  get size(): number {
    return this.table.size - PINS.length;
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
    for (const [key] of PINS) this.table.set(key, undefined);
  }

  *entries(): IterableIterator<[string, V]> {
    for (const [key, value] of this.table) if (typeof key === 'string') yield [key, value as V];
  }

  *keys(): IterableIterator<string> {
    for (const key of this.table.keys()) if (typeof key === 'string') yield key;
  }

  *values(): IterableIterator<V> {
    for (const [key, value] of this.table) if (typeof key === 'string') yield value as V;
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }
}
