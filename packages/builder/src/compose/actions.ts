/**
 * Completes action drafts into actions: webhook URLs, Telegram chats and order modifiers written
 * apart are merged in; bare answers (`$500`, `-1001234567890`) fill the slot that misses them;
 * defaults are filled in and said (the `paper` exchange, the `<BOT_TOKEN>` placeholder); what
 * cannot be defaulted (an order size, a chat id, a URL) is asked.
 */
import { checkPerpetualSymbol, type Action } from '@eql/core';
import type { ActionDraft, OrderDraft } from '../grammar/pieces.js';
import type { Amount } from '../grammar/values.js';
import { formatNumber } from '../describe.js';

/** What completes action drafts: the query's symbol and exchange, its summary, options and bare answers. */
export interface ActionContext {
  /** The symbol of the query, for orders and analyses that name none. */
  symbol?: string;
  /** An exchange named apart from any order, or the one of the order being amended. */
  exchange?: string;
  /** The conditions in a few words: default messages and prompts. */
  summary: string;
  /** Whether the conditions are only schedules (a prompt then needs no trigger). */
  scheduled?: boolean;
  priority?: 'low' | 'normal' | 'high';
  speed?: 'fast' | 'expert' | 'adaptive';
  /** Bare numbers and chats of the message; the slots that use them remove them. */
  amounts: Amount[];
  chats: Array<string | number>;
}

/** Completed actions, with what must be asked and what was decided. */
export interface ResolvedActions {
  actions: Action[];
  questions: string[];
  notes: string[];
  /** Notes about orders (dropped when payment mode takes the orders out). */
  orderNotes: string[];
}

/** Merges drafts that belong together and completes each into an action (without step ids yet). */
export function resolveActions(drafts: readonly ActionDraft[], context: ActionContext): ResolvedActions {
  const out: ResolvedActions = { actions: [], questions: [], notes: [], orderNotes: [] };
  for (const draft of merge(drafts, context, out)) {
    const action = complete(draft, context, out);
    if (action) out.actions.push(action);
  }
  return out;
}

function merge(drafts: readonly ActionDraft[], context: ActionContext, out: ResolvedActions): ActionDraft[] {
  const merged: ActionDraft[] = [];
  const webhookUrls = drafts.filter((draft) => draft.type === 'webhook' && draft.url !== undefined);
  let bot: Extract<ActionDraft, { type: 'messenger_bot' }> | undefined;
  const orders = drafts.filter((draft): draft is OrderDraft => draft.type === 'order' && draft.side !== undefined).map((draft) => ({ ...draft }));
  const patches = drafts.filter((draft): draft is OrderDraft => draft.type === 'order' && draft.side === undefined);
  for (const draft of drafts) {
    if (draft.type === 'webhook') {
      if (draft.url === undefined && webhookUrls.length > 0) continue;
      if (merged.some((other) => other.type === 'webhook' && other.url === draft.url)) continue;
      merged.push(draft);
    } else if (draft.type === 'messenger_bot') {
      if (bot === undefined) merged.push((bot = { ...draft }));
      else Object.assign(bot, { ...(draft.chatId !== undefined ? { chatId: draft.chatId } : {}), ...(draft.botToken !== undefined ? { botToken: draft.botToken } : {}), ...(draft.message !== undefined ? { message: draft.message } : {}) });
    } else if (draft.type === 'order') {
      if (draft.side !== undefined) merged.push(orders.shift() as OrderDraft);
    } else if (draft.type === 'notify') {
      const notify = merged.find((other): other is Extract<ActionDraft, { type: 'notify' }> => other.type === 'notify');
      if (notify === undefined) merged.push({ ...draft });
      else Object.assign(notify, draft.message !== undefined ? { message: draft.message } : {}, draft.priority !== undefined ? { priority: draft.priority } : {});
    } else if (!merged.some((other) => other.type === draft.type)) {
      merged.push(draft);
    }
  }
  const firstOrder = merged.find((draft): draft is OrderDraft => draft.type === 'order');
  if (patches.length > 0) {
    if (firstOrder) for (const patch of patches) Object.assign(firstOrder, withoutType(patch));
    else out.questions.push('Should the order buy or sell, and how much? For example "buy $500 of BTC".');
  }
  if (bot && bot.chatId === undefined && context.chats.length > 0) bot.chatId = context.chats.shift();
  for (const order of merged.filter((draft): draft is OrderDraft => draft.type === 'order')) fillOrder(order, context);
  return merged;
}

function withoutType(patch: OrderDraft): Partial<OrderDraft> {
  const { type: _type, ...rest } = patch;
  return rest;
}

/** Bare amounts answer an order's size first, then a limit order's price. */
function fillOrder(order: OrderDraft, context: ActionContext): void {
  const sized = order.size !== undefined || order.amountUsd !== undefined || order.positionSizePercent !== undefined;
  if (!sized && order.ambiguousAmount === undefined && context.amounts.length > 0) {
    const amount = context.amounts.shift() as Amount;
    if (amount.dollar) order.amountUsd = amount.value;
    else if (amount.percent) order.positionSizePercent = amount.value;
    else order.ambiguousAmount = amount.value;
  }
  if (order.orderType === 'limit' && order.price === undefined && context.amounts.length > 0) order.price = (context.amounts.shift() as Amount).value;
}

