import { describe, expect, it, vi } from 'vitest';
import { type Observation, PushSource } from '@eql/core';
import { BusPublisher, LeaseLostError, type Publication } from '../src/scale-out/bus-publisher.js';
import type { MarketBus } from '../src/scale-out/market-bus.js';
import { VenuePublisher, venueMessageId } from '../src/scale-out/venue-publisher.js';

// What the feed's leader publishes into the market bus is published once (docs/scale-out.md, "The market
// bus"): the stream drops a message whose id it already has, so a tick given again must carry the same id;
// and a leader whose lease may be lost publishes nothing more. Publishers here write to a recording stub.

/** A bus that stores what it is given, dropping an id it already has (as JetStream does within its duplicate window). */
function stubBus(): { bus: MarketBus; stored: Publication[]; sent: string[] } {
  const stored: Publication[] = [];
  const sent: string[] = [];
  const bus = {
    publish: (observation: Observation, id: string) => {
      sent.push(id);
      const duplicate = stored.some((entry) => entry.id === id);
      if (!duplicate) stored.push({ observation, id });
      return Promise.resolve({ seq: stored.length, duplicate });
    },
  } as unknown as MarketBus;
  return { bus, stored, sent };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('a live feed published into the bus', () => {
  it('a leader that leads again, and is handed the last tick again by its feed, publishes it under the same id: the stream keeps it once', async () => {
    const venue = new PushSource();
    const { bus, stored, sent } = stubBus();
    const publisher = new VenuePublisher({ sources: [venue], topics: () => Promise.resolve([{ source: 'price', symbol: 'ETH' }]), publisher: new BusPublisher(bus), refreshMs: 3_600_000 });
    await publisher.start();
    venue.push({ at: 1_700_000_000_000, source: 'price', symbol: 'ETH', price: 150 });
    await until(() => sent.length === 1);
    // The lease moves away and back: the publisher stops, then starts again and subscribes anew.
    await publisher.stop();
    await publisher.start();
    await until(() => sent.length === 2);
    await publisher.stop();
    expect(sent[1]).toBe(sent[0]);
    expect(stored).toHaveLength(1);
  });

  it('names an observation by what it says: the same tick the same id, another price or instant another id, nothing the bus does not carry', () => {
    const tick = { at: 1_700_000_000_000, source: 'price', symbol: 'ETH', price: 150 } as const;
    expect(venueMessageId({ ...tick })).toBe(venueMessageId(tick));
    expect(venueMessageId(tick)).toMatch(/^price:ETH@1700000000000#[A-Za-z0-9_-]{16}$/);
    expect(venueMessageId({ ...tick, price: 151 })).not.toBe(venueMessageId(tick));
    expect(venueMessageId({ ...tick, at: tick.at + 1 })).not.toBe(venueMessageId(tick));
    expect(venueMessageId({ at: tick.at, source: 'llm', query: 'q', confidence: 90 } as unknown as Observation)).toBeUndefined();
  });
});

describe('a publisher under a lease', () => {
  const items = (count: number): Publication[] => Array.from({ length: count }, (_, index) => ({ observation: { at: index, source: 'price', symbol: 'BTC', price: 100 + index }, id: `t${index}` }));

  it('publishes nothing once its lease may be lost, and says so', async () => {
    const { bus, sent } = stubBus();
    await expect(new BusPublisher(bus, () => false).publish(items(3))).rejects.toBeInstanceOf(LeaseLostError);
    expect(sent).toEqual([]);
  });

  it('stops in the middle of a batch when the lease lapses there', async () => {
    const { bus, sent } = stubBus();
    const leased = vi.fn(() => sent.length < 2);
    await expect(new BusPublisher(bus, leased).publish(items(5))).rejects.toBeInstanceOf(LeaseLostError);
    expect(sent).toEqual(['t0', 't1']);
  });

  it('publishes everything while the lease holds (and without one: eql bus publish)', async () => {
    const leasedBus = stubBus();
    expect(await new BusPublisher(leasedBus.bus, () => true).publish(items(3))).toMatchObject({ published: 3, duplicates: 0 });
    const plainBus = stubBus();
    expect(await new BusPublisher(plainBus.bus).publish(items(3))).toMatchObject({ published: 3, duplicates: 0 });
  });
});
