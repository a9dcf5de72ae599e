import { describe, expect, it } from 'vitest';
import { Engine, EpochVirtualScheduler, RecordingHistory, ReplaySource, type Observation, type Query } from '@eql/core';
import { referenceTriggers } from '../../../test/support/reference-evaluator.js';

// Found by the differential test (seed 1800043181 of engine-differential.test.ts): a held level inside a held
// group breaks at the tick that makes a crossing beside the group. Breaks are settled at the end of the
// instant's level updates, before pulses are judged (docs/semantics.md, "Instants and batches"); the engine
// settled the level's break, which broke the group, but judged the crossing before settling the group's own
// break, so the group still held and the query fired.

const START = Date.parse('2026-01-05T00:00:00Z');
const eth = (minutes: number, price: number): Observation => ({ at: START + minutes * 60_000, source: 'price', symbol: 'ETH', price });
const btc = (minutes: number, price: number): Observation => ({ at: START + minutes * 60_000, source: 'price', symbol: 'BTC', price });

const heldLevel = { source: 'price', method: 'current', args: { symbol: 'ETH' }, operator: '<', value: 100, holdFor: '1m' };
const heldGroup = { AND: [heldLevel], holdFor: '1m' };
const query = (crossing: unknown): Query =>
  ({ conditions: { AND: [heldGroup, crossing] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'fired' } }] }) as unknown as Query;
const crossesAbove = (symbol: string, value: number) => ({ source: 'price', method: 'current', args: { symbol }, operator: 'crosses_above', value });

function engineTriggers(q: Query, observations: Observation[]): number[] {
  const scheduler = new EpochVirtualScheduler(START, START + 3_600_000);
  const engine = new Engine({ scheduler, sources: [new ReplaySource(observations, { scheduler, latestOnSubscribe: false })], history: [new RecordingHistory(observations)], newId: () => 'id' });
  const triggers: number[] = [];
  engine.events$.subscribe((event) => {
    if (event.type === 'trigger') triggers.push((event.at - START) / 60_000);
    if (event.type === 'problem') throw new Error(event.message);
  });
  engine.add({ queryId: 'q', request: { query: q }, createdAt: START });
  scheduler.flush();
  engine.dispose();
  return triggers;
}

const referenceOf = (q: Query, observations: Observation[]): number[] =>
  referenceTriggers(q, observations, { start: START, end: START + 3_600_000 }).triggers.map((at) => (at - START) / 60_000);

describe('a held group broken at the instant of a crossing', () => {
  it('does not hold for the crossing: the tick that crosses ETH above 100 breaks ETH < 100 and the group around it', () => {
    const observations = [eth(0, 99), eth(5, 101)];
    const q = query(crossesAbove('ETH', 100));
    expect(referenceOf(q, observations)).toEqual([]);
    expect(engineTriggers(q, observations)).toEqual([]);
  });

  it('holds for a crossing of another series while it is unbroken (the same query fires then)', () => {
    const observations = [eth(0, 99), btc(0, 49), btc(5, 51), eth(6, 101)];
    const q = query(crossesAbove('BTC', 50));
    expect(referenceOf(q, observations)).toEqual([5]);
    expect(engineTriggers(q, observations)).toEqual([5]);
  });
});
