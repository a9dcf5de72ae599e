import {
  type Candle,
  LexicalMatcher,
  parseDuration,
  type ConditionNode,
  type Observation,
  type PriceObservation,
  type Query,
  type SemanticMatcher,
} from '@eql/core';
import * as textbook from '../../packages/core/test/support/textbook-indicators.js';

/**
 * A brute-force REFERENCE evaluator of EQL trigger instants, written from docs/semantics.md section 8
 * ("Evaluation (the engine)") and deliberately sharing no code with the engine (only `parseDuration`
 * and the pluggable `LexicalMatcher`). It is slow on purpose: every series value is recomputed from the
 * raw observation history at every instant, so that each rule reads like the sentence of the spec it
 * implements. The differential test (packages/core/test/engine-differential.test.ts) checks the engine
 * against it.
 *
 * Covered: price `current`, `change`, `high`, `low`, `volume` with every operator (levels and both
 * crossings), numeric thresholds and live operands of `price` (left - right through 0); tweet and news
 * latches; AND / OR groups at any depth; `holdFor` on levels, latches and groups, and on crossings (read
 * as: a pulse at crossing + D when the value stayed on the crossed side, the engine's reading too);
 * `repeat` (cooldown, maxTriggers, the final rule), latch clearing at a re-arming trigger, `expiresIn`;
 * `cron` once (a level from its time on) and every (a pulse at each of its instants); `llm` conditions
 * judged on recorded verdicts (the latest at or before each judging; judged at the creation, by a timer
 * right after it, then every period; with no verdict yet the condition does not hold).
 * `ta` conditions and live operands of the indicators of the second batch (wma ... ichimoku, on candles up
 * to 1h, every parameter written out), computed on the closed candles of the ticks so far by their
 * independent implementations (packages/core/test/support/textbook-indicators.ts).
 * Not covered (throws): the first 14 `ta` methods (their textbook implementations live in
 * packages/core/test/engine-series/indicators.test.ts). Symbols are matched exactly (no folding
 * of `BTC/USDT` into `BTC`), usernames without case.
 *
 * Model: the instants are every observation and every timer (holdFor expiry, cooldown end, cron, llm
 * judging). At each one every node gets two values, recomputed from the history: `at` (at the instant, pulses included) and
 * `after` (what stays in force until the next instant: pulses over, latches cleared by a re-arming
 * trigger of this instant). A holdFor node counts at an instant when its inner node holds there and has
 * held at every instant and in every gap between instants since a time at least holdFor ago; so a pulse
 * (a crossing) never meets a group's holdFor. The query fires at an instant where the root's `at` holds,
 * it is active and the cooldown (if any) has ended.
 *
 * Readings where the spec leaves room (each a choice, listed in `notes` when an input depends on it):
 * - Instants: each observation is its own instant, in recording order (equal times included). Timer
 *   instants (holdFor, cooldown end, cron) at one time are one instant, after the observations of that time.
 * - A window series (change, high, low, volume) is computed at its symbol's ticks with now = the time of
 *   that tick ("a query on two topics sees, at a tick of one, the latest value of the other"); it does
 *   not slide between ticks.
 * - The query lives in [createdAt, createdAt + lifetime): nothing fires at the expiry instant or after.
 * - "The cooldown would end after expiry": trigger time + cooldown > createdAt + lifetime.
 * - Items (posts, news) at createdAt or later are matched ("before the query was added" is strict).
 * - History: observations before createdAt are the past the query starts with. Series are computed
 *   over every tick from the first observation on (the engine warms its series from a history of the
 *   recording), and when prices came before createdAt the query is judged once at createdAt itself (a
 *   creation instant without an observation), as the engine judges a query when it is added. Items
 *   before createdAt are never matched. createdAt must not be the time of an observation.
 */

export interface ReferenceOptions {
  /** The query's createdAt (epoch ms); observations before it are history. */
  start: number;
  /** The last instant considered (inclusive), the end of the replay. */
  end: number;
  matcher?: SemanticMatcher;
}

export interface ReferenceResult {
  /** Trigger instants, epoch ms, in order. */
  triggers: number[];
  /** Inputs whose outcome depends on an ambiguous reading (see above); empty for unambiguous inputs. */
  notes: string[];
  /**
   * Instants (epoch ms) where a holdFor group held before and after an observation while its members
   * changed in opposite directions (one stopped holding, another started). By the spec the hold is not
   * broken there (the engine "first updates every series and level condition", then judges); an
   * evaluator that propagates member changes one by one can see a momentary break. The engine did, when
   * this was written: see the it.fails case in packages/core/test/engine-differential.test.ts.
   */
  hazards: number[];
}

