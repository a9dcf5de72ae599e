import { expect, it } from 'vitest';
import { parseRecording } from '@eql/core';
import type { BusPublisher, Publication } from '../src/scale-out/bus-publisher.js';
import { ReplayPublisher } from '../src/scale-out/replay-publisher.js';

// The replay feed on the bus stamps whole milliseconds at any speed (issue 45, finding 4): at
// EQL_REPLAY_SPEED=7 a recorded minute plays in 8,571.43 ms, and a fraction of a ms is what the
// hosts skip as no observation (and what the price history refused, wedging its recorder).

it('publishes the timeline in whole milliseconds at a speed that divides nothing', async () => {
  const lines = Array.from({ length: 6 }, (_, index) => JSON.stringify({ at: new Date(Date.UTC(2026, 0, 5, 0, index)).toISOString(), source: 'price', symbol: 'BTC', price: 100 + index }));
  const recording = parseRecording(`${lines.join('\n')}\n`);
  const now = Date.UTC(2026, 5, 1);
  const published: Publication[] = [];
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const publisher = {
    publish: (items: Publication[]) => {
      published.push(...items);
      if (published.length >= 6) done();
      return Promise.resolve({ published: items.length, duplicates: 0, skipped: 0, lastSeq: published.length });
    },
  } as unknown as BusPublisher;
  // The origin 5 minutes back at speed 7, nothing published since: the first lap (5 recorded minutes, 43 s played) is due at once.
  const replay = new ReplayPublisher({ recording, timeline: { origin: now - 300_000, speed: 7 }, publisher, lastPublishedAt: () => Promise.resolve(now - 300_001), now: () => now });
  await replay.start();
  await all;
  await replay.stop();
  const times = published.slice(0, 6).map((publication) => publication.observation.at);
  expect(times.filter((at) => !Number.isInteger(at))).toEqual([]);
  expect(times).toEqual([0, 1, 2, 3, 4, 5].map((minute) => Math.round(now - 300_000 + (minute * 60_000) / 7)));
});
