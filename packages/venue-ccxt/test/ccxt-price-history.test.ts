import ccxt from 'ccxt';
import { HistoryError, type Candle, type PriceTopic } from '@eql/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CcxtPriceHistory, type CcxtPriceHistoryOptions } from '../src/index.js';
import { startBinanceMock, type BinanceMock, type KlineRow } from './support/binance-mock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** Monday 2024-01-08 00:00 UTC, a week boundary of EQL (weeks start on Mondays, as the venues'). */
const T0 = Date.UTC(2024, 0, 8);

/** The Monday 00:00 UTC that starts the week holding `at`, by the calendar (not the code under test). */
function mondayOf(at: number): number {
  const day = new Date(at);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
}
const BTC: PriceTopic = { source: 'price', symbol: 'BTC' };

/** Candles like a recorded Binance series: `count` buckets of `tf` from `start`, without the indexes in `skip`. */
function series(start: number, count: number, tf: number, skip: ReadonlySet<number> = new Set()): KlineRow[] {
  const rows: KlineRow[] = [];
  for (let i = 0; i < count; i += 1) {
    if (skip.has(i)) continue;
    const open = 42_000 + ((i * 37) % 400);
    const close = open + (i % 3 === 0 ? -12.5 : 20.25);
    rows.push({ start: start + i * tf, open, high: Math.max(open, close) + 8.5, low: Math.min(open, close) - 6, close, volume: 1 + (i % 7) * 0.125 });
  }
  return rows;
}

/** What the engine's CandleBuilder would give for these rows in buckets of `tf`. */
function aggregated(rows: readonly KlineRow[], tf: number): Candle[] {
  const out = new Map<number, Candle>();
  for (const row of rows) {
    const start = tf === WEEK ? mondayOf(row.start) : Math.floor(row.start / tf) * tf;
    const open = out.get(start);
    out.set(
      start,
      open === undefined
        ? { ...row, start }
        : { start, open: open.open, high: Math.max(open.high, row.high), low: Math.min(open.low, row.low), close: row.close, volume: open.volume + row.volume },
    );
  }
  return [...out.values()];
}

const candle = (row: KlineRow): Candle => ({ start: row.start, open: row.open, high: row.high, low: row.low, close: row.close, volume: row.volume });

