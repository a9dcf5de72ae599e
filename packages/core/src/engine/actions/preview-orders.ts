import { defer, type Observable, of } from 'rxjs';
import type { Action, CallbackAction } from '../../generated/eql-types.js';
import { isRecord } from '../../util/json-pointer.js';
import { ActionError, type ActionContext, type ActionExecutor, type ActionOutcome, type OrderResult } from '../interfaces.js';
import type { PaperExchange } from './paper-exchange.js';
import { closeRequest, closeTarget } from './close-position.js';
import { orderAmount, orderRequest, orderTarget } from './orders.js';

/**
 * The order steps of a preview: placed on the preview's paper venue at the instant of the trigger, whatever
 * venue they name. Synchronous, so that an order fills at the replayed price of its trigger and its exits
 * watch the ticks after it (the host's order executor waits on the venue, which a replay in virtual time
 * cannot). The orders an llm callback signals are described, not placed: the signal bounds of a callback
 * are the host's executor's (docs/semantics.md, "Preview trades on paper").
 */
export class PreviewOrderExecutor implements ActionExecutor {
  /** Orders placed so far: a query created again (`renew`) counts its triggers from 1 again, its orders go on. */
  private placed = 0;

  constructor(private readonly paper: PaperExchange) {}

  execute(action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> {
    return defer(() => {
      const params = isRecord(action.params) ? action.params : {};
      if (action.type === 'close_position') return of({ result: this.close(params) });
      const type = action.type === 'limit_order' ? 'limit' : 'market';
      if (!('stepId' in action)) {
        return of({ result: { dryRun: true, wouldPlace: type, exchange: params.exchange, symbol: params.symbol, side: params.side, signals: context.analysis?.trades.length } });
      }
      const { symbol, side } = orderTarget(type, params);
      let price: number;
      try {
        price = type === 'limit' && typeof params.price === 'number' ? params.price : this.paper.lastPrice(symbol);
      } catch {
        throw new ActionError('ORDER_INVALID', `no replayed price of ${symbol} before the order`);
      }
      const amount = orderAmount(params, symbol, price, this.paper.availableBalanceUsd());
      this.placed += 1;
      const clientOrderId = `preview-${this.placed}-${context.idempotencyKey}`;
      const result = this.paper.placeOrder(orderRequest(type, params, { clientOrderId, symbol, side, amount })) as OrderResult;
      if (result.status === 'rejected') throw new ActionError('ORDER_REJECTED', `the paper venue rejected the ${type} order (${result.orderId})`);
      return of({ result: { exchange: params.exchange, symbol, side, type, amount, ...result } });
    });
  }

  /** A close_position step on the paper venue: a reduce-only market order against its position. */
  private close(params: Record<string, unknown>): Record<string, unknown> {
    const { symbol, percent } = closeTarget(params);
    this.placed += 1;
    const request = closeRequest(this.paper.position(symbol), symbol, percent, `preview-${this.placed}-close`);
    if (request === undefined) return { exchange: params.exchange, symbol, closed: 0, note: 'no open position' };
    const result = this.paper.placeOrder(request) as OrderResult;
    return { exchange: params.exchange, symbol, side: request.side, type: 'market', amount: request.amount, closedPercent: percent, ...result };
  }
}