// ------------------------------------------------------------------ the compiled query

type Method = 'current' | 'change' | 'high' | 'low' | 'volume' | 'ta';
type Comparison = '>' | '>=' | '<' | '<=' | '==' | '!=';
type Operator = Comparison | 'crosses_above' | 'crosses_below';

interface SeriesSpec {
  symbol: string;
  method: Method;
  periodMs: number;
  /** For `ta`: the indicator, its args (every parameter written out) and its candle length (periodMs). */
  ta?: { method: string; args: Record<string, unknown>; key: string };
}

interface NodeBase {
  id: number;
  holdMs: number | undefined;
}

interface GroupNode extends NodeBase {
  kind: 'group';
  op: 'AND' | 'OR';
  members: RefNode[];
}

interface NumericNode extends NodeBase {
  kind: 'numeric';
  left: SeriesSpec;
  right: SeriesSpec | number;
  operator: Operator;
}

interface LatchNode extends NodeBase {
  kind: 'latch';
  /** Lowercased username for tweets; undefined for news. */
  username: string | undefined;
  text: string;
  passes: (confidence: number) => boolean;
}

interface CronNode extends NodeBase {
  kind: 'cron';
  /** `once`: holds from `at` on. `every`: a pulse at `startAt + k·period` (k >= 0), or `created + k·period` (k >= 1). */
  mode: 'once' | 'every';
  at: number;
  periodMs: number;
  startAt: number | undefined;
  /** `every`: its instants within the replay, set once the creation time is known. */
  instants: Set<number>;
}

interface LlmNode extends NodeBase {
  kind: 'llm';
  /** The predicate, compared without case or extra spaces (as the recorded verdicts are looked up). */
  query: string;
  periodMs: number;
  passes: (confidence: number) => boolean;
  /** Its judging instants within the replay (the creation, then every period), set once the creation is known. */
  judges: number[];
}

type RefNode = GroupNode | NumericNode | LatchNode | CronNode | LlmNode;

function compare(left: number, op: Comparison, right: number): boolean {
  switch (op) {
    case '>':
      return left > right;
    case '>=':
      return left >= right;
    case '<':
      return left < right;
    case '<=':
      return left <= right;
    case '==':
      return left === right;
    case '!=':
      return left !== right;
  }
}

function durationMs(text: unknown, what: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new Error(`reference: ${what} is not a duration: ${String(text)}`);
  return ms;
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`reference: ${what} must be an object`);
  return value as Record<string, unknown>;
}

function seriesSpec(source: unknown, method: unknown, args: unknown): SeriesSpec {
  if (source === 'ta') return taSpec(method, record(args, 'args'));
  if (source !== 'price') throw new Error(`reference: source ${String(source)} is not covered (only price and ta series)`);
  const a = record(args, 'args');
  if (typeof a.symbol !== 'string') throw new Error('reference: symbol missing');
  switch (method) {
    case 'current':
      return { symbol: a.symbol, method, periodMs: 0 };
    case 'change':
    case 'high':
    case 'low':
    case 'volume':
      return { symbol: a.symbol, method, periodMs: durationMs(a.period, 'period') };
    default:
      throw new Error(`reference: price method ${String(method)} is not covered`);
  }
}

