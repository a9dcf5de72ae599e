/**
 * Plain words for a query: each condition, group and action as a short phrase. Used for default
 * notification messages and titles, and for the explanation in the reply.
 */
import type { Action, ConditionNode, Query } from '@eql/core';

type Json = Record<string, unknown>;

const OPERATOR_WORDS: Readonly<Record<string, string>> = {
  '>': 'above', '>=': 'at or above', '<': 'below', '<=': 'at or below', '==': 'equal to', '!=': 'not equal to', crosses_above: 'crosses above', crosses_below: 'crosses below',
};

const METHOD_NAMES: Readonly<Record<string, string>> = {
  current: 'price', change: 'change', high: 'high', low: 'low', volume: 'volume', rsi: 'RSI', ema: 'EMA', sma: 'SMA', atr: 'ATR', cci: 'CCI', willr: 'Williams %R',
  macd_value: 'MACD', macd_signal: 'MACD signal', macd_histogram: 'MACD histogram', bbands_upper: 'upper Bollinger band', bbands_middle: 'middle Bollinger band',
  bbands_lower: 'lower Bollinger band', stoch_k: 'stochastic %K', stoch_d: 'stochastic %D',
};

/** A value as text: strings as they are, anything else as JSON. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return `${value}`;
  return JSON.stringify(value) ?? '';
}

/** `70000` → `70,000`; keeps decimals. */
export function formatNumber(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 8 });
}

/** `BTC 1h RSI(14)`, `ETH change over 24h`, `BTC price`. */
export function describeSeries(node: Json): string {
  const args = (node.args ?? {}) as Json;
  const method = text(node.method ?? '');
  const symbol = text(args.symbol ?? '?');
  const on = typeof args.exchange === 'string' ? ` on ${args.exchange}` : '';
  if (node.source === 'price') {
    const over = typeof args.period === 'string' ? ` over ${args.period}` : '';
    return `${symbol} ${METHOD_NAMES[method] ?? method}${over}${on}`;
  }
  const windows = ['period', 'fastPeriod', 'slowPeriod', 'signalPeriod', 'stdDev'].filter((key) => typeof args[key] === 'number').map((key) => text(args[key]));
  const timeframe = typeof args.timeframe === 'string' ? `${args.timeframe} ` : '';
  return `${symbol} ${timeframe}${METHOD_NAMES[method] ?? method}${windows.length > 0 ? `(${windows.join(', ')})` : ''}${on}`;
}

function thresholdText(node: Json): string {
  const value = node.value;
  if (typeof value === 'number') return node.source === 'price' && node.method === 'change' ? `${value > 0 ? '+' : ''}${formatNumber(value)}%` : formatNumber(value);
  if (value !== null && typeof value === 'object') return `the ${describeSeries(value as Json)}`;
  return text(value);
}

function paren(text: string): string {
  return text === '' ? '' : ` (${text})`;
}

const PERIOD_NAMES: Readonly<Record<string, string>> = { '1h': 'every hour', '1d': 'every day', '24h': 'every day', '1w': 'every week', '7d': 'every week' };

function everyText(period: string, startAt: unknown): string {
  const every = PERIOD_NAMES[period] ?? `every ${period}`;
  if (typeof startAt !== 'string') return `${every} from creation`;
  const time = /T(\d{2}:\d{2})/.exec(startAt)?.[1];
  return `${every}${time === undefined ? '' : ` at ${time} UTC`} from ${startAt.slice(0, 10)}`;
}

function instantText(at: string): string {
  return at.replace('T', ' ').replace(/:00(\.000)?Z$/, ' UTC').replace(/Z$/, ' UTC');
}

/** One condition in words (without its group); `brief` leaves out confidences and periods (titles, messages). */
export function describeLeaf(node: Json, brief = false): string {
  const args = (node.args ?? {}) as Json;
  const hold = typeof node.holdFor === 'string' ? ` for at least ${node.holdFor}` : '';
  const confidence = brief ? '' : typeof node.operator === 'string' && typeof node.value === 'number' ? `confidence ${node.operator} ${node.value}` : `confidence ≥ ${typeof args.minConfidence === 'number' ? args.minConfidence : 80}`;
  switch (node.source) {
    case 'tweet':
      return `a post by @${text(args.username)} about "${text(args.text)}"${paren(confidence)}${hold}`;
    case 'news':
      return `news about "${text(args.text)}"${paren(confidence)}${hold}`;
    case 'llm':
      if (brief) return `an LLM judges "${text(args.query)}"${hold}`;
      return `an LLM judges "${text(args.query)}" every ${text(args.period)}${args.speed === undefined ? '' : ` (${text(args.speed)})`}${paren(confidence)}${hold}`;
    case 'cron':
      return node.method === 'once' ? `once at ${instantText(text(args.at))}` : everyText(text(args.period), args.startAt);
    default:
      return `${describeSeries(node)} ${OPERATOR_WORDS[text(node.operator)] ?? text(node.operator)} ${thresholdText(node)}${hold}`;
  }
}

