import type { Rule } from '../rule.js';

/** Spec 2.3: trade actions (orders, and llm callbacks that place them) are unavailable on the keyless payment model. */
export const paymentMode: Rule = {
  name: 'payment-mode',
  action: {
    types: ['market_order', 'limit_order', 'close_position'],
    check: (action, { mode, sink }) => {
      if (mode !== 'payment') return;
      const what = action.parent ? `an llm callback of type ${String(action.type)}` : `a ${String(action.type)} action`;
      sink.error(
        'trade-in-payment-mode',
        `${action.pointer}/type`,
        `${what} places orders, which the payment model does not allow; use notify, webhook, messenger_bot or llm, or an API key`,
      );
    },
  },
};
