import { parseDuration } from '../../language/duration.js';
import type { PriceObservation } from '../observations.js';
import { CandleBuilder, createIndicatorFamily, familyKey, type FamilyIndicator, type FamilySpec, resolveIndicator, resolveTimeframe, timeframeMs } from '../series/index.js';
import { PriceWindow } from '../series/windows.js';
import { type SeriesDescription, SeriesValue } from '../series-value.js';

interface WindowUse {
  window: PriceWindow;
  users: number;
}

interface FamilyUse {
  indicator: FamilyIndicator;
  users: number;
}

interface TimeframeUse {
  builder: CandleBuilder;
  families: Map<string, FamilyUse>;
  users: number;
}

/** How a series is computed from the ticks, and what it holds on to. */
type Computation =
  | { kind: 'current' }
  | { kind: 'window'; method: 'change' | 'high' | 'low' | 'volume'; durationMs: number }
  | { kind: 'indicator'; tfMs: number; family: string; spec: FamilySpec; method: string };

/**
 * Every series of one price topic (a symbol, optionally on one exchange), computed once per tick for
 * all the conditions that read it: the last price; change, high, low and volume over rolling windows
 * (one window per duration); indicators on candles (one candle builder per timeframe, one indicator
 * instance per family and parameters, shared by all its outputs).
 *
 * Indicators move when a candle closes, that is at the first tick of the next candle, so their values
 * are those of closed candles only (what reference values are computed on).
 */
export class PriceChannel {
  private readonly series = new Map<string, { value: SeriesValue; computation: Computation }>();
  private readonly windows = new Map<number, WindowUse>();
  private readonly timeframes = new Map<number, TimeframeUse>();

  get isEmpty(): boolean {
    return this.series.size === 0;
  }

  /** The series for a description, created on first use; each call counts one user. */
  acquire(description: SeriesDescription): SeriesValue {
    const computation = computationOf(description);
    const key = keyOf(computation);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { value: new SeriesValue(key, description), computation };
      this.series.set(key, entry);
      this.retain(computation);
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
    this.drop(entry.computation);
  }

  /** Computes every series after a tick; returns those whose value changed. */
  update(tick: PriceObservation): SeriesValue[] {
    const { at, price } = tick;
    if (!Number.isFinite(price) || price <= 0) return [];
    const volume = tick.volume ?? 0;
    for (const use of this.windows.values()) use.window.add(at, price, volume);
    let outputs: Map<string, Record<string, number | undefined>> | undefined;
    for (const [tfMs, use] of this.timeframes) {
      for (const candle of use.builder.add(at, price, volume)) {
        outputs ??= new Map();
        for (const [family, familyUse] of use.families) outputs.set(`${tfMs}:${family}`, { ...familyUse.indicator.update(candle) });
      }
    }
    const changed: SeriesValue[] = [];
    for (const { value: series, computation } of this.series.values()) {
      const next = this.valueOf(computation, price, outputs);
      if (next !== undefined && Number.isFinite(next) && series.set(next, at)) changed.push(series);
    }
    return changed;
  }

  private valueOf(computation: Computation, price: number, outputs: Map<string, Record<string, number | undefined>> | undefined): number | undefined {
    switch (computation.kind) {
      case 'current':
        return price;
      case 'window': {
        const window = this.windows.get(computation.durationMs)?.window;
        if (!window) return undefined;
        if (computation.method === 'change') return window.change();
        if (computation.method === 'high') return window.high();
        if (computation.method === 'low') return window.low();
        return window.volume();
      }
      case 'indicator':
        return outputs?.get(`${computation.tfMs}:${computation.family}`)?.[computation.method];
    }
  }

  private retain(computation: Computation): void {
    if (computation.kind === 'window') {
      const use = this.windows.get(computation.durationMs);
      if (use) use.users += 1;
      else this.windows.set(computation.durationMs, { window: new PriceWindow(computation.durationMs), users: 1 });
    } else if (computation.kind === 'indicator') {
      let timeframe = this.timeframes.get(computation.tfMs);
      if (!timeframe) {
        timeframe = { builder: new CandleBuilder(computation.tfMs), families: new Map(), users: 0 };
        this.timeframes.set(computation.tfMs, timeframe);
      }
      timeframe.users += 1;
      const family = timeframe.families.get(computation.family);
      if (family) family.users += 1;
      else timeframe.families.set(computation.family, { indicator: createIndicatorFamily(computation.spec.family, computation.spec.params as never), users: 1 });
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
  return { kind: 'indicator', tfMs: timeframeMs(resolveTimeframe(args)), family: familyKey(spec), spec, method };
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
