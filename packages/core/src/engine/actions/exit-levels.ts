import type { OrderRequest } from '../interfaces.js';

/** The trigger prices of an order's take-profit and stop-loss. */
export interface ExitTriggers {
  takeProfit?: number;
  stopLoss?: number;
}

/**
 * Trigger prices of an order's exits: an absolute `price` as it is, a `percent` that far from the
 * reference (entry) price, on the side where the exit is: a long's take-profit above, its stop-loss below;
 * a short's the other way. A percent without a reference price gives no trigger.
 */
export function exitTriggers(order: Pick<OrderRequest, 'side' | 'takeProfit' | 'stopLoss'>, referencePrice: number | undefined): ExitTriggers {
  const long = order.side === 'buy';
  const level = (exit: { price?: number; percent?: number } | undefined, favourable: boolean): number | undefined => {
    if (exit === undefined) return undefined;
    if (exit.price !== undefined) return exit.price;
    if (exit.percent === undefined || referencePrice === undefined) return undefined;
    const distance = Math.abs(exit.percent) / 100;
    const up = favourable === long;
    return referencePrice * (up ? 1 + distance : 1 - distance);
  };
  const triggers: ExitTriggers = {};
  const takeProfit = level(order.takeProfit, true);
  const stopLoss = level(order.stopLoss, false);
  if (takeProfit !== undefined) triggers.takeProfit = takeProfit;
  if (stopLoss !== undefined) triggers.stopLoss = stopLoss;
  return triggers;
}

/** A trailing stop's trigger: `percent` below the best price a long has seen (above it for a short). */
export function trailingTrigger(positionSide: 'long' | 'short', bestPrice: number, percent: number): number {
  return positionSide === 'long' ? bestPrice * (1 - percent / 100) : bestPrice * (1 + percent / 100);
}
