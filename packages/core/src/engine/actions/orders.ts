import { concatMap, defer, from, map, type Observable, of, throwError, toArray } from 'rxjs';
import type { Action, CallbackAction } from '../../generated/eql-types.js';
import { checkPerpetualSymbol } from '../../language/symbols.js';
import { isRecord } from '../../util/json-pointer.js';
import { ActionError, type ActionContext, type ActionExecutor, type ActionOutcome, type Exchange, type ExchangeDirectory, type OrderRequest, type TradeSignal } from '../interfaces.js';
import { sha256Hex } from './hmac-base64.js';
import { CALLBACK_UNBOUNDED, orderOfSignal, SIGNAL_OUT_OF_BOUNDS, TriggerBudget, unboundedCallback, worstFillPrice } from './signal-bounds.js';

/**
 * market_order and limit_order, as steps or as llm callbacks, on the owner's connected exchange (the
 * paper venue is always there). Size is `size` (base units), or `amountUsd` at the last (or limit)
 * price, or `positionSizePercent` of the available balance. Each order carries a client order id
 * derived from the idempotency key, so a retry or a restart can never place a second order. As an
 * llm callback, every trade signal of the analysis becomes an order within the owner's bounds (the
 * callback's params, see signal-bounds.ts): a signal outside them is refused and recorded in the
 * result, `refused: [{signal, side, symbol?, code, message}]`; no signal, no order. When a restart
 * left the step in doubt, the venue is first asked for the order under its client order id
 * (`findOrderByClientId`): one it has is the result, and nothing is sized or sent again.
 */
export class OrderExecutor implements ActionExecutor {
  constructor(private readonly exchanges: ExchangeDirectory) {}

