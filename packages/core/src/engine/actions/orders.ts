import { concatMap, defer, from, map, type Observable, of, toArray } from 'rxjs';
import type { Action, CallbackAction } from '../../generated/eql-types.js';
import { checkPerpetualSymbol } from '../../language/symbols.js';
import { isRecord } from '../../util/json-pointer.js';
import { ActionError, type ActionContext, type ActionExecutor, type ActionOutcome, type Exchange, type ExchangeDirectory, type OrderRequest, type TradeSignal } from '../interfaces.js';
import { sha256Hex } from './hmac-base64.js';

/**
 * market_order and limit_order, as steps or as llm callbacks, on the owner's connected exchange (the
 * paper venue is always there). Size is `size` (base units), or `amountUsd` at the last (or limit)
 * price, or `positionSizePercent` of the available balance. Each order carries a client order id
 * derived from the idempotency key, so a retry or a restart can never place a second order. As an
 * llm callback, every trade signal of the analysis becomes an order, the callback's params filling
 * what the signal leaves out; no signal, no order. When a restart left the step in doubt, the venue is
 * first asked for the order under its client order id (`findOrderByClientId`): one it has is the result,
 * and nothing is sized or sent again.
 */
export class OrderExecutor implements ActionExecutor {
  constructor(private readonly exchanges: ExchangeDirectory) {}

  execute(action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> {
    return defer(() => {
      const params = isRecord(action.params) ? action.params : {};
      const type = action.type === 'limit_order' ? 'limit' : 'market';
      const isCallback = !('stepId' in action);
      const orders: Array<Record<string, unknown>> = isCallback ? (context.analysis?.trades ?? []).map((signal) => merge(params, signal)) : [params];
      if (orders.length === 0) return of({ result: { orders: [], note: 'the analysis signalled no trade' } });
      return from(orders.map((order, index) => ({ order, index }))).pipe(
        concatMap(({ order, index }) => this.place(type, order, context, orders.length === 1 ? '' : `:${index}`)),
        toArray(),
        map((results) => ({ result: results.length === 1 ? (results[0] as Record<string, unknown>) : { orders: results } })),
      );
    });
  }

  private place(type: 'market' | 'limit', params: Record<string, unknown>, context: ActionContext, suffix: string): Observable<Record<string, unknown>> {
    return from(this.placeAsync(type, params, context, suffix));
  }

  private async placeAsync(type: 'market' | 'limit', params: Record<string, unknown>, context: ActionContext, suffix: string): Promise<Record<string, unknown>> {
    const exchangeId = typeof params.exchange === 'string' ? params.exchange : '';
    const symbol = typeof params.symbol === 'string' ? params.symbol : '';
    const side = params.side === 'buy' || params.side === 'sell' ? params.side : undefined;
    if (symbol === '' || side === undefined) throw new ActionError('ORDER_INVALID', 'the order needs a symbol and a side (from params or the trade signal)');
    if (!checkPerpetualSymbol(symbol).ok) throw new ActionError('SYMBOL_NOT_PERPETUAL', `${symbol} is not a perpetual market`);
    if (type === 'limit' && typeof params.price !== 'number') throw new ActionError('ORDER_INVALID', 'a limit order needs a price');
    const exchange = await this.exchanges.get(exchangeId, context.ownerId);
    if (!exchange) throw new ActionError('EXCHANGE_NOT_CONNECTED', `no ${exchangeId} connection for this key; connect it with POST /v2/auto/exchanges`);
    try {
      const clientOrderId = `eql-${(await sha256Hex(`${context.idempotencyKey}${suffix}`)).slice(0, 32)}`;
      if (context.inDoubt && exchange.findOrderByClientId) {
        const placed = await exchange.findOrderByClientId(clientOrderId, symbol);
        if (placed?.status === 'rejected') throw new ActionError('ORDER_REJECTED', `${exchangeId} rejected the ${type} order (${placed.orderId})`);
        if (placed) return { exchange: exchangeId, symbol, side, type, ...placed, foundByClientOrderId: true };
      }
      if (!(await exchange.isPerpetual(symbol))) throw new ActionError('SYMBOL_NOT_PERPETUAL', `${symbol} is not in ${exchangeId}'s perpetual markets`);
      const amount = await sizeOf(exchange, type, symbol, params);
      const request: OrderRequest = {
        clientOrderId,
        symbol,
        side,
        type,
        amount,
      };
      if (typeof params.price === 'number') request.price = params.price;
      if (typeof params.reduceOnly === 'boolean') request.reduceOnly = params.reduceOnly;
      if (typeof params.leverage === 'number') request.leverage = params.leverage;
      if (params.timeInForce === 'GTC' || params.timeInForce === 'IOC' || params.timeInForce === 'PO') request.timeInForce = params.timeInForce;
      if (isRecord(params.takeProfit)) request.takeProfit = exitLevel(params.takeProfit);
      if (isRecord(params.stopLoss)) request.stopLoss = exitLevel(params.stopLoss);
      const result = await exchange.placeOrder(request);
      if (result.status === 'rejected') throw new ActionError('ORDER_REJECTED', `${exchangeId} rejected the ${type} order (${result.orderId})`);
      return { exchange: exchangeId, symbol, side, type, amount, ...result };
    } catch (error) {
      if (error instanceof ActionError) throw error;
      throw new ActionError('EXCHANGE_ERROR', `${exchangeId}: ${error instanceof Error ? error.message : String(error)}`, true);
    }
  }
}

async function sizeOf(exchange: Exchange, type: 'market' | 'limit', symbol: string, params: Record<string, unknown>): Promise<number> {
  if (typeof params.size === 'number' && params.size > 0) return params.size;
  const price = type === 'limit' && typeof params.price === 'number' ? params.price : await exchange.lastPrice(symbol);
  if (!(price > 0)) throw new ActionError('ORDER_INVALID', `no price to size the order on ${symbol}`);
  if (typeof params.amountUsd === 'number' && params.amountUsd > 0) return params.amountUsd / price;
  if (typeof params.positionSizePercent === 'number' && params.positionSizePercent > 0) {
    const balance = await exchange.availableBalanceUsd();
    const leverage = typeof params.leverage === 'number' ? params.leverage : 1;
    const amount = ((balance * params.positionSizePercent) / 100) * leverage / price;
    if (!(amount > 0)) throw new ActionError('INSUFFICIENT_BALANCE', 'the available balance is too small for this order');
    return amount;
  }
  throw new ActionError('ORDER_INVALID', 'the order needs one of size, amountUsd or positionSizePercent');
}

function exitLevel(level: Record<string, unknown>): { price?: number; percent?: number } {
  const out: { price?: number; percent?: number } = {};
  if (typeof level.price === 'number') out.price = level.price;
  if (typeof level.percent === 'number') out.percent = level.percent;
  return out;
}

/** A trade signal over the callback's params: the signal decides side, symbol, price and size when it gives them. */
function merge(params: Record<string, unknown>, signal: TradeSignal): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...params, side: signal.side };
  if (signal.symbol !== undefined) merged.symbol = signal.symbol;
  if (signal.price !== undefined) merged.price = signal.price;
  const sized = signal.size !== undefined || signal.amountUsd !== undefined || signal.positionSizePercent !== undefined;
  if (sized) {
    delete merged.size;
    delete merged.amountUsd;
    delete merged.positionSizePercent;
    if (signal.size !== undefined) merged.size = signal.size;
    if (signal.amountUsd !== undefined) merged.amountUsd = signal.amountUsd;
    if (signal.positionSizePercent !== undefined) merged.positionSizePercent = signal.positionSizePercent;
  }
  return merged;
}
