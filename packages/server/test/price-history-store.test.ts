import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, EpochVirtualScheduler, type Observation, PushSource, type QueryRequest, RecordingHistory } from '@eql/core';
import { SqlitePriceHistory } from '../src/store/sqlite-price-history.js';
import { removeDir } from './support/harness.js';

const START = Date.parse('2026-01-05T00:00:00Z');
const MINUTE = 60_000;
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

/** One trade a minute, at the minute's start: the store's minutes then hold exactly the recording's ticks. */
function minuteTicks(hours: number, symbol = 'SOL'): Observation[] {
  return Array.from({ length: hours * 60 }, (_, minute) => ({ at: START + minute * MINUTE, source: 'price' as const, symbol, price: Math.round((100 + 10 * Math.sin(minute / 70) + (minute % 7)) * 100) / 100, volume: minute % 5 }));
}

const query = (method: string, args: Record<string, unknown>): QueryRequest =>
  ({ query: { conditions: { AND: [{ source: 'ta', method, args: { symbol: 'SOL', ...args }, operator: '>', value: -1e9 }, { source: 'price', method: 'current', args: { symbol: 'SOL' }, operator: '<', value: 0 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn: '7d' } }) as unknown as QueryRequest;

describe('the host record of prices', () => {
  it('survives a restart of its file and serves the candles, origin and ticks a recording of the same trades gives', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eql-prices-'));
    dirs.push(dir);
    const file = join(dir, 'prices.sqlite');
    const ticks = minuteTicks(30);
    const first = new SqlitePriceHistory(file);
    for (const tick of ticks) if (tick.source === 'price') first.record(tick);
    first.close();

    const now = START + 30 * 60 * MINUTE;
    const reopened = new SqlitePriceHistory(file, { now: () => now });
    const recording = new RecordingHistory(ticks);
    const topic = { source: 'price' as const, symbol: 'SOL/USDT' };
    expect(reopened.supports(topic)).toBe(true);
    expect(reopened.supports({ source: 'price', symbol: 'DOGE' })).toBe(false);
    // Smoothing starts at the first stored minute, or 1000 candles before the store was opened when that is later.
    expect(reopened.origin(topic, 3_600_000)).toBe(START);
    expect(reopened.origin(topic, MINUTE)).toBe(now - 1000 * MINUTE);
    for (const tf of [MINUTE, 5 * MINUTE, 15 * MINUTE, 3_600_000, 4 * 3_600_000, 86_400_000]) expect(reopened.candles(topic, tf, START, now)).toEqual(recording.candles(topic, tf, START, now));
    expect(reopened.ticks(topic, now - 5 * MINUTE, now).map((tick) => [tick.at, tick.price])).toEqual(recording.ticks(topic, now - 5 * MINUTE, now).map((tick) => [tick.at, tick.price]));
    reopened.close();
  });

  it('keeps a symbol holding a NUL (a message on the bus, an import) as U+FFFD, as the PostgreSQL history does', () => {
    const file = ':memory:';
    const store = new SqlitePriceHistory(file, { now: () => START + 10 * MINUTE });
    for (const tick of minuteTicks(1, 'BT\u0000C')) if (tick.source === 'price') store.record(tick);
    store.importMinutes([['ET\u0000H', { start: START, open: 1, high: 1, low: 1, close: 1, volume: 0, openAt: START, closeAt: START }]]);
    store.flush();
    const stored = store.db.prepare('SELECT DISTINCT asset FROM price_candles ORDER BY asset').all() as Array<{ asset: string }>;
    expect(stored.map((row) => row.asset)).toEqual(['BT\uFFFDC', 'ET\uFFFDH']);
    expect(store.ticks({ source: 'price', symbol: 'BT\uFFFDC' }, START, START + 10 * MINUTE)).toHaveLength(10);
    store.close();
  });

  it('prunes in batches the candles whose whole bucket ends by the cut, of every asset; the candles after it answer as before', () => {
    const store = new SqlitePriceHistory(':memory:', { now: () => START });
    const ticks = [...minuteTicks(30, 'SOL'), ...minuteTicks(30, 'BTC')];
    for (const tick of ticks) if (tick.source === 'price') store.record(tick);
    store.flush();
    const cut = START + 26 * 3_600_000 + 7 * MINUTE;
    const sol = { source: 'price' as const, symbol: 'SOL' };
    const kept = [MINUTE, 15 * MINUTE, 3_600_000].map((tf) => store.candles(sol, tf, cut, START + 30 * 3_600_000));
    const counts: number[] = [];
    for (;;) {
      const count = store.prune(cut, 400);
      counts.push(count);
      if (count < 400) break;
    }
    const total = counts.reduce((sum, count) => sum + count, 0);
    // Per asset: the minutes, quarters, hours and the first day that end by the cut; the second day (open at the cut) stays.
    expect(total).toBe(2 * (26 * 60 + 7 + 26 * 4 + 26 + 1));
    expect(counts.slice(0, -1).every((count) => count === 400)).toBe(true);
    expect([MINUTE, 15 * MINUTE, 3_600_000].map((tf) => store.candles(sol, tf, cut, START + 30 * 3_600_000))).toEqual(kept);
    const left = store.db.prepare('SELECT res, min(start) AS first FROM price_candles WHERE asset = ? GROUP BY res ORDER BY res').all('BTC') as Array<{ res: number; first: number }>;
    expect(left).toEqual([
      { res: MINUTE, first: START + 26 * 3_600_000 + 7 * MINUTE },
      { res: 15 * MINUTE, first: START + 26 * 3_600_000 },
      { res: 3_600_000, first: START + 26 * 3_600_000 },
      { res: 86_400_000, first: START + 86_400_000 },
    ]);
    store.close();
  });

  it('warms an engine after a restart to the values a live engine holds', () => {
    const ticks = minuteTicks(30);
    const cut = START + 20 * 60 * MINUTE;
    const store = new SqlitePriceHistory(':memory:', { now: () => cut });
    for (const tick of ticks) if (tick.source === 'price' && tick.at < cut) store.record(tick);
    for (const [method, args] of [['rsi', { timeframe: '1h', period: 14 }], ['ema', { timeframe: '15m', period: 9 }], ['macd_signal', { timeframe: '5m' }], ['bbands_upper', { timeframe: '1h', period: 10 }]] as const) {
      const live = new EpochVirtualScheduler(START);
      const liveFeed = new PushSource();
      const liveEngine = new Engine({ scheduler: live, sources: [liveFeed] });
      liveEngine.add({ queryId: 'q', request: query(method, args), createdAt: START });
      const warm = new EpochVirtualScheduler(cut + 1);
      const warmFeed = new PushSource();
      const warmEngine = new Engine({ scheduler: warm, sources: [warmFeed], history: [store] });
      warmEngine.add({ queryId: 'q', request: query(method, args), createdAt: cut + 1 });
      expect(warmEngine.inspect('q')?.conditionStates[0]?.status).toBe('ready');
      for (const tick of ticks) {
        live.advanceTo(tick.at);
        liveFeed.push(tick);
        if (tick.at < cut) continue;
        warm.advanceTo(Math.max(tick.at, cut + 1));
        warmFeed.push(tick);
        expect(warmEngine.inspect('q')?.conditionStates[0]?.value, `${method} at ${new Date(tick.at).toISOString()}`).toBe(liveEngine.inspect('q')?.conditionStates[0]?.value);
      }
    }
    store.close();
  });
});
