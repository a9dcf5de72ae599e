import type { MaybePromise } from './interfaces.js';
import type { Candle } from './series/candles.js';

/** A price topic: a symbol, optionally on one exchange. */
export interface PriceTopic {
  source: 'price';
  symbol: string;
  exchange?: string;
}

/** A past trade as history gives it (times in epoch ms; `volume` traded since the previous tick). */
export interface PriceTick {
  at: number;
  price: number;
  volume?: number;
}

/**
 * Past prices of a topic, so that windows and indicators are warm when a query starts
 * (docs/semantics.md section 8, "History and warm-up").
 *
 * The engine asks for history when a series is first computed (a query on it is added, at create, at
 * a host restart, at the start of a preview): its price windows are filled with ticks, its indicators
 * with the closed candles since the history's origin, and the candle forming now with its part before
 * now. Answers may be synchronous (a recording, SQLite) or promises (a venue's REST API); live
 * observations that arrive while a promise is pending are kept and applied after it.
 *
 * A failing history (a rejected promise, a thrown error) never stops the engine: the series goes on
 * from live observations alone and its conditions say why they are warming up.
 */
export interface PriceHistory {
  /** A name for states and logs: `recording`, `store`, `ccxt:binance`. */
  readonly name: string;
  /** Whether this history may have prices of the topic (the engine asks the first that supports it). */
  supports(topic: PriceTopic): boolean;
  /**
   * The fixed instant from which indicators of the topic on candles of `timeframeMs` are smoothed:
   * the start of the history, the same for every query and every activation time, so that a value at
   * an instant does not depend on when its query was created. Undefined: the history has nothing.
   */
  origin(topic: PriceTopic, timeframeMs: number): MaybePromise<number | undefined>;
  /**
   * Ticks with `from <= at < to`, in time order, preceded by the last tick before `from` when there is
   * one (the reference price of a `change` window). `ticks(topic, t, t)` is the last tick before `t`.
   */
  ticks(topic: PriceTopic, from: number, to: number): MaybePromise<readonly PriceTick[]>;
  /**
   * Candles of `timeframeMs` (buckets aligned to the epoch, see CandleBuilder) whose start is in
   * `[from, to)`, in order, built from the trades before `to` only: the last one is partial when `to`
   * falls inside its bucket. Buckets without trades have no candle.
   */
  candles(topic: PriceTopic, timeframeMs: number, from: number, to: number): MaybePromise<readonly Candle[]>;
}

/** Why a history answer could not be used (a venue error, an unknown symbol): shown in condition states. */
export class HistoryError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HistoryError';
  }
}
