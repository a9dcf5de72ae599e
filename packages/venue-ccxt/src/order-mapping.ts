import { type OrderRequest, type OrderResult } from '@eql/core';

/** Trigger prices of the exits (the core's reading, shared with the paper venue). */
export { exitTriggers } from '@eql/core';
import { type CcxtOrder, type CcxtParams } from './ccxt-types.js';

/**
 * OrderResult status of a ccxt order. ccxt statuses are `open`, `closed` (fully filled), `canceled`,
 * `expired` and `rejected`; a venue may also leave it undefined right after placing. An order with some
 * fill that is still open, or that ended canceled/expired, counts as partially filled; one that ended
 * without any fill counts as rejected.
 */
export function orderStatusOf(order: CcxtOrder): OrderResult['status'] {
  const filled = order.filled ?? 0;
  const amount = order.amount;
  const complete = amount !== undefined && amount > 0 && filled >= amount;
  switch (order.status) {
    case 'closed':
      return 'filled';
    case 'canceled':
    case 'cancelled':
    case 'expired':
    case 'rejected':
      return filled > 0 ? 'partially_filled' : 'rejected';
    default:
      if (complete) return 'filled';
      return filled > 0 ? 'partially_filled' : 'open';
  }
}

/** The OrderResult of a ccxt order, reported under the caller's own client order id. */
export function toOrderResult(order: CcxtOrder, clientOrderId: string, venueClientOrderId: string): OrderResult {
  const result: OrderResult = {
    orderId: order.id ?? order.clientOrderId ?? venueClientOrderId,
    clientOrderId,
    status: orderStatusOf(order),
    filled: order.filled ?? 0,
  };
  if (order.average !== undefined && Number.isFinite(order.average)) result.averagePrice = order.average;
  return result;
}

/**
 * The `params` of `createOrder`: ccxt's unified `clientOrderId`, `reduceOnly`, `timeInForce` /
 * `postOnly`, and attached exits as `takeProfit: {triggerPrice}` / `stopLoss: {triggerPrice}`.
 */
export function createOrderParams(order: OrderRequest, venueClientOrderId: string, exits: { takeProfit?: number; stopLoss?: number }): CcxtParams {
  const params: CcxtParams = { clientOrderId: venueClientOrderId };
  if (order.reduceOnly === true) params.reduceOnly = true;
  if (order.timeInForce === 'PO') params.postOnly = true;
  else if (order.timeInForce !== undefined) params.timeInForce = order.timeInForce;
  if (exits.takeProfit !== undefined) params.takeProfit = { triggerPrice: exits.takeProfit };
  if (exits.stopLoss !== undefined) params.stopLoss = { triggerPrice: exits.stopLoss };
  return params;
}
