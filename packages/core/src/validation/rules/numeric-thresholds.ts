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
      const { node } = leaf;
      if (typeof node.method !== 'string' || typeof node.operator !== 'string') return;
      const valuePath = `${leaf.pointer}/value`;
      if (typeof node.value === 'number') {
        const range = valueRangeOf(node.source, node.method);
        const outlook = range ? comparisonOutlook(node.operator, node.value, range) : 'maybe';
        if (range && outlook === 'never') {
          sink.error('value-out-of-range', valuePath, `${node.method} is ${range.unit}, so ${node.method} ${node.operator} ${node.value} never holds`);
        } else if (range && outlook === 'always') {
          sink.warning(
            'always-true',
            valuePath,
            `${node.method} is always ${range.unit}, so ${node.method} ${node.operator} ${node.value} always holds and the query fires at once`,
          );
        } else if (node.operator === '==') {
          sink.warning(
            'exact-equality',
            `${leaf.pointer}/operator`,
            `${node.method} is continuous and rarely equals ${node.value} exactly; use crosses_above / crosses_below or a >= / <= bound`,
          );
        }
      } else if (isRecord(node.value)) {
        const operand = node.value;
        if (operand.source === node.source && operand.method === node.method && sameJson(operand.args, node.args)) {
          sink.warning('self-comparison', valuePath, 'the live operand is the same series as the left side, so the comparison never changes');
          return;
        }
        const left = unitOf(node);
        const right = unitOf(operand);
        if (left !== undefined && right !== undefined && left !== right) {
          sink.warning('unit-mismatch', valuePath, `compares a ${left} with a ${right}; these are not on the same scale`);
        }
      }
    },
  },
};
