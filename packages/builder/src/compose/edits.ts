/**
 * Edits of an existing query by bare values of a follow-up: `use 70k instead` (the threshold of the
 * condition of the nearest scale), `use ETH instead` (the main symbol everywhere), `on the 4h chart
 * instead` (indicator timeframes, or statistic windows), `on binance` (orders, else conditions).
 * Each edit says what it changed.
 */
import { formatDuration, walkConditions, type Action, type ConditionGroup } from '@eql/core';
import type { SpanPiece } from '../grammar/pieces.js';
import type { Amount } from '../grammar/values.js';
import { describeLeaf, formatNumber } from '../describe.js';
import { durationText } from '../format.js';
import { TIMEFRAMES } from '../schema-facts.js';

type Json = Record<string, unknown>;

function leaves(root: ConditionGroup): Json[] {
  const found: Json[] = [];
  walkConditions(root, '', (visit) => {
    if (visit.kind === 'leaf') found.push(visit.node);
  });
  return found;
}

/**
 * Replaces the threshold of a numeric condition: of the method named (`make the RSI 25`), else of
 * the one whose value is nearest in scale; returns a note, or undefined when none fits.
 */
export function replaceThreshold(root: ConditionGroup, amount: Amount, method?: string): string | undefined {
  let best: { leaf: Json; distance: number } | undefined;
  for (const leaf of leaves(root)) {
    if ((leaf.source !== 'price' && leaf.source !== 'ta') || typeof leaf.value !== 'number') continue;
    if (method !== undefined && leaf.method !== method && !(method === 'bbands' && String(leaf.method).startsWith('bbands'))) continue;
    const isChange = leaf.source === 'price' && leaf.method === 'change';
    if (amount.percent && !isChange && leaf.source === 'price') continue;
    const old = leaf.value;
    const distance = Math.abs(Math.log10(Math.abs(old) + 1) - Math.log10(Math.abs(amount.value) + 1)) + (amount.dollar && leaf.source !== 'price' ? 10 : 0);
    if (best === undefined || distance < best.distance) best = { leaf, distance };
  }
  if (!best) return undefined;
  const before = describeLeaf(best.leaf);
  const value = best.leaf.method === 'change' && Math.sign(Number(best.leaf.value)) < 0 && amount.value > 0 ? -amount.value : amount.value;
  best.leaf.value = value;
  return `changed "${before}" to ${formatNumber(value)}`;
}

/** The exchange the market conditions read, when one is set. */
export function conditionExchange(root: ConditionGroup): string | undefined {
  for (const leaf of leaves(root)) {
    const exchange = (leaf.args as Json | undefined)?.exchange;
    if (typeof exchange === 'string') return exchange;
  }
  return undefined;
}

/** The symbol most conditions and actions use. */
export function mainSymbol(root: ConditionGroup | undefined, actions: readonly Action[]): string | undefined {
  const counts = new Map<string, number>();
  const count = (symbol: unknown): void => {
    if (typeof symbol === 'string') counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
  };
  if (root) for (const leaf of leaves(root)) count((leaf.args as Json | undefined)?.symbol);
  for (const action of actions) {
    const params = action.params as unknown as Json;
    count(params.symbol);
    count((params.assetMetadata as Json | undefined)?.symbol);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** Replaces a symbol in conditions, live operands and actions. */
export function replaceSymbol(root: ConditionGroup, actions: Action[], from: string, to: string): string {
  const swap = (args: unknown): void => {
    if (args !== null && typeof args === 'object' && (args as Json).symbol === from) (args as Json).symbol = to;
  };
  for (const leaf of leaves(root)) {
    swap(leaf.args);
    if (leaf.value !== null && typeof leaf.value === 'object') swap((leaf.value as Json).args);
  }
  for (const action of actions) {
    const params = action.params as unknown as Json;
    swap(params);
    swap(params.assetMetadata);
    if (typeof params.prompt === 'string') params.prompt = params.prompt.split(from).join(to);
  }
  return `replaced ${from} with ${to}`;
}

/** Applies a span: a timeframe to indicators (a chart or a bare span), a window to price statistics. */
export function replaceSpan(root: ConditionGroup, span: SpanPiece): string | undefined {
  const duration = span.how === 'window' ? durationText(span.ms) : formatDuration(span.ms);
  let changed = 0;
  for (const leaf of leaves(root)) {
    const args = leaf.args as Json | undefined;
    if (!args) continue;
    if (leaf.source === 'ta' && span.how !== 'window' && TIMEFRAMES.includes(duration)) {
      args.timeframe = duration;
      if (leaf.value !== null && typeof leaf.value === 'object' && (leaf.value as Json).source === 'ta') ((leaf.value as Json).args as Json).timeframe = duration;
      changed += 1;
    } else if (leaf.source === 'price' && leaf.method !== 'current') {
      args.period = duration;
      changed += 1;
    }
  }
  return changed === 0 ? undefined : `set the ${span.how === 'window' ? 'window' : 'timeframe'} to ${duration}`;
}

/** Sets the exchange of orders, or of market conditions when there is no order. */
export function replaceExchange(root: ConditionGroup, actions: Action[], exchange: string): string {
  const orders = actions.filter((action) => action.type === 'market_order' || action.type === 'limit_order');
  if (orders.length > 0) {
    for (const order of orders) (order.params as unknown as Json).exchange = exchange;
    return `the order runs on ${exchange}`;
  }
  for (const leaf of leaves(root)) if ((leaf.source === 'price' || leaf.source === 'ta') && leaf.args) (leaf.args as Json).exchange = exchange;
  return `prices are read on ${exchange}`;
}

/** Applies order modifiers written alone (`set the stop loss at 60k`) to the orders of the query. */
export function patchOrders(actions: Action[], patch: Json): boolean {
  const orders = actions.filter((action) => action.type === 'market_order' || action.type === 'limit_order');
  for (const order of orders) {
    const params = order.params as unknown as Json;
    for (const key of ['leverage', 'reduceOnly', 'takeProfit', 'stopLoss', 'trailingStop', 'exchange', 'symbol', 'size', 'amountUsd', 'positionSizePercent'] as const) {
      if (patch[key] === undefined) continue;
      if (key === 'size' || key === 'amountUsd' || key === 'positionSizePercent') {
        delete params.size;
        delete params.amountUsd;
        delete params.positionSizePercent;
      }
      params[key] = patch[key];
    }
    if (patch.price !== undefined && order.type === 'limit_order') params.price = patch.price;
    if (patch.timeInForce !== undefined && order.type === 'limit_order') params.timeInForce = patch.timeInForce;
  }
  return orders.length > 0;
}