function compile(node: ConditionNode, counter: { next: number }): RefNode {
  const raw = node as unknown as Record<string, unknown>;
  const holdMs = raw.holdFor === undefined ? undefined : durationMs(raw.holdFor, 'holdFor');
  const id = counter.next++;
  if (Array.isArray(raw.AND) || Array.isArray(raw.OR)) {
    const op = Array.isArray(raw.AND) ? 'AND' : 'OR';
    const members = (raw[op] as ConditionNode[]).map((member) => compile(member, counter));
    return { kind: 'group', id, holdMs, op, members };
  }
  switch (raw.source) {
    case 'ta':
    case 'price': {
      const operator = raw.operator as Operator;
      const value = raw.value;
      const right = typeof value === 'number' ? value : (() => {
        const operand = record(value, 'value');
        return seriesSpec(operand.source, operand.method, operand.args);
      })();
      return { kind: 'numeric', id, holdMs, left: seriesSpec(raw.source, raw.method, raw.args), right, operator };
    }
    case 'tweet':
    case 'news': {
      const args = record(raw.args, 'args');
      const text = String(args.text);
      const username = raw.source === 'tweet' ? String(args.username).toLowerCase() : undefined;
      return { kind: 'latch', id, holdMs, username, text, passes: confidenceTest(raw, args) };
    }
    case 'llm': {
      const args = record(raw.args, 'args');
      return { kind: 'llm', id, holdMs, query: normalizedPredicate(String(args.query)), periodMs: durationMs(args.period, 'period'), passes: confidenceTest(raw, args), judges: [] };
    }
    case 'cron': {
      const args = record(raw.args, 'args');
      if (raw.method === 'once') return { kind: 'cron', id, holdMs, mode: 'once', at: isoTime(args.at, 'at'), periodMs: 0, startAt: undefined, instants: new Set() };
      if (raw.method !== 'every') throw new Error(`reference: cron method ${String(raw.method)} is not covered`);
      const startAt = args.startAt === undefined ? undefined : isoTime(args.startAt, 'startAt');
      return { kind: 'cron', id, holdMs, mode: 'every', at: 0, periodMs: durationMs(args.period, 'period'), startAt, instants: new Set() };
    }
    default:
      throw new Error(`reference: source ${String(raw.source)} is not covered`);
  }
}

/** The test of a confidence (tweet, news, llm): the condition's own `operator value`, else `>= minConfidence` (80 by default). */
function confidenceTest(raw: Record<string, unknown>, args: Record<string, unknown>): (confidence: number) => boolean {
  const operator = raw.operator as Comparison | undefined;
  const threshold = raw.value as number | undefined;
  if (operator !== undefined && threshold !== undefined) return (confidence) => compare(confidence, operator, threshold);
  const minConfidence = typeof args.minConfidence === 'number' ? args.minConfidence : 80;
  return (confidence) => confidence >= minConfidence;
}

function normalizedPredicate(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, ' ');
}

function isoTime(text: unknown, what: string): number {
  const time = typeof text === 'string' ? Date.parse(text) : NaN;
  if (Number.isNaN(time)) throw new Error(`reference: ${what} is not a time: ${String(text)}`);
  return time;
}

function allNodes(node: RefNode, out: RefNode[] = []): RefNode[] {
  if (node.kind === 'group') for (const member of node.members) allNodes(member, out);
  out.push(node); // members before their group: evaluation order
  return out;
}

// ------------------------------------------------------------------ evaluation

interface Instant {
  time: number;
  /** How many observations (in recording order) have arrived at this instant, this one included. */
  prefix: number;
  /** The observation of this instant, when it is one (a timer instant has none). */
  observation: Observation | undefined;
  /** A timer instant (not an observation, not the creation). */
  timer: boolean;
}

