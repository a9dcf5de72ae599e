import type { Subscription } from 'rxjs';
import { lifetimeOf } from '../cost/estimate.js';
import type { ConditionNode as ConditionNodeJson, Query } from '../generated/eql-types.js';
import { parseDuration } from '../language/duration.js';
import { actionsUseTemplates, type ConditionFacts, conditionFacts } from '../language/message-template.js';
import { LIMITS } from '../language/limits.js';
import { isRecord } from '../util/json-pointer.js';
import { checkRequestSchema } from '../validation/schema-check.js';
import { type ActionStep, actionSteps } from './action-steps.js';
import { ConditionGroup, type ConditionNode } from './condition-tree.js';
import type { ConditionState, QueryToRun, RuntimeState } from './interfaces.js';
import { InvalidQueryError } from './invalid-query.js';
import { CronLeaf } from './leaves/cron-leaf.js';
import type { Comparison, Leaf, LeafHost } from './leaves/leaf.js';
import { LlmLeaf } from './leaves/llm-leaf.js';
import { NumericLeaf, type NumericOperand } from './leaves/numeric-leaf.js';
import { SemanticLeaf } from './leaves/semantic-leaf.js';
import type { LeafServices } from './services.js';
import type { ThresholdOperator } from './threshold-index.js';

/** What a query needs from the engine besides what its leaves need. */
export interface QueryServices extends LeafServices {
  /** The root came to hold (see ConditionTreeHost.rootHolds). */
  rootHolds(query: QueryRuntime, pulse: boolean): void;
  /** A leaf's effective state changed. */
  conditionChanged(query: QueryRuntime, node: ConditionNode): void;
  /** The query stopped watching (fired for good, expired, cancelled, removed). */
  detached(query: QueryRuntime): void;
}

export type QueryStatus = RuntimeState['status'];

/** A repeat policy at run time: its numbers, and the cooldown of the last trigger. */
interface Rearming {
  readonly cooldownMs: number;
  /** The bound on triggers, when the policy has one. */
  readonly maxTriggers: number | undefined;
  /** The query may fire again from this instant on (-Infinity before its first trigger). */
  armedFrom: number;
  /** The re-arm of a level condition that still holds once the cooldown ends. */
  timer: Subscription | undefined;
}

/** The fields the constructor sets from the request, which only `renew` sets again. */
type FixedAtStart = { -readonly [K in 'id' | 'actions' | 'title' | 'ownerId' | 'createdAt' | 'expiresAt' | 'root' | 'templateFacts']: QueryRuntime[K] };

/** The empty map of a runtime state that remembers nothing of its kind (most do): shared, so frozen. */
const NONE: Record<string, never> = Object.freeze({});

/**
 * One active query at run time: its condition tree and leaves, its lifecycle state (status, triggers,
 * cooldown) and what it must persist. Firing and actions are the engine's; this class says whether
 * the query may fire and keeps its books.
 */
export class QueryRuntime implements LeafHost {
  /**
   * The runtime of a request that conforms to the EQL schema; `InvalidQueryError` (with the query id and
   * where) for one that does not, or that cannot be built.
   */
  static checked(services: QueryServices, source: QueryToRun, resume?: RuntimeState, spares?: { take(): QueryRuntime | undefined }): QueryRuntime {
    const schemaErrors = checkRequestSchema(source.request);
    if (schemaErrors.length > 0) throw InvalidQueryError.fromSchemaErrors(source.queryId, schemaErrors);
    try {
      const spare = spares?.take();
      return spare === undefined ? new QueryRuntime(services, source, resume) : spare.renew(source, resume);
    } catch (error) {
      throw new InvalidQueryError(source.queryId, [{ pointer: '', message: error instanceof Error ? error.message : String(error) }]);
    }
  }

