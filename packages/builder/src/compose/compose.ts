/**
 * Makes the query request of a turn: a new query from an interpretation, or the current query
 * amended by it (conditions joined with `and` / `or` or replaced, actions added, replaced or removed,
 * options overridden, bare values edited in). Validation is the caller's.
 */
import { walkConditions, type Action, type ConditionGroup, type ConditionNode, type Query, type QueryRequest } from '@eql/core';
import type { Interpretation } from '../assemble/interpret.js';
import { asGroup, group } from '../assemble/tree.js';
import { describeAction, summarizeConditions } from '../describe.js';
import { durationText } from '../format.js';
import type { OrderDraft } from '../grammar/pieces.js';
import { resolveActions } from './actions.js';
import { conditionExchange, mainSymbol, patchOrders, replaceExchange, replaceSpan, replaceSymbol, replaceThreshold } from './edits.js';
import { applyOptions, finishActions } from './finish.js';

/** A reading of the message and the conversation it belongs to. */
export interface ComposeInput {
  interpretation: Interpretation;
  /** The query of the conversation so far. */
  current?: QueryRequest;
  /** Whether the current title was written by the user (else it is regenerated). */
  titleGiven?: boolean;
  now: number;
}

/** The request of a turn (not yet validated), or what to ask. */
export interface Composed {
  request?: QueryRequest;
  /** `new`: a query from scratch; `amended`: the current one changed. */
  kind: 'new' | 'amended';
  titleGiven: boolean;
  questions: string[];
  notes: string[];
  /** Notes about orders, apart: payment mode drops them with the orders. */
  orderNotes: string[];
  unknown: string[];
  /** The message asked to start over. */
  reset: boolean;
}

const AMEND_CUES = ['also', 'instead', 'edit'] as const;
const GENERATED = 'Triggered: ';

/** Composes the request of a turn. Never throws. */
export function compose(input: ComposeInput): Composed {
  const { interpretation: reading, current } = input;
  const cued = AMEND_CUES.some((cue) => reading.cues.has(cue)) || reading.leading !== undefined || reading.removals.length > 0;
  const amend = current !== undefined && !reading.cues.has('reset') && (cued || reading.conditions === undefined || !reading.namesSubject);
  const out: Composed = { kind: amend ? 'amended' : 'new', titleGiven: amend ? input.titleGiven === true : false, questions: [...reading.questions], notes: [...reading.notes], orderNotes: [], unknown: [...reading.unknown], reset: reading.cues.has('reset') };
  const base: Query | undefined = amend && current ? (structuredClone<Query>(current.query)) : undefined;

  const root = conditionsOf(reading, base, out) ?? (amend ? undefined : scheduleFromSpan(reading, input.now, out));
  const existing: Action[] = base?.actions ? [...base.actions] : [];
  const symbol = reading.symbols[0] ?? mainSymbol(base?.conditions, existing);
  const exchange = reading.bare.exchanges[0] ?? reading.exchanges[0] ?? orderExchange(existing) ?? (base ? conditionExchange(base.conditions) : undefined);
  const amounts = [...reading.bare.amounts];
  const chats = [...reading.bare.chats];

  const drafts = reading.actions.filter((draft) => !(draft.type === 'order' && draft.side === undefined && existing.some(isOrder)));
  const patches = reading.actions.filter((draft): draft is OrderDraft => draft.type === 'order' && draft.side === undefined && existing.some(isOrder));
  const summary = root ? summarizeConditions(root) : 'the conditions hold';
  const scheduled = root !== undefined && onlySchedules(root);
  const speed = lastOption(reading, 'speed');
  const priority = lastOption(reading, 'priority');
  const resolved = resolveActions(drafts, { summary, scheduled, amounts, chats, ...(symbol ? { symbol } : {}), ...(exchange ? { exchange } : {}), ...(speed ? { speed } : {}), ...(priority ? { priority } : {}) });
  out.questions.push(...resolved.questions);
  out.notes.push(...resolved.notes);
  out.orderNotes.push(...resolved.orderNotes);

  let actions = existing;
  if (reading.removals.length > 0) actions = actions.filter((action) => !reading.removals.includes(kindOf(action)));
  for (const patch of patches) patchOrders(actions, patch as unknown as Record<string, unknown>);
  if (reading.cues.has('instead') && resolved.actions.length > 0) actions = [];
  for (const action of resolved.actions) {
    const sameKind = actions.findIndex((other) => other.type === action.type && (action.type === 'notify' || action.type === 'llm'));
    if (sameKind >= 0) actions.splice(sameKind, 1, action);
    else actions.push(action);
  }

  if (root && base) applyBareEdits(reading, root, actions, amounts, base, out);
  else leftOver(reading, amounts, out);
  if (!root) {
    if (out.questions.length === 0 && out.unknown.length === 0) out.questions.push('When should it fire? For example "when BTC is above 70,000", "when @elonmusk posts about dogecoin" or "every day at 9:00".');
    return out;
  }
  if (actions.length === 0) {
    if (reading.removals.length > 0 && existing.length > 0) {
      out.questions.push('A query needs at least one action; what should happen when it fires instead?');
      return out;
    }
    actions = [resolveActions([{ type: 'notify' }], { summary: summarizeConditions(root), scheduled, amounts: [], chats: [] }).actions[0] as Action];
  }
  const final = summarizeConditions(root);
  const query: Query = { ...(base ?? {}), conditions: root, actions: finishActions(actions.map((action) => refreshed(action, final))) };
  applyOptions(query, reading, out, base, input.now);
  const request: QueryRequest = { query };
  const title = lastOption(reading, 'title');
  if (title !== undefined) out.titleGiven = true;
  const keptTitle = out.titleGiven && current?.title !== undefined ? current.title : undefined;
  request.title = title ?? keptTitle ?? clip(titleOf(root, query.actions), 120);
  if (current?.description !== undefined && amend) request.description = current.description;
  out.request = request;
  return out;
}

