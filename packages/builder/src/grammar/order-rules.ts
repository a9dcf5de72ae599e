/**
 * Rules of trade actions: `buy $500 of BTC with 5x leverage on binance`, `short 2 ETH at 3,500`,
 * `sell 25% of my SOL position`, `limit buy 0.1 BTC-PERP at 60k, take profit 10%, stop loss at 55k`,
 * `close my long`. Modifiers come in any order; those written apart from the order (`with a 5% stop
 * loss`) are orders without a side, merged into the order by the assembler.
 */
import { exchange, symbol } from './common.js';
import { first, many, map, not, opt, seq, token, words, type Pattern } from './combinators.js';
import type { ActionPiece, OrderDraft } from './pieces.js';
import { rule, type PhraseRule } from './rule.js';
import { amount, amountOrPercent, percent, plainNumber } from './values.js';

type Patch = Partial<OrderDraft>;

const BUY = ['buy', 'go long', 'open a long', 'open long', 'long', 'enter a long', 'enter long', 'buy some', 'ape into', 'purchase', 'market buy', 'limit buy', 'a buy', 'a long', 'open a long position', 'a long position', 'long position'];
const SELL = ['sell', 'go short', 'open a short', 'open short', 'short', 'enter a short', 'enter short', 'market sell', 'limit sell', 'a sell', 'a short', 'open a short position', 'a short position', 'short position', 'sell off'];
const CLOSE_LONG = ['close my long', 'close the long', 'close long', 'close my position', 'close the position', 'close position', 'exit my long', 'exit the long', 'exit my position', 'exit the position', 'flatten my position', 'close my longs', 'close it'];
const CLOSE_SHORT = ['close my short', 'close the short', 'close short', 'cover my short', 'cover the short', 'cover', 'exit my short', 'exit the short'];

const ORDER_INTRO = words('place a market order to', 'place a limit order to', 'place an order to', 'place a order to', 'open an order to', 'market order to', 'limit order to', 'submit a limit order to', 'submit an order to', 'execute a', 'place a', 'open a', 'submit a', 'put in a', 'i want to', 'then');

const side: Pattern<Patch> = first<Patch>(
  map(words(...CLOSE_LONG), () => ({ side: 'sell', reduceOnly: true, positionSizePercent: 100 })),
  map(words(...CLOSE_SHORT), () => ({ side: 'buy', reduceOnly: true, positionSizePercent: 100 })),
  map(words(...BUY), (phrase) => ({ side: 'buy', ...typeIn(phrase) })),
  map(words(...SELL), (phrase) => ({ side: 'sell', ...typeIn(phrase) })),
);

function typeIn(phrase: string): Patch {
  if (phrase.startsWith('limit')) return { orderType: 'limit' };
  if (phrase.startsWith('market')) return { orderType: 'market' };
  return {};
}

const exit = (price: number, isPercent: boolean) => (isPercent ? { percent: price } : { price });

const PERCENT_OF = words('balance', 'account', 'portfolio', 'position', 'equity', 'capital', 'available balance', 'margin', 'stack', 'bag', 'holdings', 'funds', 'wallet', 'bankroll');
const leverageX = token((t) => (t.kind === 'number' && t.unit === 'x' && !t.percent ? t.value : undefined));

/** Exit levels, leverage and flags: they may also stand apart from the order. */
const EXITS_AND_FLAGS: Pattern<Patch>[] = [
  // Before the stop loss: `trailing stop 3%` is not a `stop` at 3 %.
  map(seq(words('trailing stop', 'a trailing stop', 'trailing stop loss', 'a trailing stop loss', 'trailing sl', 'trailing'), opt(words('at', 'of', '@', '=', 'to', ':')), amountOrPercent), ([, , value]) => (value.percent ? { trailingStop: { percent: value.value } } : {})),
  map(seq(amountOrPercent, words('trailing stop', 'trailing stop loss', 'trailing sl', 'trailing')), ([value]) => (value.percent ? { trailingStop: { percent: value.value } } : {})),
  map(seq(words('take profit', 'tp', 'target', 'profit target', 'a take profit', 'a tp', 'take profits', 'take profit target', 'a target', 'tp target'), opt(words('at', 'of', '@', '=', 'to', 'on', ':')), amountOrPercent), ([, , value]) => ({ takeProfit: exit(value.value, value.percent) })),
  map(seq(amountOrPercent, words('take profit', 'tp', 'target', 'profit target', 'profit')), ([value]) => ({ takeProfit: exit(value.value, value.percent) })),
  map(seq(words('stop loss', 'sl', 'stop', 'a stop loss', 'a stop', 'an sl', 'stoploss', 'stop out'), opt(words('at', 'of', '@', '=', 'to', 'on', ':')), amountOrPercent), ([, , value]) => ({ stopLoss: exit(value.value, value.percent) })),
  map(seq(amountOrPercent, words('stop loss', 'sl', 'stop', 'stoploss')), ([value]) => ({ stopLoss: exit(value.value, value.percent) })),
  map(seq(opt(words('with', 'at', 'using', 'on')), opt(words('a')), leverageX, opt(words('leverage', 'leveraged', 'lev'))), ([, , value]) => ({ leverage: value })),
  map(seq(words('leverage', 'leverage of', 'with leverage', 'with a leverage of', 'lev', 'with leverage of', 'using leverage'), opt(words('of', '=', ':')), first(leverageX, plainNumber)), ([, , value]) => ({ leverage: value })),
  map(words('reduce only', 'reduceonly', 'reducing only', 'as reduce only'), () => ({ reduceOnly: true })),
  map(words('post only', 'maker only', 'as post only'), () => ({ timeInForce: 'PO' as const, orderType: 'limit' as const })),
  map(words('ioc', 'immediate or cancel'), () => ({ timeInForce: 'IOC' as const, orderType: 'limit' as const })),
  map(words('gtc', 'good till cancel', 'good till cancelled', 'good till canceled', 'good til canceled', 'good until cancelled', 'good til cancelled'), () => ({ timeInForce: 'GTC' as const, orderType: 'limit' as const })),
];