/** Trigger instants of `query` over `observations` (in recording order) within [start, end]. */
export function referenceTriggers(query: Query, observations: readonly Observation[], options: ReferenceOptions): ReferenceResult {
  const matcher = options.matcher ?? new LexicalMatcher();
  const notes: string[] = [];
  const root = compile(query.conditions, { next: 0 });
  const nodes = allNodes(root);
  const lifetime = query.expiresIn === undefined ? 24 * 3_600_000 : durationMs(query.expiresIn, 'expiresIn');
  const expiry = options.start + lifetime;
  const cooldown = query.repeat ? durationMs(query.repeat.cooldown, 'cooldown') : undefined;
  const maxTriggers = query.repeat?.maxTriggers;

  for (let k = 1; k < observations.length; k += 1) {
    const a = observations[k - 1] as Observation;
    const b = observations[k] as Observation;
    if (b.at < a.at) throw new Error('reference: observations must be in time order');
    if (a.at === b.at && topicOf(a) !== topicOf(b)) notes.push(`observations of ${topicOf(a)} and ${topicOf(b)} at the same time ${a.at}`);
  }
  const history = observations.filter((o) => o.at < options.start).length;
  if (history > 0 && observations.some((o) => o.at === options.start)) throw new Error('reference: createdAt at the time of an observation is not covered');
  const observationTimes = new Set(observations.map((o) => o.at));

  // ---- series, recomputed from the raw history each time (cached by (series, prefix) only for speed)
  const seriesCache = new Map<string, number | undefined>();
  const seriesValue = (spec: SeriesSpec, prefix: number): number | undefined => {
    const key = `${spec.symbol}|${spec.method}|${spec.periodMs}|${spec.ta?.key ?? ''}|${prefix}`;
    if (seriesCache.has(key)) return seriesCache.get(key);
    const ticks: PriceObservation[] = [];
    for (let k = 0; k < prefix; k += 1) {
      const o = observations[k] as Observation;
      if (o.source === 'price' && o.symbol === spec.symbol) ticks.push(o);
    }
    const value = computeSeries(spec, ticks);
    seriesCache.set(key, value);
    return value;
  };

  // ---- per node and instant: `at` (at the instant, pulses included, before firing) and `after` (in
  // force until the next instant: pulses over, latches cleared by a re-arming trigger at this instant).
  const instants: Instant[] = [];
  const innerAt = new Map<number, boolean[]>();
  const innerAfter = new Map<number, boolean[]>();
  const finalAt = new Map<number, boolean[]>();
  const finalAfter = new Map<number, boolean[]>();
  const crossedAt = new Map<number, boolean[]>(); // numeric crossing leaves: a crossing happened at instant i
  for (const node of nodes) {
    innerAt.set(node.id, []);
    innerAfter.set(node.id, []);
    finalAt.set(node.id, []);
    finalAfter.set(node.id, []);
    crossedAt.set(node.id, []);
  }
  const get = (map: Map<number, boolean[]>, node: RefNode, i: number): boolean => (map.get(node.id) as boolean[])[i] === true;
  const set = (map: Map<number, boolean[]>, node: RefNode, i: number, value: boolean) => {
    (map.get(node.id) as boolean[])[i] = value;
  };

  /** Whether the comparison of a numeric leaf holds with the values after `prefix` observations. */
  const levelHolds = (node: NumericNode, prefix: number, op: Comparison): boolean => {
    const left = seriesValue(node.left, prefix);
    const right = typeof node.right === 'number' ? node.right : seriesValue(node.right, prefix);
    // A live operand: until both sides have a value it does not hold.
    return left !== undefined && right !== undefined && compare(left, op, right);
  };

  /** Whether numeric crossing leaf `node` crosses at instant i: an update of one of its series there. */
  const crossesAt = (node: NumericNode, i: number): boolean => {
    const instant = instants[i] as Instant;
    const o = instant.observation;
    if (o?.source !== 'price') return false;
    const symbols = [node.left.symbol, ...(typeof node.right === 'number' ? [] : [node.right.symbol])];
    if (!symbols.includes(o.symbol)) return false;
    const before = instant.prefix - 1;
    const leftNew = seriesValue(node.left, instant.prefix);
    const leftOld = seriesValue(node.left, before);
    let previous: number | undefined;
    let current: number | undefined;
    let threshold = 0;
    if (typeof node.right === 'number') {
      previous = leftOld;
      current = leftNew;
      threshold = node.right;
    } else {
      // Live operand: the test is on left - right through 0.
      const rightNew = seriesValue(node.right, instant.prefix);
      const rightOld = seriesValue(node.right, before);
      previous = leftOld === undefined || rightOld === undefined ? undefined : leftOld - rightOld;
      current = leftNew === undefined || rightNew === undefined ? undefined : leftNew - rightNew;
    }
    // The first value of a series is never a crossing.
    if (previous === undefined || current === undefined) return false;
    return node.operator === 'crosses_above' ? previous <= threshold && current > threshold : previous >= threshold && current < threshold;
  };

  let lastClear = -1; // instant index of the last re-arming trigger: latches count items after it
  const latchHolds = (node: LatchNode, i: number): boolean => {
    for (let j = lastClear + 1; j <= i; j += 1) {
      const o = (instants[j] as Instant).observation;
      if (o === undefined) continue;
      const onTopic = node.username === undefined ? o.source === 'news' : o.source === 'tweet' && o.username.toLowerCase() === node.username;
      if (!onTopic) continue;
      if (node.passes(matcher.match(node.text, (o as { text: string }).text))) return true;
    }
    return false;
  };

  /** The time since which the node's inner value has held without a break, as of instant i (it holds at i). */
  const heldSince = (node: RefNode, i: number): number => {
    let j = i;
    while (j > 0 && get(innerAt, node, j - 1) && get(innerAfter, node, j - 1)) j -= 1;
    return (instants[j] as Instant).time;
  };

  const timers = new Set<number>();
  // Cron instants are timer instants: `once` at its time when that comes after the creation, `every` at
  // each of its instants from the creation on (earlier ones are skipped, as for a query added late).
  for (const node of nodes) {
    if (node.kind !== 'cron') continue;
    if (node.mode === 'once') {
      if (node.at > options.start) timers.add(node.at);
      continue;
    }
    const base = node.startAt ?? options.start;
    const first = Math.max(node.startAt === undefined ? 1 : 0, Math.ceil((options.start - base) / node.periodMs));
    for (let k = first; base + k * node.periodMs <= Math.min(options.end, expiry); k += 1) {
      node.instants.add(base + k * node.periodMs);
      timers.add(base + k * node.periodMs);
    }
    // The engine pulses then, after judging the new query: a second instant at the same time.
    if (node.instants.has(options.start)) notes.push(`a cron instant at the creation ${options.start}`);
  }
  // An llm condition is judged at the creation (a timer instant right after it) and then every period.
  for (const node of nodes) {
    if (node.kind !== 'llm') continue;
    for (let time = options.start; time <= Math.min(options.end, expiry); time += node.periodMs) {
      node.judges.push(time);
      timers.add(time);
    }
  }
  /** The verdict an llm condition stands on at instant i: the latest recorded at or before its last judging. */
  const llmHolds = (node: LlmNode, instant: Instant): boolean => {
    let judged: number | undefined;
    for (const time of node.judges) if (time < instant.time || (time === instant.time && instant.timer)) judged = time;
    if (judged === undefined) return false;
    let confidence: number | undefined;
    for (const o of observations) {
      if (o.at > judged) break;
      if (o.source === 'llm' && normalizedPredicate(o.query) === node.query) confidence = Math.max(0, Math.min(100, o.confidence));
    }
    // No verdict recorded yet: the judgement fails and the condition keeps its state (none: it does not hold).
    return confidence !== undefined && node.passes(confidence);
  };

  /** Phase 1 at instant i: `at` of every node, members first. */
  const evaluateAt = (i: number) => {
    const instant = instants[i] as Instant;
    for (const node of nodes) {
      let inner: boolean;
      if (node.kind === 'group') {
        inner = groupOf(node, node.members.map((member) => get(finalAt, member, i)));
      } else if (node.kind === 'latch') {
        inner = latchHolds(node, i);
      } else if (node.kind === 'llm') {
        inner = llmHolds(node, instant);
      } else if (node.kind === 'cron') {
        // once: a level from its time on; every: a pulse at a timer instant that is one of its instants.
        inner = node.mode === 'once' ? instant.time >= node.at : instant.observation === undefined && node.instants.has(instant.time);
        set(innerAt, node, i, inner);
        set(finalAt, node, i, inner);
        continue;
      } else if (node.operator === 'crosses_above' || node.operator === 'crosses_below') {
        const crossed = crossesAt(node, i);
        set(crossedAt, node, i, crossed);
        if (node.holdMs === undefined) {
          inner = crossed; // a pulse
        } else {
          // Counts (a pulse) at crossing + D when the value stayed on the crossed side since the crossing.
          if (crossed) timers.add(instant.time + node.holdMs);
          const side: Comparison = node.operator === 'crosses_above' ? '>' : '<';
          inner = false;
          for (let c = i - 1; c >= 0; c -= 1) {
            if (!levelHolds(node, (instants[c + 1] as Instant).prefix, side)) break;
            if (get(crossedAt, node, c)) {
              inner = (instants[c] as Instant).time + node.holdMs === instant.time;
              break;
            }
          }
        }
        set(innerAt, node, i, inner);
        set(finalAt, node, i, inner);
        continue;
      } else {
        inner = levelHolds(node, instant.prefix, node.operator);
      }
      set(innerAt, node, i, inner);
      if (node.holdMs === undefined) {
        set(finalAt, node, i, inner);
      } else {
        const since = inner ? heldSince(node, i) : undefined;
        set(finalAt, node, i, since !== undefined && instant.time - since >= node.holdMs);
      }
    }
  };

  /** Phase 2 at instant i (after firing): what stays in force until the next instant. */
  const evaluateAfter = (i: number) => {
    const instant = instants[i] as Instant;
    for (const node of nodes) {
      let inner: boolean;
      if (node.kind === 'group') {
        inner = groupOf(node, node.members.map((member) => get(finalAfter, member, i)));
      } else if (node.kind === 'latch') {
        inner = latchHolds(node, i); // false when a re-arming trigger cleared it at this instant
      } else if (node.kind === 'llm') {
        inner = llmHolds(node, instant);
      } else if (node.kind === 'cron') {
        const holds = node.mode === 'once' && instant.time >= node.at; // a pulse is over
        set(innerAfter, node, i, holds);
        set(finalAfter, node, i, holds);
        continue;
      } else if (node.operator === 'crosses_above' || node.operator === 'crosses_below') {
        set(innerAfter, node, i, false); // pulses are over
        set(finalAfter, node, i, false);
        continue;
      } else {
        inner = levelHolds(node, instant.prefix, node.operator);
      }
      set(innerAfter, node, i, inner);
      if (node.holdMs === undefined) {
        set(finalAfter, node, i, inner);
        continue;
      }
      const holdsAt = get(innerAt, node, i);
      const since = holdsAt && inner ? heldSince(node, i) : undefined;
      set(finalAfter, node, i, since !== undefined && instant.time - since >= node.holdMs);
      // It started holding at this instant: a timer fires when it has held for holdFor.
      if (since === instant.time && (i === 0 || !get(innerAfter, node, i - 1) || !get(innerAt, node, i - 1))) timers.add(since + node.holdMs);
    }
  };

  /** A node's value at instant i without pulses (crossing leaves are pulses, or pulses after their holdFor). */
  const steadyAt = (node: RefNode, i: number): boolean => {
    if (node.kind === 'numeric' && (node.operator === 'crosses_above' || node.operator === 'crosses_below')) return false;
    if (node.kind === 'cron' && node.mode === 'every') return false;
    if (node.kind !== 'group' || node.holdMs !== undefined) return get(finalAt, node, i);
    return groupOf(node, node.members.map((member) => steadyAt(member, i)));
  };
  /**
   * Whether a group without holdFor held before instant i and at i, but could pass through "not holding"
   * if its members were updated one at a time: an AND through a member that could; an OR when no member
   * held steadily across the instant.
   */
  const couldFlicker = (node: RefNode, i: number, viaInner = false): boolean => {
    if (node.kind !== 'group' || (node.holdMs !== undefined && !viaInner) || i === 0) return false;
    const before = viaInner ? get(innerAfter, node, i - 1) : get(finalAfter, node, i - 1);
    const now = groupOf(node, node.members.map((member) => steadyAt(member, i)));
    if (!before || !now) return false;
    const steady = (member: RefNode) => get(finalAfter, member, i - 1) && steadyAt(member, i) && !couldFlicker(member, i);
    return node.op === 'AND' ? node.members.some((member) => couldFlicker(member, i)) : !node.members.some(steady);
  };
  const hazards: number[] = [];

  const triggers: number[] = [];
  let active = true;
  let count = 0;
  let cooldownEnd = -Infinity;
  /** Fires at the first instant the root holds while active and out of cooldown. */
  const fireIfHolds = (i: number, time: number): void => {
    if (time < cooldownEnd || !get(finalAt, root, i)) return;
    triggers.push(time);
    count += 1;
    const final = cooldown === undefined || (maxTriggers !== undefined && count >= maxTriggers) || time + cooldown > expiry;
    if (final) {
      active = false;
    } else {
      cooldownEnd = time + cooldown;
      timers.add(cooldownEnd); // re-arms then: fires at once if the root holds
      lastClear = i; // latched matches are cleared: a new post or news item is needed
    }
  };
  let next = history; // next observation
  // The engine judges a query when it is added: something can hold then with prices of the history, or
  // with a cron once whose time has come.
  let creationPending = observations.slice(0, history).some((o) => o.source === 'price') || nodes.some((node) => node.kind === 'cron' && node.mode === 'once' && node.at <= options.start);
  while (active) {
    if (creationPending) {
      // The creation instant: the query is judged with the values of the history.
      creationPending = false;
      const i = instants.length;
      instants.push({ time: options.start, prefix: history, observation: undefined, timer: false });
      evaluateAt(i);
      fireIfHolds(i, options.start);
      evaluateAfter(i);
      continue;
    }
    const observationTime = next < observations.length ? (observations[next] as Observation).at : Infinity;
    let timerTime = Infinity;
    for (const t of timers) if (t < timerTime) timerTime = t;
    const time = Math.min(observationTime, timerTime);
    if (time > options.end || !Number.isFinite(time)) break;
    const last = instants[instants.length - 1];
    if (last !== undefined && time < last.time) throw new Error('reference: time went backwards');
    if (time === expiry) notes.push(`an instant at the expiry ${expiry}`);
    if (time >= expiry) break; // expired
    let instant: Instant;
    if (observationTime <= timerTime) {
      if (observationTime === timerTime) notes.push(`a timer at the time of an observation ${time}`);
      next += 1;
      instant = { time, prefix: next, observation: observations[next - 1], timer: false };
    } else {
      timers.delete(timerTime);
      if (observationTimes.has(timerTime)) notes.push(`a timer at the time of an observation ${time}`);
      instant = { time, prefix: next, observation: undefined, timer: true };
    }
    const i = instants.length;
    instants.push(instant);
    evaluateAt(i);
    if (instant.observation !== undefined && nodes.some((node) => node.kind === 'group' && node.holdMs !== undefined && couldFlicker(node, i, true))) hazards.push(time);
    fireIfHolds(i, time);
    evaluateAfter(i);
  }
  return { triggers, notes, hazards };
}

