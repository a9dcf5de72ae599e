/** Entries a run of a long list holds at most (see {@link SortedThresholds}). */
export const RUN_SIZE = 256;

/** The leaf of a free entry of a flat list (a removed one, or one left free by spreading the list: see {@link SortedThresholds}). */
const FREE: unique symbol = Symbol('free');

/** How far from its place an add looks for a free entry to take (shifting what lies between). */
const REUSE_WITHIN = 16;

/** A flat list spread out has one free entry for every FREE_EVERY entries (see `spread`). */
const FREE_EVERY = 8;

/** A flat list this long or longer is spread out, rather than shifted, when an add finds no free entry near its place. */
const SPREAD_FROM = 32;

/** What {@link SortedThresholds.visitTagged} calls for each entry of a range. */
export interface TaggedVisitor<L> {
  entry(threshold: number, leaf: L, tag: number): void;
}

/**
 * Thresholds, sorted, beside the condition of each and a small number the caller tags it with (the index
 * keeps every operator of a series in one list, tagged with the operator): one entry per condition, and a
 * threshold that several conditions share repeats, in the order they came. Binary search finds the range a
 * move crosses. No closures, no copies and no array per threshold.
 *
 * A list of at most `runSize` entries is two flat arrays: adding and removing shift them in place, and a
 * lookup reads them directly (with many series, each one is a likely cache miss). A longer list, such as
 * the conditions of thousands of queries on one symbol, is kept as sorted runs of at most `runSize`
 * entries each, beside the last key of every run: adding and removing shift one run, not the whole list
 * (a list of 17,000 thresholds moved 8,500 entries on average for each), and a full run splits in two.
 * It goes back to flat arrays when it has shrunk to a quarter of `runSize`.
 *
 * **Free entries in a flat list.** A removal marks the entry free and leaves it in place (its threshold
 * keeps the order), so a fire does not shift the list; walks and neighbour lookups skip free entries. An add
 * takes a free entry near its place, shifting only what lies between. A list of SPREAD_FROM entries or more
 * that has none near is spread out in one pass (a free entry after every FREE_EVERY - 1), so that the adds
 * after it find one within a few places instead of shifting half the list (three arrays) each; it is
 * spread again when a quarter of it is free, and packed before it grows into runs.
 */
export class SortedThresholds<L> {
  /** The entries, while the list is flat (`runKeys` undefined). */
  private keys: number[] = [];
  private leaves: Array<L | typeof FREE> = [];
  private tags: number[] = [];
  /** Free entries in the flat arrays (removed ones, and those spreading left). */
  private freeEntries = 0;
  /** The runs of a long list, in order, none empty; undefined while the list is flat. */
  private runKeys: number[][] | undefined;
  private runLeaves: L[][] | undefined;
  private runTags: number[][] | undefined;
  /** The last key of each run. */
  private lasts: number[] = [];
  private count = 0;
  /** Where `locate` found a position: the run, and the index in it (or in the flat arrays). */
  private atRun = 0;
  private atIndex = 0;

  constructor(private readonly runSize = RUN_SIZE) {}

  get size(): number {
    return this.count;
  }

  /** Adds a condition (tagged `tag`) after those with the same threshold. */
  add(threshold: number, leaf: L, tag = 0): void {
    this.count += 1;
    if (this.runKeys === undefined) {
      this.addFlat(threshold, leaf, tag);
      if (this.keys.length > this.runSize) {
        this.pack();
        if (this.keys.length > this.runSize) this.split();
      }
      return;
    }
    const runKeys = this.runKeys;
    const runLeaves = this.runLeaves as L[][];
    const runTags = this.runTags as number[][];
    // The first run whose last key is above the threshold takes it; past every run, the last one does.
    let run = lowerBound(this.lasts, threshold, true);
    if (run === runKeys.length) run -= 1;
    const keys = runKeys[run] as number[];
    insertAt(keys, runLeaves[run] as L[], runTags[run] as number[], lowerBound(keys, threshold, true), threshold, leaf, tag);
    this.lasts[run] = lastOf(keys);
    if (keys.length > this.runSize) this.splitRun(run);
  }

