import { describe, expect, it } from 'vitest';
import { PriceChannel } from '../src/engine/channels/price-channel.js';
import type { PriceObservation } from '../src/engine/observations.js';
import type { SeriesDescription } from '../src/engine/series-value.js';

const CURRENT: SeriesDescription = { source: 'price', method: 'current', args: {} };
const HIGH: SeriesDescription = { source: 'price', method: 'high', args: { period: '1h' } };

function channel() {
  let now = 0;
  const price = new PriceChannel({ topic: { source: 'price', symbol: 'BTC' }, now: () => now, warmed: () => undefined, problem: () => undefined });
  /** One tick; the series it changed, by key. */
  const tick = (at: number, value: number): string[] => {
    now = at;
    const observation: PriceObservation = { at, source: 'price', symbol: 'BTC', price: value };
    return price.update(observation).map((series) => series.key);
  };
  return { price, tick };
}

describe('PriceChannel', () => {
  // A topic whose only series is its last price takes a tick without its list of series; one with more
  // series takes the loop. Both must give the same values, changes and readiness, and a channel goes from
  // one to the other as series come and go.
  it('updates its last price alone or beside other series, and as series come and go', () => {
    const { price, tick } = channel();
    const current = price.acquire(CURRENT);
    expect(price.takeReadinessChanges()).toBeUndefined();
    expect(tick(1_000, 10)).toEqual([current.key]);
    // A first value changes readiness, once.
    expect(price.takeReadinessChanges()).toEqual([current]);
    expect(price.takeReadinessChanges()).toBeUndefined();
    expect(tick(2_000, 10)).toEqual([]);
    expect(current.updatedAt).toBe(2_000);
    const high = price.acquire(HIGH);
    expect(tick(3_000, 12)).toEqual([current.key, high.key]);
    expect([current.value, current.previous, high.value]).toEqual([12, 10, 12]);
    price.release(high);
    expect(tick(4_000, 11)).toEqual([current.key]);
    expect([current.value, current.previous, current.updatedAt]).toEqual([11, 12, 4_000]);
    // A tick older than the last is taken as it comes, in both paths alike.
    expect(tick(3_500, 9)).toEqual([current.key]);
    expect([current.value, current.updatedAt]).toEqual([9, 3_500]);
    price.release(current);
    expect(price.isEmpty).toBe(true);
  });

  it('a series acquired alone after another was released is the only one again', () => {
    const { price, tick } = channel();
    const high = price.acquire(HIGH);
    const current = price.acquire(CURRENT);
    expect(tick(1, 5)).toEqual([high.key, current.key]);
    price.release(high);
    expect([tick(2, 6), tick(3, 6)]).toEqual([[current.key], []]);
    expect([current.value, current.previous, current.updatedAt]).toEqual([6, 5, 3]);
  });
});
