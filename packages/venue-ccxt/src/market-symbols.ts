import { type CcxtMarket } from './ccxt-types.js';

/**
 * Maps EQL symbols to ccxt markets of one venue. EQL names a market as
 * - a unified ccxt symbol: `BTC/USDT:USDT` (a perpetual), `BTC/USDT` (spot): kept as they are;
 * - a `-PERP` name: `BTC-PERP` means the perpetual of base BTC;
 * - a bare ticker: `BTC` means the venue's perpetual of BTC (USDT-settled first, then USDC, then USD);
 * - a venue contract id: `BTCUSDT`, `BTC_USDT`, tried when no market has that base.
 * The perpetual universe is the markets with `swap` that are active (`active` left undefined by a
 * venue counts as active: ccxt uses undefined for "unknown").
 */
export type MarketPurpose =
  /** Orders: only perpetual markets. */
  | 'trade'
  /** Prices: a bare ticker falls back to a spot market when the venue has no perpetual of it. */
  | 'price';

/** Whether the market is a perpetual swap that trades: `swap` is true and `active` is not false. */
export function isActivePerpetual(market: CcxtMarket): boolean {
  return market.swap === true && market.active !== false;
}

/** The market an EQL symbol names on a venue, or undefined when the venue has none. */
export function resolveMarket(symbol: string, markets: Record<string, CcxtMarket>, purpose: MarketPurpose): CcxtMarket | undefined {
  const text = symbol.trim();
  const direct = markets[text] ?? markets[text.toUpperCase()];
  if (direct !== undefined) return direct;
  if (text.includes('/') || text === '') return undefined;
  const all = Object.values(markets);
  const perpName = /^(.+?)[-_]PERP$/i.exec(text);
  if (perpName?.[1] !== undefined) return perpetualOf(perpName[1].toUpperCase(), all);
  const base = text.toUpperCase();
  const perpetual = perpetualOf(base, all);
  if (perpetual !== undefined) return perpetual;
  const byId = all.filter((market) => market.id !== undefined && market.id.toUpperCase() === base && market.active !== false);
  const idMatch = byId.find(isActivePerpetual) ?? (purpose === 'price' ? byId[0] : undefined);
  if (idMatch !== undefined) return idMatch;
  return purpose === 'price' ? spotOf(base, all) : undefined;
}

/** The preferred perpetual of a base asset: USDT-settled, then USDC, then USD, then other linear, then inverse. */
export function perpetualOf(base: string, markets: CcxtMarket[]): CcxtMarket | undefined {
  const candidates = markets.filter((market) => isActivePerpetual(market) && market.base.toUpperCase() === base);
  return best(candidates, perpetualRank);
}

function spotOf(base: string, markets: CcxtMarket[]): CcxtMarket | undefined {
  const candidates = markets.filter((market) => market.spot === true && market.active !== false && market.base.toUpperCase() === base);
  return best(candidates, (market) => quoteRank(market.quote));
}

const PREFERRED_QUOTES = ['USDT', 'USDC', 'USD'];

function quoteRank(currency: string | undefined): number {
  const index = PREFERRED_QUOTES.indexOf((currency ?? '').toUpperCase());
  return index === -1 ? PREFERRED_QUOTES.length : index;
}

function perpetualRank(market: CcxtMarket): number {
  if (market.inverse === true) return 10;
  return quoteRank(market.settle ?? market.quote);
}

function best(candidates: CcxtMarket[], rank: (market: CcxtMarket) => number): CcxtMarket | undefined {
  return [...candidates].sort((a, b) => rank(a) - rank(b) || a.symbol.localeCompare(b.symbol))[0];
}