function groupOf(node: GroupNode, values: boolean[]): boolean {
  return node.op === 'AND' ? values.every(Boolean) : values.some(Boolean);
}

function topicOf(o: Observation): string {
  switch (o.source) {
    case 'price':
      return `price:${o.symbol}`;
    case 'tweet':
      return `tweet:${o.username.toLowerCase()}`;
    default:
      return o.source;
  }
}

/** A series' value after `ticks` (the symbol's ticks so far, in order), computed at the last tick. */
function computeSeries(spec: SeriesSpec, ticks: readonly PriceObservation[]): number | undefined {
  const last = ticks[ticks.length - 1];
  if (last === undefined) return undefined;
  const now = last.at;
  switch (spec.method) {
    case 'current':
      return last.price;
    case 'change': {
      // Against the last price at or before now - P; no value until P of history.
      let reference: PriceObservation | undefined;
      for (const tick of ticks) if (tick.at <= now - spec.periodMs) reference = tick;
      return reference === undefined ? undefined : ((last.price - reference.price) / reference.price) * 100;
    }
    case 'ta': {
      const ta = spec.ta as NonNullable<SeriesSpec['ta']>;
      const values = textbookSeries(ta.method, ta.args, closedCandles(ticks, spec.periodMs));
      return values[values.length - 1];
    }
    case 'high':
    case 'low':
    case 'volume': {
      // The ticks in (now - P, now].
      const inWindow = ticks.filter((tick) => tick.at > now - spec.periodMs && tick.at <= now);
      if (spec.method === 'volume') return inWindow.reduce((sum, tick) => sum + (tick.volume ?? 0), 0);
      const prices = inWindow.map((tick) => tick.price);
      return spec.method === 'high' ? Math.max(...prices) : Math.min(...prices);
    }
  }
}

