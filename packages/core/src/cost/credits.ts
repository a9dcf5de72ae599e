/**
 * Spec 8: credits and their price. 1 credit = 0.009 USD, so a price is a whole number of tenths of a
 * cent and is computed in integers: no floating-point noise, ever.
 */
export const CREDIT_COSTS = {
  /** Every created query. */
  baseline: 5,
  /** Per simulated LLM call, by speed. Adaptive may escalate to expert, so it is estimated as expert. */
  fast: 5,
  expert: 18,
  adaptive: 18,
} as const;

/** Thousandths of a USD per credit. */
const MILLI_USD_PER_CREDIT = 9;

/** Prices of the small credit amounts most queries cost, formatted once. */
const COMMON_PRICES = new Map<number, string>();
const COMMON_PRICE_LIMIT = 10_000;

/** `$<decimal>` for a whole number of credits, with two or three decimals: 5 → $0.045, 10 → $0.09, 1000 → $9.00. */
export function priceOfCredits(credits: number): string {
  const common = COMMON_PRICES.get(credits);
  if (common !== undefined) return common;
  const price = formatPrice(credits);
  if (credits <= COMMON_PRICE_LIMIT) COMMON_PRICES.set(credits, price);
  return price;
}

function formatPrice(credits: number): string {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new RangeError(`credits must be a non-negative integer, got ${credits}`);
  const exactInNumbers = credits <= Math.floor(Number.MAX_SAFE_INTEGER / MILLI_USD_PER_CREDIT);
  const milli = exactInNumbers ? credits * MILLI_USD_PER_CREDIT : BigInt(credits) * BigInt(MILLI_USD_PER_CREDIT);
  const dollars = exactInNumbers ? Math.floor((milli as number) / 1000) : (milli as bigint) / 1000n;
  const fraction = (exactInNumbers ? (milli as number) % 1000 : (milli as bigint) % 1000n).toString().padStart(3, '0');
  return `$${dollars}.${fraction.endsWith('0') ? fraction.slice(0, 2) : fraction}`;
}

/** Atomic units of a 6-decimal stablecoin (USDC) for a number of credits: credits × 9000. */
export function usdcAtomicUnitsOfCredits(credits: number): bigint {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new RangeError(`credits must be a non-negative integer, got ${credits}`);
  return BigInt(credits) * 9000n;
}
