import { isTradeActionType } from '../../language/trade-flavour.js';
import { joinPointer } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/** Spec 2.3: trade actions are unavailable on the keyless payment model. */
export const paymentMode: Rule = ({ mode, actions, sink }) => {
  if (mode !== 'payment') return;
  for (const action of actions) {
    if (!isTradeActionType(action.node.type)) continue;
    const path = joinPointer(action.pointer, 'type');
    const what = action.parent ? `an llm callback of type ${String(action.node.type)}` : `a ${String(action.node.type)} action`;
    sink.error(
      'trade-in-payment-mode',
      path,
      `${what} places orders, which the payment model does not allow; use notify, webhook, messenger_bot or llm, or an API key`,
    );
  }
};
