import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Engine,
  EpochVirtualScheduler,
  HistoryError,
  type Observation,
  type PriceHistory,
  PushSource,
  type QueryRequest,
  RecordingHistory,
  ReplaySource,
  TA_METHODS,
  type ConditionState,
  type EngineEvent,
  preview,
  parseRecording,
  warmupCandles,
} from '@eql/core';
import { smallIndicatorArgs } from './support/indicator-args.js';

/**
 * The law of history (docs/semantics.md section 8, "History and warm-up"): a condition's value at an
 * instant does not depend on when its query was created. Three engines replay one random recording;
 * in each, one query on the same condition is created at a different instant (the recording's start,
 * t1, t2), the part of the recording before its creation being history. From t2 on, after every
 * observation, the three read the same value, status and readiness, bit for bit. And a preview from t2
 * gives the triggers of the query created at t2.
 */

const START = Date.parse('2026-01-05T00:00:00Z');
const MINUTE = 60_000;
const NOTIFY = [{ stepId: 'n', type: 'notify' as const, params: { message: 'fired' } }];

interface Walk {
  observations: Observation[];
  start: number;
  end: number;
}

const walkArb: fc.Arbitrary<Walk> = fc
  .array(fc.record({ gapSeconds: fc.integer({ min: 1, max: 600 }), stepBp: fc.integer({ min: -80, max: 80 }), volume: fc.integer({ min: 0, max: 20 }) }), { minLength: 150, maxLength: 400 })
  .map((steps) => {
    let at = START;
    let price = 100;
    const observations: Observation[] = [];
    for (const [index, step] of steps.entries()) {
      if (index > 0) at += step.gapSeconds * 1000;
      price = Math.max(1, Math.round(price * (1 + step.stepBp / 10_000) * 100) / 100);
      observations.push({ at, source: 'price', symbol: 'BTC', price, volume: step.volume });
    }
    return { observations, start: START, end: at + MINUTE };
  });

/** A ta condition on any method, with small periods so that it gets ready in a recording, or a price window. */
const seriesArb: fc.Arbitrary<{ source: 'ta' | 'price'; method: string; args: Record<string, unknown> }> = fc.oneof(
  fc.record({
    source: fc.constant('ta' as const),
    method: fc.constantFrom(...TA_METHODS),
    timeframe: fc.constantFrom('1m', '5m', '15m'),
    period: fc.integer({ min: 2, max: 12 }),
    fast: fc.integer({ min: 2, max: 5 }),
    slow: fc.integer({ min: 6, max: 12 }),
    signal: fc.integer({ min: 2, max: 5 }),
  }).map(({ source, method, timeframe, period, fast, slow, signal }) => {
    const args: Record<string, unknown> = { symbol: 'BTC', timeframe, ...smallIndicatorArgs(method, { period, fast, slow, signal }) };
    return { source, method, args };
  }),
  fc.record({
    source: fc.constant('price' as const),
    method: fc.constantFrom('change', 'high', 'low', 'volume'),
    period: fc.constantFrom('5m', '30m', '1h', '3h'),
  }).map(({ source, method, period }) => ({ source, method, args: { symbol: 'BTC', period } })),
);

function request(series: { source: string; method: string; args: Record<string, unknown> }, operator: string, value: number, never = false): QueryRequest {
  // `never`: with a condition that never holds beside it, so that the query never fires and keeps reading.
  const conditions = never ? [{ ...series, operator, value }, { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '<', value: 0 }] : [{ ...series, operator, value }];
  return { query: { conditions: { AND: conditions }, actions: NOTIFY, expiresIn: '7d' } } as unknown as QueryRequest;
}

interface Probe {
  at: number;
  state: ConditionState;
}

/** Replays the walk with the query created at `createdAt`; reads its condition after every observation from `probeFrom` on. */
function replay(walk: Walk, query: QueryRequest, createdAt: number, probeFrom: number): { probes: Probe[]; triggers: number[] } {
  const scheduler = new EpochVirtualScheduler(walk.start, walk.end);
  const engine = new Engine({
    scheduler,
    sources: [new ReplaySource(walk.observations, { scheduler, latestOnSubscribe: false })],
    history: [new RecordingHistory(walk.observations)],
  });
  const triggers: number[] = [];
  const subscription = engine.events$.subscribe((event: EngineEvent) => {
    if (event.type === 'trigger') triggers.push(event.at);
  });
  const probes: Probe[] = [];
  // Probes half a millisecond after each observation: after it, before anything later.
  for (const observation of walk.observations) {
    if (observation.at < probeFrom) continue;
    scheduler.schedule(() => {
      const state = engine.inspect('q')?.conditionStates[0];
      if (state) probes.push({ at: observation.at, state: { ...state, holds: false, since: 0 } });
    }, observation.at + 0.5 - walk.start);
  }
  const add = () => engine.add({ queryId: 'q', request: query, createdAt });
  if (createdAt === walk.start) add();
  else scheduler.schedule(add, createdAt - walk.start);
  scheduler.flush();
  subscription.unsubscribe();
  engine.dispose();
  return { probes, triggers };
}

