import { parseDuration } from '../../language/duration.js';
import { timeframeMs } from './candles.js';
import { resolveTimeframe, warmupCandles } from './indicators.js';

/**
 * How much of the past a `price` or `ta` series needs before its value is defined over its whole
 * look-back, in ms: 0 for the last price, the period of a `change`, `high`, `low` or `volume` window,
 * and for an indicator its warm-up candles (see `warmupCandles`) times the timeframe. Undefined for
 * anything it cannot read (the schema reports those).
 */
export function lookbackMs(source: unknown, method: unknown, args: Record<string, unknown>): number | undefined {
  try {
    if (source === 'price') {
      if (method === 'current') return 0;
      return parseDuration(args.period);
    }
    if (source === 'ta' && typeof method === 'string') return warmupCandles(method, args) * timeframeMs(resolveTimeframe(args));
  } catch {
    return undefined;
  }
  return undefined;
}