  readonly id!: string;
  /**
   * The query's actions. Of the rest of the request a run keeps only what it reads (the repeat policy's
   * numbers, the title); the conditions live on as the condition tree.
   */
  readonly actions!: Query['actions'];
  /** The executions a trigger runs, in order (made on the first trigger). */
  get steps(): readonly ActionStep[] {
    return (this.cachedSteps ??= actionSteps(this.actions));
  }
  private cachedSteps: ActionStep[] | undefined;
  /** The repeat policy and its cooldown, when the query has one (most fire once: one field, not four). */
  private rearming!: Rearming | undefined;
  readonly title!: string | undefined;
  /** The symbol and operator of each condition, kept only when an action's text has placeholders (message-template.ts). */
  readonly templateFacts!: ConditionFacts | undefined;
  readonly ownerId!: string | undefined;
  readonly createdAt!: number;
  readonly expiresAt!: number;
  /** The condition tree: its leaves are the conditions themselves (a query of one condition is one node). */
  readonly root!: ConditionNode;
  /** Position in the engine's expiry queue (-1 when not queued). */
  expiryIndex = -1;
  status!: QueryStatus;
  triggerCount!: number;
  lastTriggerAt: number | undefined;
  pendingTrigger: RuntimeState['pendingTrigger'];
  /** The actions of a trigger are running; no other trigger may start. */
  firing = false;
  private attached = false;

  constructor(
    readonly services: QueryServices,
    source: QueryToRun,
    resume?: RuntimeState,
  ) {
    this.start(source, resume, undefined);
  }

  /**
   * Whether the engine may make this object (and its leaf) another query's runtime once it has removed it
   * ({@link renew}): it has let everything go (detached, no trigger running, out of the expiry queue), and
   * its condition is a single price or indicator leaf, which no asynchronous answer can reach later.
   */
  get reusable(): boolean {
    return !this.attached && !this.firing && this.expiryIndex < 0 && this.root instanceof NumericLeaf;
  }

  /**
   * This removed query's objects made the runtime of another query, as `new QueryRuntime` would make it.
   * A query that fires once and is replaced (an alert) leaves its runtime and leaf behind at each fire: new
   * ones would be copied by the collector's young collections as they outlive them, about two fifths of what
   * a fire leaves alive; these have done so already (docs/performance.md, nineteenth round). Only for a
   * query that is {@link reusable} and that the engine has let go of. A field added to this class (or to
   * `NumericLeaf` and `ConditionNode`) is set again here (`engine-spare-queries.test.ts` takes queries through).
   */
  renew(source: QueryToRun, resume: RuntimeState | undefined): this {
    const spareLeaf = this.root instanceof NumericLeaf ? this.root : undefined;
    this.cachedSteps = undefined;
    this.expiryIndex = -1;
    this.firing = false;
    this.attached = false;
    this.start(source, resume, spareLeaf);
    return this;
  }

  /** What the constructor sets from the request (and `renew` again); `spareLeaf` becomes the root when the root is a price or indicator leaf. */
  private start(source: QueryToRun, resume: RuntimeState | undefined, spareLeaf: NumericLeaf | undefined): void {
    const query = source.request.query;
    const fixed = this as unknown as FixedAtStart;
    fixed.id = source.queryId;
    fixed.actions = query.actions;
    fixed.title = source.request.title;
    fixed.templateFacts = actionsUseTemplates(query.actions) ? conditionFacts(query.conditions) : undefined;
    fixed.ownerId = source.ownerId;
    fixed.createdAt = source.createdAt;
    fixed.expiresAt = source.createdAt + lifetimeOf(query);
    this.status = resume?.status ?? 'active';
    this.triggerCount = resume?.triggerCount ?? 0;
    this.lastTriggerAt = resume?.lastTriggerAt;
    this.pendingTrigger = resume?.pendingTrigger;
    const cooldownMs = query.repeat ? parseDuration(query.repeat.cooldown) : undefined;
    this.rearming =
      cooldownMs === undefined
        ? undefined
        : {
            cooldownMs,
            maxTriggers: query.repeat?.maxTriggers,
            armedFrom: this.lastTriggerAt !== undefined ? this.lastTriggerAt + cooldownMs : -Infinity,
            timer: undefined,
          };
    fixed.root = this.build(query.conditions, '', undefined, resume, spareLeaf);
  }

  now(): number {
    return this.services.now();
  }

  schedule(delayMs: number, work: () => void): Subscription {
    return this.services.schedule(delayMs, work);
  }

  rootHolds(pulse: boolean): void {
    this.services.rootHolds(this, pulse);
  }

  leafChanged(node: ConditionNode): void {
    this.services.conditionChanged(this, node);
  }

  settleLater(node: ConditionNode): void {
    this.services.settleLater(node);
  }

  /**
   * Whether a trigger may start now: active, not already firing, out of any cooldown, and later than
   * the last trigger. A query fires at most once per instant, so a query resumed from a state saved
   * ahead of its feed (a host that took it over replays observations its previous host had seen)
   * never fires again at an instant it already fired at, nor before.
   */
  canFire(): boolean {
    const now = this.services.now();
    return (
      this.status === 'active' &&
      !this.firing &&
      (this.rearming === undefined || now >= this.rearming.armedFrom) &&
      now < this.expiresAt &&
      (this.lastTriggerAt === undefined || now > this.lastTriggerAt)
    );
  }

