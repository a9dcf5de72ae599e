import { unboundedCallback } from '../../engine/actions/signal-bounds.js';
import { checkPerpetualSymbol } from '../../language/symbols.js';
import { isRecord } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/**
 * Orders (steps and llm callbacks): the symbol must name a perpetual market (spec 2.3), and a limit
 * order's take-profit and stop-loss prices must sit on the right side of its limit price. An llm
 * callback's params bound what the model may place (engine/actions/signal-bounds.ts): one that bounds
 * no size would never place an order, so it is refused here rather than failing when it fires.
 */
export const tradeActions: Rule = {
  name: 'trade-actions',
  action: {
    types: ['market_order', 'limit_order', 'close_position'],
    check: (action, { sink }) => {
      const { params } = action;
      const unbounded = action.parent ? unboundedCallback(params) : undefined;
      if (unbounded !== undefined) sink.error('callback-order-unbounded', `${action.pointer}/params${typeof params.size === 'number' ? '/size' : ''}`, unbounded);
      if (typeof params.symbol === 'string') {
        const check = checkPerpetualSymbol(params.symbol);
        if (!check.ok) {
          const path = `${action.pointer}/params/symbol`;
          sink.error(
            'not-perpetual-symbol',
            path,
            `${params.symbol} names a spot market; orders execute only on perpetual markets: use ${check.suggestion}`,
            { title: `Use the perpetual ${check.suggestion}`, edits: [{ op: 'replace', path, value: check.suggestion }] },
          );
        }
      }
      if (typeof params.price !== 'number' || (params.side !== 'buy' && params.side !== 'sell')) return;
      const long = params.side === 'buy';
      for (const [field, wantAbove] of [
        ['takeProfit', long],
        ['stopLoss', !long],
      ] as const) {
        const level = params[field];
        if (!isRecord(level) || typeof level.price !== 'number') continue;
        const wrong = wantAbove ? level.price <= params.price : level.price >= params.price;
        if (wrong) {
          sink.error(
            'exit-level-side',
            `${action.pointer}/params/${field}/price`,
            `a ${params.side} order's ${field} price must be ${wantAbove ? 'above' : 'below'} its limit price ${params.price}`,
          );
        }
      }
    },
  },
};