/** An instant inside the walk at `fraction` of its observations, between two of them. */
function between(walk: Walk, fraction: number): number {
  const index = Math.min(walk.observations.length - 2, Math.floor(fraction * walk.observations.length));
  return (walk.observations[index] as Observation).at + 1;
}

describe('history: a value does not depend on when its query was created', () => {
  it('for every ta method and the change, high, low and volume windows, with a preview from t2 equal to the query created at t2', () => {
    fc.assert(
      fc.property(walkArb, seriesArb, fc.double({ min: 0.05, max: 0.5, noNaN: true }), fc.double({ min: 0.5, max: 0.9, noNaN: true }), (walk, series, f1, f2) => {
        const t1 = between(walk, f1);
        const t2 = Math.max(t1 + 1, between(walk, f2));
        // A level that holds whenever the value is defined: the probes compare values, states and readiness.
        const everything = request(series, '>', -1e15, true);
        const fromStart = replay(walk, everything, walk.start, t2);
        const fromT1 = replay(walk, everything, t1, t2);
        const fromT2 = replay(walk, everything, t2, t2);
        expect(fromT1.probes).toEqual(fromStart.probes);
        expect(fromT2.probes).toEqual(fromStart.probes);
        expect(fromStart.probes.length).toBeGreaterThan(0);

        // A crossing of a value the series takes: a preview from t2 fires where the query created at t2 does.
        const values = fromStart.probes.map((probe) => probe.state.value).filter((value): value is number => value !== undefined);
        const threshold = values[Math.floor(values.length / 2)] ?? 0;
        const crossing = request(series, 'crosses_above', threshold);
        const created = replay(walk, crossing, t2, t2).triggers;
        const previewed = preview(crossing, { observations: walk.observations, start: walk.start, end: walk.end }, { from: t2 });
        expect(previewed.triggers.map((trigger) => Date.parse(trigger.at))).toEqual(created);
      }),
      { numRuns: Number(process.env.EQL_HISTORY_RUNS ?? 60) },
    );
  });
});

