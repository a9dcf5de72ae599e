import { describe, expect, it } from 'vitest';
import { Engine, EpochVirtualScheduler, RecordingHistory, ReplaySource, type Observation, type Query } from '@eql/core';
import { referenceTriggers } from '../../../test/support/reference-evaluator.js';

// Found by the differential test (seed -1790495233 of engine-differential.test.ts): a crossing with
// holdFor and a level with holdFor of another series, both starting at one tick, come due at the same
// instant. The reference judges timers of one time as one instant and fires. The engine used to run each
// timer as its own batch, and the crossing's timer pulsed before the level's timer had made the level
// hold, so the pulse was lost. Now the timers of one instant run as one batch (`InstantTimers`) and the
// crossing's delayed pulse is deferred like an undelayed one (docs/semantics.md, "Instants and batches").

const START = Date.parse('2026-01-05T00:00:00Z');
const observations: Observation[] = [
  { at: START, source: 'price', symbol: 'BTC', price: 97 },
  { at: START + 90_000, source: 'price', symbol: 'BTC', price: 96.29 },
  { at: START + 600_000, source: 'price', symbol: 'BTC', price: 96.3 },
];
const crossing = { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: 'crosses_below', value: 96.75, holdFor: '1m' };
const level = { source: 'price', method: 'low', args: { symbol: 'BTC', period: '10m' }, operator: '<', value: 96.46, holdFor: '1m' };
const query = (members: unknown[]): Query => ({ conditions: { AND: members }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'fired' } }] }) as unknown as Query;

/** A clock that moves on at every reading, as a real one does while a batch runs (1 ms a reading here). */
class DriftingScheduler extends EpochVirtualScheduler {
  constructor(start: number, end: number) {
    super(start, end);
    let drift = 0;
    this.now = () => (drift += 1) + this.frame;
  }
}

function engineTriggers(q: Query, clock: 'virtual' | 'drifting' = 'virtual'): number[] {
  const scheduler = clock === 'virtual' ? new EpochVirtualScheduler(START, START + 3_600_000) : new DriftingScheduler(START, START + 3_600_000);
  const engine = new Engine({ scheduler, sources: [new ReplaySource(observations, { scheduler, latestOnSubscribe: false })], history: [new RecordingHistory(observations)], newId: () => 'id' });
  const triggers: number[] = [];
  engine.events$.subscribe((event) => {
    if (event.type === 'trigger') triggers.push(event.at - START);
    if (event.type === 'problem') throw new Error(event.message);
  });
  engine.add({ queryId: 'q', request: { query: q }, createdAt: START });
  scheduler.flush();
  engine.dispose();
  return triggers;
}

const referenceOf = (q: Query): number[] => referenceTriggers(q, observations, { start: START, end: START + 3_600_000 }).triggers.map((at) => at - START);

describe('timers of one instant', () => {
  it('each condition alone fires when its holdFor ends (engine and reference agree)', () => {
    for (const member of [crossing, level]) {
      expect(referenceOf(query([member]))).toEqual([150_000]);
      expect(engineTriggers(query([member]))).toEqual([150_000]);
    }
  });

  it('a crossing and a level whose holdFor end at the same instant fire together, as the reference says', () => {
    expect(referenceOf(query([crossing, level]))).toEqual([150_000]);
    expect(engineTriggers(query([crossing, level]))).toEqual([150_000]);
  });

  it('on a clock that moves during a batch, timers set in one batch still share their instant', () => {
    const triggers = engineTriggers(query([crossing, level]), 'drifting');
    expect(triggers).toHaveLength(1);
  });
});

describe('a cron instant and a holdFor ending at it', () => {
  // cron every 10m pulses at START + 10m; the level holds from START + 5m, so its holdFor of 5m ends at
  // START + 10m too. One instant: the query fires then (not at the next pulse, START + 20m).
  const ticks: Observation[] = [
    { at: START, source: 'price', symbol: 'BTC', price: 99 },
    { at: START + 300_000, source: 'price', symbol: 'BTC', price: 101 },
  ];
  const run = (members: unknown[]): number[] => {
    const scheduler = new EpochVirtualScheduler(START, START + 3_600_000);
    const engine = new Engine({ scheduler, sources: [new ReplaySource(ticks, { scheduler, latestOnSubscribe: false })], history: [new RecordingHistory(ticks)], newId: () => 'id' });
    const triggers: number[] = [];
    engine.events$.subscribe((event) => {
      if (event.type === 'trigger') triggers.push(event.at - START);
      if (event.type === 'problem') throw new Error(event.message);
    });
    engine.add({ queryId: 'q', request: { query: { conditions: { AND: members } as Query['conditions'], actions: [{ stepId: 'n', type: 'notify', params: { message: 'fired' } }], expiresIn: '1h' } }, createdAt: START });
    scheduler.flush();
    engine.dispose();
    return triggers;
  };
  const cron = { source: 'cron', method: 'every', args: { period: '10m' } };
  const held = { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100, holdFor: '5m' };

  it('fires at the instant both hold, whichever timer was set first', () => {
    expect(run([cron, held])).toEqual([600_000]);
    expect(run([held, cron])).toEqual([600_000]);
  });
});