  execute(action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> {
    return defer(() => {
      const params = isRecord(action.params) ? action.params : {};
      const type = action.type === 'limit_order' ? 'limit' : 'market';
      if ('stepId' in action) return from(this.placeAsync(type, params, context, '')).pipe(map((result) => ({ result })));
      return this.callback(type, params, context);
    });
  }

  /** The orders of an llm callback: each signal in turn, within the owner's bounds for this trigger. */
  private callback(type: 'market' | 'limit', params: Record<string, unknown>, context: ActionContext): Observable<ActionOutcome> {
    const signals = context.analysis?.trades ?? [];
    if (signals.length === 0) return of({ result: { orders: [], note: 'the analysis signalled no trade' } });
    const unbounded = unboundedCallback(params);
    if (unbounded !== undefined) return throwError(() => new ActionError(CALLBACK_UNBOUNDED, `no order placed for ${signals.length} trade signal(s): ${unbounded}`));
    const trigger = new CallbackTrigger(params);
    return from(signals.map((signal, index) => ({ signal, index }))).pipe(
      concatMap(({ signal, index }) => from(this.placeSignal(type, params, signal, context, signals.length === 1 ? '' : `:${index}`, trigger)).pipe(map((refusal) => ({ index, signal, refusal })))),
      toArray(),
      map((outcomes) => {
        const refused = outcomes.flatMap(({ index, signal, refusal }) => (refusal === undefined ? [] : [refusedEntry(index, signal, refusal)]));
        const orders = trigger.placed;
        if (refused.length === 0) return { result: orders.length === 1 ? (orders[0] as Record<string, unknown>) : { orders } };
        const shown = refused.slice(0, MAX_REFUSALS_SHOWN);
        return { result: { orders, refused: shown, ...(refused.length > shown.length ? { refusedMore: refused.length - shown.length } : {}) } };
      }),
    );
  }

  /** Places the order of one signal, or says why it is refused (the step goes on); venue failures throw. */
  private async placeSignal(type: 'market' | 'limit', params: Record<string, unknown>, signal: TradeSignal, context: ActionContext, suffix: string, trigger: CallbackTrigger): Promise<string | undefined> {
    const verdict = orderOfSignal(params, signal);
    if ('refused' in verdict) return verdict.refused;
    // Past the count, refused before any venue call.
    const full = trigger.budget?.countRefusal();
    if (full !== undefined) return full;
    const order = verdict.order;
    const { exchange, exchangeId, symbol, side, clientOrderId } = await this.prepare(type, order, context, suffix);
    try {
      const found = await this.findInDoubt(exchange, exchangeId, type, clientOrderId, symbol, side, context);
      if (found) {
        // Placed in an earlier life: it counts against the budget as it would be sized now, or takes all of it.
        try {
          const { amount, notional } = await trigger.size(exchange, type, symbol, side, order);
          (await trigger.budgetOf(exchange)).take(amount, notional);
        } catch {
          (await trigger.budgetOf(exchange)).exhaust();
        }
        trigger.placed.push(found);
        return undefined;
      }
      if (!(await exchange.isPerpetual(symbol))) throw new ActionError('SYMBOL_NOT_PERPETUAL', `${symbol} is not in ${exchangeId}'s perpetual markets`);
      const budget = await trigger.budgetOf(exchange);
      const { amount, notional } = await trigger.size(exchange, type, symbol, side, order);
      const refusal = budget.refusal(amount, notional);
      if (refusal !== undefined) return refusal;
      budget.take(amount, notional);
      trigger.placed.push(await this.send(exchange, exchangeId, type, order, { clientOrderId, symbol, side, amount }));
      return undefined;
    } catch (error) {
      throw venueError(error, exchangeId);
    }
  }

  private async placeAsync(type: 'market' | 'limit', params: Record<string, unknown>, context: ActionContext, suffix: string): Promise<Record<string, unknown>> {
    const { exchange, exchangeId, symbol, side, clientOrderId } = await this.prepare(type, params, context, suffix);
    try {
      const found = await this.findInDoubt(exchange, exchangeId, type, clientOrderId, symbol, side, context);
      if (found) return found;
      if (!(await exchange.isPerpetual(symbol))) throw new ActionError('SYMBOL_NOT_PERPETUAL', `${symbol} is not in ${exchangeId}'s perpetual markets`);
      const amount = await sizeOf(exchange, type, symbol, params);
      return await this.send(exchange, exchangeId, type, params, { clientOrderId, symbol, side, amount });
    } catch (error) {
      throw venueError(error, exchangeId);
    }
  }

  /** The checks before any venue call, the owner's exchange and the order's client order id. */
  private async prepare(type: 'market' | 'limit', params: Record<string, unknown>, context: ActionContext, suffix: string): Promise<PreparedOrder> {
    const exchangeId = typeof params.exchange === 'string' ? params.exchange : '';
    const { symbol, side } = orderTarget(type, params);
    const exchange = await this.exchanges.get(exchangeId, context.ownerId);
    if (!exchange) throw new ActionError('EXCHANGE_NOT_CONNECTED', `no ${exchangeId} connection for this key; connect it with POST /v2/auto/exchanges`);
    const clientOrderId = `eql-${(await sha256Hex(`${context.idempotencyKey}${suffix}`)).slice(0, 32)}`;
    return { exchange, exchangeId, symbol, side, clientOrderId };
  }

  /** After a restart left the step in doubt: the order the venue already has under its client order id. */
  private async findInDoubt(exchange: Exchange, exchangeId: string, type: 'market' | 'limit', clientOrderId: string, symbol: string, side: 'buy' | 'sell', context: ActionContext): Promise<Record<string, unknown> | undefined> {
    if (!context.inDoubt || !exchange.findOrderByClientId) return undefined;
    const placed = await exchange.findOrderByClientId(clientOrderId, symbol);
    if (placed?.status === 'rejected') throw new ActionError('ORDER_REJECTED', `${exchangeId} rejected the ${type} order (${placed.orderId})`);
    return placed ? { exchange: exchangeId, symbol, side, type, ...placed, foundByClientOrderId: true } : undefined;
  }

  /** Sends the order; a rejection is `ORDER_REJECTED`. */
  private async send(exchange: Exchange, exchangeId: string, type: 'market' | 'limit', params: Record<string, unknown>, order: { clientOrderId: string; symbol: string; side: 'buy' | 'sell'; amount: number }): Promise<Record<string, unknown>> {
    const result = await exchange.placeOrder(orderRequest(type, params, order));
    if (result.status === 'rejected') throw new ActionError('ORDER_REJECTED', `${exchangeId} rejected the ${type} order (${result.orderId})`);
    return { exchange: exchangeId, symbol: order.symbol, side: order.side, type, amount: order.amount, ...result };
  }
}

/** An order checked before any venue call: its exchange, symbol, side and client order id. */
interface PreparedOrder {
  exchange: Exchange;
  exchangeId: string;
  symbol: string;
  side: 'buy' | 'sell';
  clientOrderId: string;
}

/** Refusals listed in a callback's result at most (a provider may signal without end). */
const MAX_REFUSALS_SHOWN = 20;

function refusedEntry(index: number, signal: TradeSignal, message: string): Record<string, unknown> {
  const entry: Record<string, unknown> = { signal: index, side: signal.side };
  if (typeof signal.symbol === 'string') entry.symbol = signal.symbol.slice(0, 40);
  return { ...entry, code: SIGNAL_OUT_OF_BOUNDS, message };
}

/** A venue's failure as the step's error: an ActionError as it is, anything else `EXCHANGE_ERROR` (retryable). */
function venueError(error: unknown, exchangeId: string): ActionError {
  if (error instanceof ActionError) return error;
  return new ActionError('EXCHANGE_ERROR', `${exchangeId}: ${error instanceof Error ? error.message : String(error)}`, true);
}

/**
 * One trigger of an llm callback: the orders placed so far, the owner's budgets (made at the first order
 * that needs them) and the balance they are computed from (read once, so every percent of the trigger is
 * of the same balance).
 */
class CallbackTrigger {
  readonly placed: Array<Record<string, unknown>> = [];
  budget: TriggerBudget | undefined;
  private balance: number | undefined;

