/**
 * A message, read: normalize, tokenize, scan the phrase rules, group the pieces into clauses, and
 * resolve each clause into a condition. The result still holds action drafts and options: they are
 * completed against the whole query (which an amendment merges) by ../compose.
 */
import { formatDuration, HOUR, type ConditionGroup, type ConditionNode } from '@eql/core';
import { durationText } from '../format.js';
import type { ActionDraft, MeasurePiece, OptionDraft, SpanPiece } from '../grammar/pieces.js';
import { scan } from '../grammar/scan.js';
import type { Amount } from '../grammar/values.js';
import { normalizeMessage } from '../text/normalize.js';
import { textBetween, tokenize, type Token } from '../text/tokens.js';
import { routeByIntent } from './intent-fallback.js';
import { marketCondition } from './market-condition.js';
import { joinConditions, type Joined } from './tree.js';
import { walk, type ClauseDraft, type Walk } from './walk.js';
import { MAX_MESSAGE_TOKENS, STEPS_PER_TOKEN, withinBudget, type ReadingWork } from '../work.js';

const WHAT_TO_WATCH =
  'What should it watch? A price ("BTC above 70k"), an indicator ("RSI of ETH below 30"), a post ("a post by @account about …"), news ("news about …") or an LLM judgement ("if an LLM thinks …")?';

/** The instant and the conversation's symbol, for clauses that need them. */
export interface InterpretContext {
  /** Epoch milliseconds of the request (schedules are computed from it). */
  now: number;
  /** The symbol of the conversation so far, for clauses that name none. */
  symbol?: string;
  /** The work budget, in steps per token (default `STEPS_PER_TOKEN`). */
  stepsPerToken?: number;
}

/** A message read: its conditions, drafts of its actions, options, bare values, and what to ask. */
export interface Interpretation {
  /** The conditions of this message as one group. */
  conditions?: ConditionGroup;
  /** `and only if …` / `or if …`: how the conditions join an earlier query. */
  leading?: 'and' | 'or';
  /** The period of a schedule (`every day`), which wants a repeat policy. */
  recurringMs?: number;
  groupHoldFor?: string;
  actions: ActionDraft[];
  options: OptionDraft[];
  /** Values not attached to a condition: answers to questions, or edits of the current query. */
  bare: { amounts: Amount[]; symbols: string[]; spans: SpanPiece[]; exchanges: string[]; chats: Array<string | number>; measures: MeasurePiece[] };
  cues: Walk['cues'];
  removals: Walk['removals'];
  /** Every symbol named, first the one the message is mostly about. */
  symbols: string[];
  /** Every exchange named in the message. */
  exchanges: string[];
  /** Whether a clause named its own symbol (a new subject rather than an amendment of the old one). */
  namesSubject: boolean;
  questions: string[];
  notes: string[];
  /** Phrases not understood, as written. */
  unknown: string[];
  /** What reading the message cost; a message past the cap or the budget is not read, and the questions say why. */
  work: ReadingWork;
}

/** An interpretation as the reading makes it, before its work is added. */
type Reading = Omit<Interpretation, 'work'>;

/** The tokens of a message as the grammar reads them: what `MAX_MESSAGE_TOKENS` bounds. */
export function messageTokens(message: string): number {
  return tokenize(normalizeMessage(message)).length;
}

/**
 * Reads a message. Never throws. A message of more tokens than `MAX_MESSAGE_TOKENS` is not read, and
 * a reading past its budget of steps is stopped: the interpretation then holds only a question
 * saying so.
 */
export function interpret(message: string, context: InterpretContext): Interpretation {
  const tokens = tokenize(normalizeMessage(message));
  if (tokens.length > MAX_MESSAGE_TOKENS) {
    return unread({ tokens: tokens.length, steps: 0, tooLong: true, exhausted: false }, `Your message is too long for me to read: it has ${tokens.length.toLocaleString('en-US')} words and signs, and I read at most ${MAX_MESSAGE_TOKENS.toLocaleString('en-US')}. ${SAY_IT_SHORTER}`);
  }
  const budget = (context.stepsPerToken ?? STEPS_PER_TOKEN) * Math.max(tokens.length, 1);
  const reading = withinBudget(budget, () => read(tokens, context));
  const work: ReadingWork = { tokens: tokens.length, steps: reading.steps, tooLong: false, exhausted: reading.exhausted };
  if (reading.value === undefined) return unread(work, `Your message is too long or too tangled for me to read in one go. ${SAY_IT_SHORTER}`);
  return { ...reading.value, work };
}

