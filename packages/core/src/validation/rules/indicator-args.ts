import { argsOf } from '../../language/query-walk.js';
import { isRecord, joinPointer } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

const MACD_METHODS = new Set(['macd_value', 'macd_signal', 'macd_histogram']);

/** MACD needs its fast EMA shorter than its slow one (defaults 12 and 26). */
export const indicatorArgs: Rule = ({ leaves, sink }) => {
  for (const leaf of leaves) {
    const targets: Array<[Record<string, unknown>, string]> = [[leaf.node, leaf.pointer]];
    if (isRecord(leaf.node.value)) targets.push([leaf.node.value, joinPointer(leaf.pointer, 'value')]);
    for (const [node, pointer] of targets) {
      if (node.source !== 'ta' || !MACD_METHODS.has(String(node.method))) continue;
      const args = argsOf(node);
      const fast = typeof args.fastPeriod === 'number' ? args.fastPeriod : 12;
      const slow = typeof args.slowPeriod === 'number' ? args.slowPeriod : 26;
      if (fast >= slow) {
        sink.error('macd-periods', joinPointer(pointer, 'args'), `MACD needs fastPeriod (${fast}) shorter than slowPeriod (${slow})`);
      }
    }
  }
};