  constructor(private readonly params: Record<string, unknown>) {}

  async budgetOf(exchange: Exchange): Promise<TriggerBudget> {
    if (this.budget) return this.budget;
    const { size, amountUsd, positionSizePercent } = this.params;
    let usd = typeof amountUsd === 'number' && amountUsd > 0 ? amountUsd : Infinity;
    if (typeof positionSizePercent === 'number' && positionSizePercent > 0) usd = Math.min(usd, ((await this.balanceOf(exchange)) * positionSizePercent * leverageOf(this.params)) / 100);
    this.budget = new TriggerBudget({ ...(typeof size === 'number' && size > 0 ? { units: size } : {}), usd });
    return this.budget;
  }

  /** An order's base amount and its notional at the worst price it can fill at (signal-bounds.ts). */
  async size(exchange: Exchange, type: 'market' | 'limit', symbol: string, side: 'buy' | 'sell', order: Record<string, unknown>): Promise<{ amount: number; notional: number }> {
    const limit = type === 'limit' && typeof order.price === 'number' ? order.price : undefined;
    const last = type === 'market' || limit === undefined || side === 'sell' ? await exchange.lastPrice(symbol) : undefined;
    const price = worstFillPrice(type, side, limit, () => last as number);
    if (!(price > 0) || !Number.isFinite(price)) throw new ActionError('ORDER_INVALID', `no price to size the order on ${symbol}`);
    let amount: number;
    if (typeof order.size === 'number' && order.size > 0) amount = order.size;
    else if (typeof order.amountUsd === 'number' && order.amountUsd > 0) amount = order.amountUsd / price;
    else if (typeof order.positionSizePercent === 'number' && order.positionSizePercent > 0) amount = ((await this.balanceOf(exchange)) * order.positionSizePercent * leverageOf(order)) / 100 / price;
    else throw new ActionError('ORDER_INVALID', 'the order needs one of size, amountUsd or positionSizePercent');
    if (!(amount > 0)) throw new ActionError('INSUFFICIENT_BALANCE', 'the available balance is too small for this order');
    return { amount, notional: amount * price };
  }