// ------------------------------------------------------------------ ta series (docs/semantics.md, "Candles")

const TIMEFRAMES_MS: Readonly<Record<string, number>> = { '1m': 60_000, '3m': 180_000, '5m': 300_000, '15m': 900_000, '30m': 1_800_000, '1h': 3_600_000 };

/**
 * A `ta` series: the indicators the reference computes (the second batch, from their independent
 * implementations in packages/core/test/support/textbook-indicators.ts) on candles of up to 1h. Every
 * parameter must be written out: the reference knows no defaults.
 */
function taSpec(method: unknown, args: Record<string, unknown>): SeriesSpec {
  if (typeof method !== 'string' || !TEXTBOOK_METHODS.has(method)) throw new Error(`reference: ta method ${String(method)} is not covered`);
  if (typeof args.symbol !== 'string') throw new Error('reference: symbol missing');
  const frameMs = TIMEFRAMES_MS[String(args.timeframe)];
  if (frameMs === undefined) throw new Error(`reference: timeframe ${String(args.timeframe)} is not covered`);
  return { symbol: args.symbol, method: 'ta', periodMs: frameMs, ta: { method, args, key: `${method}${JSON.stringify(args)}` } };
}

/**
 * The closed candles of a symbol after its ticks so far: ticks fall in buckets of `frameMs` counted from
 * the epoch; a bucket's candle closes once a tick of a later bucket came, so the bucket of the last tick
 * is still forming; buckets without ticks make no candle.
 */
