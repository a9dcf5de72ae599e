/**
 * Turns the pieces of one market clause (symbol, measure, comparison, spans, exchange) into a
 * condition: defaults filled in explicitly (timeframe 1h, RSI 14, window 24h, …), live operands
 * completed from the subject, indicator states (`oversold`) read per indicator, and crossings either
 * way or ranges expanded into groups.
 */
import { formatDuration, type ConditionNode, type Operator } from '@eql/core';
import type { ComparisonPiece, MeasurePiece, SpanPiece, Threshold } from '../grammar/pieces.js';
import { durationText } from '../format.js';
import { DEFAULT_TIMEFRAME, DEFAULT_WINDOW, INDICATOR_DEFAULTS, TIMEFRAMES } from '../schema-facts.js';

/** The pieces of one market clause, with its symbol decided. */
export interface MarketClause {
  symbol: string;
  measure?: MeasurePiece;
  comparison: ComparisonPiece;
  spans: SpanPiece[];
  exchange?: string;
}

/**
 * A condition and the defaults said about it, or a question. `lifetimeMs`: a span said of the last
 * price ("BTC above 100k within 3 days") has no window to be; it reads as how long to watch.
 */
export type Resolved = { node: ConditionNode; notes: string[]; lifetimeMs?: number } | { question: string };

/** Indicator levels of `oversold` / `overbought`. */
const STATE_LEVELS: Readonly<Record<string, { oversold: number; overbought: number }>> = {
  rsi: { oversold: 30, overbought: 70 },
  stoch_k: { oversold: 20, overbought: 80 },
  stoch_d: { oversold: 20, overbought: 80 },
  willr: { oversold: -80, overbought: -20 },
  cci: { oversold: -100, overbought: 100 },
};
/** Series whose sign means something (`turns positive`). */
const SIGNED = new Set(['macd_value', 'macd_signal', 'macd_histogram', 'change', 'cci']);

/** A condition (or a group, for `crosses` either way and ranges) for a market clause. */
export function marketCondition(clause: MarketClause): Resolved {
  const notes: string[] = [];
  const measure = subjectOf(clause, notes);
  if ('question' in measure) return measure;
  const subject = series(measure.measure, clause, undefined, notes);
  if ('question' in subject) return subject;
  const leaf = (operator: Operator, threshold: Threshold): ConditionNode | { question: string } => {
    const method = measure.measure.method === 'bbands' ? band(operator) : subject.method;
    const value = valueOf(threshold, measure.measure, clause, operator);
    if ('question' in value) return value;
    return { source: measure.measure.source, method, args: { ...subject.args }, operator, value: value.value } as unknown as ConditionNode;
  };
  const { comparison } = clause;
  const nodes: ConditionNode[] = [];
  const pairs: Array<[Operator, Threshold]> =
    comparison.operator === 'crosses'
      ? [['crosses_above', comparison.threshold], ['crosses_below', comparison.threshold]]
      : [[comparison.operator, comparison.threshold], ...(comparison.upper ? [[comparison.upper.operator, comparison.upper.threshold] as [Operator, Threshold]] : [])];
  for (const [operator, threshold] of pairs) {
    const node = leaf(operator, threshold);
    if ('question' in node) return node;
    nodes.push(node);
  }
  const span = clause.spans[0];
  const lifetime = measure.measure.source === 'price' && measure.measure.method === 'current' && span !== undefined && comparison.threshold.kind !== 'measure' ? { lifetimeMs: span.ms } : {};
  if (nodes.length === 1) return { node: nodes[0] as ConditionNode, notes, ...lifetime };
  const either = comparison.operator === 'crosses' || (comparison.change === true && comparison.upper !== undefined);
  const members = nodes as [ConditionNode, ...ConditionNode[]];
  return { node: either ? { OR: members } : { AND: members }, notes, ...lifetime };
}

