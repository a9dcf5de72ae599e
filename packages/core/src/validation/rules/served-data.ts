import { earliestDefinedAt, lookbackMs } from '../../engine/series/lookback.js';
import { formatDuration } from '../../language/duration.js';
import { argsOf } from '../../language/query-walk.js';
import { formatIsoTime } from '../../util/instant.js';
import { isRecord } from '../../util/json-pointer.js';
import type { Rule, RuleContext } from '../rule.js';

/**
 * Served data (see ServedData): `unserved-symbol`, `unserved-timeframe`, and `lookback-exceeds-lifetime`
 * when a series cannot be defined before the query expires: the host has no history and the series needs
 * more of the past than the query lives, or its history starts too late for the series to warm in time.
 */
export const servedData: Rule = {
  name: 'served-data',
  needsServed: true,
  leaf: {
    sources: ['price', 'ta'],
    check: (leaf, context) => {
      if (!context.served) return;
      checkSeries(leaf.node, leaf.pointer, context);
      if (isRecord(leaf.node.value)) checkSeries(leaf.node.value, `${leaf.pointer}/value`, context);
    },
  },
};

function checkSeries(node: Record<string, unknown>, pointer: string, context: RuleContext): void {
  const served = context.served;
  if (!served || (node.source !== 'price' && node.source !== 'ta')) return;
  const args = argsOf(node);
  const symbol = typeof args.symbol === 'string' ? args.symbol : undefined;
  if (symbol !== undefined && served.symbols !== undefined) {
    const asset = baseAssetOf(symbol);
    if (!served.symbols.some((candidate) => baseAssetOf(candidate) === asset)) {
      const list = served.symbols.length === 0 ? 'none' : served.symbols.join(', ');
      context.sink.error('unserved-symbol', `${pointer}/args/symbol`, `no feed of this host serves prices of ${symbol}; served: ${list}`);
      return;
    }
  }
  const timeframe = node.source === 'ta' ? (typeof args.timeframe === 'string' ? args.timeframe : '1h') : undefined;
  if (timeframe !== undefined && served.timeframes !== undefined && !served.timeframes.includes(timeframe)) {
    context.sink.error('unserved-timeframe', node.source === 'ta' && args.timeframe !== undefined ? `${pointer}/args/timeframe` : `${pointer}/args`, `this host computes no ${timeframe} candles; served timeframes: ${served.timeframes.join(', ')}`);
    return;
  }
  if (served.history !== false && served.historySince === undefined) return;
  const lookback = lookbackMs(node.source, node.method, args);
  if (lookback === undefined) return;
  const lives = typeof context.query?.expiresIn === 'string' ? context.query.expiresIn : formatDuration(context.lifetimeMs);
  const what = node.source === 'ta' ? `${String(node.method)} on ${timeframe} candles` : `the ${String(node.method)} window`;
  if (served.history === false) {
    if (lookback <= context.lifetimeMs) return;
    context.sink.error(
      'lookback-exceeds-lifetime',
      pointer,
      `${what} needs ${formatDuration(lookback)} of prices before its value is defined, longer than the query lives (${lives}), and this host has no history to start from`,
    );
    return;
  }
  // A history that starts at a known instant: the series is defined when the engine, warmed from it, has enough.
  const since = served.historySince as number;
  const definedAt = earliestDefinedAt(node.source, node.method, args, since, context.now);
  const expiresAt = context.now + context.lifetimeMs;
  if (definedAt === undefined || definedAt <= expiresAt) return;
  context.sink.error(
    'lookback-exceeds-lifetime',
    pointer,
    `${what} needs ${formatDuration(lookback)} of prices before its value is defined; this host's history starts at ${formatIsoTime(since)}, so its value is defined from ${formatIsoTime(definedAt)}, after the query expires (${lives}, at ${formatIsoTime(expiresAt)})`,
  );
}

/** `BTC`, `btc`, `BTC/USDT`, `BTC/USDT:USDT`, `BTC-PERP`, `BTC_USDT` are all `BTC` (as the engine's feeds route them). */
function baseAssetOf(symbol: string): string {
  return (symbol.split(/[/:_-]/)[0] ?? symbol).toUpperCase();
}
