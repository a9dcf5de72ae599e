import { isRecord } from '../util/json-pointer.js';
import { callbackActionOf } from './query-walk.js';

/** Action types that place orders. */
export const TRADE_ACTION_TYPES = ['market_order', 'limit_order', 'close_position'] as const;
/** Action types that only deliver a message somewhere. */
export const NOTIFICATION_ACTION_TYPES = ['notify', 'webhook', 'messenger_bot'] as const;

/** Whether an action type places orders (market_order, limit_order, close_position). */
export function isTradeActionType(type: unknown): boolean {
  return type === 'market_order' || type === 'limit_order' || type === 'close_position';
}

/** Whether an action type only delivers a message (notify, webhook, messenger_bot). */
export function isNotificationActionType(type: unknown): boolean {
  return type === 'notify' || type === 'webhook' || type === 'messenger_bot';
}

/**
 * Spec 2.3: a trade-flavoured action is a market_order, a limit_order, or an llm action whose
 * callback action is one of those two.
 */
export function isTradeFlavouredAction(action: unknown): boolean {
  if (!isRecord(action)) return false;
  if (isTradeActionType(action.type)) return true;
  const callback = callbackActionOf(action);
  return callback !== undefined && isTradeActionType(callback.type);
}

/** True when any action of the query body (`{conditions, actions, ...}`) is trade-flavoured. */
export function isTradeFlavouredQuery(query: unknown): boolean {
  return isRecord(query) && Array.isArray(query.actions) && query.actions.some(isTradeFlavouredAction);
}

/**
 * How a request body's actions classify for signing (spec 5.2): `trade` when one is trade-flavoured,
 * `unknown` when one has a type outside the language (or an llm callback of unknown type),
 * `notification` when all are notify, webhook, messenger_bot or llm with a notification callback,
 * `none` when the body has no actions array to judge.
 */
export type ActionClass = 'trade' | 'unknown' | 'notification' | 'none';

/** Classifies the actions of a request body (`{query: {actions}}`) for signing: see {@link ActionClass}. */
export function classifyRequestActions(body: unknown): ActionClass {
  const query = isRecord(body) ? body.query : undefined;
  if (!isRecord(query) || !Array.isArray(query.actions)) return 'none';
  let unknown = false;
  for (const action of query.actions) {
    if (isTradeFlavouredAction(action)) return 'trade';
    if (!isRecord(action)) {
      unknown = true;
      continue;
    }
    if (isNotificationActionType(action.type)) continue;
    if (action.type === 'llm') {
      const callback = callbackActionOf(action);
      const hasCallbackField = isRecord(action.params) && action.params.callback !== undefined;
      if (hasCallbackField && (callback === undefined || !isNotificationActionType(callback.type))) unknown = true;
      continue;
    }
    unknown = true;
  }
  return unknown ? 'unknown' : 'notification';
}
