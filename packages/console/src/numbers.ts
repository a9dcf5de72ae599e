// Numbers for people: no float noise, money with cents, percents with two decimals.

/**
 * A number for people: cents for large values, four decimals for small ones, four significant digits
 * below 1 (no float noise such as 41.23456789012345).
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
  if (magnitude >= 1 || magnitude === 0) return value.toLocaleString('en-US', { maximumFractionDigits: 4 });
  return value.toLocaleString('en-US', { maximumSignificantDigits: 4 });
}

/** An order amount: up to 8 decimals (satoshis), no trailing zeros. */
export function formatAmount(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 8 });
}

/** US dollars with cents and a sign for gains and losses when asked: `+$1,234.50`, `-$3.10`. */
export function formatUsd(value: number, signed = false): string {
  const text = Math.abs(value).toLocaleString('en-US', { style: 'currency', currency: 'USD' });
  return value < 0 ? `-${text}` : signed && value > 0 ? `+${text}` : text;
}

/** A percentage with two decimals: `12.35 %` (a no-break space: the sign stays with its number). */
export function formatPercent(value: number, signed = false): string {
  const text = `${Math.abs(value).toFixed(2)}\u00a0%`;
  return value < 0 ? `-${text}` : signed && value > 0 ? `+${text}` : text;
}

/** The decimals a price scale shows for prices like `sample`. */
export function pricePrecision(sample: number): number {
  const magnitude = Math.abs(sample);
  return magnitude >= 100 ? 2 : magnitude >= 1 ? 4 : 6;
}