/** Real ccxt (binance class) against a local mock of Binance's REST klines: no internet needed. */
describe('CcxtPriceHistory through real ccxt against a local Binance mock', () => {
  let mock: BinanceMock;
  beforeEach(async () => {
    mock = await startBinanceMock();
  });
  afterEach(async () => {
    await mock.close();
  });

  const client = (): InstanceType<typeof ccxt.binance> => new ccxt.binance(mock.config);
  const history = (now: number, options: CcxtPriceHistoryOptions = {}, exchange = client()): CcxtPriceHistory =>
    new CcxtPriceHistory(exchange, { now: () => now, retryBaseMs: 1, retryMaxMs: 2, ...options });
  /** Query parameters of every klines request, in order. */
  const klineRequests = (): URLSearchParams[] =>
    mock
      .requests()
      .filter((path) => path.includes('/klines'))
      .map((path) => new URL(path, 'http://mock').searchParams);

  it('pages 1,200 one-minute candles in 3 requests of the venue limit (500), following since', async () => {
    const rows = series(T0 - 1200 * MINUTE, 1230, MINUTE); // the venue also has 30 minutes after `to`
    mock.setKlines('linear', 'BTCUSDT', '1m', rows);
    const result = await history(T0 + 30 * MINUTE, { maxCandles: 5000 }).candles(BTC, MINUTE, T0 - 1200 * MINUTE, T0);
    expect(result).toHaveLength(1200);
    expect(result).toEqual(rows.slice(0, 1200).map(candle));
    const requests = klineRequests();
    expect(mock.requests().filter((path) => path.startsWith('/fapi/v1/klines'))).toHaveLength(3);
    expect(requests.map((params) => Number(params.get('startTime')))).toEqual([T0 - 1200 * MINUTE, T0 - 700 * MINUTE, T0 - 200 * MINUTE]);
    expect(requests.map((params) => params.get('limit'))).toEqual(['500', '500', '500']);
    expect(requests.every((params) => params.get('symbol') === 'BTCUSDT' && params.get('interval') === '1m')).toBe(true);
  });

  it('honours pageLimit and stops on an empty page when the venue has nothing more', async () => {
    mock.setKlines('linear', 'BTCUSDT', '1h', series(T0 - 10 * HOUR, 5, HOUR));
    const result = await history(T0, { pageLimit: 3 }).candles(BTC, HOUR, T0 - 10 * HOUR, T0);
    expect(result.map((row) => row.start)).toEqual([0, 1, 2, 3, 4].map((i) => T0 - (10 - i) * HOUR));
    expect(klineRequests().map((params) => [Number(params.get('startTime')), params.get('limit')])).toEqual([
      [T0 - 10 * HOUR, '3'],
      [T0 - 7 * HOUR, '3'],
      [T0 - 5 * HOUR, '3'],
    ]);
  });

  it('leaves missing buckets missing, keeps one row per bucket and drops rows with non-finite prices', async () => {
    const rows = series(T0 - 60 * MINUTE, 60, MINUTE, new Set([10, 11, 12, 40]));
    const corrected = { ...rows[20]!, close: rows[20]!.close + 1 }; // served right after the first row of its minute
    const broken = { ...rows[30]!, start: T0 - 29 * MINUTE + 1, close: Number.NaN }; // served as "NaN"
    mock.setKlines('linear', 'BTCUSDT', '1m', [...rows, corrected, broken]);
    const result = await history(T0).candles(BTC, MINUTE, T0 - 60 * MINUTE, T0);
    const expected = rows.map((row) => (row.start === corrected.start ? candle(corrected) : candle(row)));
    expect(result).toEqual(expected);
    expect(result).toHaveLength(56);
    expect(result.map((row) => row.start)).not.toContain(T0 - 50 * MINUTE);
    expect(new Set(result.map((row) => row.start)).size).toBe(result.length);
  });

  it('retries an HTTP 429 and returns the right candles', async () => {
    const rows = series(T0 - 20 * MINUTE, 20, MINUTE);
    mock.setKlines('linear', 'BTCUSDT', '1m', rows);
    mock.klineFailures.push({ status: 429, body: '{"code":-1003,"msg":"Too many requests; current limit is 2400 request weight per 1 MINUTE."}' });
    const result = await history(T0).candles(BTC, MINUTE, T0 - 20 * MINUTE, T0);
    expect(result).toEqual(rows.map(candle));
    expect(mock.klineFailures).toEqual([]);
    expect(klineRequests().map((params) => Number(params.get('startTime')))).toEqual([T0 - 20 * MINUTE, T0 - 20 * MINUTE]);
  });

  it('retries a failed market load (ccxt keeps the failed loadMarkets unless told to reload)', async () => {
    const rows = series(T0 - 5 * MINUTE, 5, MINUTE);
    mock.setKlines('linear', 'BTCUSDT', '1m', rows);
    mock.exchangeInfoFailures.push({ status: 503, body: 'Service Unavailable' });
    await expect(history(T0).candles(BTC, MINUTE, T0 - 5 * MINUTE, T0)).resolves.toEqual(rows.map(candle));
    expect(mock.exchangeInfoFailures).toEqual([]);
    expect(mock.requests().filter((path) => path.endsWith('/exchangeInfo')).length).toBeGreaterThan(2);

    mock.exchangeInfoFailures.push(...Array.from({ length: 6 }, () => ({ status: 503, body: 'Service Unavailable' })));
    const subject = history(T0, { retries: 0 });
    await expect(subject.candles(BTC, MINUTE, T0 - 5 * MINUTE, T0)).rejects.toMatchObject({ code: 'HISTORY_UNAVAILABLE' });
    mock.exchangeInfoFailures.length = 0;
    await expect(subject.candles(BTC, MINUTE, T0 - 5 * MINUTE, T0)).resolves.toHaveLength(5); // a later call loads again
  });

  it('rejects with HISTORY_RATE_LIMITED when the venue keeps answering 429', async () => {
    mock.setKlines('linear', 'BTCUSDT', '1m', series(T0 - 20 * MINUTE, 20, MINUTE));
    for (let i = 0; i < 5; i += 1) mock.klineFailures.push({ status: 429, body: '{"code":-1003,"msg":"Too many requests."}' });
    const error = await history(T0, { retries: 2 })
      .candles(BTC, MINUTE, T0 - 20 * MINUTE, T0)
      .then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(HistoryError);
    expect(error).toMatchObject({ code: 'HISTORY_RATE_LIMITED' });
    const message = (error as HistoryError).message;
    expect(message).toMatch(/^binance rate-limited the price history of "BTC" after 3 attempts/);
    expect(message).not.toMatch(/startTime=/);
    expect(klineRequests()).toHaveLength(3);
    expect(mock.klineFailures).toHaveLength(2);
  });

  it('rejects refused credentials with HISTORY_UNAVAILABLE, without retrying or revealing them', async () => {
    // With a key, ccxt's binance loadMarkets also calls the signed /sapi/v1/margin/allPairs, which the mock refuses.
    const apiKey = 'k3yVmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIP';
    const secret = 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjIn';
    const exchange = new ccxt.binance({ ...mock.config, apiKey, secret });
    const error = await history(T0, {}, exchange)
      .candles(BTC, MINUTE, T0 - 20 * MINUTE, T0)
      .then(() => undefined, (caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'HistoryError', code: 'HISTORY_UNAVAILABLE' });
    const everything = `${(error as HistoryError).message} ${JSON.stringify(error)}`;
    expect(everything).toMatch(/AuthenticationError/);
    expect(everything).not.toContain(apiKey);
    expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/signature=/);
    expect(mock.requests().filter((path) => path.startsWith('/sapi/v1/margin/allPairs'))).toHaveLength(1);
  });

  it('rejects unknown symbols with HISTORY_UNKNOWN_SYMBOL (no market, or the venue refuses it)', async () => {
    const subject = history(T0);
    await expect(subject.candles({ source: 'price', symbol: 'DOESNOTEXIST' }, MINUTE, T0 - HOUR, T0)).rejects.toMatchObject({
      name: 'HistoryError',
      code: 'HISTORY_UNKNOWN_SYMBOL',
      message: 'binance has no market for "DOESNOTEXIST"',
    });
    expect(klineRequests()).toHaveLength(0);
    // SOL/USDT is listed (spot) but /api/v3/klines answers {"code":-1121,"msg":"Invalid symbol."}: not retried.
    await expect(subject.ticks({ source: 'price', symbol: 'SOL/USDT' }, T0 - HOUR, T0)).rejects.toMatchObject({ code: 'HISTORY_UNKNOWN_SYMBOL' });
    expect(mock.requests().filter((path) => path.startsWith('/api/v3/klines'))).toHaveLength(1);
  });

  it('aggregates 8h from 4h when the venue has no 8h', async () => {
    const rows = series(T0 - 48 * HOUR, 12, 4 * HOUR, new Set([5]));
    mock.setKlines('linear', 'BTCUSDT', '4h', rows);
    const exchange = client();
    delete exchange.timeframes['8h'];
    const result = await history(T0, {}, exchange).candles(BTC, 8 * HOUR, T0 - 48 * HOUR, T0);
    expect(result).toEqual(aggregated(rows, 8 * HOUR));
    expect(result).toHaveLength(6);
    expect(result[2]).toEqual(candle({ ...rows[4]!, start: T0 - 32 * HOUR })); // its second 4h candle is missing
    expect(klineRequests().map((params) => params.get('interval'))).toEqual(['4h']);
  });

  it('builds 3d and 1w from 1d (3d counted from the epoch, weeks starting on Mondays), never from the venue 1w', async () => {
    const start = T0 - 35 * DAY;
    const rows = series(start, 35, DAY);
    mock.setKlines('linear', 'BTCUSDT', '1d', rows);
    mock.setKlines('linear', 'BTCUSDT', '1w', series(Date.UTC(2023, 11, 4), 5, WEEK).map((row) => ({ ...row, close: row.close + 1 }))); // not the 1d's weeks: must not be used
    const subject = history(T0);
    const weeks = await subject.candles(BTC, WEEK, start, T0);
    expect(weeks).toEqual(aggregated(rows, WEEK));
    expect(weeks).toHaveLength(5);
    for (const week of weeks) {
      expect(week.start).toBe(mondayOf(week.start));
      expect(new Date(week.start).getUTCDay()).toBe(1);
    }
    const threeDays = await subject.candles(BTC, 3 * DAY, start, T0);
    expect(threeDays).toEqual(aggregated(rows.filter((row) => row.start >= Math.ceil(start / (3 * DAY)) * 3 * DAY), 3 * DAY));
    expect(threeDays.every((row) => row.start % (3 * DAY) === 0)).toBe(true);
    expect(new Set(klineRequests().map((params) => params.get('interval')))).toEqual(new Set(['1d']));
  });

  it('gives a partial last candle for the bucket holding `to`, and uses none of the rows after it', async () => {
    const hours = series(T0 - 5 * HOUR, 6, HOUR); // the last one is forming at T0 + 20 min
    mock.setKlines('linear', 'BTCUSDT', '1h', hours);
    const now = T0 + 20 * MINUTE;
    const result = await history(now).candles(BTC, HOUR, T0 - 5 * HOUR, now);
    expect(result).toEqual(hours.map(candle));
    expect(result.at(-1)?.start).toBe(T0);

    const days = series(T0 - 7 * DAY, 14, DAY); // Monday to Monday, and one more week
    mock.setKlines('linear', 'BTCUSDT', '1d', days);
    const to = T0 + 2 * DAY + 5 * HOUR; // Wednesday 05:00
    const weeks = await history(to + 7 * DAY).candles(BTC, WEEK, T0 - 7 * DAY, to);
    expect(weeks).toEqual(aggregated(days.slice(0, 10), WEEK));
    expect(weeks.at(-1)).toMatchObject({ start: T0, close: days[9]!.close });
  });

  it('has a fixed origin per timeframe for the life of the instance, and never fetches before it', async () => {
    let now = T0 + 17 * MINUTE;
    const subject = new CcxtPriceHistory(client(), { now: () => now, maxCandles: 100 });
    const origin = subject.origin(BTC, HOUR);
    expect(origin).toBe(T0 - 100 * HOUR);
    expect(subject.origin(BTC, WEEK)).toBe(mondayOf(T0 + 17 * MINUTE - 100 * WEEK));
    expect(new Date(subject.origin(BTC, WEEK)!).getUTCDay()).toBe(1);
    now += 3 * DAY;
    expect(subject.origin({ ...BTC, symbol: 'ETH' }, HOUR)).toBe(origin);
    expect(subject.origin(BTC, 0)).toBeUndefined();

    mock.setKlines('linear', 'BTCUSDT', '1h', series(T0 - 200 * HOUR, 200, HOUR));
    const result = await subject.candles(BTC, HOUR, T0 - 200 * HOUR, T0);
    expect(result[0]?.start).toBe(origin);
    expect(result).toHaveLength(100);
    expect(Number(klineRequests()[0]?.get('startTime'))).toBe(origin);
  });

  it('synthesises minute-resolution ticks after the last tick before `from`', async () => {
    const minutes = series(T0 - 10 * MINUTE, 14, MINUTE);
    mock.setKlines('linear', 'BTCUSDT', '1m', minutes);
    const from = T0;
    const to = T0 + 3 * MINUTE + 30_000;
    const ticks = await history(to).ticks(BTC, from, to);
    const before = minutes[9]!; // the minute before `from`
    expect(ticks[0]).toEqual({ at: from - 1, price: before.close, volume: before.volume });
    const rest = ticks.slice(1);
    expect(rest.every((tick) => tick.at >= from && tick.at < to)).toBe(true);
    expect(rest.map((tick) => tick.at)).toEqual([...rest.map((tick) => tick.at)].sort((a, b) => a - b));
    for (const row of minutes.slice(10, 14)) {
      const inMinute = rest.filter((tick) => tick.at >= row.start && tick.at < row.start + MINUTE);
      expect(inMinute.map((tick) => tick.price)).toEqual(row.close >= row.open ? [row.open, row.low, row.high, row.close] : [row.open, row.high, row.low, row.close]);
      expect(inMinute[0]?.at).toBe(row.start);
      expect(inMinute.at(-1)).toEqual({ at: Math.min(row.start + MINUTE, to) - 1, price: row.close, volume: row.volume });
      expect(inMinute.reduce((sum, tick) => sum + (tick.volume ?? 0), 0)).toBe(row.volume);
    }
    expect(rest.at(-1)?.at).toBe(to - 1); // the minute holding `to` is squeezed before it
    expect(Number(klineRequests()[0]?.get('startTime'))).toBe(from - MINUTE);

    // ticks(t, t): the last tick before t only.
    expect(await history(to).ticks(BTC, T0 + 2 * MINUTE, T0 + 2 * MINUTE)).toEqual([{ at: T0 + 2 * MINUTE - 1, price: minutes[11]!.close, volume: minutes[11]!.volume }]);
  });

  it('looks further back for the reference tick when the minute before `from` had no trade', async () => {
    const minutes = series(T0 - 30 * MINUTE, 35, MINUTE, new Set([25, 26, 27, 28, 29]));
    mock.setKlines('linear', 'BTCUSDT', '1m', minutes);
    const ticks = await history(T0 + 5 * MINUTE).ticks(BTC, T0, T0 + 2 * MINUTE);
    const reference = minutes[24]!;
    expect(ticks[0]).toEqual({ at: reference.start + MINUTE - 1, price: reference.close, volume: reference.volume });
    expect(ticks).toHaveLength(1 + 2 * 4);
    expect(klineRequests().map((params) => Number(params.get('startTime')))).toEqual([T0 - MINUTE, T0 - MINUTE - 500 * MINUTE]);
  });

  it('is built from an exchange id, supports its own and unqualified topics, and never throws synchronously', async () => {
    const subject = new CcxtPriceHistory('binance', { config: mock.config, now: () => T0 });
    expect(subject.name).toBe('ccxt:binance');
    expect(subject.supports(BTC)).toBe(true);
    expect(subject.supports({ ...BTC, exchange: 'Binance' })).toBe(true);
    expect(subject.supports({ ...BTC, exchange: 'okx' })).toBe(false);
    mock.setKlines('linear', 'BTCUSDT', '1m', series(T0 - 3 * MINUTE, 3, MINUTE));
    await expect(subject.candles(BTC, MINUTE, T0 - 3 * MINUTE, T0)).resolves.toHaveLength(3);
    const invalid = subject.candles(BTC, MINUTE, Number.NaN, T0);
    await expect(invalid).rejects.toMatchObject({ code: 'HISTORY_UNAVAILABLE' });
    await expect(subject.candles(BTC, -5, T0 - HOUR, T0)).rejects.toBeInstanceOf(HistoryError);
    await expect(new CcxtPriceHistory('nosuchvenue', { now: () => T0 }).candles(BTC, MINUTE, T0 - HOUR, T0)).rejects.toMatchObject({ code: 'HISTORY_UNAVAILABLE' });
  });

  it('rejects with HISTORY_UNAVAILABLE when the venue stays down', async () => {
    mock.setKlines('linear', 'BTCUSDT', '1m', series(T0 - 3 * MINUTE, 3, MINUTE));
    for (let i = 0; i < 3; i += 1) mock.klineFailures.push({ status: 503, body: 'Service Unavailable' });
    await expect(history(T0, { retries: 1 }).candles(BTC, MINUTE, T0 - 3 * MINUTE, T0)).rejects.toMatchObject({
      code: 'HISTORY_UNAVAILABLE',
      message: expect.stringMatching(/^binance could not give the price history of "BTC" after 2 attempts \(ExchangeNotAvailable/) as unknown,
    });
    expect(klineRequests()).toHaveLength(2);
  });
});
