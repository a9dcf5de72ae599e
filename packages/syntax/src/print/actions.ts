import { isRecord, joinPointer } from '@eql/core';
import { ACTION_KEYWORDS, EXIT_LEVEL_KEYS } from '../language/parameters.js';
import type { Out } from './out.js';
import { defaultSpelling, expectObject, has, type Obj, onlyKeys, optionsText } from './shapes.js';
import { chatText, nameText, numberText, PrintError, quoted, stepText } from './words.js';

/** `then` and one action a line. */
export function printActions(out: Out, actions: unknown, pointer: string): void {
  if (!Array.isArray(actions)) throw new PrintError('actions must be an array to be written as text', pointer);
  out.line(0, 'then', [pointer]);
  actions.forEach((value, index) => {
    const at = joinPointer(pointer, index);
    const action = expectObject(value, at, 'an action');
    onlyKeys(action, ['stepId', 'type', 'params'], at, 'an action');
    if (!has(action, 'params')) throw new PrintError('an action needs params to be written as text', at);
    let text = bodyText(action, at, true);
    if (has(action, 'stepId')) {
      const stepId = action.stepId;
      if (typeof stepId !== 'string') throw new PrintError('stepId must be a string to be written as text', joinPointer(at, 'stepId'));
      text += ` as ${stepText(stepId)}`;
    }
    out.line(1, text, [at]);
  });
}

/** The action without its step id: also the body of an llm callback. */
function bodyText(action: Obj, pointer: string, topLevel: boolean): string {
  const type = action.type;
  const keyword = typeof type === 'string' ? ACTION_KEYWORDS.get(type) : undefined;
  if (keyword === undefined) throw new PrintError(`the action type ${JSON.stringify(type)} has no text form`, joinPointer(pointer, 'type'));
  const paramsPointer = joinPointer(pointer, 'params');
  const present = has(action, 'params');
  const params = present ? expectObject(action.params, paramsPointer, 'params') : {};
  const positional = new Set<string>();
  const take = (key: string, accept: (value: unknown) => boolean): unknown => {
    if (!has(params, key) || !accept(params[key])) return undefined;
    positional.add(key);
    return params[key];
  };
  const isString = (value: unknown) => typeof value === 'string';
  const isNumber = (value: unknown) => typeof value === 'number';
  let text = keyword;
  let tail = '';
  if (type === 'notify' || type === 'webhook' || type === 'llm') {
    const main = take(type === 'notify' ? 'message' : type === 'webhook' ? 'url' : 'prompt', isString);
    if (typeof main === 'string') text += ` ${quoted(main)}`;
    if (type === 'llm') {
      const callback = take('callback', isCallback);
      if (isRecord(callback) && isRecord(callback.action)) tail = ` callback ${bodyText(callback.action, joinPointer(paramsPointer, 'callback', 'action'), false)}`;
    }
  } else if (type === 'messenger_bot') {
    const message = take('message', isString);
    if (typeof message === 'string') text += ` ${quoted(message)}`;
    const chat = take('chatId', (value) => isString(value) || isNumber(value));
    if (typeof chat === 'string' || typeof chat === 'number') text += ` to ${chatText(chat, joinPointer(paramsPointer, 'chatId'))}`;
    const token = take('botToken', isString);
    if (typeof token === 'string') text += ` via ${quoted(token)}`;
  } else if (type === 'close_position') {
    text += closeText(params, take);
  } else {
    text += orderText(params, paramsPointer, take);
  }
  const always = !topLevel && present && text === keyword + (type === 'market_order' || type === 'limit_order' ? ' order' : '') && tail === '';
  text += optionsText(params, positional, paramsPointer, (key, value, at) => optionValueText(type, key, value, at), always);
  return text + tail;
}

/** A callback written after `callback`: `{action: {type, params?}}` with params an object. */
function isCallback(value: unknown): boolean {
  if (!isRecord(value) || Object.keys(value).length !== 1 || !isRecord(value.action)) return false;
  const action = value.action;
  const keys = Object.keys(action);
  return (
    typeof action.type === 'string' &&
    ACTION_KEYWORDS.has(action.type) &&
    keys.every((key) => key === 'type' || key === 'params') &&
    (!has(action, 'params') || isRecord(action.params))
  );
}

/** `close BTC on paper`: the symbol and the venue; the percent goes with the options. */
function closeText(params: Obj, take: (key: string, accept: (value: unknown) => boolean) => unknown): string {
  const isString = (value: unknown) => typeof value === 'string';
  const symbol = take('symbol', isString);
  const exchange = take('exchange', isString);
  return `${typeof symbol === 'string' ? ` ${nameText(symbol)}` : ''}${typeof exchange === 'string' ? ` on ${nameText(exchange)}` : ''}`;
}

function orderText(params: Obj, pointer: string, take: (key: string, accept: (value: unknown) => boolean) => unknown): string {
  const isNumber = (value: unknown) => typeof value === 'number';
  const side = take('side', (value) => value === 'buy' || value === 'sell');
  let text = ` ${typeof side === 'string' ? side : 'order'}`;
  let sized = '';
  for (const [key, spell] of [
    ['amountUsd', (n: string) => `$${n}`],
    ['positionSizePercent', (n: string) => `${n}%`],
    ['size', (n: string) => n],
  ] as const) {
    const amount = take(key, isNumber);
    if (typeof amount !== 'number') continue;
    sized = key;
    text += ` ${spell(numberText(amount, joinPointer(pointer, key)))}`;
    break;
  }
  const symbol = take('symbol', (value) => typeof value === 'string');
  if (typeof symbol === 'string') text += `${sized === 'amountUsd' || sized === 'positionSizePercent' ? ' of' : ''} ${nameText(symbol)}`;
  const exchange = take('exchange', (value) => typeof value === 'string');
  if (typeof exchange === 'string') text += ` on ${nameText(exchange)}`;
  const price = take('price', isNumber);
  if (typeof price === 'number') text += ` at ${numberText(price, joinPointer(pointer, 'price'))}`;
  return text;
}

/** Exit levels of orders read `takeProfit 110000` (a price) or `stopLoss 5%` (a percent). */
function optionValueText(type: unknown, key: string, value: unknown, pointer: string): string {
  if ((type === 'market_order' || type === 'limit_order') && EXIT_LEVEL_KEYS.has(key)) {
    if (isRecord(value) && Object.keys(value).length === 1) {
      if (typeof value.price === 'number') return numberText(value.price, joinPointer(pointer, 'price'));
      if (typeof value.percent === 'number') return `${numberText(value.percent, joinPointer(pointer, 'percent'))}%`;
    }
    if (typeof value === 'number') throw new PrintError(`${key} must be {"price": …} or {"percent": …} to be written as text`, pointer);
  }
  return defaultSpelling(key, value, pointer);
}
