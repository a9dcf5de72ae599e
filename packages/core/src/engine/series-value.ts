import { ThresholdIndex } from './threshold-index.js';

/** What a series is, for condition states and messages. */
export interface SeriesDescription {
  source: 'price' | 'ta';
  method: string;
  args: Record<string, unknown>;
}

/**
 * A condition reading a series (a price or ta leaf), as the engine drives it when the series moves.
 * Declared here so that series know their readers without depending on the leaves.
 */
export interface SeriesReader {
  readonly queryId: string;
  /** A level comparison with a constant threshold changed. */
  flip(holds: boolean): void;
  /** The value crossed the threshold. */
  crossed(): void;
  /** A live-operand comparison: re-judge on every update of either side. */
  evaluateDynamic(): void;
  /** A crossing waiting out its holdFor: check it is still on the crossed side. */
  checkPendingCrossing(): void;
}

/**
 * Whether a series has its value as defined: `ready`; `warming_up` while it needs more of the past
 * (with the earliest instant it can be ready when that is predictable, and why); `no_data` when nothing
 * can make it ready (no data source serves it).
 */
export interface Readiness {
  status: 'ready' | 'warming_up' | 'no_data';
  readyAt?: number;
  reason?: string;
}

/** The readiness of a series that has its value: one shared, frozen object (a fire reads every condition's). */
export const READY: Readiness = Object.freeze({ status: 'ready' });

/**
 * One numeric series of a channel (BTC's last price, its 24h change, its 1h RSI(14), ...) and the
 * conditions that read it: constant thresholds in an index, live-operand comparisons in a set.
 */
export class SeriesValue {
  // The numbers live in fields that only ever hold numbers (NaN for none): V8 then updates them in place,
  // where a field that also holds undefined takes a new heap number at every store, that is at every tick.
  private currentValue = Number.NaN;
  private previousValue = Number.NaN;
  private updatedAtValue = Number.NaN;
  readonly index = new ThresholdIndex<SeriesReader>();
  // The two sets below exist only while they have members (most series never have any): a tick then reads
  // no object of them. At 100k queries a tick's objects are out of the processor's caches by the time the
  // next tick of the series comes, and each one read is a cache miss.
  /** Conditions comparing with another series (live operands): evaluated on every update of either. */
  dynamic: Set<SeriesReader> | undefined;
  /** Crossings waiting out their holdFor: each update checks they stay on the crossed side. */
  watching: Set<SeriesReader> | undefined;
  /** Conditions using this series in any role; the channel drops the series at zero. */
  users = 0;
  /** Whether the value is defined over its whole look-back (set by the channel that computes it). */
  readiness: () => Readiness = () => READY;

  constructor(
    readonly key: string,
    readonly description: SeriesDescription,
  ) {}

  /**
   * Calls `visit` for every condition reading the series (told when its readiness changes: first value,
   * window covered): those in the index and the live operands. No set of its own: one would cost every
   * query a hash entry, written at each add and removed at each remove, for an event that comes a few
   * times in a series' life.
   */
  forEachReader(visit: (reader: SeriesReader) => void): void {
    this.index.forEachCondition(visit);
    if (this.dynamic !== undefined) for (const reader of this.dynamic) visit(reader);
  }

  addDynamic(reader: SeriesReader): void {
    this.dynamic = withMember(this.dynamic, reader);
  }

  deleteDynamic(reader: SeriesReader): void {
    this.dynamic = withoutMember(this.dynamic, reader);
  }

  addWatching(reader: SeriesReader): void {
    this.watching = withMember(this.watching, reader);
  }

  deleteWatching(reader: SeriesReader): void {
    this.watching = withoutMember(this.watching, reader);
  }

  /** The value (undefined before the first). */
  get value(): number | undefined {
    const value = this.currentValue;
    return Number.isNaN(value) ? undefined : value;
  }

  /** The value before the last change (undefined before the second value). */
  get previous(): number | undefined {
    const previous = this.previousValue;
    return Number.isNaN(previous) ? undefined : previous;
  }

  /** The instant the series was last evaluated at (its observation time), changed or not. */
  get updatedAt(): number | undefined {
    const at = this.updatedAtValue;
    return Number.isNaN(at) ? undefined : at;
  }

  set updatedAt(at: number | undefined) {
    this.updatedAtValue = at ?? Number.NaN;
  }

  /** Records a new value (a finite number); returns whether it changed. */
  set(value: number, at: number): boolean {
    this.updatedAtValue = at;
    if (value === this.currentValue) return false;
    this.previousValue = this.currentValue;
    this.currentValue = value;
    return true;
  }
}

/** `set` with `reader` in it (a set is made for the first member). */
function withMember(set: Set<SeriesReader> | undefined, reader: SeriesReader): Set<SeriesReader> {
  return (set ?? new Set()).add(reader);
}

/** `set` without `reader`: undefined once it has no member left. */
function withoutMember(set: Set<SeriesReader> | undefined, reader: SeriesReader): Set<SeriesReader> | undefined {
  set?.delete(reader);
  return set === undefined || set.size === 0 ? undefined : set;
}
