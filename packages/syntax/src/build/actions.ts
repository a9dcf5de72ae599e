import { joinPointer } from '@eql/core';
import { type CstNode, type IToken, tokenMatcher } from 'chevrotain';
import * as T from '../lexer/tokens.js';
import type { BuildContext, JsonObject, JsonValue } from './context.js';
import { child, children, spanOf, token, unionAll } from './cst.js';
import { addOptions } from './options.js';
import { nameValue, numberValue, stringValue } from './values.js';

/** `then <action> [as <stepId>] …`. */
export function buildActions(context: BuildContext, node: CstNode | undefined, pointer: string): JsonValue[] {
  const then = token(node, 'keyword');
  const actions: JsonValue[] = [];
  for (const actionNode of children(node, 'action')) {
    const at = joinPointer(pointer, actions.length);
    const action: JsonObject = {};
    const stepId = token(actionNode, 'stepId');
    if (stepId !== undefined) context.put(action, at, 'stepId', nameValue(context, stepId), spanOf(stepId), spanOf(token(actionNode, 'as')));
    if (!buildActionBody(context, child(actionNode, 'body'), action, at, true)) continue;
    context.record(at, spanOf(actionNode));
    context.line(at, spanOf(actionNode));
    actions.push(action);
  }
  const span = unionAll(...children(node, 'action').map((action) => spanOf(action)));
  context.record(pointer, span ?? spanOf(then), spanOf(then));
  context.line(pointer, unionAll(spanOf(then), span));
  return actions;
}

/**
 * The type and params of an action or an llm callback. A top-level action always has params; a
 * callback has them only when something is written after its keyword (`callback notify ()` gives
 * empty params, `callback notify` none).
 */
function buildActionBody(context: BuildContext, node: CstNode | undefined, action: JsonObject, pointer: string, topLevel: boolean): boolean {
  const params: JsonObject = {};
  const paramsPointer = joinPointer(pointer, 'params');
  let type: string | undefined;
  let keyword: IToken | undefined;
  let body: CstNode | undefined;
  let written = false;
  if ((body = child(node, 'notify'))) {
    type = 'notify';
    keyword = token(body, 'keyword');
    written = putText(context, body, 'message', params, paramsPointer) || written;
  } else if ((body = child(node, 'webhook'))) {
    type = 'webhook';
    keyword = token(body, 'keyword');
    written = putText(context, body, 'url', params, paramsPointer) || written;
  } else if ((body = child(node, 'bot'))) {
    type = 'messenger_bot';
    keyword = token(body, 'keyword');
    written = putText(context, body, 'message', params, paramsPointer) || written;
    const chat = token(body, 'chat');
    if (chat !== undefined) {
      context.put(params, paramsPointer, 'chatId', chatValue(context, chat), spanOf(chat), spanOf(token(body, 'Kw_to')));
      written = true;
    }
    const botToken = token(body, 'token');
    if (botToken !== undefined) {
      context.put(params, paramsPointer, 'botToken', stringValue(context, botToken), spanOf(botToken), spanOf(token(body, 'Kw_via')));
      written = true;
    }
  } else if ((body = child(node, 'llm'))) {
    type = 'llm';
    keyword = token(body, 'keyword');
    written = putText(context, body, 'prompt', params, paramsPointer) || written;
  } else if ((body = child(node, 'order'))) {
    keyword = token(body, 'kind');
    if (keyword === undefined) return false;
    type = tokenMatcher(keyword, T.Market) ? 'market_order' : 'limit_order';
    written = buildOrder(context, body, params, paramsPointer);
  } else if ((body = child(node, 'close'))) {
    type = 'close_position';
    keyword = token(body, 'keyword');
    written = buildOrder(context, body, params, paramsPointer);
  }
  if (type === undefined || body === undefined) return false;
  action.type = type;
  context.record(joinPointer(pointer, 'type'), spanOf(keyword));
  const options = child(body, 'options');
  if (options !== undefined) {
    addOptions(context, options, params, paramsPointer, { exitLevels: type === 'market_order' || type === 'limit_order' });
    written = true;
  }
  if (type === 'llm') {
    const callbackBody = child(body, 'callbackBody');
    const callbackKeyword = token(body, 'callback');
    if (callbackBody !== undefined) {
      const callbackPointer = joinPointer(paramsPointer, 'callback');
      const callbackAction: JsonObject = {};
      if (buildActionBody(context, callbackBody, callbackAction, joinPointer(callbackPointer, 'action'), false)) {
        context.record(joinPointer(callbackPointer, 'action'), spanOf(callbackBody));
        context.put(params, paramsPointer, 'callback', { action: callbackAction }, unionAll(spanOf(callbackKeyword), spanOf(callbackBody)), spanOf(callbackKeyword));
        written = true;
      }
    }
  }
  if (topLevel || written) {
    action.params = params;
    context.record(paramsPointer, spanOf(body));
  }
  return true;
}

/** The quoted text right after an action's keyword: a notify message, a webhook url, an llm prompt. */
function putText(context: BuildContext, body: CstNode, field: string, params: JsonObject, pointer: string): boolean {
  const text = token(body, field);
  if (text === undefined) return false;
  context.put(params, pointer, field, stringValue(context, text), spanOf(text));
  return true;
}

/** `@channel` keeps its @ (a chat id is written with it); a number is a numeric chat id. */
function chatValue(context: BuildContext, chat: IToken): JsonValue {
  if (tokenMatcher(chat, T.NumberLiteral)) return numberValue(context, chat);
  if (tokenMatcher(chat, T.Handle)) return chat.image;
  return nameValue(context, chat);
}

const SIZE_FIELDS: ReadonlyArray<[typeof T.Dollars, string]> = [
  [T.Dollars, 'amountUsd'],
  [T.Percent, 'positionSizePercent'],
  [T.NumberLiteral, 'size'],
];

/** `(market|limit) (buy|sell|order) [<size>] [<symbol>] [on <exchange>] [at <price>]`. */
function buildOrder(context: BuildContext, body: CstNode, params: JsonObject, pointer: string): boolean {
  let written = false;
  const exchange = token(body, 'exchange');
  if (exchange !== undefined) {
    context.put(params, pointer, 'exchange', nameValue(context, exchange), spanOf(exchange), spanOf(token(body, 'Kw_on')));
    written = true;
  }
  const symbol = token(body, 'symbol');
  if (symbol !== undefined) {
    context.put(params, pointer, 'symbol', nameValue(context, symbol), spanOf(symbol));
    written = true;
  }
  const side = token(body, 'side');
  if (side !== undefined && !tokenMatcher(side, T.Order)) {
    context.put(params, pointer, 'side', side.image, spanOf(side));
    written = true;
  }
  const amount = token(child(body, 'sizing'), 'amount');
  if (amount !== undefined) {
    const field = SIZE_FIELDS.find(([type]) => tokenMatcher(amount, type))?.[1] ?? 'size';
    context.put(params, pointer, field, numberValue(context, amount), spanOf(amount));
    written = true;
  }
  const price = token(body, 'price');
  if (price !== undefined) {
    context.put(params, pointer, 'price', numberValue(context, price), spanOf(price), spanOf(token(body, 'Kw_at')));
    written = true;
  }
  return written;
}
