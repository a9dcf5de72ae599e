/**
 * What the phrase rules produce: pieces of meaning, in the order of the message. The assembler
 * (../assemble/) puts them together into conditions, actions and options, so word order stays free
 * ("RSI of ETH on the 4h chart below 30" and "ETH 4h RSI < 30" give the same pieces).
 */
import type { ConditionNode, Operator } from '@eql/core';
import type { Amount } from './values.js';

/** A series to compare: price statistics or an indicator, with the parameters written beside it. */
export interface MeasurePiece {
  kind: 'measure';
  source: 'price' | 'ta';
  /** A method of the schema, or `bbands` when the band (upper, middle, lower) is left to the operator. */
  method: string;
  /** Indicator windows as written: period, fastPeriod, slowPeriod, signalPeriod, stdDev. */
  params: Record<string, number>;
  /** A candle timeframe or a statistic's window written inside the phrase (`50-day EMA`, `24h change`). */
  spanMs?: number;
  /** A symbol written inside the phrase (`BTC price`, `RSI of ETH`). */
  symbol?: string;
  /** A bare number right after the name (`RSI 14`), read as its window; with no comparison it is a threshold (`make the RSI 25`). */
  trailing?: number;
}

/** What a comparison compares with. */
export type Threshold =
  | { kind: 'number'; amount: Amount }
  | { kind: 'measure'; measure: MeasurePiece }
  /** `oversold`, `overbought`, `positive`, `negative`: a level that depends on the indicator. */
  | { kind: 'state'; state: 'oversold' | 'overbought' | 'positive' | 'negative' };

/** An operator phrase and what it compares with. */
export interface ComparisonPiece {
  kind: 'comparison';
  /** `crosses` is a crossing either way: an OR of crosses_above and crosses_below. */
  operator: Operator | 'crosses';
  threshold: Threshold;
  /** `between X and Y`: the upper bound, as a second comparison. */
  upper?: { operator: Operator; threshold: Threshold };
  /** `up 5%`, `drops 10%`: a percent change, whatever measure was written. */
  change?: boolean;
  /** `stays above`, `remains below`: a following `for X` is a hold-for. */
  sustained?: boolean;
}

/** A duration beside a measure: a candle timeframe for indicators, a window for price statistics. */
export interface SpanPiece {
  kind: 'span';
  ms: number;
  /** `on the 4h chart` (chart), `in 1h` / `over the last day` (window), `4h` / `daily` (bare). */
  how: 'chart' | 'window' | 'bare';
}

/** A market symbol on its own. */
export interface SymbolPiece {
  kind: 'symbol';
  symbol: string;
}

/** An exchange on its own (`on binance`). */
export interface ExchangePiece {
  kind: 'exchange';
  exchange: string;
}

/** `and`, `or`, `then`, a comma or semicolon, `either`, `both`. */
export interface ConnectorPiece {
  kind: 'connector';
  word: 'and' | 'or' | 'then' | 'comma' | 'stop' | 'either';
}

/** What a complete-condition rule needs to finish its node. */
export interface BuildContext {
  /** The symbol the conversation is about, when one is known. */
  symbol?: string;
  /** Epoch milliseconds of the request. */
  now: number;
}

/** A built condition, or what to ask when it cannot be built. */
export type BuildResult = { node: ConditionNode } | { question: string };

/** A condition complete in itself: a post, a news event, an LLM judgement, a schedule, a named pattern. */
export interface ConditionPiece {
  kind: 'condition';
  /** The source of the condition it builds. */
  source: 'tweet' | 'news' | 'llm' | 'cron' | 'price' | 'ta';
  build: (context: BuildContext) => BuildResult;
  /** Set by schedules: `every day` wants a repeat policy and a longer default lifetime. */
  recurringMs?: number;
}

/** An action as far as the words go; missing parts are filled from the context or asked for. */
export type ActionDraft =
  | { type: 'notify'; message?: string; priority?: 'low' | 'normal' | 'high' }
  | { type: 'webhook'; url?: string }
  | { type: 'messenger_bot'; chatId?: string | number; botToken?: string; message?: string }
  | { type: 'llm'; analysisType: 'chat' | 'macro' | 'summary' | 'tokenIntro' | 'tokenAnalysis'; prompt?: string; speed?: 'fast' | 'expert'; symbol?: string }
  | OrderDraft;

/** A take-profit or stop-loss as written: a price or a percent. */
export interface ExitDraft {
  price?: number;
  percent?: number;
}

/** An order as far as the words go; a draft without a side patches the order it belongs to. */
export interface OrderDraft {
  type: 'order';
  orderType?: 'market' | 'limit';
  side?: 'buy' | 'sell';
  symbol?: string;
  exchange?: string;
  size?: number;
  amountUsd?: number;
  positionSizePercent?: number;
  price?: number;
  leverage?: number;
  reduceOnly?: boolean;
  takeProfit?: ExitDraft;
  stopLoss?: ExitDraft;
  /** A trailing stop, always a percent (`trailing stop 3%`). */
  trailingStop?: { percent: number };
  timeInForce?: 'GTC' | 'IOC' | 'PO';
  /** A number without a currency or a symbol (`buy 500 of BTC`): dollars or units? Asked. */
  ambiguousAmount?: number;
}

/** An action phrase. */
export interface ActionPiece {
  kind: 'action';
  action: ActionDraft;
}

/** Query options and condition modifiers. */
export type OptionDraft =
  /** `looking` marks `in the next X`: also the window of a percent move that has none. */
  | { option: 'expiresIn'; ms: number; looking?: boolean }
  | { option: 'holdFor'; ms: number; group?: boolean }
  /** `for X` without a qualifier: a hold-for after a condition when X is under an hour, else the lifetime. */
  | { option: 'for'; ms: number }
  | { option: 'repeat' }
  | { option: 'cooldown'; ms: number }
  | { option: 'maxTriggers'; count: number }
  | { option: 'title'; title: string }
  | { option: 'priority'; priority: 'low' | 'normal' | 'high' }
  | { option: 'speed'; speed: 'fast' | 'expert' | 'adaptive' }
  | { option: 'minConfidence'; value: number }
  /** `every 4h`: the period of an llm condition before it, or else a schedule. */
  | { option: 'every'; ms: number };

/** An option phrase. */
export interface OptionPiece {
  kind: 'option';
  option: OptionDraft;
}

/** Words that steer an amendment of the current query. */
export interface CuePiece {
  kind: 'cue';
  /** also: add to the query; instead: replace what is named; edit: amend; reset: start a new query. */
  cue: 'also' | 'instead' | 'edit' | 'reset';
}

/** `remove the webhook`, `don't notify me`, `no telegram`. */
export interface RemovePiece {
  kind: 'remove';
  types: Array<'notify' | 'webhook' | 'messenger_bot' | 'llm' | 'order' | 'conditions'>;
}

/** A number not read as part of a comparison: fills a missing slot, or replaces a threshold. */
export interface AmountPiece {
  kind: 'amount';
  amount: Amount;
}

/** A Telegram chat id or `@channel` outside a bot phrase (an answer to "which chat?"). */
export interface ChatPiece {
  kind: 'chat';
  chatId: string | number;
}

/** Every kind of piece. */
export type Piece =
  | MeasurePiece
  | ComparisonPiece
  | SpanPiece
  | SymbolPiece
  | ExchangePiece
  | ConnectorPiece
  | ConditionPiece
  | ActionPiece
  | OptionPiece
  | CuePiece
  | RemovePiece
  | AmountPiece
  | ChatPiece;

/** A piece and the tokens it was read from. */
export type Located<P extends Piece = Piece> = P & { from: number; to: number };