function complete(draft: ActionDraft, context: ActionContext, out: ResolvedActions): Action | undefined {
  switch (draft.type) {
    case 'notify':
      return { stepId: 'notify', type: 'notify', params: { message: draft.message ?? clip(`Triggered: ${context.summary}`, 2000), ...(context.priority ? { priority: context.priority } : {}) } };
    case 'webhook':
      if (draft.url === undefined) {
        out.questions.push('Which URL should the webhook call? For example "webhook https://example.com/hook".');
        return undefined;
      }
      return { stepId: 'webhook', type: 'webhook', params: { url: draft.url } };
    case 'messenger_bot': {
      if (draft.chatId === undefined) {
        out.questions.push('Which Telegram chat should I send to? Give its chat id (for example -1001234567890) or @channel.');
        return undefined;
      }
      if (draft.botToken === undefined) out.notes.push('the Telegram bot token is the placeholder <BOT_TOKEN>: put your bot token there before creating the query');
      const chatId = String(draft.chatId);
      return { stepId: 'telegram', type: 'messenger_bot', params: { botToken: draft.botToken ?? '<BOT_TOKEN>', chatId, message: draft.message ?? clip(`Triggered: ${context.summary}`, 2000) } };
    }
    case 'llm':
      return analysis(draft, context);
    case 'order':
      return order(draft, context, out);
  }
}

function analysis(draft: Extract<ActionDraft, { type: 'llm' }>, context: ActionContext): Action {
  const symbol = draft.symbol ?? context.symbol;
  const needsSymbol = draft.analysisType === 'tokenAnalysis' || draft.analysisType === 'tokenIntro';
  const analysisType = needsSymbol && symbol === undefined ? 'chat' : draft.analysisType;
  const speed = draft.speed ?? context.speed;
  const given = context.scheduled === true ? '' : `, given: ${context.summary}`;
  const prompts: Record<string, string> = {
    summary:
      context.scheduled === true
        ? `Summarize what happened in the ${symbol ?? 'crypto'} market since the last update and why it matters.`
        : `Summarize the latest ${symbol ?? 'crypto'} news and market moves and why they matter${given}.`,
    macro: `Give a macro view of the market now that ${context.summary}.`,
    tokenIntro: `Introduce ${symbol ?? 'the token'}: what it is and why it moves${given}.`,
    tokenAnalysis: `Analyze ${symbol ?? 'the market'} now that ${context.summary}: drivers, risks and levels to watch.`,
    chat: `Explain why this happened and what it means: ${context.summary}.`,
  };
  const params: Record<string, unknown> = { prompt: clip(prompts[analysisType] ?? prompts.chat ?? '', 4000), analysisType };
  if (speed !== undefined) params.speed = speed;
  if (symbol !== undefined && (analysisType === 'tokenAnalysis' || analysisType === 'tokenIntro' || analysisType === 'summary')) params.assetMetadata = { symbol };
  return { stepId: 'analysis', type: 'llm', params };
}

function order(draft: OrderDraft, context: ActionContext, out: ResolvedActions): Action | undefined {
  const symbolWritten = draft.symbol ?? context.symbol;
  if (symbolWritten === undefined) {
    out.questions.push(`Which market should the order ${draft.side ?? 'trade'}? For example "BTC" or "ETH-PERP".`);
    return undefined;
  }
  if (draft.ambiguousAmount !== undefined) {
    const value = formatNumber(draft.ambiguousAmount);
    out.questions.push(`Is ${value} a dollar amount or ${value} ${symbolWritten}? Say "$${value} of ${symbolWritten}" or "${value} ${symbolWritten}".`);
    return undefined;
  }
  const sizes = [draft.size !== undefined, draft.amountUsd !== undefined, draft.positionSizePercent !== undefined].filter(Boolean).length;
  if (sizes === 0) {
    out.questions.push(`How much should the order ${draft.side ?? 'trade'}? For example "$500", "0.1 ${symbolWritten}" or "25% of my balance".`);
    return undefined;
  }
  const limit = draft.orderType === 'limit' || draft.price !== undefined;
  if (limit && draft.price === undefined) {
    out.questions.push(`At what price should the limit ${draft.side ?? ''} order be placed? For example "at 60,000".`);
    return undefined;
  }
  const perpetual = checkPerpetualSymbol(symbolWritten);
  const symbol = perpetual.ok ? symbolWritten : perpetual.suggestion;
  if (!perpetual.ok) out.orderNotes.push(`orders run on perpetual markets, so ${symbolWritten} became ${symbol}`);
  let exchange = draft.exchange ?? context.exchange;
  if (exchange === undefined) {
    exchange = 'paper';
    out.orderNotes.push('no exchange was named, so the order runs on `paper` (simulated fills); say "on binance" (or your exchange) to trade for real');
  }
  const params: Record<string, unknown> = { exchange, symbol, side: draft.side };
  if (limit) params.price = draft.price;
  if (draft.size !== undefined) params.size = draft.size;
  else if (draft.amountUsd !== undefined) params.amountUsd = draft.amountUsd;
  else params.positionSizePercent = draft.positionSizePercent;
  if (sizes > 1) out.orderNotes.push('more than one order size was given; the first of size, dollar amount and percent was kept');
  for (const key of ['leverage', 'reduceOnly', 'takeProfit', 'stopLoss', 'trailingStop'] as const) if (draft[key] !== undefined) params[key] = draft[key];
  if (limit && draft.timeInForce !== undefined) params.timeInForce = draft.timeInForce;
  return { stepId: limit ? 'limit' : 'market', type: limit ? 'limit_order' : 'market_order', params } as unknown as Action;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