  private async balanceOf(exchange: Exchange): Promise<number> {
    this.balance ??= await exchange.availableBalanceUsd();
    return this.balance;
  }
}

const leverageOf = (params: Record<string, unknown>): number => (typeof params.leverage === 'number' ? params.leverage : 1);

async function sizeOf(exchange: Exchange, type: 'market' | 'limit', symbol: string, params: Record<string, unknown>): Promise<number> {
  if (typeof params.size === 'number' && params.size > 0) return params.size;
  const price = type === 'limit' && typeof params.price === 'number' ? params.price : await exchange.lastPrice(symbol);
  const byBalance = !(typeof params.amountUsd === 'number' && params.amountUsd > 0) && typeof params.positionSizePercent === 'number' && params.positionSizePercent > 0;
  return orderAmount(params, symbol, price, byBalance ? await exchange.availableBalanceUsd() : undefined);
}

/**
 * The amount of an order in base units: `size`, or `amountUsd` at `price`, or `positionSizePercent` of the
 * available `balance` (times the leverage) at `price`.
 */
export function orderAmount(params: Record<string, unknown>, symbol: string, price: number, balance: number | undefined): number {
  if (typeof params.size === 'number' && params.size > 0) return params.size;
  if (!(price > 0)) throw new ActionError('ORDER_INVALID', `no price to size the order on ${symbol}`);
  if (typeof params.amountUsd === 'number' && params.amountUsd > 0) return params.amountUsd / price;
  if (typeof params.positionSizePercent === 'number' && params.positionSizePercent > 0 && balance !== undefined) {
    const leverage = typeof params.leverage === 'number' ? params.leverage : 1;
    const amount = ((balance * params.positionSizePercent) / 100) * leverage / price;
    if (!(amount > 0)) throw new ActionError('INSUFFICIENT_BALANCE', 'the available balance is too small for this order');
    return amount;
  }
  throw new ActionError('ORDER_INVALID', 'the order needs one of size, amountUsd or positionSizePercent');
}

/** The symbol and side of an order step, checked before any venue call (a limit order needs its price too). */
export function orderTarget(type: 'market' | 'limit', params: Record<string, unknown>): { symbol: string; side: 'buy' | 'sell' } {
  const symbol = typeof params.symbol === 'string' ? params.symbol : '';
  const side = params.side === 'buy' || params.side === 'sell' ? params.side : undefined;
  if (symbol === '' || side === undefined) throw new ActionError('ORDER_INVALID', 'the order needs a symbol and a side (from params or the trade signal)');
  if (!checkPerpetualSymbol(symbol).ok) throw new ActionError('SYMBOL_NOT_PERPETUAL', `${symbol} is not a perpetual market`);
  if (type === 'limit' && typeof params.price !== 'number') throw new ActionError('ORDER_INVALID', 'a limit order needs a price');
  return { symbol, side };
}

/** The venue request of an order step: its params as the venue takes them, under its client order id. */
export function orderRequest(type: 'market' | 'limit', params: Record<string, unknown>, order: { clientOrderId: string; symbol: string; side: 'buy' | 'sell'; amount: number }): OrderRequest {
  const request: OrderRequest = { clientOrderId: order.clientOrderId, symbol: order.symbol, side: order.side, type, amount: order.amount };
  if (typeof params.price === 'number') request.price = params.price;
  if (typeof params.reduceOnly === 'boolean') request.reduceOnly = params.reduceOnly;
  if (typeof params.leverage === 'number') request.leverage = params.leverage;
  if (params.timeInForce === 'GTC' || params.timeInForce === 'IOC' || params.timeInForce === 'PO') request.timeInForce = params.timeInForce;
  if (isRecord(params.takeProfit)) request.takeProfit = exitLevel(params.takeProfit);
  if (isRecord(params.stopLoss)) request.stopLoss = exitLevel(params.stopLoss);
  if (isRecord(params.trailingStop) && typeof params.trailingStop.percent === 'number') request.trailingStop = { percent: params.trailingStop.percent };
  return request;
}

function exitLevel(level: Record<string, unknown>): { price?: number; percent?: number } {
  const out: { price?: number; percent?: number } = {};
  if (typeof level.price === 'number') out.price = level.price;
  if (typeof level.percent === 'number') out.percent = level.percent;
  return out;
}
