import type { Timeframe } from '../generated/eql-types.js';
import { collectConditions } from '../language/query-walk.js';
import { isRecord } from '../util/json-pointer.js';
import type { ConditionState } from './interfaces.js';
import { isoTime } from './maybe.js';
import { baseAsset, type PriceObservation } from './observations.js';
import { candlesFromTicks, isTimeframe, TIMEFRAME_MS } from './series/candles.js';
import { thinned } from './thinned.js';

/** The candles of one symbol over a preview's run, at a timeframe that keeps them few enough to draw. */
export interface PreviewCandles {
  symbol: string;
  /** The query's own timeframe on the symbol when its candles fit, else the next one that fits. */
  timeframe: Timeframe;
  /** In time order; a bucket without ticks has no candle. `at` is the bucket's start. */
  candles: Array<{ at: string; open: number; high: number; low: number; close: number; volume: number }>;
}

/**
 * What one `ta` condition read over a preview's run, for an indicator pane: the values the engine compared
 * (only while the query was alive and the indicator ready), with the constant threshold or, for a live
 * operand, the operand's value at each point.
 */
export interface PreviewIndicator {
  /** The condition's JSON pointer inside `query.conditions`, as in the timeline. */
  path: string;
  method: string;
  symbol: string;
  timeframe?: string;
  operator: string;
  /** The constant threshold; absent with a live operand. */
  threshold?: number;
  /** With a live operand: what each point's `threshold` was read from, such as `ta.bbands_upper`. */
  operand?: string;
  /** In time order, at most the preview's `maxPricePoints` (each bucket of a longer run keeps its lowest and highest). */
  points: Array<{ at: string; value: number; threshold?: number }>;
}

/** The timeframes a chart may draw candles at, finest first. */
const CHART_TIMEFRAMES: readonly Timeframe[] = ['1m', '5m', '15m', '30m', '1h', '4h', '1d', '1w'];

/**
 * The timeframe of a chart of [from, to] with at most `maxCandles` candles: `preferred` (the query's) when
 * it fits, else the finest of the chart's timeframes, no finer than `preferred`, that fits.
 */
export function chartTimeframe(from: number, to: number, maxCandles: number, preferred?: Timeframe): Timeframe {
  const fits = (tf: Timeframe) => Math.ceil((to - from) / TIMEFRAME_MS[tf]) <= maxCandles;
  if (preferred !== undefined && fits(preferred)) return preferred;
  const floor = preferred === undefined ? 0 : TIMEFRAME_MS[preferred];
  return CHART_TIMEFRAMES.find((tf) => TIMEFRAME_MS[tf] >= floor && fits(tf)) ?? '1w';
}

/** The finest timeframe the query's `ta` conditions read on each asset (by base asset). */
function taTimeframes(query: unknown): Map<string, Timeframe> {
  const finest = new Map<string, Timeframe>();
  for (const leaf of collectConditions(query).leaves) {
    const args = leaf.node.source === 'ta' && isRecord(leaf.node.args) ? leaf.node.args : undefined;
    if (typeof args?.symbol !== 'string' || typeof args.timeframe !== 'string' || !isTimeframe(args.timeframe)) continue;
    const asset = baseAsset(args.symbol);
    const known = finest.get(asset);
    if (known === undefined || TIMEFRAME_MS[args.timeframe] < TIMEFRAME_MS[known]) finest.set(asset, args.timeframe);
  }
  return finest;
}

/** See {@link PreviewCandles}: one entry per symbol, built from the recording's ticks over [from, to]. */
export function candlesOf(query: unknown, symbols: readonly string[], ticks: readonly PriceObservation[], from: number, to: number, maxCandles: number): PreviewCandles[] {
  const preferred = taTimeframes(query);
  return symbols.map((symbol) => {
    const asset = baseAsset(symbol);
    const timeframe = chartTimeframe(from, to, maxCandles, preferred.get(asset));
    // `to` is the last instant of the run: its tick belongs in the chart.
    const own = ticks.filter((tick) => baseAsset(tick.symbol) === asset);
    const candles = candlesFromTicks(own, TIMEFRAME_MS[timeframe], from, to + 1).map((candle) => ({
      at: isoTime(candle.start),
      open: candle.open,
      high: candle.high,
      low: candle.low,
      close: candle.close,
      volume: candle.volume,
    }));
    return { symbol, timeframe, candles };
  });
}

/**
 * Collects, from a preview's evaluations, the values the query's `ta` conditions read: a point when the
 * value or the live operand's value changed.
 */
export class IndicatorTrace {
  private readonly traced = new Map<string, { indicator: Omit<PreviewIndicator, 'points'>; points: Array<{ at: number; value: number; threshold?: number }> }>();

  constructor(query: unknown) {
    for (const leaf of collectConditions(query, '').leaves) {
      const node = leaf.node;
      // Paths as condition states have them: inside `conditions`.
      const path = leaf.pointer.slice('/conditions'.length);
      if (node.source !== 'ta' || typeof node.method !== 'string' || !isRecord(node.args) || typeof node.args.symbol !== 'string' || typeof node.operator !== 'string') continue;
      const indicator: Omit<PreviewIndicator, 'points'> = { path, method: node.method, symbol: node.args.symbol, operator: node.operator };
      if (typeof node.args.timeframe === 'string') indicator.timeframe = node.args.timeframe;
      if (typeof node.value === 'number') indicator.threshold = node.value;
      else if (isRecord(node.value) && typeof node.value.source === 'string' && typeof node.value.method === 'string') indicator.operand = `${node.value.source}.${node.value.method}`;
      this.traced.set(path, { indicator, points: [] });
    }
  }

  /** Takes the condition states of one evaluation at `at` (epoch ms). */
  record(at: number, states: readonly ConditionState[]): void {
    if (this.traced.size === 0) return;
    for (const state of states) {
      if (state.value === undefined || (state.status !== undefined && state.status !== 'ready')) continue;
      const traced = this.traced.get(state.path);
      if (traced === undefined) continue;
      const threshold = traced.indicator.operand === undefined ? undefined : state.threshold;
      const last = traced.points[traced.points.length - 1];
      if (last !== undefined && last.value === state.value && last.threshold === threshold) continue;
      if (last !== undefined && last.at === at) traced.points.pop();
      traced.points.push(threshold === undefined ? { at, value: state.value } : { at, value: state.value, threshold });
    }
  }

  /** The indicators in document order, each thinned to at most `maxPoints`. */
  indicators(maxPoints: number): PreviewIndicator[] {
    return [...this.traced.values()]
      .sort((a, b) => a.indicator.path.localeCompare(b.indicator.path, 'en', { numeric: true }))
      .map(({ indicator, points }) => ({
        ...indicator,
        points: thinned(points, Math.max(2, maxPoints), (point) => point.value).map((point) => ({ ...point, at: isoTime(point.at) })),
      }));
  }
}
