import { comparisonOutlook, valueRangeOf } from '../../language/value-ranges.js';
import { sameJson } from '../../util/same-json.js';
import { isRecord } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

const PRICE = 'price';
const OSCILLATOR = 'oscillator (0 to 100)';

/** What a series measures, by source then method, so comparing an oscillator with a price is caught. */
const UNIT_CLASS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  price: { current: PRICE, high: PRICE, low: PRICE, change: 'percent change', volume: 'volume' },
  ta: {
    ema: PRICE,
    sma: PRICE,
    bbands_upper: PRICE,
    bbands_middle: PRICE,
    bbands_lower: PRICE,
    rsi: OSCILLATOR,
    stoch_k: OSCILLATOR,
    stoch_d: OSCILLATOR,
    willr: 'Williams %R (-100 to 0)',
    wma: PRICE,
    hma: PRICE,
    dema: PRICE,
    tema: PRICE,
    vwap: PRICE,
    supertrend: PRICE,
    psar: PRICE,
    keltner_upper: PRICE,
    keltner_middle: PRICE,
    keltner_lower: PRICE,
    donchian_upper: PRICE,
    donchian_middle: PRICE,
    donchian_lower: PRICE,
    ichimoku_conversion: PRICE,
    ichimoku_base: PRICE,
    ichimoku_span_a: PRICE,
    ichimoku_span_b: PRICE,
    mfi: OSCILLATOR,
    stochrsi_k: OSCILLATOR,
    stochrsi_d: OSCILLATOR,
    adx: OSCILLATOR,
    plus_di: OSCILLATOR,
    minus_di: OSCILLATOR,
    supertrend_direction: 'trend direction (1 or -1)',
    obv: 'volume',
  },
};

function unitOf(node: Record<string, unknown>): string | undefined {
  const bySource = node.source === 'price' || node.source === 'ta' ? UNIT_CLASS[node.source] : undefined;
  return bySource && typeof node.method === 'string' && Object.prototype.hasOwnProperty.call(bySource, node.method) ? bySource[node.method] : undefined;
}

/**
 * Thresholds of price and indicator conditions: out of the series' range (never holds) is an error,
 * a comparison that always holds is a warning, and so are exact equality on a continuous series,
 * a live operand equal to the left side, and a live operand of another unit.
 */
export const numericThresholds: Rule = {
  name: 'numeric-thresholds',
  leaf: {
    sources: ['price', 'ta'],
    check: (leaf, { sink }) => {
      // Each field is read once: documents come in many shapes, so every read is a slow lookup.
      const { node, method } = leaf;
      const { operator, value } = node;
      if (typeof method !== 'string' || typeof operator !== 'string') return;
      if (typeof value === 'number') {
        const range = valueRangeOf(leaf.source, method);
        const outlook = range ? comparisonOutlook(operator, value, range) : 'maybe';
        if (range && outlook === 'never') {
          sink.error('value-out-of-range', `${leaf.pointer}/value`, `${method} is ${range.unit}, so ${method} ${operator} ${value} never holds`);
        } else if (range && outlook === 'always') {
          sink.warning(
            'always-true',
            `${leaf.pointer}/value`,
            `${method} is always ${range.unit}, so ${method} ${operator} ${value} always holds and the query fires at once`,
          );
        } else if (operator === '==') {
          sink.warning(
            'exact-equality',
            `${leaf.pointer}/operator`,
            `${method} is continuous and rarely equals ${value} exactly; use crosses_above / crosses_below or a >= / <= bound`,
          );
        }
      } else if (isRecord(value)) {
        if (value.source === leaf.source && value.method === method && sameJson(value.args, node.args)) {
          sink.warning('self-comparison', `${leaf.pointer}/value`, 'the live operand is the same series as the left side, so the comparison never changes');
          return;
        }
        const left = unitOf(node);
        const right = unitOf(value);
        if (left !== undefined && right !== undefined && left !== right) {
          sink.warning('unit-mismatch', `${leaf.pointer}/value`, `compares a ${left} with a ${right}; these are not on the same scale`);
        }
      }
    },
  },
};
