/**
 * Symbol forms of trade actions. Orders execute only on perpetual markets (spec 2.3), so a trade
 * symbol must name one: a bare ticker the venue maps to its perpetual (BTC), a `-PERP` name
 * (BTC-PERP), a unified swap symbol with a settle currency (BTC/USDT:USDT), or a venue contract id
 * (BTC_USDT). A spot pair (BTC/USDT, BTC-USD) is refused with the perpetual form to use instead.
 */

/** The verdict of {@link checkPerpetualSymbol}: ok, or the perpetual form to suggest instead. */
export type PerpetualCheck = { ok: true } | { ok: false; suggestion: string };

/**
 * Whether a trade action's symbol names a perpetual market; a spot pair (BTC/USDT) or another form gets a
 * suggestion such as BTC/USDT:USDT.
 */
export function checkPerpetualSymbol(symbol: string): PerpetualCheck {
  if (/^[A-Za-z0-9._]+$/.test(symbol)) return { ok: true };
  if (/^[A-Za-z0-9._]+-PERP$/i.test(symbol)) return { ok: true };
  if (/^[A-Za-z0-9._]+\/[A-Za-z0-9._]+:[A-Za-z0-9._]+$/.test(symbol)) return { ok: true };
  const spotPair = /^([A-Za-z0-9._]+)\/([A-Za-z0-9._]+)$/.exec(symbol);
  if (spotPair) return { ok: false, suggestion: `${spotPair[1]}/${spotPair[2]}:${spotPair[2]}` };
  const dashed = /^([A-Za-z0-9._]+)-([A-Za-z0-9._]+)$/.exec(symbol);
  if (dashed) return { ok: false, suggestion: `${dashed[1]}-PERP` };
  return { ok: false, suggestion: symbol.split(/[/:-]/)[0] ?? symbol };
}
