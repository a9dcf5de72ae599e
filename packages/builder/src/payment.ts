/**
 * Payment mode (spec 2.3, 4.5): the keyless model refuses trade actions, so the builder offers the
 * non-trade version of a query: orders are taken out (a notification takes their place when nothing
 * else is left), and an llm analysis whose callback would trade notifies instead.
 */
import { isTradeActionType, type Action, type QueryRequest } from '@eql/core';
import { describeAction } from './describe.js';

/** The non-trade version of a request and what was taken out. */
export interface PaymentAdapted {
  request: QueryRequest;
  /** The trade steps taken out or changed, in words. */
  refused: string[];
}

/** The non-trade version of a request; `refused` is empty when it had no trade. */
export function withoutTrades(request: QueryRequest): PaymentAdapted {
  const copy = structuredClone(request);
  const refused: string[] = [];
  const kept: Action[] = [];
  for (const action of copy.query.actions) {
    if (isTradeActionType(action.type)) {
      refused.push(describeAction(action));
      continue;
    }
    const callback = action.type === 'llm' ? action.params.callback : undefined;
    if (callback && isTradeActionType(callback.action.type)) {
      refused.push(`the ${callback.action.type.replace('_', ' ')} callback of the analysis`);
      callback.action = { type: 'notify' };
    }
    kept.push(action);
  }
  if (refused.length === 0) return { request, refused };
  if (kept.length === 0) {
    kept.push({ stepId: 'notify-1', type: 'notify', params: { message: `Triggered: ${copy.title ?? 'your conditions hold'} (an order was asked; orders need an API key)` } });
  }
  const lone = kept.length === 1 && kept[0]?.type === 'llm' ? kept[0] : undefined;
  if (lone && lone.params.callback === undefined) lone.params.callback = { action: { type: 'notify' } };
  copy.query.actions = kept as [Action, ...Action[]];
  return { request: copy, refused };
}
