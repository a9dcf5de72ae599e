// What the preview's chart draws, computed from a preview result without the DOM: candles of one symbol,
// and everything else (warm-up, indicators, equity, markers) put on their time grid. The chart's time
// scale has a slot per distinct time of any series, so a point between two candles would open an empty
// slot: every series is sampled at the candles' starts instead (the last value in each candle).
import { baseAsset, type PreviewResult } from '@eql/core';
import { formatAmount, formatNumber } from '../numbers.js';

/** Seconds since the epoch: the chart's time unit. */
export type Seconds = number;

export interface ChartPoint {
  time: Seconds;
  value: number;
}

export interface ChartCandle {
  time: Seconds;
  open: number;
  high: number;
  low: number;
  close: number;
}

export type MarkerKind = 'trigger' | 'buy' | 'sell' | 'ready';

export interface ChartMarker {
  time: Seconds;
  kind: MarkerKind;
  /** What the canvas writes beside the marker: short, markers are often close together. */
  label: string;
  /** What it was, in words (listed under the chart for the candle under the cursor). */
  text: string;
}

/** One indicator pane: what a `ta` condition read, and what it was compared with. */
export interface IndicatorPane {
  /** Such as `ETH rsi 1h < 30` or `BTC sma 1h > ta.sma`. */
  label: string;
  values: ChartPoint[];
  /** The constant threshold, drawn as a line. */
  threshold?: number;
  /** A live operand's values, drawn as a second line, and its name. */
  operand?: { name: string; values: ChartPoint[] };
}

export interface ChartData {
  symbol: string;
  timeframe: string;
  candles: ChartCandle[];
  /** The closes from the start until the conditions were ready (shaded). */
  warmUp: ChartPoint[];
  /** Constant thresholds of the price conditions on this symbol. */
  priceThresholds: number[];
  /** Triggers, the paper venue's fills of this symbol, and the end of the warm-up; in time order. */
  markers: ChartMarker[];
  indicators: IndicatorPane[];
  /** The paper account's equity, when the query trades; with its deposit. */
  equity?: { deposit: number; values: ChartPoint[] };
}

const seconds = (iso: string): Seconds => Math.floor(Date.parse(iso) / 1000);

/** The start of the slot holding `time`: the last candle starting at or before it (the first, before them). */
export function slotOf(starts: readonly Seconds[], time: Seconds): Seconds {
  let low = 0;
  let high = starts.length - 1;
  if (high < 0) return time;
  if (time < (starts[0] as number)) return starts[0] as number;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((starts[middle] as number) <= time) low = middle;
    else high = middle - 1;
  }
  return starts[low] as number;
}

/** A series put on the slots: one point a slot, its last value there. */
export function onSlots(starts: readonly Seconds[], points: Iterable<{ at: string; value: number }>): ChartPoint[] {
  const bySlot = new Map<Seconds, number>();
  for (const point of points) bySlot.set(slotOf(starts, seconds(point.at)), point.value);
  return [...bySlot].map(([time, value]) => ({ time, value })).sort((a, b) => a.time - b.time);
}

const EXIT_NAMES: Record<string, { name: string; label: string }> = {
  take_profit: { name: 'take profit', label: 'TP' },
  stop_loss: { name: 'stop loss', label: 'SL' },
  trailing_stop: { name: 'trailing stop', label: 'TS' },
};

/** The symbols a preview can chart (those it has candles of). */
export function chartSymbols(result: PreviewResult): string[] {
  return (result.candles ?? []).filter((series) => series.candles.length > 0).map((series) => series.symbol);
}

/** What the chart draws for `symbol` (the first charted symbol by default), or undefined without candles. */
export function chartData(result: PreviewResult, symbol = chartSymbols(result)[0]): ChartData | undefined {
  const series = (result.candles ?? []).find((candidate) => candidate.symbol === symbol);
  if (series === undefined || series.candles.length === 0) return undefined;
  const asset = baseAsset(series.symbol);
  const candles = series.candles.map((candle) => ({ time: seconds(candle.at), open: candle.open, high: candle.high, low: candle.low, close: candle.close }));
  const starts = candles.map((candle) => candle.time);

  const readyAt = result.timeline.flatMap((entry) => entry.changes).find((change) => change.readyAt !== undefined)?.readyAt;
  const warmUp = readyAt === undefined ? [] : candles.filter((candle) => candle.time <= seconds(readyAt)).map((candle) => ({ time: candle.time, value: candle.close }));

  const priceThresholds = new Set<number>();
  for (const entry of result.timeline) {
    for (const change of entry.changes) if (change.source === 'price' && change.operand === undefined && typeof change.threshold === 'number') priceThresholds.add(change.threshold);
  }

  const markers: ChartMarker[] = result.triggers.map((trigger) => ({ time: slotOf(starts, seconds(trigger.at)), kind: 'trigger', label: String(trigger.triggerIndex), text: `trigger ${trigger.triggerIndex} at ${trigger.at}` }));
  if (readyAt !== undefined) markers.push({ time: slotOf(starts, seconds(readyAt)), kind: 'ready', label: 'ready', text: `conditions ready at ${readyAt}` });
  for (const fill of result.paper?.fills ?? []) {
    if (baseAsset(fill.symbol) !== asset) continue;
    const exit = fill.exit === undefined ? undefined : (EXIT_NAMES[fill.exit] ?? { name: fill.exit, label: fill.exit });
    const what = exit === undefined ? fill.side : `${fill.side} (${exit.name})`;
    const label = exit?.label ?? (fill.side === 'buy' ? 'B' : 'S');
    markers.push({ time: slotOf(starts, seconds(fill.at)), kind: fill.side, label, text: `${what} ${formatAmount(fill.amount)} ${fill.symbol} @ ${formatNumber(fill.price)} at ${fill.at}` });
  }
  markers.sort((a, b) => a.time - b.time);

  const indicators = (result.indicators ?? []).map((indicator): IndicatorPane => {
    const compared = indicator.operand ?? (indicator.threshold === undefined ? '' : formatNumber(indicator.threshold));
    const pane: IndicatorPane = {
      label: [indicator.symbol, indicator.method, indicator.timeframe, indicator.operator, compared].filter((part) => part !== undefined && part !== '').join(' '),
      values: onSlots(starts, indicator.points),
    };
    if (indicator.threshold !== undefined) pane.threshold = indicator.threshold;
    if (indicator.operand !== undefined) {
      const operand = indicator.points.flatMap((point) => (point.threshold === undefined ? [] : [{ at: point.at, value: point.threshold }]));
      pane.operand = { name: indicator.operand, values: onSlots(starts, operand) };
    }
    return pane;
  });

  const data: ChartData = { symbol: series.symbol, timeframe: series.timeframe, candles, warmUp, priceThresholds: [...priceThresholds], markers, indicators };
  if (result.paper !== undefined) data.equity = { deposit: result.paper.depositUsd, values: onSlots(starts, result.paper.equity.map((point) => ({ at: point.at, value: point.equityUsd }))) };
  return data;
}
