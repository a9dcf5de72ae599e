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

/**
 * One numeric series of a channel (BTC's last price, its 24h change, its 1h RSI(14), ...) and the
 * conditions that read it: constant thresholds in an index, live-operand comparisons in a set.
 */
export class SeriesValue {
  value: number | undefined;
  previous: number | undefined;
  updatedAt: number | undefined;
  readonly index = new ThresholdIndex<SeriesReader>();
  /** Conditions comparing with another series (live operands): evaluated on every update of either. */
  readonly dynamic = new Set<SeriesReader>();
  /** Crossings waiting out their holdFor: each update checks they stay on the crossed side. */
  readonly watching = new Set<SeriesReader>();
  /** Conditions using this series in any role; the channel drops the series at zero. */
  users = 0;
  /** The conditions reading it, told when its readiness changes (first value, window covered). */
  readonly readers = new Set<SeriesReader>();
  /** Whether the value is defined over its whole look-back (set by the channel that computes it). */
  readiness: () => Readiness = () => ({ status: 'ready' });

  constructor(
    readonly key: string,
    readonly description: SeriesDescription,
  ) {}

  /** Records a new value; returns whether it changed. */
  set(value: number, at: number): boolean {
    this.updatedAt = at;
    if (value === this.value) return false;
    this.previous = this.value;
    this.value = value;
    return true;
  }
}
