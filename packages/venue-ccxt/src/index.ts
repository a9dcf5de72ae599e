/**
 * @eql/venue-ccxt: the engine's venue ports over ccxt. Live prices (`CcxtPriceSource`), price history
 * (`CcxtPriceHistory`) and order placement (`CcxtExchange`) of any ccxt venue, with EQL symbols mapped
 * to ccxt markets and errors as stable codes. ccxt itself is imported on first use (`createCcxtClient`),
 * so loading this package does not load ccxt; a host loads this package only when configured to.
 *
 * @packageDocumentation
 */
export { CcxtPriceSource, UnknownSymbolError, type CcxtPriceSourceOptions } from './ccxt-price-source.js';
export { CcxtPriceHistory, type CcxtPriceHistoryOptions, type CcxtHistoryErrorCode } from './ccxt-price-history.js';
export { CcxtExchange, CLIENT_ID_LOOKUP_VENUES, type CcxtExchangeOptions } from './ccxt-exchange.js';
export { connectCcxt, type ConnectOptions, type ExchangeCredentials } from './ccxt-connect.js';
export { createCcxtClient, UnknownExchangeError, type CcxtConfig } from './ccxt-load.js';
export { ExchangeAdapterError, type ExchangeErrorCode } from './adapter-error.js';
export { resolveMarket, perpetualOf, isActivePerpetual, type MarketPurpose } from './market-symbols.js';
export { venueClientOrderId, hyperliquidCloid } from './client-order-id.js';
export { orderStatusOf, toOrderResult, exitTriggers, createOrderParams } from './order-mapping.js';
export { ccxtErrorKinds, isCcxtError, isTransientCcxtError, isPermanentCcxtError, isDuplicateOrderError, describeCcxtError } from './ccxt-errors.js';
export { retryTransient, backoffDelay, type BackoffOptions } from './ccxt-retry.js';
export { redactor } from './redact.js';
export type { CcxtClient, CcxtMarket, CcxtTicker, CcxtOrder, CcxtBalanceEntry, CcxtCapabilities, CcxtParams } from './ccxt-types.js';
