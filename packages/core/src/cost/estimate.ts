import type { Query } from '../generated/eql-types.js';
import { parseDuration } from '../language/duration.js';
import { LIMITS } from '../language/limits.js';
import { allActions, leafConditions, type ActionVisit, type LeafVisit } from '../language/query-walk.js';
import { isRecord } from '../util/json-pointer.js';
import { CREDIT_COSTS, priceOfCredits } from './credits.js';

/** A number of LLM calls split by the speed they are made at (fast, expert, adaptive). */
export interface CallsBySpeed {
  fast: number;
  expert: number;
  adaptive: number;
}

/** Spec 2.4: upper bounds of the LLM calls a query can make over its life. */
export interface SimulationLlmCallsEstimate {
  conditionCallsUpperBound: number;
  actionCallsUpperBound: number;
  conditionCallsBySpeed: CallsBySpeed;
  actionCallsBySpeed: CallsBySpeed;
}

/** What a query costs: its credits and their price in USD. */
export interface EstimatedCost {
  credits: number;
  /** `$<decimal>`. */
  price: string;
}

/** Spec 2.4: the cost estimate of a query, as {@link estimateCost} and validation return it. */
export interface CostEstimate {
  simulationLlmCallsEstimate: SimulationLlmCallsEstimate;
  estimatedCost: EstimatedCost;
}

type Speed = keyof CallsBySpeed;

/** Leaves and actions of the query already collected by a caller (the validator), to skip a second walk. */
export interface WalkedQuery {
  leaves: readonly LeafVisit[];
  actions: readonly ActionVisit[];
  lifetimeMs?: number;
}

function speedOf(value: unknown): Speed {
  return value === 'expert' || value === 'adaptive' ? value : 'fast';
}

/** Lifetime of a query in milliseconds: its `expiresIn`, or the default of 24h. */
export function lifetimeOf(query: unknown): number {
  return (isRecord(query) ? parseDuration(query.expiresIn) : undefined) ?? LIMITS.defaultLifetimeMs;
}

/**
 * Most triggers a query can have: 1 without `repeat`; with it, one per cooldown over the lifetime
 * (the first at creation at the earliest), capped by `maxTriggers`.
 */
export function triggersUpperBound(query: unknown): number {
  const repeat = isRecord(query) && isRecord(query.repeat) ? query.repeat : undefined;
  if (repeat === undefined) return 1;
  const cooldownMs = parseDuration(repeat.cooldown);
  const byCooldown = cooldownMs === undefined ? 1 : Math.max(1, Math.ceil(lifetimeOf(query) / cooldownMs));
  return typeof repeat.maxTriggers === 'number' && repeat.maxTriggers >= 1 ? Math.min(repeat.maxTriggers, byCooldown) : byCooldown;
}

/**
 * Upper bounds of LLM calls (docs/semantics.md, "Cost estimate"): each llm condition is judged at
 * creation and then once per `period` while the query lives, ceil(lifetime / period) calls; each llm
 * action runs once per allowed trigger.
 */
export function estimateLlmCalls(query: Query, walked?: WalkedQuery): SimulationLlmCallsEstimate {
  let lifetimeMs = walked?.lifetimeMs;
  const conditionCallsBySpeed: CallsBySpeed = { fast: 0, expert: 0, adaptive: 0 };
  for (const { source, args } of walked?.leaves ?? leafConditions(query, '')) {
    if (source !== 'llm') continue;
    const periodMs = parseDuration(args.period);
    if (periodMs === undefined) continue;
    lifetimeMs ??= lifetimeOf(query);
    conditionCallsBySpeed[speedOf(args.speed)] += Math.ceil(lifetimeMs / periodMs);
  }
  let triggers: number | undefined;
  const actionCallsBySpeed: CallsBySpeed = { fast: 0, expert: 0, adaptive: 0 };
  for (const { type, params, parent } of walked?.actions ?? allActions(query, '')) {
    if (parent || type !== 'llm') continue;
    triggers ??= triggersUpperBound(query);
    actionCallsBySpeed[speedOf(params.speed)] += triggers;
  }
  return {
    conditionCallsUpperBound: totalCalls(conditionCallsBySpeed),
    actionCallsUpperBound: totalCalls(actionCallsBySpeed),
    conditionCallsBySpeed,
    actionCallsBySpeed,
  };
}

function totalCalls(calls: CallsBySpeed): number {
  return calls.fast + calls.expert + calls.adaptive;
}

/** Spec 8: 5 credits, plus 5 per fast call and 18 per expert (or adaptive) call. */
export function creditsForCalls(estimate: SimulationLlmCallsEstimate): number {
  const { conditionCallsBySpeed: condition, actionCallsBySpeed: action } = estimate;
  return (
    CREDIT_COSTS.baseline +
    CREDIT_COSTS.fast * (condition.fast + action.fast) +
    CREDIT_COSTS.expert * (condition.expert + action.expert) +
    CREDIT_COSTS.adaptive * (condition.adaptive + action.adaptive)
  );
}

/**
 * The cost estimate of a query: upper bounds of its LLM calls and the credits and price they come to. Pass
 * `walked` when the query's leaves and actions are already collected.
 */
export function estimateCost(query: Query, walked?: WalkedQuery): CostEstimate {
  const simulationLlmCallsEstimate = estimateLlmCalls(query, walked);
  const credits = creditsForCalls(simulationLlmCallsEstimate);
  return { simulationLlmCallsEstimate, estimatedCost: { credits, price: priceOfCredits(credits) } };
}