  /** Removes a condition added with the same threshold and leaf (and tag, when given); false when there is none. */
  remove(threshold: number, leaf: L, tag?: number): boolean {
    if (this.runKeys === undefined) {
      const { keys, leaves, tags } = this;
      for (let at = lowerBound(keys, threshold, false); at < keys.length && keys[at] === threshold; at += 1) {
        if (leaves[at] !== leaf || (tag !== undefined && tags[at] !== tag)) continue;
        leaves[at] = FREE;
        this.freeEntries += 1;
        this.count -= 1;
        if (this.count === 0) this.pack();
        else if (this.freeEntries * 4 > keys.length) this.respace();
        return true;
      }
      return false;
    }
    const runKeys = this.runKeys;
    const runLeaves = this.runLeaves as L[][];
    const runTags = this.runTags as number[][];
    // Equal thresholds may span runs: look on from the first run that can hold one.
    for (let run = lowerBound(this.lasts, threshold, false); run < runKeys.length; run += 1) {
      const keys = runKeys[run] as number[];
      const leaves = runLeaves[run] as L[];
      const tags = runTags[run] as number[];
      let at = lowerBound(keys, threshold, false);
      for (; at < keys.length && keys[at] === threshold; at += 1) {
        if (leaves[at] !== leaf || (tag !== undefined && tags[at] !== tag)) continue;
        removeAt(keys, leaves, tags, at);
        this.count -= 1;
        if (keys.length === 0) {
          runKeys.splice(run, 1);
          runLeaves.splice(run, 1);
          runTags.splice(run, 1);
          this.lasts.splice(run, 1);
        } else this.lasts[run] = lastOf(keys);
        if (this.count <= this.runSize >> 2) this.flatten();
        return true;
      }
      if (at < keys.length) return false;
    }
    return false;
  }

  /** Calls `visit(leaf, holds)` for each condition whose threshold lies between lo and hi (ends included as told), in order. */
  visitRange(lo: number, hi: number, includeLo: boolean, includeHi: boolean, holds: boolean, visit: (leaf: L, holds: boolean) => void): void {
    if (this.count === 0) return;
    if (this.runKeys === undefined) {
      const { keys, leaves } = this;
      for (let i = lowerBound(keys, lo, !includeLo); i < keys.length; i += 1) {
        const key = keys[i] as number;
        if (includeHi ? key > hi : key >= hi) return;
        const leaf = leaves[i];
        if (leaf !== FREE) visit(leaf as L, holds);
      }
      return;
    }
    this.locate(lo, !includeLo);
    const runKeys = this.runKeys;
    const runLeaves = this.runLeaves as L[][];
    for (let run = this.atRun, i = this.atIndex; run < runKeys.length; run += 1, i = 0) {
      const keys = runKeys[run] as number[];
      const leaves = runLeaves[run] as L[];
      for (; i < keys.length; i += 1) {
        const key = keys[i] as number;
        if (includeHi ? key > hi : key >= hi) return;
        visit(leaves[i] as L, holds);
      }
    }
  }

