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
      const { node } = leaf;
      checkMacd(node, leaf.pointer, '/args', sink);
      const { value } = node;
      if (isRecord(value)) checkMacd(value, leaf.pointer, '/value/args', sink);
    },
  },
};

/** Reports a MACD `node` whose fast period is not shorter than its slow one, at `base` + `args` (its args). */
function checkMacd(node: Record<string, unknown>, base: string, args: string, sink: DiagnosticSink): void {
  if (node.source !== 'ta' || !MACD_METHODS.has(String(node.method))) return;
  const { fastPeriod, slowPeriod } = argsOf(node);
  const fast = typeof fastPeriod === 'number' ? fastPeriod : 12;
  const slow = typeof slowPeriod === 'number' ? slowPeriod : 26;
  if (fast >= slow) sink.error('macd-periods', `${base}${args}`, `MACD needs fastPeriod (${fast}) shorter than slowPeriod (${slow})`);
}
