import { ActionError } from '@eql/core';

/**
 * A failure of an exchange adapter: an engine {@link ActionError} with a stable code, so the order
 * executor records the code and honours `retryable` as is. Messages never carry credentials,
 * signatures or the query strings of request URLs.
 */
export class ExchangeAdapterError extends ActionError {
  constructor(code: ExchangeErrorCode, message: string, retryable = false) {
    super(code, message, retryable);
    this.name = 'ExchangeAdapterError';
  }
}

/** The stable codes of an {@link ExchangeAdapterError}, which the order executor records with a failed order. */
export type ExchangeErrorCode =
  /** ccxt has no exchange by that id. */
  | 'EXCHANGE_UNKNOWN'
  /** A credential the venue requires was not given (the message names the fields). */
  | 'EXCHANGE_CREDENTIALS_MISSING'
  /** The venue refused the credentials, or they are malformed. */
  | 'EXCHANGE_CREDENTIALS_REJECTED'
  /** The venue could not be reached or answered with a transient failure; retryable. */
  | 'EXCHANGE_UNAVAILABLE'
  /** The symbol names no active perpetual market of the venue. */
  | 'SYMBOL_NOT_PERPETUAL'
  /** The venue gave no usable last price; retryable. */
  | 'EXCHANGE_NO_PRICE'
  | 'ORDER_INVALID'
  | 'INSUFFICIENT_BALANCE'
  | 'ORDER_REJECTED'
  /** Take-profit/stop-loss requested on a venue that cannot attach them to an order. */
  | 'ORDER_EXITS_UNSUPPORTED'
  /** A trailing stop requested on a venue ccxt places none on (no `createTrailingPercentOrder`). */
  | 'ORDER_TRAILING_UNSUPPORTED'
  /** close_position on a venue ccxt reads no positions of (no `fetchPositions`). */
  | 'ORDER_CLOSE_UNSUPPORTED'
  | 'LEVERAGE_REJECTED'
  | 'EXCHANGE_ERROR';