const PERP = opt(words('perp', 'perps', 'perpetual', 'perpetuals', 'futures', 'swap'));

/** Everything that can stand beside an order. */
const MODIFIERS: Pattern<Patch>[] = [
  map(seq(words('all', 'all of', 'all my', 'all of my', 'everything', 'my whole', 'the whole', 'my entire', 'the entire', 'my full', 'the full', '100% of'), opt(symbol), opt(PERCENT_OF)), ([, name]) => withSymbol({ positionSizePercent: 100 }, name)),
  map(seq(percent, opt(words('of')), opt(words('my', 'the', 'our', 'your', 'available')), opt(symbol), opt(PERCENT_OF)), ([value, , , name]) => withSymbol({ positionSizePercent: value }, name)),
  ...EXITS_AND_FLAGS,
  map(words('limit', 'limit order', 'as a limit order', 'a limit order', 'with a limit order'), () => ({ orderType: 'limit' as const })),
  map(words('market', 'market order', 'at market', 'at the market', 'at market price', 'at the market price', 'as a market order', 'a market order', 'with a market order'), () => ({ orderType: 'market' as const })),
  map(seq(words('at', '@', 'at a price of', 'limit price', 'limit price of', 'limit at', 'with a limit at', 'at price', 'price', 'with a limit price of'), amount), ([, value]) => ({ price: value.value, orderType: 'limit' as const })),
  map(seq(amount, symbol, PERP), ([value, name]) => (value.dollar ? { amountUsd: value.value, symbol: name } : { size: value.value, symbol: name })),
  map(seq(amount, words('worth', 'worth of', 'dollars of', 'usd of', 'usd worth of'), opt(symbol), PERP), ([value, , name]) => withSymbol({ amountUsd: value.value }, name)),
  map(seq(amount, opt(words('of', 'in')), opt(symbol), PERP), ([value, , name]) => withSymbol(value.dollar ? { amountUsd: value.value } : { ambiguousAmount: value.value }, name)),
  map(seq(words('size', 'a size of', 'size of', 'quantity', 'qty'), opt(words('of', '=', ':')), amount, opt(symbol)), ([, , value, name]) => withSymbol({ size: value.value }, name)),
  map(seq(opt(words('of', 'on', 'in', 'some')), symbol, PERP), ([, name]) => ({ symbol: name })),
  map(exchange, (id) => ({ exchange: id })),
  map(words('worth', 'worth of', 'of it', 'order', 'position', 'contracts', 'with', 'and', 'using', 'as', ','), () => ({})),
];

function withSymbol(patch: Patch, name: string | undefined): Patch {
  return name === undefined ? patch : { ...patch, symbol: name };
}

const modifier = first(...MODIFIERS);

function merge(patches: Patch[]): OrderDraft {
  const draft: OrderDraft = { type: 'order' };
  for (const patch of patches) Object.assign(draft, patch);
  return draft;
}

/** An order: a side, then its modifiers in any order. */
const order: Pattern<ActionPiece> = map(seq(opt(ORDER_INTRO), opt(modifier), side, not(words('term', 'squeeze', 'interest', 'liquidation', 'liquidations', 'volume')), many(modifier)), ([, before, head, , rest]) => ({
  kind: 'action',
  action: merge([...(before === undefined ? [] : [before]), head, ...rest]),
}));

/** Exit levels, leverage and order flags written apart from the order. */
const standalone: Pattern<ActionPiece> = map(
  seq(opt(words('with', 'and', 'use', 'set', 'add', 'set the', 'add a', 'with a', 'and a', 'use a', 'put a', 'set a')), first(...EXITS_AND_FLAGS), many(first(...EXITS_AND_FLAGS, map(words('and', ',', 'with', 'with a', 'and a'), () => ({}))))),
  ([, head, rest]) => ({ kind: 'action', action: merge([head, ...rest]) }),
);

/** The rules of this module. */
export const ORDER_RULES: PhraseRule[] = [rule('order', order, true), rule('order modifiers', standalone, true)];
