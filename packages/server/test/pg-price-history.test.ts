import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type PriceTopic, RecordingHistory } from '@eql/core';
import { migratePg } from '../src/store/pg/pg-migrations.js';
import { PgPriceHistory, RefusedTickError, type SequencedPriceTick } from '../src/store/pg/pg-price-history.js';
import { describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';

// The cluster's shared price history (issue 14, scale-out): on the same observations it answers the
// ticks and candles RecordingHistory answers, exactly; writes are idempotent; pruning keeps the last tick
// before the cut; origins come from the cluster's epoch. One schema for the file, emptied before each test.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Not aligned to a minute, so that ranges and buckets cross. */
const BASE = Date.UTC(2026, 0, 5) + 17_345;
const EPOCH = Date.UTC(2026, 0, 6);

let schema: TestSchema;
let pool: pg.Pool;

const price = (symbol: string): PriceTopic => ({ source: 'price', symbol });
const tick = (seq: number, symbol: string, at: number, value: number, volume?: number): SequencedPriceTick => ({
  seq,
  observation: { source: 'price', symbol, at, price: value, ...(volume === undefined ? {} : { volume }) },
});

await describeWithPostgres('PgPriceHistory', () => {
  beforeAll(async () => {
    schema = await freshSchema('price_history');
    pool = new pg.Pool({ connectionString: schema.url, max: 4 });
    await migratePg(pool);
  });
  afterAll(async () => {
    await pool.end();
    await schema.drop();
  });
  beforeEach(async () => {
    await pool.query('TRUNCATE price_ticks');
  });

  it('answers the ticks and candles RecordingHistory answers over the same observations', { timeout: 60_000 }, async () => {
    const symbols = ['BTC', 'BTC/USDT', 'btc-perp', 'ETH', 'ETH/USDT:USDT', 'SOL'];
    const offset = fc.oneof(fc.integer({ min: 0, max: 3 * HOUR }), fc.constantFrom(0, 1, MINUTE - 1, MINUTE, 5 * MINUTE, HOUR - 1, HOUR));
    const generatedTick = fc.record({
      symbol: fc.constantFrom(...symbols),
      offset,
      price: fc.oneof(fc.double({ min: 0.001, max: 1e5, noNaN: true }), fc.integer({ min: 1, max: 5 })),
      volume: fc.option(
        fc.double({ min: 0, max: 1e3, noNaN: true }).map((volume) => volume + 0),
        { nil: undefined },
      ),
    });
    const range = fc.record({ from: fc.integer({ min: -HOUR, max: 4 * HOUR }), length: fc.integer({ min: 0, max: 5 * HOUR }) });
    const question = fc.record({ symbol: fc.constantFrom(...symbols, 'DOGE'), range, timeframe: fc.constantFrom(MINUTE, 5 * MINUTE, HOUR) });
    await fc.assert(
      fc.asyncProperty(fc.array(generatedTick, { maxLength: 120 }), fc.array(question, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 4 }), async (generated, questions, batches) => {
        await pool.query('TRUNCATE price_ticks');
        // The bus order (seq) is the order generated; times are not in that order, and some are equal.
        const sequenced = generated.map((t, index) => tick(index + 1, t.symbol, BASE + t.offset, t.price, t.volume));
        const history = new PgPriceHistory(pool, { epoch: EPOCH });
        const size = Math.ceil(sequenced.length / batches);
        for (let start = 0; start < sequenced.length; start += size) await history.record(sequenced.slice(start, start + size));
        await history.record(sequenced.slice(0, size)); // a publisher's retry
        const inOrder = [...sequenced].sort((a, b) => a.observation.at - b.observation.at || a.seq - b.seq);
        const reference = new RecordingHistory(inOrder.map((t) => t.observation));
        for (const { symbol, range: r, timeframe } of questions) {
          const [from, to] = [BASE + r.from, BASE + r.from + r.length];
          expect(await history.ticks(price(symbol), from, to)).toEqual(reference.ticks(price(symbol), from, to));
          expect(await history.ticks(price(symbol), from, from)).toEqual(reference.ticks(price(symbol), from, from));
          expect(await history.candles(price(symbol), timeframe, from, to)).toEqual(reference.candles(price(symbol), timeframe, from, to));
        }
      }),
      { numRuns: 30 },
    );
  });

  it('records a tick once: a retried batch, or another tick with the same asset and seq, changes nothing', async () => {
    const history = new PgPriceHistory(pool, { epoch: EPOCH });
    await history.record([tick(1, 'BTC', BASE, 100, 2), tick(2, 'ETH', BASE, 10)]);
    await history.record([tick(1, 'BTC/USDT', BASE + 5, 999, 7), tick(2, 'ETH', BASE, 10), tick(1, 'BTC', BASE, 100, 2)]);
    expect(await history.ticks(price('BTC-PERP'), BASE, BASE + HOUR)).toEqual([{ at: BASE, price: 100, volume: 2 }]);
    expect(await history.ticks(price('ETH'), BASE, BASE + HOUR)).toEqual([{ at: BASE, price: 10, volume: 0 }]);
    expect((await pool.query('SELECT count(*)::int AS n FROM price_ticks')).rows[0]).toEqual({ n: 2 });
  });

  it('keeps a symbol holding a NUL (a message on the bus) as U+FFFD, as the SQLite record does: the batch with it is written', async () => {
    const history = new PgPriceHistory(pool, { epoch: EPOCH });
    await history.record([tick(1, 'BT\u0000C', BASE, 100, 2), tick(2, 'ETH', BASE, 10)]);
    expect(await history.ticks(price('BT\uFFFDC'), BASE, BASE + HOUR)).toEqual([{ at: BASE, price: 100, volume: 2 }]);
    expect(await history.ticks(price('ETH'), BASE, BASE + HOUR)).toEqual([{ at: BASE, price: 10, volume: 0 }]);
  });

  it('keeps the engine’s rules: ignored prices are not stored, odd volumes count as 0 in candles, bad times refuse the batch', async () => {
    const history = new PgPriceHistory(pool, { epoch: EPOCH });
    await history.record([tick(1, 'BTC', BASE, 0), tick(2, 'BTC', BASE, Number.NaN), tick(3, 'BTC', Number.POSITIVE_INFINITY, 5)]);
    await history.record([tick(4, 'BTC', BASE, 100, Number.NaN), tick(5, 'BTC', BASE + 1, 101, -3), tick(6, 'BTC', BASE + 2, 99, 4)]);
    const ticks = await history.ticks(price('BTC'), BASE, BASE + HOUR);
    expect(ticks.map((t) => [t.price, t.volume])).toEqual([
      [100, Number.NaN],
      [101, -3],
      [99, 4],
    ]);
    const start = Math.floor(BASE / MINUTE) * MINUTE;
    expect(await history.candles(price('BTC'), MINUTE, start, BASE + HOUR)).toEqual([{ start, open: 100, high: 101, low: 99, close: 99, volume: 4 }]);
    await expect(history.record([tick(7, 'BTC', BASE + 0.5, 1)])).rejects.toThrow(RefusedTickError);
    await expect(history.record([tick(1.5, 'BTC', BASE, 1)])).rejects.toThrow(RefusedTickError);
    await expect(history.candles(price('BTC'), 0, BASE, BASE + HOUR)).rejects.toThrow(RangeError);
  });

  it('prunes ticks before the cut but keeps each asset’s last one, so ticks(t, t) still answers', async () => {
    const history = new PgPriceHistory(pool, { epoch: EPOCH, retentionMs: HOUR });
    const cut = BASE + 10 * MINUTE;
    await history.record([
      tick(1, 'BTC', BASE, 1),
      tick(2, 'BTC', BASE + MINUTE, 2),
      tick(4, 'BTC/USDT', cut - 1, 4), // the same instant as seq 3, later in the feed: the one kept
      tick(3, 'BTC', cut - 1, 3),
      tick(5, 'BTC', cut, 5),
      tick(6, 'ETH', BASE, 10),
      tick(7, 'SOL', cut + 1, 20),
    ]);
    expect(await history.prune(cut)).toBe(3);
    expect(await history.ticks(price('BTC'), cut, cut)).toEqual([{ at: cut - 1, price: 4, volume: 0 }]);
    expect(await history.ticks(price('BTC'), 0, cut + HOUR)).toEqual([
      { at: cut - 1, price: 4, volume: 0 },
      { at: cut, price: 5, volume: 0 },
    ]);
    expect(await history.ticks(price('ETH'), cut, cut)).toEqual([{ at: BASE, price: 10, volume: 0 }]);
    expect(await history.ticks(price('SOL'), 0, cut + HOUR)).toEqual([{ at: cut + 1, price: 20, volume: 0 }]);
    expect(await history.prune(cut)).toBe(0);
    // pruneExpired cuts `retentionMs` before now: an hour after the last SOL tick, only the last tick of each asset is left.
    expect(await history.pruneExpired(cut + 1 + HOUR + 1)).toBe(1);
    expect(await history.ticks(price('BTC'), 0, cut + HOUR)).toEqual([{ at: cut, price: 5, volume: 0 }]);
  });

  it('prunes in batches of at most `limit`, oldest first, ending where one prune of everything ends', async () => {
    const history = new PgPriceHistory(pool, { epoch: EPOCH });
    const ticks = ['BTC', 'ETH', 'SOL'].flatMap((symbol, asset) => Array.from({ length: 20 }, (_, index) => tick(asset * 100 + index + 1, symbol, BASE + index * MINUTE, 100 + index)));
    await history.record(ticks);
    const cut = BASE + 12 * MINUTE + 1;
    const counts: number[] = [];
    for (;;) {
      const count = await history.prune(cut, 5);
      counts.push(count);
      if (count < 5) break;
    }
    // 12 ticks of each asset are before its last one before the cut: 36 in batches of 5.
    expect(counts).toEqual([5, 5, 5, 5, 5, 5, 5, 1]);
    for (const symbol of ['BTC', 'ETH', 'SOL']) {
      expect((await history.ticks(price(symbol), 0, BASE + HOUR)).map((item) => item.at)).toEqual(Array.from({ length: 8 }, (_, index) => BASE + (12 + index) * MINUTE));
    }
  });

  it('starts smoothing at the later of the first tick’s bucket and maxCandles before the epoch, the same for every instance', async () => {
    const early = new PgPriceHistory(pool, { epoch: EPOCH, maxCandles: 10 });
    expect(await early.origin(price('BTC'), MINUTE)).toBeUndefined();
    expect(early.supports(price('NEVER/SEEN'))).toBe(true);
    await early.record([tick(1, 'BTC/USDT', EPOCH - 20 * HOUR + 123, 1), tick(2, 'ETH', EPOCH - 3 * MINUTE - 7, 1), tick(3, 'ETH', EPOCH - 30 * HOUR, 1)]);
    // BTC's first tick is older than the anchor: the anchor, counted from the epoch.
    expect(await early.origin(price('BTC'), MINUTE)).toBe(EPOCH - 10 * MINUTE);
    expect(await early.origin(price('BTC'), HOUR)).toBe(EPOCH - 10 * HOUR);
    expect(await early.origin(price('BTC-PERP'), 5 * HOUR)).toBe(Math.floor((EPOCH - 20 * HOUR + 123) / (5 * HOUR)) * (5 * HOUR));
    // ETH's first tick by time (not by seq) is within the anchor for an hour timeframe: its bucket.
    expect(await early.origin(price('ETH'), 4 * HOUR)).toBe(Math.floor((EPOCH - 30 * HOUR) / (4 * HOUR)) * (4 * HOUR));
    const before = await Promise.all([MINUTE, 5 * MINUTE, HOUR].map((tf) => early.origin(price('BTC'), tf)));
    // A host started later (its clock elsewhere), with the same epoch, agrees.
    const later = Date.now() + 3 * HOUR;
    const late = new PgPriceHistory(pool, { epoch: EPOCH, maxCandles: 10 });
    await late.record([tick(4, 'BTC', later, 2)]);
    expect(await Promise.all([MINUTE, 5 * MINUTE, HOUR].map((tf) => late.origin(price('BTC'), tf)))).toEqual(before);
    expect(await Promise.all([MINUTE, 5 * MINUTE, HOUR].map((tf) => early.origin(price('BTC'), tf)))).toEqual(before);
  });
});