function conditionsOf(reading: Interpretation, base: Query | undefined, out: Composed): ConditionGroup | undefined {
  const fresh = reading.conditions;
  let root: ConditionGroup | undefined = base?.conditions;
  if (fresh && (root === undefined || reading.cues.has('instead') || reading.removals.includes('conditions'))) root = fresh;
  else if (fresh && root) {
    const join = reading.leading ?? (reading.cues.has('also') ? 'or' : 'and');
    if (reading.leading === undefined && reading.cues.has('also')) out.notes.push('"also" with a new condition adds a second way to fire (any of them); say "and only if …" to require both');
    root = join === 'and' ? group('AND', [unwrap(root), unwrap(fresh)]) : group('OR', [unwrap(root), unwrap(fresh)]);
    root = asGroup(root);
  }
  if (root && reading.groupHoldFor !== undefined) root = { ...root, holdFor: reading.groupHoldFor };
  return root;
}

/** A single-member group without holdFor is its member. */
function unwrap(node: ConditionGroup): ConditionNode {
  const members = (node as { AND?: ConditionNode[] }).AND;
  return Array.isArray(members) && members.length === 1 && (node as { holdFor?: string }).holdFor === undefined ? (members[0] as ConditionNode) : node;
}

function applyBareEdits(reading: Interpretation, root: ConditionGroup, actions: Action[], amounts: Interpretation['bare']['amounts'], base: Query, out: Composed): void {
  if (reading.conditions !== undefined || (reading.bare.measures.length > 0 && amounts.length === 0)) {
    leftOver(reading, amounts, out);
    return;
  }
  for (const amount of amounts) {
    const note = replaceThreshold(root, amount, reading.bare.measures[0]?.method);
    if (note) out.notes.push(note);
    else out.unknown.push(String(amount.value));
  }
  const from = mainSymbol(base.conditions, base.actions);
  for (const to of reading.bare.symbols) if (from !== undefined && from !== to) out.notes.push(replaceSymbol(root, actions, from, to));
  for (const span of reading.bare.spans) {
    const note = replaceSpan(root, span);
    if (note) out.notes.push(note);
  }
  for (const exchange of reading.bare.exchanges) out.notes.push(replaceExchange(root, actions, exchange));
}

/** Bare values of a new query that no slot used: not understood, and asked about. */
function leftOver(reading: Interpretation, amounts: Interpretation['bare']['amounts'], out: Composed): void {
  for (const amount of amounts) out.unknown.push(`${amount.dollar ? '$' : ''}${amount.value}${amount.percent ? '%' : ''}`);
  for (const measure of reading.bare.measures) {
    const subject = `${measure.method.replace('_', ' ')}${measure.symbol === undefined ? '' : ` of ${measure.symbol}`}`;
    out.questions.push(`What should the ${subject} do? For example "below 30" or "crosses above 50".`);
  }
  for (const symbol of reading.bare.symbols) out.questions.push(`What should happen with ${symbol}? For example "${symbol} above 100" or "buy $100 of ${symbol}".`);
}

/** `remind me in 2 hours`: a one-off schedule when the message has no condition. */
function scheduleFromSpan(reading: Interpretation, now: number, out: Composed): ConditionGroup | undefined {
  const span = reading.bare.spans.find((candidate) => candidate.how === 'window');
  if (span === undefined || reading.actions.length === 0) return undefined;
  out.notes.push(`fires once, ${durationText(span.ms)} from now`);
  return { AND: [{ source: 'cron', method: 'once', args: { at: new Date(now + span.ms).toISOString().replace(/\.000Z$/, 'Z') } }] };
}

/** A message written by the builder (`Triggered: …`) follows the conditions as they change. */
function refreshed(action: Action, summary: string): Action {
  const params = action.params as { message?: unknown };
  if ((action.type !== 'notify' && action.type !== 'messenger_bot') || typeof params.message !== 'string' || !params.message.startsWith(GENERATED)) return action;
  return { ...action, params: { ...action.params, message: clip(`${GENERATED}${summary}`, 2000) } } as Action;
}

/** Whether every condition is a schedule (then the actions say what the query is about). */
function onlySchedules(root: ConditionGroup): boolean {
  let schedules = true;
  walkConditions(root, '', (visit) => {
    if (visit.kind === 'leaf' && visit.node.source !== 'cron') schedules = false;
  });
  return schedules;
}

/** A default title: the conditions in words; for a schedule, what it does too. */
function titleOf(root: ConditionGroup, actions: readonly Action[]): string {
  const when = summarizeConditions(root);
  if (!onlySchedules(root) || actions[0] === undefined) return capitalize(when);
  return capitalize(`${when}: ${describeAction(actions[0])}`);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function isOrder(action: Action): boolean {
  return action.type === 'market_order' || action.type === 'limit_order';
}

function kindOf(action: Action): Interpretation['removals'][number] {
  return isOrder(action) ? 'order' : (action.type as Interpretation['removals'][number]);
}

function orderExchange(actions: readonly Action[]): string | undefined {
  const order = actions.find(isOrder);
  return order ? ((order.params as { exchange?: string }).exchange ?? undefined) : undefined;
}

interface OptionValues {
  speed: 'fast' | 'expert' | 'adaptive';
  priority: 'low' | 'normal' | 'high';
  title: string;
}

function lastOption<K extends keyof OptionValues>(reading: Interpretation, option: K): OptionValues[K] | undefined {
  const found = reading.options.filter((candidate) => candidate.option === option).pop() as Partial<OptionValues> | undefined;
  return found?.[option];
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
