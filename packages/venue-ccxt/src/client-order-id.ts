import { createHash } from 'node:crypto';

/**
 * Client order ids as each venue accepts them. EQL's ids (`<queryId>:<triggerIndex>:<stepId>`) are
 * long and contain `:`, which most venues refuse, so an id a venue cannot take is replaced by a
 * deterministic hash of it: the same EQL id always gives the same venue id, which is what makes a
 * retry find the order placed before instead of placing a second one.
 */

interface VenueIdRule {
  /** Ids the venue takes as they are. */
  accepts: RegExp;
  /** The replacement for any other id. */
  derive: (clientOrderId: string) => string;
}

const hex = (text: string, digits: number): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, digits);

/** Hyperliquid's `cloid`: a 128-bit hex string, `0x` and 32 hex digits. */
export function hyperliquidCloid(clientOrderId: string): string {
  if (/^0x[0-9a-f]{32}$/i.test(clientOrderId)) return clientOrderId.toLowerCase();
  return `0x${hex(clientOrderId, 32)}`;
}

const ALPHANUMERIC_32: VenueIdRule = { accepts: /^[A-Za-z0-9]{1,32}$/, derive: (id) => `eql${hex(id, 29)}` };

const RULES: Record<string, VenueIdRule> = {
  hyperliquid: { accepts: /^0x[0-9a-f]{32}$/, derive: hyperliquidCloid },
  binance: { accepts: /^[.A-Za-z0-9:/_-]{1,36}$/, derive: (id) => `eql-${hex(id, 32)}` },
  binanceusdm: { accepts: /^[.A-Za-z0-9:/_-]{1,36}$/, derive: (id) => `eql-${hex(id, 32)}` },
  binancecoinm: { accepts: /^[.A-Za-z0-9:/_-]{1,36}$/, derive: (id) => `eql-${hex(id, 32)}` },
  bybit: { accepts: /^[A-Za-z0-9_-]{1,36}$/, derive: (id) => `eql-${hex(id, 32)}` },
  gate: { accepts: /^[A-Za-z0-9_.-]{1,28}$/, derive: (id) => `eql${hex(id, 25)}` },
  okx: ALPHANUMERIC_32,
};

/**
 * The id sent to the venue for an EQL client order id: kept when the venue accepts it, else a hash.
 * Unlisted venues get the conservative rule (1 to 32 letters and digits).
 */
export function venueClientOrderId(exchangeId: string, clientOrderId: string): string {
  const rule = RULES[exchangeId] ?? ALPHANUMERIC_32;
  return rule.accepts.test(clientOrderId) ? clientOrderId : rule.derive(clientOrderId);
}