describe('history: honest states', () => {
  const market = parseRecording(
    Array.from({ length: 48 * 60 }, (_, minute) => JSON.stringify({ at: new Date(START + minute * MINUTE).toISOString(), source: 'price', symbol: 'SOL', price: 100 + 10 * Math.sin(minute / 90), volume: 1 })).join('\n'),
  );
  const rsi = request({ source: 'ta', method: 'rsi', args: { symbol: 'SOL', timeframe: '1h', period: 14 } }, '<', 30, true);

  function engineAt(at: number, history: PriceHistory[] = [new RecordingHistory(market.observations)]) {
    const scheduler = new EpochVirtualScheduler(at);
    const engine = new Engine({ scheduler, sources: [new ReplaySource(market.observations, { scheduler, latestOnSubscribe: false })], history });
    const problems: Array<{ code: string; message: string }> = [];
    engine.events$.subscribe((event) => {
      if (event.type === 'problem') problems.push({ code: event.code, message: event.message });
    });
    return { scheduler, engine, problems };
  }

  it('RSI(14) on 1h without history is warming_up until its 15th hourly candle closes, and says when', () => {
    const { engine } = engineAt(START, []);
    engine.add({ queryId: 'q', request: rsi, createdAt: START });
    const state = engine.inspect('q')?.conditionStates[0];
    expect(state).toMatchObject({ status: 'warming_up', readyAt: START + warmupCandles('rsi', { period: 14 }) * 3_600_000 });
    expect(state?.reason).toMatch(/needs 15 closed candles of 1h, has 0/);
  });

  it('RSI(14) on 1h created with a day of history is ready at once, with the value a replay from the start holds', () => {
    const at = START + 30 * 3_600_000 + 30 * MINUTE;
    const warm = engineAt(at);
    warm.engine.add({ queryId: 'q', request: rsi, createdAt: at });
    const state = warm.engine.inspect('q')?.conditionStates[0];
    expect(state).toMatchObject({ status: 'ready' });
    expect(state?.readyAt).toBeUndefined();

    const live = engineAt(START, []);
    live.engine.add({ queryId: 'q', request: rsi, createdAt: START });
    live.scheduler.advanceTo(at);
    expect(live.engine.inspect('q')?.conditionStates[0]?.value).toBe(state?.value);
    expect(state?.observedAt).toBeLessThan(at);
  });

  it('a symbol no source serves is no_data with the reason; a topic served later is not', () => {
    const { engine, problems } = engineAt(START);
    engine.add({ queryId: 'q', request: request({ source: 'price', method: 'current', args: { symbol: 'DOGE' } }, '>', 1), createdAt: START });
    expect(engine.inspect('q')?.conditionStates[0]).toMatchObject({ status: 'no_data', reason: 'no data source serves prices of DOGE' });
    expect(problems).toContainEqual({ code: 'NO_DATA_SOURCE', message: 'no data source serves prices of DOGE' });
  });

  it('change 24h with 6 hours of history is warming_up until 24h after its first price, then ready', () => {
    const at = START + 6 * 3_600_000 + 30_000;
    const { engine, scheduler } = engineAt(at);
    engine.add({ queryId: 'q', request: request({ source: 'price', method: 'change', args: { symbol: 'SOL', period: '24h' } }, '>', -100), createdAt: at });
    expect(engine.inspect('q')?.conditionStates[0]).toMatchObject({ status: 'warming_up', readyAt: START + 24 * 3_600_000 });
    scheduler.advanceTo(START + 24 * 3_600_000 + 1);
    expect(engine.inspect('q')?.conditionStates[0]).toMatchObject({ status: 'ready' });
  });

  it('an asynchronous history: live ticks that come while it loads are applied after it, to the same values', async () => {
    const at = START + 20 * 3_600_000 + 30_000;
    const recorded = new RecordingHistory(market.observations);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: PriceHistory = {
      name: 'slow',
      supports: (topic) => recorded.supports(topic),
      origin: async (topic) => (await gate, recorded.origin(topic)),
      ticks: async (topic, from, to) => (await gate, recorded.ticks(topic, from, to)),
      candles: async (topic, tf, from, to) => (await gate, recorded.candles(topic, tf, from, to)),
    };
    const feed = new PushSource();
    const scheduler = new EpochVirtualScheduler(at);
    const engine = new Engine({ scheduler, sources: [feed], history: [slow] });
    const query = request({ source: 'ta', method: 'ema', args: { symbol: 'SOL', timeframe: '1h', period: 5 } }, '>', 0, true);
    engine.add({ queryId: 'q', request: query, createdAt: at });
    expect(engine.inspect('q')?.conditionStates[0]).toMatchObject({ status: 'warming_up', reason: 'loading history from slow' });
    // Two hours of live ticks (closing two hourly candles) before the history answers.
    const later = market.observations.filter((o) => o.at >= at && o.at < at + 2 * 3_600_000);
    for (const observation of later) {
      scheduler.advanceTo(observation.at);
      feed.push(observation);
    }
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const state = engine.inspect('q')?.conditionStates[0];
    expect(state?.status).toBe('ready');

    const reference = engineAt(START, []);
    reference.engine.add({ queryId: 'q', request: query, createdAt: START });
    reference.scheduler.advanceTo((later[later.length - 1] as Observation).at);
    expect(state?.value).toBe(reference.engine.inspect('q')?.conditionStates[0]?.value);
  });

  it('a failing history leaves the series to live ticks, reports the problem and says why it warms up', async () => {
    const failing: PriceHistory = {
      name: 'venue',
      supports: () => true,
      origin: () => Promise.reject(new HistoryError('HISTORY_RATE_LIMITED', 'the venue answered 429 four times')),
      ticks: () => Promise.reject(new HistoryError('HISTORY_RATE_LIMITED', 'the venue answered 429 four times')),
      candles: () => Promise.reject(new HistoryError('HISTORY_RATE_LIMITED', 'the venue answered 429 four times')),
    };
    const { engine, problems } = engineAt(START + 3_600_000, [failing]);
    engine.add({ queryId: 'q', request: rsi, createdAt: START + 3_600_000 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    const state = engine.inspect('q')?.conditionStates[0];
    expect(state?.status).toBe('warming_up');
    expect(state?.reason).toMatch(/history unavailable: the venue answered 429 four times/);
    expect(problems.map((problem) => problem.code)).toContain('HISTORY_RATE_LIMITED');
  });
});

describe('observation time', () => {
  const notify = [{ stepId: 'n', type: 'notify' as const, params: { message: 'fired' } }];

  it('stamps evaluations, triggers, executions and notifications with the observation, and keeps the clock beside it', () => {
    const scheduler = new EpochVirtualScheduler(START + 5_000);
    const feed = new PushSource();
    const engine = new Engine({ scheduler, sources: [feed] });
    const events: EngineEvent[] = [];
    engine.events$.subscribe((event) => events.push(event));
    const request = { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 }] }, actions: notify, expiresIn: '1h' } } as unknown as QueryRequest;
    engine.add({ queryId: 'q', request, createdAt: START });
    // A venue's tick stamped 2 s before the engine sees it.
    feed.push({ at: START + 3_000, source: 'price', symbol: 'BTC', price: 101 });
    const trigger = events.find((event) => event.type === 'trigger');
    expect(trigger).toMatchObject({ at: START + 3_000, receivedAt: START + 5_000 });
    const execution = events.find((event) => event.type === 'execution-succeeded');
    expect(execution?.type === 'execution-succeeded' && execution.execution.observedAt).toBe(new Date(START + 3_000).toISOString());
    const notification = events.find((event) => event.type === 'notification');
    expect(notification?.type === 'notification' && notification.notification.data.observedAt).toBe(new Date(START + 3_000).toISOString());
  });

  it('tells an evaluation when a live operand gets ready at a tick that changes no value', () => {
    // price > high(5m) of the same symbol: the high is ready once its 5-minute window is covered (at the
    // sixth minute's tick here). The price never changes, so at that tick no series moves: only the
    // readiness change tells the query.
    const scheduler = new EpochVirtualScheduler(START);
    const feed = new PushSource();
    const engine = new Engine({ scheduler, sources: [feed] });
    const evaluations: Array<{ at: number; status: string | undefined }> = [];
    engine.events$.subscribe((event) => {
      if (event.type === 'evaluation') evaluations.push({ at: event.at, status: event.conditionStates[0]?.status });
    });
    const high = { source: 'price', method: 'high', args: { symbol: 'BTC', period: '5m' } };
    const request = {
      query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: high }] }, actions: notify, expiresIn: '1h' },
    } as unknown as QueryRequest;
    feed.push({ at: START, source: 'price', symbol: 'BTC', price: 100 });
    engine.add({ queryId: 'q', request, createdAt: START });
    expect(engine.inspect('q')?.conditionStates[0]?.status).toBe('warming_up');
    for (let minute = 1; minute <= 7; minute += 1) {
      scheduler.advanceTo(START + minute * MINUTE);
      feed.push({ at: START + minute * MINUTE, source: 'price', symbol: 'BTC', price: 100 });
    }
    expect(engine.inspect('q')?.conditionStates[0]?.status).toBe('ready');
    expect(evaluations).toContainEqual({ at: START + 6 * MINUTE, status: 'ready' });
  });

  it('moves evaluatedAt for posts and news as for prices', () => {
    const scheduler = new EpochVirtualScheduler(START);
    const feed = new PushSource();
    const engine = new Engine({ scheduler, sources: [feed] });
    const request = {
      query: { conditions: { OR: [{ source: 'tweet', args: { username: 'alice', text: 'bitcoin etf approval' } }, { source: 'news', args: { text: 'exchange hack' } }] }, actions: notify, expiresIn: '1h' },
    } as unknown as QueryRequest;
    engine.add({ queryId: 'q', request, createdAt: START });
    scheduler.advanceTo(START + 60_000);
    feed.push({ at: START + 60_000, source: 'tweet', username: 'alice', text: 'good morning', tweetId: '1' });
    expect(engine.inspect('q')?.evaluatedAt).toBe(START + 60_000);
    expect(engine.inspect('q')?.conditionStates[0]).toMatchObject({ status: 'ready', observedAt: START + 60_000, lastScore: { at: START + 60_000 } });
    scheduler.advanceTo(START + 120_000);
    feed.push({ at: START + 120_000, source: 'news', text: 'markets are calm', id: 'n1' });
    expect(engine.inspect('q')?.evaluatedAt).toBe(START + 120_000);
  });
});