  /** Calls `visitor.entry(threshold, leaf, tag)` for each condition whose threshold lies in [lo, hi], in order. */
  visitTagged(lo: number, hi: number, visitor: TaggedVisitor<L>): void {
    if (this.count === 0) return;
    if (this.runKeys === undefined) {
      const { keys, leaves, tags } = this;
      for (let i = lowerBound(keys, lo, false); i < keys.length; i += 1) {
        const key = keys[i] as number;
        if (key > hi) return;
        const leaf = leaves[i];
        if (leaf !== FREE) visitor.entry(key, leaf as L, tags[i] as number);
      }
      return;
    }
    this.locate(lo, false);
    const runKeys = this.runKeys;
    const runLeaves = this.runLeaves as L[][];
    const runTags = this.runTags as number[][];
    for (let run = this.atRun, i = this.atIndex; run < runKeys.length; run += 1, i = 0) {
      const keys = runKeys[run] as number[];
      const leaves = runLeaves[run] as L[];
      const tags = runTags[run] as number[];
      for (; i < keys.length; i += 1) {
        const key = keys[i] as number;
        if (key > hi) return;
        visitor.entry(key, leaves[i] as L, tags[i] as number);
      }
    }
  }

  /** Calls `visit(leaf, holds)` for each condition whose threshold is exactly `value`. */
  visitEqual(value: number, holds: boolean, visit: (leaf: L, holds: boolean) => void): void {
    this.visitRange(value, value, true, true, holds, visit);
  }

  /** Calls `visit(leaf, holds)` for each condition whose threshold is not `value`. */
  visitUnequal(value: number, holds: boolean, visit: (leaf: L, holds: boolean) => void): void {
    if (this.count === 0) return;
    const runKeys = this.runKeys ?? [this.keys];
    const runLeaves: ReadonlyArray<ReadonlyArray<L | typeof FREE>> = this.runLeaves ?? [this.leaves];
    for (let run = 0; run < runKeys.length; run += 1) {
      const keys = runKeys[run] as number[];
      const leaves = runLeaves[run] as ReadonlyArray<L | typeof FREE>;
      for (let i = 0; i < keys.length; i += 1) {
        const leaf = leaves[i];
        if (keys[i] !== value && leaf !== FREE) visit(leaf as L, holds);
      }
    }
  }

  /**
   * The smallest threshold at or above `value`; Infinity when there is none. It also marks its place:
   * {@link belowCeiling} then gives the threshold just before it without a second search.
   */
  ceiling(value: number): number {
    if (this.runKeys === undefined) {
      const { keys, leaves } = this;
      let at = lowerBound(keys, value, false);
      while (at < keys.length && leaves[at] === FREE) at += 1;
      this.atIndex = at;
      return at < keys.length ? (keys[at] as number) : Infinity;
    }
    this.locate(value, false);
    return this.atRun < this.runKeys.length ? ((this.runKeys[this.atRun] as number[])[this.atIndex] as number) : Infinity;
  }

  /** The largest threshold below the value of the last {@link ceiling} call; -Infinity when there is none. */
  belowCeiling(): number {
    if (this.runKeys === undefined) {
      let at = this.atIndex - 1;
      while (at >= 0 && this.leaves[at] === FREE) at -= 1;
      return at >= 0 ? (this.keys[at] as number) : -Infinity;
    }
    if (this.atIndex > 0) return (this.runKeys[this.atRun] as number[])[this.atIndex - 1] as number;
    return this.atRun > 0 ? (this.lasts[this.atRun - 1] as number) : -Infinity;
  }

  /** Sets `atRun`/`atIndex` to the first entry whose threshold is >= value (> value when `strict`); past the end, `atRun` is the number of runs. */
  private locate(value: number, strict: boolean): void {
    const runKeys = this.runKeys as number[][];
    const run = lowerBound(this.lasts, value, strict);
    this.atRun = run;
    this.atIndex = run < runKeys.length ? lowerBound(runKeys[run] as number[], value, strict) : 0;
  }

  /**
   * Adds to the flat arrays after the entries with the same threshold: into a free entry near that place
   * (see `takeFreeNear`), else, in a list long enough, into one the list spread out leaves near it, else
   * shifting the rest of the list.
   */
  private addFlat(threshold: number, leaf: L, tag: number): void {
    if (this.freeEntries > 0 && this.takeFreeNear(threshold, leaf, tag)) return;
    // `count` already counts this entry.
    if (this.keys.length >= SPREAD_FROM && this.spreadLength(this.count - 1) <= this.runSize) {
      this.spread();
      if (this.takeFreeNear(threshold, leaf, tag)) return;
    }
    insertAt(this.keys, this.leaves, this.tags, lowerBound(this.keys, threshold, true), threshold, leaf, tag);
  }

