import { formatDuration, parseDuration } from '../../language/duration.js';
import type { PriceHistory, PriceTick, PriceTopic } from '../history.js';
import type { MaybePromise } from '../interfaces.js';
import type { PriceObservation } from '../observations.js';
import {
  type Candle,
  CandleBuilder,
  createIndicatorFamily,
  familyKey,
  type FamilyIndicator,
  type FamilySpec,
  resolveIndicator,
  resolveTimeframe,
  timeframeMs,
  warmupCandles,
} from '../series/index.js';
import { PriceWindow } from '../series/windows.js';
import { READY, type Readiness, type SeriesDescription, SeriesValue } from '../series-value.js';

interface WindowUse {
  window: PriceWindow;
  users: number;
  /** Live ticks that arrived while history was loading (undefined when not loading). */
  pending: PriceTick[] | undefined;
  /** Time of the first tick the window saw (history or live). */
  firstAt: number | undefined;
  /** Whether the window spanned its whole period at the last look (for readiness changes). */
  covered: boolean;
  historyProblem: string | undefined;
}

interface FamilyUse {
  indicator: FamilyIndicator;
  users: number;
  /** Start of the last candle the indicator took. */
  lastStart: number;
  /** Closed candles the indicator took. */
  taken: number;
  /** Candles closed live while history was loading (undefined when not loading). */
  pending: Candle[] | undefined;
  historyProblem: string | undefined;
}

interface TimeframeUse {
  builder: CandleBuilder;
  families: Map<string, FamilyUse>;
  users: number;
  /** Whether the candle forming at the start was given its part from history (once per builder). */
  seeded: boolean;
}

/** How a series is computed from the ticks, and what it holds on to. */
type Computation =
  | { kind: 'current' }
  | { kind: 'window'; method: 'change' | 'high' | 'low' | 'volume'; durationMs: number }
  | { kind: 'indicator'; tfMs: number; family: string; spec: FamilySpec; method: string; args: Record<string, unknown> };

export interface PriceChannelOptions {
  topic: PriceTopic;
  /** Where series are warmed from when they start (none: they start empty). */
  history?: PriceHistory | undefined;
  now(): number;
  /** An asynchronous history answer was applied: these series changed value. */
  warmed(changed: SeriesValue[]): void;
  /** A history request failed (the series go on from live observations). */
  problem(code: string, message: string): void;
}

/** A series of the channel and what computes it. */
interface SeriesEntry {
  value: SeriesValue;
  computation: Computation;
}

/**
 * Every series of one price topic (a symbol, optionally on one exchange), computed once per tick for
 * all the conditions that read it: the last price; change, high, low and volume over rolling windows
 * (one window per duration); indicators on candles (one candle builder per timeframe, one indicator
 * instance per family and parameters, shared by all its outputs).
 *
 * Indicators move when a candle closes, that is at the first tick of the next candle, so their values
 * are those of closed candles only (what reference values are computed on).
 *
 * **Warm-up.** With a history, what a series needs from the past is loaded when it is first computed:
 * the last price; a window's ticks over its duration (and the reference tick before it); an
 * indicator's closed candles since the history's origin (the fixed start of smoothing), and the part
 * before now of the candle forming now. A series warmed at `t` therefore holds what it would hold had
 * it been computed live since the origin. Live ticks that arrive while an asynchronous history loads
 * are applied after it.
 */
export class PriceChannel {
  private readonly series = new Map<string, SeriesEntry>();
  /** The same entries as an array, for the loop of every tick (no iterator). */
  private seriesList: SeriesEntry[] = [];
  /**
   * The last price's series when it is the channel's only series (no window, no candle to feed): the case
   * of most topics, which a tick then updates without reading the list, its entry or its computation. At
   * 100k queries these objects are out of the processor's caches when the next tick of the topic comes.
   */
  private onlyCurrent: SeriesValue | undefined;
  private readonly windows = new Map<number, WindowUse>();
  private readonly timeframes = new Map<number, TimeframeUse>();
  private lastTick: PriceTick | undefined;
  /** Whether a request for the last price before the first series is under way or done. */
  private lastRequested = false;
  /** Why no observation can come (no data source serves the topic); undefined while one can. */
  private unavailable: string | undefined;
  private released = false;
  /** Made when a series first changes readiness (a tick then reads no array of it). */
  private readinessChanged: SeriesValue[] | undefined;
  /** The array `update` returns, handed back by `recycle` once read (a tick allocates none). */
  private spare: SeriesValue[] | undefined = [];

