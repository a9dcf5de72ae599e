/**
 * A failure of an exchange adapter with a stable code, shaped like the engine's `ActionError`
 * (`code`, `message`, `retryable`) so the engine can record it as is. Messages never carry
 * credentials, signatures or request URLs' query strings.
 */
export class ExchangeAdapterError extends Error {
  constructor(
    readonly code: ExchangeErrorCode,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'ExchangeAdapterError';
  }
}

export type ExchangeErrorCode =
  | 'exchange-unknown'
  | 'exchange-credentials-missing'
  | 'exchange-credentials-rejected'
  | 'exchange-unavailable'
  | 'exchange-unknown-symbol'
  | 'exchange-not-perpetual'
  | 'exchange-no-price'
  | 'exchange-invalid-order'
  | 'exchange-insufficient-funds'
  | 'exchange-order-rejected'
  | 'exchange-exits-unsupported'
  | 'exchange-leverage-failed'
  | 'exchange-error';
