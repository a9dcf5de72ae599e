/**
 * @eql/adapters: Node implementations of the engine's ports. An undici HTTP transport with SSRF
 * protection at send time, and ccxt-backed live prices, price history and order placement.
 */
export { UndiciHttpTransport, DEFAULT_MAX_RESPONSE_BYTES, type UndiciHttpTransportOptions } from './undici-transport.js';
export { publicOnlyLookup, BlockedAddressError, type LookupFunction, type LookupCallback, type Resolver } from './public-lookup.js';
export { readCapped, type CappedText } from './read-capped.js';

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