  constructor(private readonly options: PriceChannelOptions) {}

  get isEmpty(): boolean {
    return this.series.size === 0;
  }

  /** Time of the latest price the channel knows (live or from history). */
  get lastAt(): number | undefined {
    return this.lastTick?.at;
  }

  /** The latest price the channel knows (live or from history). */
  get lastPrice(): number | undefined {
    return this.lastTick?.price;
  }

  /** No data source serves the topic: every series says `no_data` with this reason. */
  markUnavailable(reason: string): void {
    this.unavailable = reason;
  }

  /** The channel is gone: late history answers are dropped. */
  dispose(): void {
    this.released = true;
  }

  /** The series for a description, created on first use; each call counts one user. */
  acquire(description: SeriesDescription): SeriesValue {
    const computation = computationOf(description);
    const key = keyOf(computation);
    let entry = this.series.get(key);
    if (!entry) {
      const value = new SeriesValue(key, description);
      const created = { value, computation };
      value.readiness = () => this.readinessOf(created.computation);
      entry = created;
      this.series.set(key, entry);
      this.listSeries();
      this.requestLast();
      this.retain(computation);
      const initial = this.valueOf(computation, this.currentOutputs());
      if (initial !== undefined && Number.isFinite(initial)) value.set(initial, this.options.now());
      // Observation time: the latest price of the topic, the instant the series was last evaluated at.
      value.updatedAt = this.lastTick?.at;
    }
    entry.value.users += 1;
    return entry.value;
  }

  /** Drops one user of a series; the series and what computes it go with the last one. */
  release(series: SeriesValue): void {
    const entry = this.series.get(series.key);
    if (!entry || entry.value !== series) return;
    series.users -= 1;
    if (series.users > 0) return;
    this.series.delete(series.key);
    this.listSeries();
    this.drop(entry.computation);
  }

  /** Series whose readiness changed since the last call (a first value, a window now covered); undefined when none did. */
  takeReadinessChanges(): SeriesValue[] | undefined {
    const changed = this.readinessChanged;
    this.readinessChanged = undefined;
    return changed;
  }

  /** Gives back what `update` returned, once read: the next update reuses it. */
  recycle(changed: SeriesValue[]): void {
    // pop keeps the array's storage; `length = 0` would drop it, and the next tick's push would allocate anew.
    while (changed.length > 0) changed.pop();
    this.spare = changed;
  }

  /** Every series of the topic (after an asynchronous history answer, all may have changed readiness). */
  allSeries(): IterableIterator<SeriesValue> {
    return (function* (entries) {
      for (const entry of entries) yield entry.value;
    })(this.series.values());
  }

  /** Computes every series after a tick; returns those whose value changed (hand the array back with `recycle`). */
  update(tick: PriceObservation): SeriesValue[] {
    const changed = this.spare ?? [];
    this.spare = undefined;
    const { at, price } = tick;
    if (!Number.isFinite(price) || price <= 0 || !Number.isFinite(at)) return changed;
    const volume = tick.volume ?? 0;
    const latest = this.lastTick === undefined || at >= this.lastTick.at;
    if (latest) {
      // Kept in place: a tick must not allocate for what only the channel reads.
      if (this.lastTick === undefined) this.lastTick = { at, price, volume };
      else {
        this.lastTick.at = at;
        this.lastTick.price = price;
        this.lastTick.volume = volume;
      }
    }
    const only = this.onlyCurrent;
    if (only !== undefined) {
      // What the loop below does for a `current` series, with nothing else to compute.
      const first = only.value === undefined;
      if (only.set(price, at)) {
        changed.push(only);
        if (first) (this.readinessChanged ??= []).push(only);
      }
      if (latest) only.updatedAt = at;
      return changed;
    }
    /** Windows that span their whole period from this tick on (their series change readiness). */
    let justCovered: Set<number> | undefined;
    if (this.windows.size > 0) for (const [durationMs, use] of this.windows) {
      if (use.pending) {
        use.pending.push({ at, price, volume });
        continue;
      }
      this.addToWindow(use, at, price, volume);
      if (!use.covered && use.window.covered()) {
        use.covered = true;
        (justCovered ??= new Set()).add(durationMs);
      }
    }
    let outputs: Map<string, Record<string, number | undefined>> | undefined;
    if (this.timeframes.size > 0) for (const [tfMs, use] of this.timeframes) {
      for (const candle of use.builder.add(at, price, volume)) {
        for (const [family, familyUse] of use.families) {
          if (familyUse.pending) {
            familyUse.pending.push(candle);
            continue;
          }
          if (!takeCandle(familyUse, candle)) continue;
          outputs ??= new Map();
          outputs.set(`${tfMs}:${family}`, { ...familyUse.indicator.current() });
        }
      }
    }
    const entries = this.seriesList;
    for (let index = 0; index < entries.length; index += 1) {
      const { value: series, computation } = entries[index] as SeriesEntry;
      const next = computation.kind === 'current' ? price : this.valueOf(computation, outputs);
      const first = series.value === undefined;
      const moved = next !== undefined && Number.isFinite(next) && series.set(next, at);
      if (moved) changed.push(series);
      if ((moved && first) || (justCovered !== undefined && computation.kind === 'window' && justCovered.has(computation.durationMs))) (this.readinessChanged ??= []).push(series);
      // Every series of the topic was evaluated at this tick, changed or not.
      if (latest) series.updatedAt = at;
    }
    return changed;
  }