const SAY_IT_SHORTER = 'Say in a sentence or two what to watch and what to do, for example "alert me when BTC is above 70k", and add the rest in the next messages.';

/** The interpretation of a message that was not read: nothing but the question saying why. */
function unread(work: ReadingWork, question: string): Interpretation {
  return {
    actions: [],
    options: [],
    bare: { amounts: [], symbols: [], spans: [], exchanges: [], chats: [], measures: [] },
    cues: new Set(),
    removals: [],
    symbols: [],
    exchanges: [],
    namesSubject: false,
    questions: [question],
    notes: [],
    unknown: [],
    work,
  };
}

function read(tokens: Token[], context: InterpretContext): Reading {
  const { pieces, unknown } = scan(tokens);
  const walked = walk(pieces, unknown);
  const result: Reading = {
    actions: walked.actions,
    options: walked.options,
    bare: { amounts: walked.bareAmounts, symbols: [], spans: walked.bareSpans, exchanges: [], chats: walked.chats, measures: [] },
    cues: walked.cues,
    removals: walked.removals,
    symbols: walked.symbols,
    exchanges: walked.exchangesNamed,
    namesSubject: false,
    questions: [],
    notes: [],
    unknown: [],
  };
  if (walked.leading !== undefined) result.leading = walked.leading;
  distribute(walked.clauses);
  const notUnderstood = [...walked.looseUnknown];
  const joined: Joined[] = [];
  let previous: ClauseDraft | undefined;
  for (const clause of walked.clauses) {
    const node = resolveClause(clause, previous, walked, context, tokens, result, notUnderstood);
    if (node) {
      joined.push(clause.connector === undefined ? { node } : { node, connector: clause.connector });
      if (clause.complete?.recurringMs !== undefined) result.recurringMs = clause.complete.recurringMs;
      if (clause.symbol !== undefined || clause.measure?.symbol !== undefined) result.namesSubject = true;
    }
    if (clause.comparison || clause.complete) previous = clause;
  }
  const conditions = joinConditions(joined);
  if (conditions) result.conditions = conditions;
  if (walked.groupHoldMs !== undefined) result.groupHoldFor = durationText(walked.groupHoldMs);
  result.unknown = phrases(tokens, notUnderstood);
  return result;
}

