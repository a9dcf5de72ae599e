/**
 * @eql/adapters: Node implementations of the engine's ports. An undici HTTP transport with SSRF
 * protection at send time (private and loopback addresses refused when connecting) and capped
 * response sizes. Venues live in packages of their own (ccxt in `@eql/venue-ccxt`), so this package
 * does not bring them.
 *
 * @packageDocumentation
 */
export { UndiciHttpTransport, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_CONNECTIONS_PER_ORIGIN, type UndiciHttpTransportOptions } from './undici-transport.js';
export { publicOnlyLookup, BlockedAddressError, type LookupFunction, type LookupCallback, type Resolver } from './public-lookup.js';
export { readCapped, type CappedText } from './read-capped.js';