  private listSeries(): void {
    const list = [...this.series.values()];
    this.seriesList = list;
    const only = list.length === 1 ? (list[0] as SeriesEntry) : undefined;
    this.onlyCurrent = only !== undefined && only.computation.kind === 'current' ? only.value : undefined;
  }

  // ------------------------------------------------------------------ warm-up

  /** The last price before now, for `current` and for the first candle of a new timeframe. */
  private requestLast(): void {
    const history = this.options.history;
    if (this.lastRequested || !history) return;
    this.lastRequested = true;
    const now = this.options.now();
    this.load(
      () => history.ticks(this.options.topic, now, now),
      (ticks) => {
        const last = ticks[ticks.length - 1];
        if (last && (this.lastTick === undefined || last.at > this.lastTick.at)) this.lastTick = { at: last.at, price: last.price, volume: last.volume ?? 0 };
      },
      () => undefined,
    );
  }

  private startWindow(use: WindowUse, durationMs: number): void {
    const history = this.options.history;
    if (!history) return;
    const topic = this.options.topic;
    const now = this.options.now();
    use.pending = [];
    this.load(
      // The window at the last tick L before now spans (L - duration, L], with its reference before.
      () => then(history.ticks(topic, now, now), (last) => history.ticks(topic, (last[last.length - 1]?.at ?? now) - durationMs, now)),
      (ticks) => {
        for (const tick of ticks) this.addToWindow(use, tick.at, tick.price, tick.volume ?? 0);
      },
      (message) => (use.historyProblem = message),
      () => {
        const pending = use.pending ?? [];
        use.pending = undefined;
        for (const tick of pending) this.addToWindow(use, tick.at, tick.price, tick.volume ?? 0);
      },
    );
  }

  private startFamily(timeframe: TimeframeUse, use: FamilyUse, tfMs: number): void {
    const history = this.options.history;
    if (!history) return;
    const topic = this.options.topic;
    const now = this.options.now();
    const seeds = !timeframe.seeded;
    timeframe.seeded = true;
    use.pending = [];
    this.load(
      () => then(history.origin(topic, tfMs), (origin) => (origin === undefined ? [] : history.candles(topic, tfMs, origin, now))),
      (candles) => {
        const forming = timeframe.builder.current();
        const last = candles[candles.length - 1];
        // The last candle of the history is the one forming at the start: the builder's (live closes it).
        const cutoff = seeds ? (last?.start ?? Infinity) : (forming?.start ?? last?.start ?? Infinity);
        for (const candle of candles) if (candle.start < cutoff) takeCandle(use, candle);
        if (!seeds || !last) return;
        const closedLive = use.pending?.findIndex((candle) => candle.start === last.start) ?? -1;
        if (closedLive >= 0 && use.pending) {
          // Closed live while an asynchronous history loaded: complete it with its earlier part.
          use.pending[closedLive] = mergeEarlier(use.pending[closedLive] as Candle, last);
        } else if (forming === undefined || forming.start === last.start) {
          timeframe.builder.seedEarlier(last);
        } else if (forming.start > last.start) {
          // Live ticks began in a later bucket: that candle was complete before them.
          takeCandle(use, last);
        }
      },
      (message) => (use.historyProblem = message),
      () => {
        const pending = use.pending ?? [];
        use.pending = undefined;
        for (const candle of pending) takeCandle(use, candle);
      },
    );
  }

