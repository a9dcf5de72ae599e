import { argsOf } from '../../language/query-walk.js';
import { isRecord } from '../../util/json-pointer.js';
import type { DiagnosticSink } from '../diagnostic.js';
import type { Rule } from '../rule.js';

const MACD_METHODS = new Set(['macd_value', 'macd_signal', 'macd_histogram']);

/** MACD needs its fast EMA shorter than its slow one (defaults 12 and 26), on the left side and in live operands. */
export const indicatorArgs: Rule = {
  name: 'indicator-args',
  leaf: {
    sources: ['ta', 'price'],
    check: (leaf, { sink }) => {
      checkMacd(leaf.node, leaf.pointer, sink);
      if (isRecord(leaf.node.value)) checkMacd(leaf.node.value, `${leaf.pointer}/value`, sink);
    },
  },
};

function checkMacd(node: Record<string, unknown>, pointer: string, sink: DiagnosticSink): void {
  if (node.source !== 'ta' || !MACD_METHODS.has(String(node.method))) return;
  const args = argsOf(node);
  const fast = typeof args.fastPeriod === 'number' ? args.fastPeriod : 12;
  const slow = typeof args.slowPeriod === 'number' ? args.slowPeriod : 26;
  if (fast >= slow) sink.error('macd-periods', `${pointer}/args`, `MACD needs fastPeriod (${fast}) shorter than slowPeriod (${slow})`);
}
