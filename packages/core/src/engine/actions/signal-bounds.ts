import { baseAsset } from '../observations.js';
import type { TradeSignal } from '../interfaces.js';

/**
 * What a model may place through an owner's order callback. A model's reply is not the owner's word: a
 * model can be wrong, and text it read (ingested posts and news) can steer it. So the callback's params
 * are the owner's bounds, and a trade signal only fills what they leave open:
 *
 * - `symbol` and `side`, when the owner gave them, are fixed: a signal naming another asset or the other
 *   side is refused (a signal to sell is no reason to buy). Open, the signal chooses.
 * - `price`, when the owner gave it, stands (the signal's is ignored); open, the signal's limit price is
 *   used, and its notional is counted at the worst price it can fill at (below).
 * - size: the owner's `size` (base units), `amountUsd` and `positionSizePercent` (of the balance at the
 *   trigger, times the owner's leverage) are budgets for the whole trigger: the orders of one trigger
 *   together stay within every budget the owner gave. An order the remaining budget cannot hold is
 *   refused, not shrunk (a model asking for more than it may is a reason for doubt, not for a partial
 *   trade). A signal that gives no size takes the owner's.
 * - at most {@link MAX_CALLBACK_ORDERS} orders per trigger; later signals are refused.
 * - leverage, reduceOnly, take-profit, stop-loss and time in force are the owner's alone: a signal has no
 *   field for them.
 *
 * A callback that bounds nothing (no size of any kind, or only a base-unit `size` while the symbol is
 * open, which bounds units of whatever asset the model picks) places no order: its signals fail the
 * step with `CALLBACK_UNBOUNDED` (validation refuses such a callback at creation: `callback-order-unbounded`).
 */

/** Orders one trigger of an llm callback may place at most. */
export const MAX_CALLBACK_ORDERS = 5;

/** A signal outside the owner's bounds (recorded in the callback's result; the step goes on). */
export const SIGNAL_OUT_OF_BOUNDS = 'SIGNAL_OUT_OF_BOUNDS';
/** The owner's callback bounds no size (the step fails: the owner must say how much). */
export const CALLBACK_UNBOUNDED = 'CALLBACK_UNBOUNDED';

const positive = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0;
const isSide = (value: unknown): value is 'buy' | 'sell' => value === 'buy' || value === 'sell';

/** Why an order callback's params bound no size a model could ask for, or undefined when they bound one. */
export function unboundedCallback(params: Record<string, unknown>): string | undefined {
  if (positive(params.amountUsd) || positive(params.positionSizePercent)) return undefined;
  if (positive(params.size)) {
    return typeof params.symbol === 'string' && params.symbol !== ''
      ? undefined
      : 'a base-unit size bounds nothing while the model picks the market: give amountUsd or positionSizePercent, or a symbol';
  }
  return 'the callback gives no size, amountUsd or positionSizePercent: a model may not size orders beyond what the owner allows';
}

/** The order a signal asks for within the owner's fixed fields, or why it is refused. */
export type SignalVerdict = { order: Record<string, unknown> } | { refused: string };

/** Checks a signal against the owner's fixed symbol and side, and fills the owner's params with it. */
export function orderOfSignal(params: Record<string, unknown>, signal: TradeSignal): SignalVerdict {
  if (!isSide(signal.side)) return { refused: 'the signal has no side' };
  if (isSide(params.side) && signal.side !== params.side) return { refused: `the callback ${params.side}s; the signal would ${signal.side}` };
  const ownSymbol = typeof params.symbol === 'string' && params.symbol !== '' ? params.symbol : undefined;
  if (ownSymbol !== undefined && signal.symbol !== undefined && baseAsset(signal.symbol) !== baseAsset(ownSymbol)) {
    return { refused: `the callback trades ${ownSymbol}; the signal names another market` };
  }
  const order: Record<string, unknown> = { ...params, side: signal.side };
  if (ownSymbol === undefined && signal.symbol !== undefined) order.symbol = signal.symbol;
  if (!positive(params.price) && signal.price !== undefined) order.price = signal.price;
  if (signal.size !== undefined || signal.amountUsd !== undefined || signal.positionSizePercent !== undefined) {
    delete order.size;
    delete order.amountUsd;
    delete order.positionSizePercent;
    if (signal.size !== undefined) order.size = signal.size;
    if (signal.amountUsd !== undefined) order.amountUsd = signal.amountUsd;
    if (signal.positionSizePercent !== undefined) order.positionSizePercent = signal.positionSizePercent;
  }
  return { order };
}

/**
 * The price an order's notional is counted at: the price it can fill at that makes it largest. A market
 * order fills near the last price; a limit buy at or below its limit; a limit sell at or above its limit,
 * and at about the last price when the limit is below it (a sell limit far under the market is a market
 * sell). So a limit price, however odd, never lets an order be larger than the budget says.
 */
export function worstFillPrice(type: 'market' | 'limit', side: 'buy' | 'sell', limitPrice: number | undefined, lastPrice: () => number): number {
  if (type === 'market' || limitPrice === undefined) return lastPrice();
  return side === 'buy' ? limitPrice : Math.max(limitPrice, lastPrice());
}

/** Rounding slack of a budget: `amountUsd / price * price` may come back a hair above `amountUsd`. */
const SLACK = 1e-9;

/**
 * What is left of the owner's budgets in one trigger: base units (the owner's `size`, one market) and
 * USD notional (the owner's `amountUsd` and `positionSizePercent`, the smaller when both).
 */
export class TriggerBudget {
  private units: number;
  private usd: number;
  private orders = 0;

  constructor(budget: { units?: number; usd?: number }) {
    this.units = budget.units ?? Infinity;
    this.usd = budget.usd ?? Infinity;
  }

  /** Why no further order fits, whatever its size (the count is reached), or undefined. */
  countRefusal(): string | undefined {
    return this.orders >= MAX_CALLBACK_ORDERS ? `at most ${MAX_CALLBACK_ORDERS} orders per trigger` : undefined;
  }

  /** Why an order of `amount` base units and `notionalUsd` does not fit what is left, or undefined when it fits. */
  refusal(amount: number, notionalUsd: number): string | undefined {
    const count = this.countRefusal();
    if (count !== undefined) return count;
    if (!(amount > 0) || !Number.isFinite(notionalUsd)) return 'the order has no finite size';
    if (amount > this.units * (1 + SLACK)) return `${amount} units exceed the ${this.units} left of the callback's size in this trigger`;
    if (notionalUsd > this.usd * (1 + SLACK)) return `$${round(notionalUsd)} exceeds the $${round(this.usd)} left of the callback's amount in this trigger`;
    return undefined;
  }

  /** Counts an order against the budgets. */
  take(amount: number, notionalUsd: number): void {
    this.orders += 1;
    this.units = Math.max(0, this.units - amount);
    this.usd = Math.max(0, this.usd - notionalUsd);
  }

  /** Counts an order whose size cannot be known (an order found after a restart that cannot be sized again): nothing is left. */
  exhaust(): void {
    this.orders += 1;
    this.units = 0;
    this.usd = 0;
  }
}

const round = (value: number): string => (Math.round(value * 100) / 100).toString();
