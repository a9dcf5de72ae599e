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
      if (leaf.source === 'ta') checkMacd(leaf.method, leaf.args, leaf.pointer, '/args', sink);
      const { value } = leaf.node;
      if (isRecord(value) && value.source === 'ta') checkMacd(value.method, argsOf(value), leaf.pointer, '/value/args', sink);
    },
  },
};

/** Reports a MACD series (`method` of a ta series, with its `args`) whose fast period is not shorter than its slow one, at `base` + `argsPath`. */
function checkMacd(method: unknown, args: Readonly<Record<string, unknown>>, base: string, argsPath: string, sink: DiagnosticSink): void {
  if (!MACD_METHODS.has(String(method))) return;
  const { fastPeriod, slowPeriod } = args;
  const fast = typeof fastPeriod === 'number' ? fastPeriod : 12;
  const slow = typeof slowPeriod === 'number' ? slowPeriod : 26;
  if (fast >= slow) sink.error('macd-periods', `${base}${argsPath}`, `MACD needs fastPeriod (${fast}) shorter than slowPeriod (${slow})`);
}