  /**
   * Runs a history request: synchronously when its answer is, else when the promise settles (then the
   * series are recomputed and the changed ones reported). `done` runs after success or failure.
   */
  private load<T>(request: () => MaybePromise<T>, apply: (value: T) => void, fail: (message: string) => void, done: () => void = () => undefined): void {
    const failed = (error: unknown): void => {
      const message = error instanceof Error ? error.message : String(error);
      fail(message);
      this.options.problem(typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'HISTORY_ERROR', `history of ${this.options.topic.symbol} from ${this.options.history?.name}: ${message}`);
    };
    let answer: MaybePromise<T>;
    try {
      answer = request();
    } catch (error) {
      failed(error);
      done();
      return;
    }
    if (!(answer instanceof Promise)) {
      apply(answer);
      done();
      return;
    }
    answer.then(
      (value) => {
        if (this.released) return;
        apply(value);
        done();
        this.options.warmed(this.refresh());
      },
      (error: unknown) => {
        if (this.released) return;
        failed(error);
        done();
        this.options.warmed(this.refresh());
      },
    );
  }

  /** Recomputes every series from the current state (after history arrived); returns the changed ones. */
  private refresh(): SeriesValue[] {
    const outputs = this.currentOutputs();
    const changed: SeriesValue[] = [];
    for (const { value: series, computation } of this.series.values()) {
      const next = this.valueOf(computation, outputs);
      if (next !== undefined && Number.isFinite(next) && series.set(next, this.options.now())) changed.push(series);
      series.updatedAt = this.lastTick?.at;
    }
    return changed;
  }

  private addToWindow(use: WindowUse, at: number, price: number, volume: number): void {
    if (!(price > 0)) return;
    use.firstAt ??= at;
    use.window.add(at, price, volume);
  }

  // ------------------------------------------------------------------ values and readiness

  private currentOutputs(): Map<string, Record<string, number | undefined>> {
    const outputs = new Map<string, Record<string, number | undefined>>();
    for (const [tfMs, use] of this.timeframes) {
      for (const [family, familyUse] of use.families) if (!familyUse.pending) outputs.set(`${tfMs}:${family}`, familyUse.indicator.current());
    }
    return outputs;
  }

  private valueOf(computation: Computation, outputs: Map<string, Record<string, number | undefined>> | undefined): number | undefined {
    switch (computation.kind) {
      case 'current':
        return this.lastTick?.price;
      case 'window': {
        const use = this.windows.get(computation.durationMs);
        if (!use || use.pending) return undefined;
        const window = use.window;
        if (computation.method === 'change') return window.change();
        if (computation.method === 'high') return window.high();
        if (computation.method === 'low') return window.low();
        return window.volume();
      }
      case 'indicator':
        return outputs?.get(`${computation.tfMs}:${computation.family}`)?.[computation.method];
    }
  }

  private readinessOf(computation: Computation): Readiness {
    if (this.unavailable !== undefined) return { status: 'no_data', reason: this.unavailable };
    switch (computation.kind) {
      case 'current':
        return this.lastTick ? READY : { status: 'warming_up', reason: `no price of ${this.options.topic.symbol} observed yet` };
      case 'window': {
        const use = this.windows.get(computation.durationMs);
        if (!use) return { status: 'warming_up' };
        if (use.pending) return { status: 'warming_up', reason: this.loadingText() };
        if (use.window.covered()) return READY;
        const readiness: Readiness = { status: 'warming_up', reason: withProblem(`the ${computation.method} window needs ${formatDuration(computation.durationMs)} of prices`, use.historyProblem) };
        if (use.firstAt !== undefined) readiness.readyAt = use.firstAt + computation.durationMs;
        return readiness;
      }
      case 'indicator': {
        const timeframe = this.timeframes.get(computation.tfMs);
        const use = timeframe?.families.get(computation.family);
        if (!timeframe || !use) return { status: 'warming_up' };
        if (use.pending) return { status: 'warming_up', reason: this.loadingText() };
        if (use.indicator.current()[computation.method as keyof ReturnType<FamilyIndicator['current']>] !== undefined) return READY;
        const needed = warmupCandles(computation.method, computation.args);
        const remaining = Math.max(1, needed - use.taken);
        const formingStart = timeframe.builder.current()?.start ?? Math.floor(this.options.now() / computation.tfMs) * computation.tfMs;
        return {
          status: 'warming_up',
          readyAt: formingStart + remaining * computation.tfMs,
          reason: withProblem(`needs ${needed} closed candles of ${formatDuration(computation.tfMs)}, has ${use.taken}`, use.historyProblem),
        };
      }
    }
  }