  /** Starts watching: leaves subscribe, a pending re-arm is scheduled (the engine keeps expiries). */
  attach(): void {
    if (this.attached) return;
    this.attached = true;
    const rearming = this.rearming;
    if (rearming !== undefined) {
      const now = this.services.now();
      if (rearming.armedFrom > now) this.scheduleRearm(rearming, rearming.armedFrom - now);
    }
    eachLeaf(this.root, attachLeaf);
  }

  /** Stops watching and releases every subscription and timer. */
  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    const rearming = this.rearming;
    if (rearming?.timer !== undefined) {
      rearming.timer.unsubscribe();
      rearming.timer = undefined;
    }
    eachLeaf(this.root, detachLeaf);
    this.root.dispose();
    this.services.detached(this);
  }

  /**
   * The query has left the engine (removed, its last trigger settled): it drops what its runs built (a
   * trigger's record, its steps, what its leaves read last). The collector keeps an object of the young
   * generation alive through young collections as long as an object of the old generation points to it,
   * garbage or not, until the next full collection: a removed query that had lived long enough to be old
   * would carry its last trigger's objects, made young, into the old generation with it.
   */
  dropRunState(): void {
    this.pendingTrigger = undefined;
    this.cachedSteps = undefined;
    eachLeaf(this.root, forgetLeaf);
  }

  get isAttached(): boolean {
    return this.attached;
  }

  /**
   * Books a trigger: returns its index and whether it is the last one (no repeat policy, maxTriggers
   * reached, or no room for another before expiry). A non-final trigger starts the cooldown and
   * clears latched matches.
   */
  recordTrigger(): { triggerIndex: number; final: boolean } {
    const now = this.services.now();
    this.triggerCount += 1;
    this.lastTriggerAt = now;
    const rearming = this.rearming;
    const final =
      rearming === undefined ||
      (rearming.maxTriggers !== undefined && this.triggerCount >= rearming.maxTriggers) ||
      now + rearming.cooldownMs >= this.expiresAt;
    if (!final) {
      rearming.armedFrom = now + rearming.cooldownMs;
      eachLeaf(this.root, rearmLeaf);
      this.scheduleRearm(rearming, rearming.cooldownMs);
    }
    return { triggerIndex: this.triggerCount, final };
  }

  /**
   * The state of every leaf, in document order. A query of one condition gets a list of exactly one (a list
   * that a `push` starts keeps room for 16, and a trigger keeps its list as long as its query).
   */
  conditionStates(): ConditionState[] {
    const root = this.root;
    if (root.kind === 'leaf') return [(root as Leaf).state()];
    const states: ConditionState[] = [];
    eachLeaf(root, pushState, states);
    return states;
  }

  /** The time of the latest input that reached a leaf, or the query's creation when none has. */
  evaluatedAt(): number {
    const latest = { at: this.createdAt };
    eachLeaf(this.root, laterInput, latest);
    return latest.at;
  }

  /** Whether the conditions hold right now (and the query could fire, cooldown aside). */
  get wouldTriggerNow(): boolean {
    return this.root.effective;
  }

  /** What must survive a restart: a snapshot, read-only (its empty maps are one shared frozen object). */
  runtimeState(): RuntimeState {
    const state: RuntimeState = { status: this.status, triggerCount: this.triggerCount, latched: NONE, verdicts: NONE, cronPulses: NONE };
    if (this.lastTriggerAt !== undefined) state.lastTriggerAt = this.lastTriggerAt;
    const pending = this.pendingTrigger;
    // Written out, not spread: V8 gives a spread object a shape of its own, several times the size.
    if (pending) {
      state.pendingTrigger = {
        triggerIndex: pending.triggerIndex,
        final: pending.final,
        firedAt: pending.firedAt,
        conditionStates: pending.conditionStates,
        completedSteps: pending.completedSteps.slice(),
      };
    }
    // A walk, not a list of the leaves: a trigger saves its state twice, and a list would be a new array each time.
    eachLeaf(this.root, rememberLeaf, state);
    return state;
  }

  private scheduleRearm(rearming: Rearming, delayMs: number): void {
    rearming.timer?.unsubscribe();
    rearming.timer = this.services.schedule(delayMs, () => {
      rearming.timer = undefined;
      // Level conditions that still hold fire again at once (the leaves' own semantics).
      if (this.root.effective) this.services.rootHolds(this, false);
    });
  }

  /** The node of `json`; a root that is a price or indicator leaf is `spareLeaf` renewed, when there is one. */
  private build(json: ConditionNodeJson, path: string, parent: ConditionGroup | undefined, resume: RuntimeState | undefined, spareLeaf?: NumericLeaf): ConditionNode {
    const record = json as unknown as Record<string, unknown>;
    const holdForMs = parseDuration(record.holdFor);
    if ('source' in record) return this.leafFor(record, path, parent, holdForMs, resume, spareLeaf);
    const operator = Array.isArray(record.AND) ? 'AND' : 'OR';
    const members = record[operator] as ConditionNodeJson[];
    // A group of one member without holdFor is that member: one node less, the same truth.
    if (members.length === 1 && holdForMs === undefined) return this.build(members[0] as ConditionNodeJson, memberPath(path, operator, 0), parent, resume, spareLeaf);
    const group = new ConditionGroup(this, path, operator, holdForMs, parent);
    group.children = members.map((member, index) => this.build(member, memberPath(path, operator, index), group, resume));
    return group;
  }

  private leafFor(condition: Record<string, unknown>, path: string, parent: ConditionGroup | undefined, holdForMs: number | undefined, resume: RuntimeState | undefined, spareLeaf: NumericLeaf | undefined): Leaf {
    const args = isRecord(condition.args) ? condition.args : {};
    const test = semanticTest(condition, args);
    switch (condition.source) {
      case 'price':
      case 'ta': {
        const threshold = typeof condition.value === 'number' ? condition.value : operandOf(condition.value as Record<string, unknown>);
        const operator = condition.operator as ThresholdOperator;
        return spareLeaf === undefined
          ? new NumericLeaf(this, path, holdForMs, parent, operator, operandOf(condition), threshold)
          : spareLeaf.renew(this, path, holdForMs, parent, operator, operandOf(condition), threshold);
      }
      case 'tweet':
        return new SemanticLeaf(
          this,
          path,
          holdForMs,
          parent,
          { source: 'tweet', username: String(args.username).replace(/^@+/, '').toLowerCase() },
          String(args.text),
          test.operator,
          test.threshold,
          resume?.latched[path],
        );
      case 'news':
        return new SemanticLeaf(this, path, holdForMs, parent, { source: 'news' }, String(args.text), test.operator, test.threshold, resume?.latched[path]);
      case 'llm':
        return new LlmLeaf(
          this,
          path,
          holdForMs,
          parent,
          String(args.query),
          parseDuration(args.period) ?? LIMITS.minLlmPeriodMs,
          args.speed === 'expert' || args.speed === 'adaptive' ? args.speed : 'fast',
          test.operator,
          test.threshold,
          resume?.verdicts[path],
        );
      case 'cron': {
        if (condition.method === 'once') {
          return new CronLeaf(this, path, holdForMs, parent, { kind: 'once', at: Date.parse(String(args.at)) }, undefined);
        }
        const periodMs = parseDuration(args.period) ?? LIMITS.minCronPeriodMs;
        const startAt = typeof args.startAt === 'string' ? Date.parse(args.startAt) : this.createdAt;
        const firstIndex = typeof args.startAt === 'string' ? 0 : 1;
        return new CronLeaf(this, path, holdForMs, parent, { kind: 'every', periodMs, startAt, firstIndex }, resume?.cronPulses[path]);
      }
      default:
        throw new Error(`unknown condition source ${JSON.stringify(condition.source)}`);
    }
  }
}