function closedCandles(ticks: readonly PriceObservation[], frameMs: number): Candle[] {
  const candles: Candle[] = [];
  for (const tick of ticks) {
    const start = Math.floor(tick.at / frameMs) * frameMs;
    const volume = tick.volume !== undefined && Number.isFinite(tick.volume) && tick.volume > 0 ? tick.volume : 0;
    const last = candles[candles.length - 1];
    if (last !== undefined && last.start === start) {
      candles[candles.length - 1] = { ...last, high: Math.max(last.high, tick.price), low: Math.min(last.low, tick.price), close: tick.price, volume: last.volume + volume };
    } else {
      candles.push({ start, open: tick.price, high: tick.price, low: tick.price, close: tick.price, volume });
    }
  }
  return candles.slice(0, -1);
}

function numberArg(args: Record<string, unknown>, name: string): number {
  const value = args[name];
  if (typeof value !== 'number') throw new Error(`reference: ta parameter ${name} must be written out`);
  return value;
}

const TEXTBOOK_METHODS: ReadonlySet<string> = new Set([
  'wma', 'hma', 'dema', 'tema', 'vwap', 'supertrend', 'supertrend_direction', 'adx', 'plus_di', 'minus_di', 'psar', 'obv', 'mfi',
  'stochrsi_k', 'stochrsi_d', 'keltner_upper', 'keltner_middle', 'keltner_lower', 'donchian_upper', 'donchian_middle', 'donchian_lower',
  'ichimoku_conversion', 'ichimoku_base', 'ichimoku_span_a', 'ichimoku_span_b',
]);