  /**
   * Puts the entry into a free entry next to its place or at most REUSE_WITHIN away (what lies between moves
   * by one toward it); false when there is none that near.
   */
  private takeFreeNear(threshold: number, leaf: L, tag: number): boolean {
    const { keys, leaves, tags } = this;
    const at = lowerBound(keys, threshold, true);
    const start = Math.max(0, at - REUSE_WITHIN);
    for (let free = at - 1; free >= start; free -= 1) {
      if (leaves[free] !== FREE) continue;
      // Entries free+1 .. at-1 (thresholds at or below this one) move down by one; the new one goes at at-1.
      for (let i = free; i < at - 1; i += 1) {
        keys[i] = keys[i + 1] as number;
        leaves[i] = leaves[i + 1] as L;
        tags[i] = tags[i + 1] as number;
      }
      this.put(at - 1, threshold, leaf, tag);
      return true;
    }
    const end = Math.min(keys.length, at + REUSE_WITHIN);
    for (let free = at; free < end; free += 1) {
      if (leaves[free] !== FREE) continue;
      // Entries at .. free-1 (thresholds above this one) move up by one; the new one goes at at.
      for (let i = free; i > at; i -= 1) {
        keys[i] = keys[i - 1] as number;
        leaves[i] = leaves[i - 1] as L;
        tags[i] = tags[i - 1] as number;
      }
      this.put(at, threshold, leaf, tag);
      return true;
    }
    return false;
  }

  /** Writes an entry over a free one. */
  private put(at: number, threshold: number, leaf: L, tag: number): void {
    this.keys[at] = threshold;
    this.leaves[at] = leaf;
    this.tags[at] = tag;
    this.freeEntries -= 1;
  }

  /** The length of a flat list of `live` entries spread out. */
  private spreadLength(live: number): number {
    return live + Math.floor(live / (FREE_EVERY - 1));
  }

  /** A quarter of the flat list is free entries: spread out again when it is long enough to be, else packed. */
  private respace(): void {
    if (this.count >= SPREAD_FROM && this.spreadLength(this.count) <= this.runSize) this.spread();
    else this.pack();
  }

  /**
   * Rewrites the flat list with a free entry after every FREE_EVERY - 1 entries (holding the threshold
   * before it, so the thresholds stay in order), in place: packed first, then moved back from the end, each
   * entry to its place in the longer list (never one not read yet), so no array is made.
   */
  private spread(): void {
    this.pack();
    const { keys, leaves, tags } = this;
    const live = keys.length;
    const length = this.spreadLength(live);
    for (let index = live; index < length; index += 1) {
      keys.push(0);
      leaves.push(FREE);
      tags.push(0);
    }
    const run = FREE_EVERY - 1;
    for (let from = live - 1; from >= 0; from -= 1) {
      const to = from + Math.floor(from / run);
      const key = keys[from] as number;
      if ((from + 1) % run === 0) {
        keys[to + 1] = key;
        leaves[to + 1] = FREE;
        tags[to + 1] = 0;
      }
      keys[to] = key;
      leaves[to] = leaves[from] as L;
      tags[to] = tags[from] as number;
    }
    this.freeEntries = length - live;
  }

  /** Drops the free entries of the flat arrays, in one pass. */
  private pack(): void {
    if (this.freeEntries === 0) return;
    const { keys, leaves, tags } = this;
    let kept = 0;
    for (let i = 0; i < keys.length; i += 1) {
      const leaf = leaves[i];
      if (leaf === FREE) continue;
      keys[kept] = keys[i] as number;
      leaves[kept] = leaf as L;
      tags[kept] = tags[i] as number;
      kept += 1;
    }
    keys.length = kept;
    leaves.length = kept;
    tags.length = kept;
    this.freeEntries = 0;
  }