/** Calls `visit` with every leaf under `node`, in document order. */
function eachLeaf<C>(node: ConditionNode, visit: (leaf: Leaf, context: C) => void, context?: C): void {
  if (node.kind === 'leaf') {
    visit(node as Leaf, context as C);
    return;
  }
  const children = (node as ConditionGroup).children;
  for (let index = 0; index < children.length; index += 1) eachLeaf(children[index] as ConditionNode, visit, context);
}

function laterInput(leaf: Leaf, latest: { at: number }): void {
  const at = leaf.inputAt?.();
  if (at !== undefined && at > latest.at) latest.at = at;
}

function pushState(leaf: Leaf, states: ConditionState[]): void {
  states.push(leaf.state());
}

/** Puts into a runtime state what a leaf must remember across a restart (a latch, a verdict, a cron pulse). */
function rememberLeaf(leaf: Leaf, state: RuntimeState): void {
  if (leaf instanceof SemanticLeaf && leaf.latched) {
    if (state.latched === NONE) state.latched = {};
    state.latched[leaf.path] = leaf.latched;
  } else if (leaf instanceof LlmLeaf && leaf.lastVerdict) {
    if (state.verdicts === NONE) state.verdicts = {};
    state.verdicts[leaf.path] = leaf.lastVerdict;
  } else if (leaf instanceof CronLeaf && leaf.lastPulseAt !== undefined) {
    if (state.cronPulses === NONE) state.cronPulses = {};
    state.cronPulses[leaf.path] = leaf.lastPulseAt;
  }
}

