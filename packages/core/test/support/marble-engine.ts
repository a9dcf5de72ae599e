/**
 * Helpers for marble tests of the engine: a data source serving price marbles, query builders and
 * projections of the engine's events that read well in expected marbles.
 */
import { filter, map, type Observable, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { expect } from 'vitest';
import {
  baseAsset,
  Engine,
  topicKey,
  type Condition,
  type ConditionGroup,
  type ConditionNode,
  type DataSource,
  type EngineEvent,
  type EngineOptions,
  type LiveOperand,
  type Observation,
  type Operator,
  type PriceCurrentCondition,
  type QueryRequest,
  type RepeatPolicy,
  type Topic,
} from '@eql/core';

export function newTestScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
}

/**
 * Serves price topics from marble observables of numbers (one per base asset): each value becomes a
 * price observation timed at the scheduler's now. Subscriptions pass straight through, so the hot
 * observable's `subscriptions` show what the engine holds upstream.
 */
export class MarbleSource implements DataSource {
  readonly name = 'marbles';
  /** Topic keys in the order `observe` was called. */
  readonly observeCalls: string[] = [];

  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly prices: Record<string, Observable<number>>,
  ) {}

  supports(topic: Topic): boolean {
    return topic.source === 'price' && this.prices[baseAsset(topic.symbol)] !== undefined;
  }

  observe(topic: Topic): Observable<Observation> {
    if (topic.source !== 'price') throw new Error(`MarbleSource serves prices only, not ${topicKey(topic)}`);
    const stream = this.prices[baseAsset(topic.symbol)];
    if (!stream) throw new Error(`no marbles for ${topicKey(topic)}`);
    this.observeCalls.push(topicKey(topic));
    const symbol = topic.symbol;
    return stream.pipe(map((price): Observation => ({ at: this.scheduler.now(), source: 'price', symbol, price })));
  }
}

// ---------------------------------------------------------------- query builders

/** `price.current` of a symbol against a number or a live operand. */
export function price(symbol: string, operator: Operator, value: number | LiveOperand, holdFor?: string): PriceCurrentCondition {
  const condition: PriceCurrentCondition = { source: 'price', method: 'current', args: { symbol }, operator, value };
  if (holdFor !== undefined) condition.holdFor = holdFor;
  return condition;
}

/** The live operand "current price of symbol". */
export function livePrice(symbol: string): LiveOperand {
  return { source: 'price', method: 'current', args: { symbol } };
}

export function every(period: string): Condition {
  return { source: 'cron', method: 'every', args: { period } };
}

export function and(members: ConditionNode[], holdFor?: string): ConditionGroup {
  const [first, ...rest] = members;
  if (!first) throw new Error('a group needs a member');
  return holdFor === undefined ? { AND: [first, ...rest] } : { AND: [first, ...rest], holdFor };
}

export function or(members: ConditionNode[], holdFor?: string): ConditionGroup {
  const [first, ...rest] = members;
  if (!first) throw new Error('a group needs a member');
  return holdFor === undefined ? { OR: [first, ...rest] } : { OR: [first, ...rest], holdFor };
}

export interface QueryOptions {
  expiresIn?: string;
  repeat?: RepeatPolicy;
}

/** A query with one notify action (the in-memory store needs no configuration). */
export function notifyQuery(conditions: ConditionGroup, options: QueryOptions = {}): QueryRequest {
  const request: QueryRequest = { query: { conditions, actions: [{ stepId: 'notify', type: 'notify', params: { message: 'hit' } }] } };
  if (options.expiresIn !== undefined) request.query.expiresIn = options.expiresIn;
  if (options.repeat !== undefined) request.query.repeat = options.repeat;
  return request;
}

// ---------------------------------------------------------------- engine and event projections

export type TriggerEvent = Extract<EngineEvent, { type: 'trigger' }>;
export type StatusEvent = Extract<EngineEvent, { type: 'status-changed' }>;

/** What a trigger looks like in expected marbles. */
export interface TriggerMark {
  queryId: string;
  index: number;
  final: boolean;
}

export function mark(index: number, final: boolean, queryId = 'q'): TriggerMark {
  return { queryId, index, final };
}

export interface MarbleEngine {
  engine: Engine;
  source: MarbleSource;
  /** Adds a query created now (the scheduler's virtual time). */
  add: (queryId: string, request: QueryRequest) => void;
  /** Triggers of every query, as TriggerMark. */
  triggers$: Observable<TriggerMark>;
  /** Status changes and expiries, as short strings such as `q:active>expired` and `q:expired`. */
  lifecycle$: Observable<string>;
}

/** An engine on the test scheduler fed by price marbles; `options` may replace executors and the like. */
export function marbleEngine(scheduler: TestScheduler, prices: Record<string, Observable<number>>, options: Omit<EngineOptions, 'scheduler' | 'sources'> = {}): MarbleEngine {
  const source = new MarbleSource(scheduler, prices);
  let counter = 0;
  const engine = new Engine({ newId: () => `id-${++counter}`, ...options, scheduler, sources: [source] });
  return {
    engine,
    source,
    add: (queryId, request) => engine.add({ queryId, request, createdAt: scheduler.now() }),
    triggers$: engine.events$.pipe(
      filter((event): event is TriggerEvent => event.type === 'trigger'),
      map((event) => mark(event.triggerIndex, event.final, event.queryId)),
    ),
    lifecycle$: engine.events$.pipe(
      filter((event) => event.type === 'status-changed' || event.type === 'expired'),
      map((event) => (event.type === 'status-changed' ? `${event.queryId}:${event.previous}>${event.status}` : `${event.queryId}:${event.type}`)),
    ),
  };
}