  /** The flat list has outgrown a run: it becomes the one run, which splits (it has no free entry: `add` packed it). */
  private split(): void {
    this.runKeys = [this.keys];
    this.runLeaves = [this.leaves as L[]];
    this.runTags = [this.tags];
    this.lasts = [lastOf(this.keys)];
    this.keys = [];
    this.leaves = [];
    this.tags = [];
    this.splitRun(0);
  }

  /** A full run splits in two halves (rare: once per half a run of adds to it). */
  private splitRun(run: number): void {
    const runKeys = this.runKeys as number[][];
    const runLeaves = this.runLeaves as L[][];
    const runTags = this.runTags as number[][];
    const keys = runKeys[run] as number[];
    const half = keys.length >> 1;
    const upperKeys = keys.splice(half);
    runKeys.splice(run + 1, 0, upperKeys);
    runLeaves.splice(run + 1, 0, (runLeaves[run] as L[]).splice(half));
    runTags.splice(run + 1, 0, (runTags[run] as number[]).splice(half));
    this.lasts.splice(run, 1, lastOf(keys), lastOf(upperKeys));
  }

  /** The runs have shrunk to a quarter of a run: flat arrays again. */
  private flatten(): void {
    this.keys = ([] as number[]).concat(...(this.runKeys as number[][]));
    this.leaves = ([] as L[]).concat(...(this.runLeaves as L[][]));
    this.tags = ([] as number[]).concat(...(this.runTags as number[][]));
    this.runKeys = undefined;
    this.runLeaves = undefined;
    this.runTags = undefined;
    this.lasts = [];
  }
}

/** Index of the first key >= value (or > value when `strict`) in a sorted array. */
function lowerBound(keys: readonly number[], value: number, strict: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const key = keys[mid] as number;
    if (key < value || (strict && key === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Entries a shift moves beyond which `splice` moves them instead (a `memmove` with one write barrier for the
 * lot, but a new array for what it returns): below it the loop is faster (on this machine, removing and
 * adding at the front of 16 entries: 0.22 µs by loop, 0.31 by splice; of 48: 0.52 and 0.42; of 256: 2.6 and 1.1).
 */
const SPLICE_FROM = 40;

/** Inserts an entry at `at`, shifting the later ones up in place. */
function insertAt<L>(keys: number[], leaves: L[], tags: number[], at: number, key: number, leaf: L, tag: number): void {
  let i = keys.length;
  if (i - at > SPLICE_FROM) {
    keys.splice(at, 0, key);
    leaves.splice(at, 0, leaf);
    tags.splice(at, 0, tag);
    return;
  }
  keys.push(key);
  leaves.push(leaf);
  tags.push(tag);
  for (; i > at; i -= 1) {
    keys[i] = keys[i - 1] as number;
    leaves[i] = leaves[i - 1] as L;
    tags[i] = tags[i - 1] as number;
  }
  keys[at] = key;
  leaves[at] = leaf;
  tags[at] = tag;
}

/** Removes the entry at `at`, shifting the later ones down in place. */
function removeAt<L>(keys: number[], leaves: L[], tags: number[], at: number): void {
  const last = keys.length - 1;
  if (last - at > SPLICE_FROM) {
    keys.splice(at, 1);
    leaves.splice(at, 1);
    tags.splice(at, 1);
    return;
  }
  for (let i = at; i < last; i += 1) {
    keys[i] = keys[i + 1] as number;
    leaves[i] = leaves[i + 1] as L;
    tags[i] = tags[i + 1] as number;
  }
  keys.pop();
  leaves.pop();
  tags.pop();
}

function lastOf(keys: readonly number[]): number {
  return keys[keys.length - 1] as number;
}