/** A condition tree as nested Markdown bullets. */
export function describeConditions(node: ConditionNode, depth = 0): string[] {
  const json = node as unknown as Json;
  const indent = '  '.repeat(depth);
  const members = (Array.isArray(json.AND) ? json.AND : Array.isArray(json.OR) ? json.OR : undefined) as ConditionNode[] | undefined;
  if (members === undefined) return [`${indent}- ${describeLeaf(json)}`];
  const hold = typeof json.holdFor === 'string' ? `, held for at least ${json.holdFor}` : '';
  if (members.length === 1 && depth === 0 && hold === '') return describeConditions(members[0] as ConditionNode, depth);
  const head = `${indent}- ${Array.isArray(json.AND) ? 'all of' : 'any of'}${hold}:`;
  return [head, ...members.flatMap((member) => describeConditions(member, depth + 1))];
}

/** A short one-line summary of the conditions (default titles and messages). */
export function summarizeConditions(node: ConditionNode): string {
  const json = node as unknown as Json;
  const members = (Array.isArray(json.AND) ? json.AND : Array.isArray(json.OR) ? json.OR : undefined) as ConditionNode[] | undefined;
  if (members === undefined) return describeLeaf(json, true);
  return members.map((member) => summarizeConditions(member)).join(Array.isArray(json.AND) ? ' and ' : ' or ');
}

/** One action in words. */
export function describeAction(action: Action): string {
  const params = (action.params ?? {}) as Json;
  switch (action.type) {
    case 'notify':
      return `notify you: "${text(params.message)}"${params.priority === undefined ? '' : ` (${text(params.priority)} priority)`}`;
    case 'webhook':
      return `POST a signed JSON body to ${text(params.url)}`;
    case 'messenger_bot':
      return `send a Telegram message to chat ${text(params.chatId)}${params.botToken === '<BOT_TOKEN>' ? ' (replace <BOT_TOKEN> with your bot token)' : ''}`;
    case 'llm': {
      const callback = ((params.callback as Json | undefined)?.action as Json | undefined)?.type;
      const about = ((params.assetMetadata as Json | undefined)?.symbol as string | undefined) ?? '';
      return `run an LLM ${text(params.analysisType ?? 'chat')} analysis${about === '' ? '' : ` of ${about}`} (${text(params.speed ?? 'fast')})${callback === undefined ? '' : ` and deliver it by ${text(callback)}`}`;
    }
    case 'market_order':
    case 'limit_order':
      return orderText(action.type, params);
    default:
      return text((action as { type?: unknown }).type);
  }
}

function orderText(type: string, params: Json): string {
  const size = typeof params.amountUsd === 'number' ? `$${formatNumber(params.amountUsd)} of` : typeof params.positionSizePercent === 'number' ? `${formatNumber(params.positionSizePercent)}% of balance in` : `${formatNumber(Number(params.size))}`;
  const extras: string[] = [];
  if (typeof params.leverage === 'number') extras.push(`${formatNumber(params.leverage)}x leverage`);
  const exit = (name: string, level: unknown): void => {
    const value = level as Json | undefined;
    if (value === undefined) return;
    extras.push(`${name} ${typeof value.percent === 'number' ? `${formatNumber(value.percent)}%` : `at ${formatNumber(Number(value.price))}`}`);
  };
  exit('take profit', params.takeProfit);
  exit('stop loss', params.stopLoss);
  exit('trailing stop', params.trailingStop);
  if (params.reduceOnly === true) extras.push('reduce only');
  if (typeof params.timeInForce === 'string') extras.push(text(params.timeInForce));
  const price = type === 'limit_order' ? ` at ${formatNumber(Number(params.price))}` : ' at market';
  return `${type === 'limit_order' ? 'limit' : 'market'} ${text(params.side)} ${size} ${text(params.symbol)}${price} on ${text(params.exchange)}${extras.length > 0 ? ` (${extras.join(', ')})` : ''}`;
}

/** Lifetime and repeat policy in words. */
export function describeLifetime(query: Query): string {
  const expires = query.expiresIn === undefined ? 'Expires in 24h (the default).' : `Expires in ${query.expiresIn}.`;
  if (query.repeat === undefined) return `${expires} Fires once.`;
  const times = query.repeat.maxTriggers === undefined ? 'every time the conditions hold' : `up to ${query.repeat.maxTriggers} times`;
  return `${expires} Fires ${times}, at least ${query.repeat.cooldown} apart.`;
}
