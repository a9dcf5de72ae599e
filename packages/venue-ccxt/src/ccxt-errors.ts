/**
 * Classifies errors thrown by ccxt without depending on one copy of the library: ccxt errors form a
 * class hierarchy (`RateLimitExceeded` extends `NetworkError` extends `OperationFailed` ...), so the
 * names of an error's classes, read along its prototype chain, say what kind of failure it is.
 */

/** Class names of the error, most specific first (`['RateLimitExceeded', 'NetworkError', ...]`). */
export function ccxtErrorKinds(error: unknown): string[] {
  const kinds: string[] = [];
  if (error instanceof Error && error.name !== 'Error') kinds.push(error.name);
  let proto: unknown = typeof error === 'object' && error !== null ? Object.getPrototypeOf(error) : null;
  while (proto !== null && proto !== Object.prototype && kinds.length < 16) {
    const ctor = (proto as { constructor?: { name?: unknown } }).constructor;
    if (typeof ctor?.name === 'string' && ctor.name !== '' && !kinds.includes(ctor.name)) kinds.push(ctor.name);
    proto = Object.getPrototypeOf(proto);
  }
  return kinds;
}

/** Whether the error is a ccxt error of class `kind` or a subclass of it, e.g. `isCcxtError(error, 'NetworkError')`. */
export function isCcxtError(error: unknown, kind: string): boolean {
  return ccxtErrorKinds(error).includes(kind);
}

/** Failures that say nothing about the request itself: the network, the venue's load, timeouts. */
export function isTransientCcxtError(error: unknown): boolean {
  return ccxtErrorKinds(error).some((kind) => kind === 'OperationFailed' || kind === 'NetworkError' || kind === 'BadResponse');
}

/** Failures a retry cannot fix: an unknown symbol, a bad request, missing support or credentials. */
export function isPermanentCcxtError(error: unknown): boolean {
  return ccxtErrorKinds(error).some(
    (kind) =>
      kind === 'BadRequest' ||
      kind === 'BadSymbol' ||
      kind === 'NotSupported' ||
      kind === 'ArgumentsRequired' ||
      kind === 'AuthenticationError' ||
      kind === 'InvalidOrder' ||
      kind === 'InsufficientFunds',
  );
}

/** The venue already has an order under this client order id. */
export function isDuplicateOrderError(error: unknown): boolean {
  if (isCcxtError(error, 'DuplicateOrderId')) return true;
  const message = error instanceof Error ? error.message : '';
  return /duplicate|already exists|clientOrderId.*(used|exists)/i.test(message) && /order|client/i.test(message);
}

/** A short text of the error for logs and error messages: class name and a bounded message. */
export function describeCcxtError(error: unknown, redact: (text: string) => string = (text) => text): string {
  const kind = ccxtErrorKinds(error)[0] ?? 'Error';
  const message = redact(error instanceof Error ? error.message : String(error));
  return `${kind}: ${message.length > 300 ? `${message.slice(0, 300)}…` : message}`;
}