// The walks of attach, detach, a rearm and the end of a run: made once, not a closure a call.
const attachLeaf = (leaf: Leaf): void => leaf.attach();
const detachLeaf = (leaf: Leaf): void => leaf.detach();
const rearmLeaf = (leaf: Leaf): void => leaf.rearm?.();
const forgetLeaf = (leaf: Leaf): void => leaf.forget?.();

/** A price or ta condition (or live operand) as the series it reads. */
export function operandOf(condition: Record<string, unknown>): NumericOperand {
  const args = isRecord(condition.args) ? condition.args : {};
  const symbol = String(args.symbol);
  const exchange = typeof args.exchange === 'string' ? args.exchange : undefined;
  const source = condition.source === 'ta' ? 'ta' : 'price';
  const method = String(condition.method);
  // The plainest operand (a symbol's price, nothing else) is shared: many queries read the same one. It is
  // found by method, then by symbol: no key is built for the lookup (a string built is a string hashed).
  const plain = source === 'price' && exchange === undefined && onlySymbol(args);
  const ofMethod = plain ? plainOperands.get(method) : undefined;
  const known = ofMethod?.get(symbol);
  if (known) return known;
  const topic = exchange === undefined ? { source: 'price' as const, symbol } : { source: 'price' as const, symbol, exchange };
  const operand: NumericOperand = { topic, description: { source, method, args: plain ? { symbol } : args } };
  if (plain) {
    if (plainOperandCount >= MAX_PLAIN_OPERANDS) {
      plainOperands.clear();
      plainOperandCount = 0;
    }
    let bySymbol = plainOperands.get(method);
    if (!bySymbol) plainOperands.set(method, (bySymbol = new Map<string, NumericOperand>()));
    bySymbol.set(symbol, operand);
    plainOperandCount += 1;
  }
  return operand;
}

/** Whether `symbol` is the only argument (counted without building a list of the keys). */
function onlySymbol(args: Record<string, unknown>): boolean {
  let count = 0;
  for (const name in args) {
    if (name !== 'symbol' || (count += 1) > 1) return false;
  }
  return count === 1;
}

/**
 * The path of a group's member; queries of the same shape share the strings (a million queries, one
 * `/AND/0`). Found by the group's own path (itself one of these strings, or the root's ''), then by operator
 * and index: the path is built once, not for every lookup.
 */
function memberPath(path: string, operator: 'AND' | 'OR', index: number): string {
  let members = memberPaths.get(path);
  if (!members) {
    if (memberPaths.size >= MAX_PLAIN_OPERANDS) memberPaths.clear();
    members = { AND: [], OR: [] };
    memberPaths.set(path, members);
  }
  const paths = members[operator];
  return (paths[index] ??= `${path}/${operator}/${index}`);
}

const memberPaths = new Map<string, { AND: string[]; OR: string[] }>();

/** Shared operands of `price.<method>(symbol)`, by method and symbol, bounded like the engine's other caches of symbols. */
const plainOperands = new Map<string, Map<string, NumericOperand>>();
let plainOperandCount = 0;
const MAX_PLAIN_OPERANDS = 10_000;

/** The confidence test of a tweet, news or llm condition: its operator and value, or >= minConfidence. */
function semanticTest(condition: Record<string, unknown>, args: Record<string, unknown>): { operator: Comparison; threshold: number } {
  if (typeof condition.operator === 'string' && typeof condition.value === 'number') {
    return { operator: condition.operator as Comparison, threshold: condition.value };
  }
  return { operator: '>=', threshold: typeof args.minConfidence === 'number' ? args.minConfidence : LIMITS.defaultMinConfidence };
}