  /** Why a series waits for its history (built when asked: a fire reads every condition's readiness). */
  private loadingText(): string {
    return `loading history from ${this.options.history?.name ?? 'history'}`;
  }

  // ------------------------------------------------------------------ sharing

  private retain(computation: Computation): void {
    if (computation.kind === 'window') {
      const use = this.windows.get(computation.durationMs);
      if (use) {
        use.users += 1;
        return;
      }
      const created: WindowUse = { window: new PriceWindow(computation.durationMs), users: 1, pending: undefined, firstAt: undefined, covered: false, historyProblem: undefined };
      this.windows.set(computation.durationMs, created);
      this.startWindow(created, computation.durationMs);
    } else if (computation.kind === 'indicator') {
      let timeframe = this.timeframes.get(computation.tfMs);
      if (!timeframe) {
        timeframe = { builder: new CandleBuilder(computation.tfMs), families: new Map(), users: 0, seeded: false };
        this.timeframes.set(computation.tfMs, timeframe);
      }
      timeframe.users += 1;
      const family = timeframe.families.get(computation.family);
      if (family) {
        family.users += 1;
        return;
      }
      const created: FamilyUse = {
        indicator: createIndicatorFamily(computation.spec.family, computation.spec.params as never),
        users: 1,
        lastStart: -Infinity,
        taken: 0,
        pending: undefined,
        historyProblem: undefined,
      };
      timeframe.families.set(computation.family, created);
      this.startFamily(timeframe, created, computation.tfMs);
    }
  }

  private drop(computation: Computation): void {
    if (computation.kind === 'window') {
      const use = this.windows.get(computation.durationMs);
      if (use && --use.users === 0) this.windows.delete(computation.durationMs);
    } else if (computation.kind === 'indicator') {
      const timeframe = this.timeframes.get(computation.tfMs);
      if (!timeframe) return;
      const family = timeframe.families.get(computation.family);
      if (family && --family.users === 0) timeframe.families.delete(computation.family);
      if (--timeframe.users === 0) this.timeframes.delete(computation.tfMs);
    }
  }
}

/** Gives a closed candle to an indicator unless it already took it; returns whether it did. */
function takeCandle(use: FamilyUse, candle: Candle): boolean {
  if (candle.start <= use.lastStart) return false;
  use.indicator.update(candle);
  use.lastStart = candle.start;
  use.taken += 1;
  return true;
}

/** A live candle completed with the earlier part of its bucket from history. */
function mergeEarlier(live: Candle, earlier: Candle): Candle {
  return {
    start: live.start,
    open: earlier.open,
    high: Math.max(live.high, earlier.high),
    low: Math.min(live.low, earlier.low),
    close: live.close,
    volume: live.volume + earlier.volume,
  };
}

/** `next` applied to a value that may be a promise, synchronously when it is not. */
function then<A, B>(value: MaybePromise<A>, next: (value: A) => MaybePromise<B>): MaybePromise<B> {
  return value instanceof Promise ? value.then(next) : next(value);
}

function withProblem(reason: string, problem: string | undefined): string {
  return problem === undefined ? reason : `${reason}; history unavailable: ${problem}`;
}

function computationOf(description: SeriesDescription): Computation {
  const { method, args } = description;
  if (description.source === 'price') {
    if (method === 'current') return { kind: 'current' };
    const durationMs = parseDuration(args.period);
    if ((method === 'change' || method === 'high' || method === 'low' || method === 'volume') && durationMs !== undefined) {
      return { kind: 'window', method, durationMs };
    }
    throw new Error(`unsupported price series ${method} ${JSON.stringify(args.period)}`);
  }
  const spec = resolveIndicator(method, args);
  return { kind: 'indicator', tfMs: timeframeMs(resolveTimeframe(args)), family: familyKey(spec), spec, method, args };
}

function keyOf(computation: Computation): string {
  switch (computation.kind) {
    case 'current':
      return 'current';
    case 'window':
      return `${computation.method}:${computation.durationMs}`;
    case 'indicator':
      return `ta:${computation.tfMs}:${computation.family}:${computation.method}`;
  }
}