function subjectOf(clause: MarketClause, notes: string[]): { measure: MeasurePiece } | { question: string } {
  const { comparison } = clause;
  const written = clause.measure;
  const percentThreshold = comparison.threshold.kind === 'number' && comparison.threshold.amount.percent;
  if (comparison.change === true || (written === undefined && percentThreshold)) {
    if (written !== undefined && !(written.source === 'price' && (written.method === 'current' || written.method === 'change'))) {
      return { question: `A move in percent applies to the price; what should the ${written.method} condition be? For example "${written.method.toUpperCase()} above 70".` };
    }
    if (comparison.change !== true) notes.push('a threshold in percent on a price reads as the percent change');
    return { measure: { kind: 'measure', source: 'price', method: 'change', params: {}, ...(written?.spanMs !== undefined ? { spanMs: written.spanMs } : {}) } };
  }
  return { measure: written ?? { kind: 'measure', source: 'price', method: 'current', params: {} } };
}

/** Source, method and args of a series, for the subject or (with `subject`) a live operand. */
function series(
  measure: MeasurePiece,
  clause: MarketClause,
  subject: { args: Record<string, unknown> } | undefined,
  notes: string[],
): { method: string; args: Record<string, unknown> } | { question: string } {
  const args: Record<string, unknown> = { symbol: measure.symbol ?? clause.symbol };
  const span = clause.spans[0];
  if (measure.source === 'price') {
    if (measure.method !== 'current') {
      const ms = measure.spanMs ?? (subject === undefined ? span?.ms : undefined);
      args.period = ms === undefined ? DEFAULT_WINDOW : durationText(ms);
      if (ms === undefined && subject === undefined) notes.push(`the ${measure.method} is measured over ${DEFAULT_WINDOW} (say "in 1h" for another window)`);
    }
  } else {
    const ms = measure.spanMs ?? (subject === undefined ? span?.ms : undefined);
    const timeframe = ms === undefined ? ((subject?.args.timeframe as string | undefined) ?? DEFAULT_TIMEFRAME) : formatDuration(ms);
    if (!TIMEFRAMES.includes(timeframe)) return { question: `Indicators run on candles of ${TIMEFRAMES.join(', ')}; which timeframe do you want instead of ${timeframe}?` };
    args.timeframe = timeframe;
    const method = measure.method === 'bbands' ? 'bbands_upper' : measure.method;
    Object.assign(args, INDICATOR_DEFAULTS[method] ?? {}, measure.params);
  }
  if (clause.exchange !== undefined) args.exchange = clause.exchange;
  return { method: measure.method, args };
}

function band(operator: Operator): string {
  return operator === '<' || operator === '<=' || operator === 'crosses_below' ? 'bbands_lower' : 'bbands_upper';
}

function valueOf(threshold: Threshold, subject: MeasurePiece, clause: MarketClause, operator: Operator): { value: unknown } | { question: string } {
  if (threshold.kind === 'number') return { value: threshold.amount.value };
  if (threshold.kind === 'measure') {
    const operand = series(threshold.measure, clause, { args: { timeframe: subjectTimeframe(subject, clause) } }, []);
    if ('question' in operand) return operand;
    const method = threshold.measure.method === 'bbands' ? band(operator) : operand.method;
    return { value: { source: threshold.measure.source, method, args: operand.args } };
  }
  const method = subject.method === 'change' ? 'change' : subject.method;
  if (threshold.state === 'positive' || threshold.state === 'negative') {
    return SIGNED.has(method) ? { value: 0 } : { question: `"${threshold.state}" needs a series with a sign, such as the MACD histogram; which level do you mean for the ${method}?` };
  }
  const levels = STATE_LEVELS[method];
  return levels ? { value: levels[threshold.state] } : { question: `"${threshold.state}" is defined for RSI, stochastic, Williams %R and CCI; which level do you mean for the ${method}?` };
}

function subjectTimeframe(subject: MeasurePiece, clause: MarketClause): string | undefined {
  if (subject.source !== 'ta') {
    const span = clause.spans.find((candidate) => candidate.how === 'chart') ?? clause.spans[0];
    return span === undefined ? undefined : formatDuration(span.ms);
  }
  const ms = subject.spanMs ?? clause.spans[0]?.ms;
  return ms === undefined ? DEFAULT_TIMEFRAME : formatDuration(ms);
}
