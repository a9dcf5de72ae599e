import type { TradeSignal } from '@eql/core';
import { cashtags, normalizeTicker } from '../text/terms.js';

/**
 * Whether the prompt of an llm action tells the offline analyst to trade. The offline analyst has
 * no judgement of its own, so it signals a trade only on an explicit, unconditional instruction:
 * one side ("buy", "go long", "open a long" / "sell", "go short", "open a short", "short $X"), not
 * negated ("don't buy"), not conditional or a question ("if", "when", "unless", "whether", "should",
 * "?"), on one symbol (the action's assetMetadata.symbol, else the prompt's only cashtag). An amount
 * in dollars (`$500`, `500 USD`) becomes amountUsd, a percentage positionSizePercent; otherwise the
 * callback's params size the order. The query's conditions having fired is the user's gate.
 */

export interface TradeIntent {
  signal?: TradeSignal;
  /** Why there is or is not a signal, for the report. */
  note: string;
}

const BUY = /\b(buy|go long|open (?:a )?long|enter (?:a )?long)\b/i;
const SELL = /\b(sell|go short|open (?:a )?short|enter (?:a )?short|short \$[a-z][a-z0-9]*)\b/i;
const NEGATED = /\b(don'?t|do not|never|avoid|no need to|not)\s+(?:\w+\s+)?(buy|sell|go long|go short|long|short)\b/i;
const CONDITIONAL = /\b(if|when|whenever|unless|whether|should|would|could|once)\b|\?/i;

function amount(prompt: string): Pick<TradeSignal, 'amountUsd' | 'positionSizePercent'> {
  const dollars = /(?:^|\s)\$(\d[\d,]*(?:\.\d+)?)(?!\w|[.,]\d)/.exec(prompt) ?? /\b(\d[\d,]*(?:\.\d+)?)\s*(?:usd|usdc|usdt|dollars)\b/i.exec(prompt);
  if (dollars) {
    const value = Number((dollars[1] as string).replace(/,/g, ''));
    if (Number.isFinite(value) && value > 0) return { amountUsd: value };
  }
  const percent = /\b(\d{1,3}(?:\.\d+)?)\s*%/.exec(prompt);
  if (percent) {
    const value = Number(percent[1]);
    if (value > 0 && value <= 100) return { positionSizePercent: value };
  }
  return {};
}

/**
 * Reads the trade an llm action's prompt explicitly asks the offline analyst for: a buy or sell signal on
 * `assetSymbol` (else the prompt's only cashtag), sized by a dollar amount or a percentage in the prompt,
 * or no signal when the instruction is missing, negated, conditional or ambiguous; `note` says which.
 */
export function tradeIntent(prompt: string, assetSymbol?: string): TradeIntent {
  const buy = BUY.test(prompt);
  const sell = SELL.test(prompt);
  if (!buy && !sell) return { note: 'The prompt gives no buy or sell instruction: no trade signal.' };
  if (buy && sell) return { note: 'The prompt names both buying and selling: no trade signal (ambiguous).' };
  if (NEGATED.test(prompt)) return { note: 'The prompt rules the trade out: no trade signal.' };
  if (CONDITIONAL.test(prompt)) {
    return { note: 'The prompt makes the trade conditional or asks a question; the offline analyst does not judge such conditions, so it signals no trade.' };
  }
  const tags = cashtags(prompt).filter((tag) => !/^\d/.test(tag));
  const symbol = assetSymbol !== undefined && normalizeTicker(assetSymbol) !== '' ? normalizeTicker(assetSymbol) : tags.length === 1 ? tags[0] : undefined;
  if (symbol === undefined) return { note: 'The prompt asks for a trade but names no single symbol (assetMetadata.symbol or one $TICKER): no trade signal.' };
  const side = buy ? 'buy' : 'sell';
  const signal: TradeSignal = { side, symbol, ...amount(prompt), reason: `explicit instruction in the prompt to ${side} ${symbol}; the offline analyst adds no judgement of its own` };
  return { signal, note: `The prompt explicitly asks to ${side} ${symbol}: one ${side} signal${signal.amountUsd !== undefined ? ` of $${signal.amountUsd}` : signal.positionSizePercent !== undefined ? ` of ${signal.positionSizePercent}% of the balance` : ', sized by the callback'}.` };
}
