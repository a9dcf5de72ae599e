import type { Query } from '../generated/eql-types.js';
import { parseDuration } from '../language/duration.js';
import { allActions, leafConditions, paramsOf } from '../language/query-walk.js';
import { isRecord } from '../util/json-pointer.js';
import { CREDIT_COSTS } from './credits.js';
import { lifetimeOf, triggersUpperBound } from './estimate.js';

/** One line of a {@link costBreakdown}: what costs credits, where it is in the query, how many calls at most. */
export interface CostLine {
  /** `base` (every query), `condition` (an llm condition) or `action` (an llm step). */
  part: 'base' | 'condition' | 'action';
  /** JSON pointer of the condition or step in the request (`/query/...`); empty for the base. */
  pointer: string;
  /** In words: the condition's question and period, or the step's id. */
  what: string;
  speed?: 'fast' | 'expert' | 'adaptive';
  /** Upper bound of the LLM calls it makes over the query's life. */
  calls: number;
  credits: number;
}

const speedOf = (value: unknown): 'fast' | 'expert' | 'adaptive' => (value === 'expert' || value === 'adaptive' ? value : 'fast');

/**
 * What a query's estimate is made of (spec 8): the base credits of every query, then each llm condition
 * (judged at creation and once per period while the query lives) and each llm step (once per allowed
 * trigger) with its calls and credits. The credits add up to {@link estimateCost}'s.
 */
export function costBreakdown(query: Query): CostLine[] {
  const lines: CostLine[] = [{ part: 'base', pointer: '', what: 'every query', calls: 0, credits: CREDIT_COSTS.baseline }];
  for (const { node, pointer } of leafConditions(query, '/query')) {
    if (node.source !== 'llm' || !isRecord(node.args)) continue;
    const periodMs = parseDuration(node.args.period);
    if (periodMs === undefined) continue;
    const speed = speedOf(node.args.speed);
    const calls = Math.ceil(lifetimeOf(query) / periodMs);
    const question = typeof node.args.query === 'string' ? `"${node.args.query}"` : typeof node.method === 'string' ? node.method : 'llm';
    lines.push({ part: 'condition', pointer, what: `${question} every ${String(node.args.period)}`, speed, calls, credits: calls * CREDIT_COSTS[speed] });
  }
  for (const { node, pointer, parent } of allActions(query, '/query')) {
    if (parent || node.type !== 'llm') continue;
    const speed = speedOf(paramsOf(node).speed);
    const calls = triggersUpperBound(query);
    lines.push({ part: 'action', pointer, what: `llm step ${typeof node.stepId === 'string' ? `"${node.stepId}"` : ''} once per trigger`.replace('  ', ' '), speed, calls, credits: calls * CREDIT_COSTS[speed] });
  }
  return lines;
}