function resolveClause(
  clause: ClauseDraft,
  previous: ClauseDraft | undefined,
  walked: Walk,
  context: InterpretContext,
  tokens: readonly Token[],
  result: Reading,
  notUnderstood: number[],
): ConditionNode | undefined {
  let node: ConditionNode | undefined;
  if (clause.complete) {
    const built = clause.complete.build({ now: context.now, ...(context.symbol === undefined ? {} : { symbol: context.symbol }) });
    if ('question' in built) result.questions.push(built.question);
    else node = semantic(built.node, clause, result);
    notUnderstood.push(...clause.unknown);
  } else if (clause.comparison) {
    const inherited = clause.measure === undefined && clause.symbol === undefined && clause.comparison.change !== true ? previous?.measure : undefined;
    const measure = clause.measure ?? inherited;
    const symbol = clause.symbol ?? measure?.symbol ?? (clause.symbol === undefined ? previous?.symbol : undefined) ?? walked.symbols[0] ?? context.symbol;
    if (symbol === undefined) {
      result.questions.push(`Which market do you mean${measure ? ` for the ${measure.method.replace('_', ' ')}` : ''}? For example "BTC" or "ETH".`);
    } else {
      if (clause.symbol === undefined && measure?.symbol === undefined) clause.symbol = symbol;
      const resolved = marketCondition({ symbol, comparison: clause.comparison, spans: clause.spans, ...(measure ? { measure } : {}), ...(clause.exchange ? { exchange: clause.exchange } : {}) });
      if ('question' in resolved) result.questions.push(resolved.question);
      else {
        node = resolved.node;
        result.notes.push(...resolved.notes);
        if (resolved.lifetimeMs !== undefined) {
          if (!result.options.some((option) => option.option === 'expiresIn' || option.option === 'for')) {
            result.options.push({ option: 'expiresIn', ms: resolved.lifetimeMs });
            result.notes.push(`"${formatDuration(resolved.lifetimeMs)}" has no window to be on the last price, so the query watches for that long`);
          } else {
            result.notes.push(`"${formatDuration(resolved.lifetimeMs)}" does not apply to the last price, so it was left out`);
          }
        }
      }
    }
    notUnderstood.push(...clause.unknown);
  } else if (clause.unknown.length > 0) {
    const routed = routeByIntent(textBetween(tokens, clause.from, clause.to));
    if (routed === undefined) {
      notUnderstood.push(...clause.unknown);
      if (!result.questions.includes(WHAT_TO_WATCH)) result.questions.push(WHAT_TO_WATCH);
    }
    else if ('question' in routed) result.questions.push(routed.question);
    else {
      node = routed.node;
      result.notes.push(routed.note);
    }
  } else if (clause.measure) {
    if (clause.measure.trailing !== undefined) {
      const slot = Object.keys(clause.measure.params)[0];
      const params = { ...clause.measure.params };
      if (slot !== undefined) delete params[slot];
      result.bare.amounts.push({ value: clause.measure.trailing, dollar: false, percent: false });
      clause.measure = { ...clause.measure, params };
    }
    result.bare.measures.push(clause.symbol === undefined ? clause.measure : { ...clause.measure, symbol: clause.symbol });
  } else if (clause.symbol !== undefined) {
    result.bare.symbols.push(clause.symbol);
    if (clause.exchange !== undefined) result.bare.exchanges.push(clause.exchange);
  } else if (clause.exchange !== undefined) {
    result.bare.exchanges.push(clause.exchange);
  }
  if (node && clause.holdForMs !== undefined && !('source' in node && node.source === 'cron')) node = { ...node, holdFor: durationText(clause.holdForMs) };
  return node;
}

/** `BTC and ETH are above 70k`: a clause of a symbol alone shares the comparison of the next one. */
function distribute(clauses: ClauseDraft[]): void {
  for (let index = clauses.length - 2; index >= 0; index -= 1) {
    const alone = clauses[index] as ClauseDraft;
    const next = clauses[index + 1] as ClauseDraft;
    const bare = alone.symbol !== undefined && !alone.measure && !alone.comparison && !alone.complete && alone.unknown.length === 0;
    if (!bare || !next.comparison || next.connector === undefined || next.connector === 'comma' || next.symbol === undefined) continue;
    alone.comparison = next.comparison;
    alone.spans = [...next.spans];
    if (next.measure) alone.measure = next.measure.symbol === undefined ? next.measure : { ...next.measure, symbol: alone.symbol };
    if (next.holdForMs !== undefined) alone.holdForMs = next.holdForMs;
  }
}

/** Applies the modifiers of a tweet, news or llm clause (period, confidence, speed). */
function semantic(node: ConditionNode, clause: ClauseDraft, result: Reading): ConditionNode {
  if (!('source' in node)) return node;
  const copy = structuredClone(node) as unknown as { source: string; args: Record<string, unknown> };
  if (copy.source === 'llm') {
    if (clause.everyMs !== undefined) {
      if (clause.everyMs < HOUR) result.notes.push(`an LLM condition is judged at most once an hour, so it runs every 1h rather than every ${durationText(clause.everyMs)}`);
      copy.args.period = durationText(Math.max(HOUR, Math.round(clause.everyMs / HOUR) * HOUR));
    }
    if (clause.speed !== undefined) copy.args.speed = clause.speed;
  }
  if (clause.minConfidence !== undefined && (copy.source === 'llm' || copy.source === 'tweet' || copy.source === 'news')) copy.args.minConfidence = clause.minConfidence;
  return copy as unknown as ConditionNode;
}

/** Runs of not-understood tokens as the phrases written (filler between two of them joins them). */
function phrases(tokens: readonly Token[], indexes: readonly number[]): string[] {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const runs: Array<[number, number]> = [];
  for (const index of sorted) {
    const run = runs[runs.length - 1];
    if (run && index - run[1] <= 2) run[1] = index;
    else runs.push([index, index]);
  }
  return runs.map(([from, to]) => textBetween(tokens, from, to + 1));
}
