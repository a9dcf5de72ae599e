import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isPublicAddress } from '@eql/core';

/** The callback of a `lookup` as `net.connect` calls it: one address, or all of them when `options.all`. */
export type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for `net.connect` (and so for undici's `connect.lookup`). */
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/** Resolves a name to all its addresses; the default is the system resolver (`dns.lookup`, all: true). */
export type Resolver = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

/** Raised through the connect path when a name resolves to a non-public address; no socket is opened. */
export class BlockedAddressError extends Error {
  readonly code = 'EQL_BLOCKED_ADDRESS';
  constructor(readonly hostname: string) {
    super(`${hostname} resolves to a loopback, private or otherwise non-public address`);
    this.name = 'BlockedAddressError';
  }
}

const systemResolver: Resolver = (hostname, options) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/**
 * A `lookup` that resolves every address of a name and refuses the connection when ANY of them is not
 * a public unicast address (spec: webhooks must reach public hosts). It runs when the socket connects,
 * so a name that changes its answer after an earlier check (DNS rebinding) is still caught.
 * Answers in the form the caller asked for: an array when `options.all`, else the first address.
 */
export function publicOnlyLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, options).then(
      (addresses) => {
        const first = addresses[0];
        if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
          error.code = 'ENOTFOUND';
          callback(error, []);
          return;
        }
        if (addresses.some((entry) => !isPublicAddress(entry.address))) {
          callback(new BlockedAddressError(hostname), []);
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