/** The values of a ta method after each closed candle, from its independent implementation. */
function textbookSeries(method: string, args: Record<string, unknown>, candles: readonly Candle[]): Array<number | undefined> {
  const n = (name: string) => numberArg(args, name);
  switch (method) {
    case 'wma':
      return textbook.wma(candles, n('period'));
    case 'hma':
      return textbook.hma(candles, n('period'));
    case 'dema':
      return textbook.dema(candles, n('period'));
    case 'tema':
      return textbook.tema(candles, n('period'));
    case 'vwap':
      return textbook.vwap(candles);
    case 'supertrend':
      return textbook.supertrend(candles, n('period'), n('multiplier')).supertrend;
    case 'supertrend_direction':
      return textbook.supertrend(candles, n('period'), n('multiplier')).direction;
    case 'adx':
      return textbook.dmi(candles, n('period'), n('smoothPeriod')).adx;
    case 'plus_di':
      return textbook.dmi(candles, n('period'), n('smoothPeriod')).plusDi;
    case 'minus_di':
      return textbook.dmi(candles, n('period'), n('smoothPeriod')).minusDi;
    case 'psar':
      return textbook.psar(candles, n('acceleration'), n('maxAcceleration'));
    case 'obv':
      return textbook.obv(candles, n('period'));
    case 'mfi':
      return textbook.mfi(candles, n('period'));
    case 'stochrsi_k':
      return textbook.stochRsi(candles, n('period'), n('smoothPeriod'), n('signalPeriod')).k;
    case 'stochrsi_d':
      return textbook.stochRsi(candles, n('period'), n('smoothPeriod'), n('signalPeriod')).d;
    case 'keltner_upper':
    case 'keltner_middle':
    case 'keltner_lower':
      return textbook.keltner(candles, n('period'), n('atrPeriod'), n('multiplier'))[method.slice('keltner_'.length) as 'upper' | 'middle' | 'lower'];
    case 'donchian_upper':
    case 'donchian_middle':
    case 'donchian_lower':
      return textbook.donchian(candles, n('period'))[method.slice('donchian_'.length) as 'upper' | 'middle' | 'lower'];
    default: {
      const cloud = textbook.ichimoku(candles, n('conversionPeriod'), n('basePeriod'), n('spanPeriod'), n('displacement'));
      const line = { ichimoku_conversion: cloud.conversion, ichimoku_base: cloud.base, ichimoku_span_a: cloud.spanA, ichimoku_span_b: cloud.spanB }[method];
      if (line === undefined) throw new Error(`reference: ta method ${method} is not covered`);
      return line;
    }
  }
}


/**
 * The values a `ta` series of the second batch takes over a whole recording (after each closed candle of
 * `symbol`), for a generator to draw thresholds the series crosses.
 */
export function referenceIndicatorValues(method: string, args: Record<string, unknown>, observations: readonly Observation[]): number[] {
  const spec = taSpec(method, args);
  const ticks = observations.filter((o): o is PriceObservation => o.source === 'price' && o.symbol === spec.symbol);
  return textbookSeries(method, args, closedCandles(ticks, spec.periodMs)).filter((value): value is number => value !== undefined);
}

/** The methods the reference computes a `ta` series of. */
export const REFERENCE_TA_METHODS: readonly string[] = [...TEXTBOOK_METHODS];
