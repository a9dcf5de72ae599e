import { comparisonOutlook, VALUE_RANGES } from '../../language/value-ranges.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { isRecord, joinPointer } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/** What a series measures, so comparing an oscillator with a price is caught. */
const UNIT_CLASS: Record<string, string> = {
  'price.current': 'price',
  'price.high': 'price',
  'price.low': 'price',
  'ta.ema': 'price',
  'ta.sma': 'price',
  'ta.bbands_upper': 'price',
  'ta.bbands_middle': 'price',
  'ta.bbands_lower': 'price',
  'price.change': 'percent change',
  'price.volume': 'volume',
  'ta.rsi': 'oscillator (0 to 100)',
  'ta.stoch_k': 'oscillator (0 to 100)',
  'ta.stoch_d': 'oscillator (0 to 100)',
  'ta.willr': 'Williams %R (-100 to 0)',
};

const seriesKey = (node: Record<string, unknown>): string => `${String(node.source)}.${String(node.method)}`;

/**
 * Thresholds of price and indicator conditions: out of the series' range (never holds) is an error,
 * a comparison that always holds is a warning, and so are exact equality on a continuous series,
 * a live operand equal to the left side, and a live operand of another unit.
 */
export const numericThresholds: Rule = ({ leaves, sink }) => {
  for (const leaf of leaves) {
    const { node } = leaf;
    if (node.source !== 'price' && node.source !== 'ta') continue;
    if (typeof node.method !== 'string' || typeof node.operator !== 'string') continue;
    const key = seriesKey(node);
    const valuePath = joinPointer(leaf.pointer, 'value');
    if (typeof node.value === 'number') {
      const range = VALUE_RANGES[key];
      const outlook = range ? comparisonOutlook(node.operator, node.value, range) : 'maybe';
      const statement = `${node.method} ${node.operator} ${node.value}`;
      if (range && outlook === 'never') {
        sink.error('value-out-of-range', valuePath, `${node.method} is ${range.unit}, so ${statement} never holds`);
      } else if (range && outlook === 'always') {
        sink.warning('always-true', valuePath, `${node.method} is always ${range.unit}, so ${statement} always holds and the query fires at once`);
      } else if (node.operator === '==') {
        sink.warning(
          'exact-equality',
          joinPointer(leaf.pointer, 'operator'),
          `${node.method} is continuous and rarely equals ${node.value} exactly; use crosses_above / crosses_below or a >= / <= bound`,
        );
      }
    } else if (isRecord(node.value)) {
      const operand = node.value;
      if (canonicalJson({ source: node.source, method: node.method, args: node.args }) === canonicalJson(operand)) {
        sink.warning('self-comparison', valuePath, 'the live operand is the same series as the left side, so the comparison never changes');
        continue;
      }
      const left = UNIT_CLASS[key];
      const right = UNIT_CLASS[seriesKey(operand)];
      if (left !== undefined && right !== undefined && left !== right) {
        sink.warning('unit-mismatch', valuePath, `compares a ${left} with a ${right}; these are not on the same scale`);
      }
    }
  }
};
