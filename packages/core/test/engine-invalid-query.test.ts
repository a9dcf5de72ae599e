import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine, EpochVirtualScheduler, InvalidQueryError, PushSource, type EngineEvent, type QueryRequest } from '../src/index.js';

const START = Date.UTC(2026, 0, 5);

function request(condition: unknown): QueryRequest {
  return { title: 't', query: { conditions: { AND: [condition] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'BTC up' } }], expiresIn: '1h' } } as unknown as QueryRequest;
}

const btcAbove = (value: number): QueryRequest => request({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value });

function setup() {
  const feed = new PushSource();
  const scheduler = new EpochVirtualScheduler(START);
  const engine = new Engine({ sources: [feed], scheduler });
  const events: EngineEvent[] = [];
  engine.events$.subscribe((event) => events.push(event));
  return { feed, engine, events };
}

describe('Engine.add refuses what cannot run', () => {
  it.each([
    ['an unknown method', request({ source: 'price', method: 'nope', args: { symbol: 'BTC' }, operator: '>', value: 1 })],
    ['an unknown timeframe', request({ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '7m', period: 14 }, operator: '>', value: 70 })],
    ['conditions that are not an object', { title: 'x', query: { conditions: 5, actions: [], expiresIn: '1h' } } as unknown as QueryRequest],
  ])('%s: InvalidQueryError naming the query and the place, nothing added, nothing emitted', (_what, bad) => {
    const { engine, events } = setup();
    let thrown: unknown;
    try {
      engine.add({ queryId: 'bad', request: bad, createdAt: START });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidQueryError);
    const invalid = thrown as InvalidQueryError;
    expect(invalid.queryId).toBe('bad');
    expect(invalid.problems.length).toBeGreaterThan(0);
    expect(invalid.problems[0]?.pointer).toMatch(/^\/query/);
    expect(invalid.message).toMatch(/^query bad cannot run: \/query/);
    expect(engine.inspect('bad')).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('whatever value is given as a request, add runs it or throws InvalidQueryError, and the engine goes on firing', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ title: fc.string(), query: fc.record({ conditions: fc.jsonValue(), actions: fc.jsonValue(), expiresIn: fc.constantFrom('1h', 'soon', 5) }) })), (value) => {
        const { feed, engine, events } = setup();
        try {
          engine.add({ queryId: 'random', request: value as unknown as QueryRequest, createdAt: START });
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidQueryError);
        }
        engine.add({ queryId: 'good', request: btcAbove(100), createdAt: START });
        feed.push({ at: START + 1_000, source: 'price', symbol: 'BTC', price: 150 });
        expect(events.some((event) => event.type === 'trigger' && event.queryId === 'good')).toBe(true);
        engine.dispose();
      }),
      { numRuns: 300 },
    );
  });
});
