import { defer, from, map, type Observable } from 'rxjs';
import type { Action, CallbackAction } from '../../generated/eql-types.js';
import { checkPerpetualSymbol } from '../../language/symbols.js';
import { isRecord } from '../../util/json-pointer.js';
import { ActionError, type ActionContext, type ActionExecutor, type ActionOutcome, type Exchange, type ExchangeDirectory, type OrderRequest } from '../interfaces.js';
import { sha256Hex } from './hmac-base64.js';

/**
 * close_position: a reduce-only market order against the open position of a perpetual market, all of it
 * or `percent` of it, on the owner's connected exchange (the paper venue is always there). With no
 * position open the step succeeds and places nothing. Its client order id is derived from the
 * idempotency key, so a retry or a restart never closes twice: when a restart left the step in doubt, the
 * venue is first asked for the order under that id.
 */
export class ClosePositionExecutor implements ActionExecutor {
  constructor(private readonly exchanges: ExchangeDirectory) {}

  execute(action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> {
    return defer(() => from(this.close(isRecord(action.params) ? action.params : {}, context))).pipe(map((result) => ({ result })));
  }

  private async close(params: Record<string, unknown>, context: ActionContext): Promise<Record<string, unknown>> {
    const { exchangeId, symbol, percent } = closeTarget(params);
    const exchange = await this.exchanges.get(exchangeId, context.ownerId);
    if (!exchange) throw new ActionError('EXCHANGE_NOT_CONNECTED', `no ${exchangeId} connection for this key; connect it with POST /v2/auto/exchanges`);
    const clientOrderId = `eql-${(await sha256Hex(`${context.idempotencyKey}:close`)).slice(0, 32)}`;
    try {
      if (context.inDoubt && exchange.findOrderByClientId) {
        const placed = await exchange.findOrderByClientId(clientOrderId, symbol);
        if (placed) return { exchange: exchangeId, symbol, type: 'market', ...placed, foundByClientOrderId: true };
      }
      const position = await positionOf(exchange, exchangeId, symbol);
      const request = closeRequest(position, symbol, percent, clientOrderId);
      if (request === undefined) return { exchange: exchangeId, symbol, closed: 0, note: 'no open position' };
      const result = await exchange.placeOrder(request);
      if (result.status === 'rejected') throw new ActionError('ORDER_REJECTED', `${exchangeId} rejected the closing order (${result.orderId})`);
      return { exchange: exchangeId, symbol, side: request.side, type: 'market', amount: request.amount, closedPercent: percent, ...result };
    } catch (error) {
      if (error instanceof ActionError) throw error;
      throw new ActionError('EXCHANGE_ERROR', `${exchangeId}: ${error instanceof Error ? error.message : String(error)}`, true);
    }
  }
}

/** The exchange, symbol and percent of a close_position step, checked before any venue call. */
export function closeTarget(params: Record<string, unknown>): { exchangeId: string; symbol: string; percent: number } {
  const exchangeId = typeof params.exchange === 'string' ? params.exchange : '';
  const symbol = typeof params.symbol === 'string' ? params.symbol : '';
  if (symbol === '') throw new ActionError('ORDER_INVALID', 'close_position needs a symbol');
  if (!checkPerpetualSymbol(symbol).ok) throw new ActionError('SYMBOL_NOT_PERPETUAL', `${symbol} is not a perpetual market`);
  const percent = typeof params.percent === 'number' && params.percent > 0 && params.percent <= 100 ? params.percent : 100;
  return { exchangeId, symbol, percent };
}

/** The reduce-only market order that closes `percent` of a position, or undefined when none is open. */
export function closeRequest(position: { size: number } | undefined, symbol: string, percent: number, clientOrderId: string): OrderRequest | undefined {
  if (position === undefined || !(Math.abs(position.size) > 0)) return undefined;
  return { clientOrderId, symbol, side: position.size > 0 ? 'sell' : 'buy', type: 'market', amount: (Math.abs(position.size) * percent) / 100, reduceOnly: true };
}

async function positionOf(exchange: Exchange, exchangeId: string, symbol: string): Promise<{ size: number } | undefined> {
  if (!exchange.position) throw new ActionError('ORDER_CLOSE_UNSUPPORTED', `${exchangeId} cannot tell its open positions, so it cannot close one; nothing was placed`);
  return exchange.position(symbol);
}
