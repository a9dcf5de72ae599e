import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candlesFromTicks, parseRecording, preview, type QueryRequest } from '@eql/core';
import { startBinanceMock, type BinanceMock, type KlineRow } from '../../venue-ccxt/test/support/binance-mock.js';
import { type CliIo, UnusableInput } from '../src/io.js';
import { recordCommand, type RecordFlags } from '../src/commands/record.js';

// `eql record` against a local server that answers as Binance's USDⓈ-M API does (no network): paged
// klines, a 429 retried, a run stopped half way resumed, and the recording replayed by `preview`.

const MINUTE = 60_000;
const T0 = Date.parse('2026-02-02T00:00:00Z');
const NOW = T0 + 3 * 86_400_000;

let mock: BinanceMock;
beforeAll(async () => {
  mock = await startBinanceMock();
});
afterAll(async () => {
  await mock.close();
});

/** A minute series of `count` candles from T0, trending up then down, in cents as a venue gives them. */
function klines(count: number, base: number): KlineRow[] {
  const cents = (value: number) => Math.round(value * 100) / 100;
  return Array.from({ length: count }, (_, i) => {
    const open = cents(base + 10 * Math.sin(i / 50) + i / 100);
    const close = cents(base + 10 * Math.sin((i + 1) / 50) + (i + 1) / 100);
    return { start: T0 + i * MINUTE, open, high: cents(Math.max(open, close) + 0.5), low: cents(Math.min(open, close) - 0.5), close, volume: 1 + (i % 5) };
  });
}

/** An in-memory file system for the command. */
function memoryIo(files: Map<string, string>, failAppendAfter = Number.POSITIVE_INFINITY) {
  let appends = 0;
  const out = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: (text) => (out.stdout += text),
    stderr: (text) => (out.stderr += text),
    readStdin: () => Promise.resolve(''),
    readFile: (path) => (files.has(path) ? Promise.resolve(files.get(path) as string) : Promise.reject(Object.assign(new Error('missing'), { code: 'ENOENT' }))),
    writeFile: (path, text) => {
      files.set(path, text);
      return Promise.resolve();
    },
    appendFile: (path, text) => {
      appends += 1;
      // A run stopped half way: the chunk is cut in the middle of a line.
      if (appends > failAppendAfter) {
        files.set(path, (files.get(path) ?? '') + text.slice(0, Math.floor(text.length / 2)));
        return Promise.reject(new Error('killed'));
      }
      files.set(path, (files.get(path) ?? '') + text);
      return Promise.resolve();
    },
    color: false,
  };
  return { io, out };
}

const flags = (overrides: Partial<RecordFlags> = {}): RecordFlags => ({
  venue: 'binanceusdm',
  symbols: 'BTC,ETH',
  timeframe: '1m',
  from: new Date(T0).toISOString(),
  to: new Date(T0 + 2500 * MINUTE).toISOString(),
  output: 'market.jsonl',
  ...overrides,
});

describe('eql record', () => {
  it('writes each candle as four ticks that build it back, both symbols in time order, paging the venue and retrying a 429', async () => {
    const btc = klines(3000, 60_000);
    const eth = klines(3000, 3_000);
    mock.setKlines('linear', 'BTCUSDT', '1m', btc);
    mock.setKlines('linear', 'ETHUSDC', '1m', eth);
    mock.klineFailures.push({ status: 429, body: '{"code":-1003,"msg":"Too many requests."}' });
    const files = new Map<string, string>();
    const { io, out } = memoryIo(files);
    expect(await recordCommand(flags(), io, { config: mock.config, retryBaseMs: 1, now: () => NOW })).toBe(0);
    expect(out.stdout).toContain('wrote 5000 1m candles of BTC, ETH from binanceusdm');
    const recording = parseRecording(files.get('market.jsonl') as string);
    expect(recording.observations).toHaveLength(5000 * 4);
    const ticksOf = (symbol: string) => recording.observations.filter((o) => o.source === 'price' && o.symbol === symbol).map((o) => ({ at: o.at, price: (o as { price: number }).price, volume: (o as { volume?: number }).volume ?? 0 }));
    // The engine's candles from the ticks are the venue's candles.
    const rebuilt = candlesFromTicks(ticksOf('BTC'), MINUTE, T0, T0 + 2500 * MINUTE);
    expect(rebuilt).toHaveLength(2500);
    rebuilt.forEach((candle, i) => expect(candle).toMatchObject({ start: btc[i]?.start, open: btc[i]?.open, high: btc[i]?.high, low: btc[i]?.low, close: btc[i]?.close, volume: btc[i]?.volume }));
    // More than one page (Binance gives at most 1500 rows a request), and the 429 was retried.
    expect(mock.requests().filter((path) => path.startsWith('/fapi/v1/klines')).length).toBeGreaterThan(4);
  });

  it('goes on after a run stopped half way: the cut line is dropped, nothing is written twice', async () => {
    const btc = klines(3000, 60_000);
    mock.setKlines('linear', 'BTCUSDT', '1m', btc);
    const files = new Map<string, string>();
    const stopped = memoryIo(files, 1);
    await expect(recordCommand(flags({ symbols: 'BTC' }), stopped.io, { config: mock.config, now: () => NOW })).rejects.toThrow('killed');
    const resumed = memoryIo(files);
    expect(await recordCommand(flags({ symbols: 'BTC' }), resumed.io, { config: mock.config, now: () => NOW })).toBe(0);
    expect(resumed.out.stderr).toMatch(/market\.jsonl holds candles before 2026-02-0\dT\d\d:\d\d:00\.000Z: going on from/);
    const recording = parseRecording(files.get('market.jsonl') as string);
    expect(recording.observations).toHaveLength(2500 * 4);
    const rebuilt = candlesFromTicks(recording.observations.map((o) => ({ at: o.at, price: (o as { price: number }).price, volume: (o as { volume?: number }).volume ?? 0 })), MINUTE, T0, T0 + 2500 * MINUTE);
    expect(rebuilt).toEqual(btc.slice(0, 2500).map((row) => ({ ...row })));
  });

  it('is a recording eql preview replays: an RSI rule fires on it', async () => {
    mock.setKlines('linear', 'BTCUSDT', '1m', klines(3000, 60_000));
    const files = new Map<string, string>();
    const { io } = memoryIo(files);
    await recordCommand(flags({ symbols: 'BTC' }), io, { config: mock.config, now: () => NOW });
    const request = { query: { conditions: { AND: [{ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '5m' }, operator: 'crosses_below', value: 30 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'oversold' } }], expiresIn: '3d' } } as unknown as QueryRequest;
    const result = preview(request, parseRecording(files.get('market.jsonl') as string));
    expect(result.triggered).toBe(true);
  });

  it('says what is wrong: a bad venue, symbol, timeframe or range exits 2 through UnusableInput; an unknown market names it', async () => {
    const files = new Map<string, string>();
    const { io } = memoryIo(files);
    for (const bad of [{ venue: 'Not A Venue!' }, { symbols: ' , ' }, { symbols: '$BTC' }, { timeframe: '1w' }, { from: 'yesterday' }, { to: new Date(T0 - MINUTE).toISOString() }]) {
      await expect(recordCommand(flags(bad), io, { config: mock.config, now: () => NOW }), JSON.stringify(bad)).rejects.toBeInstanceOf(UnusableInput);
    }
    const unknown = memoryIo(files);
    expect(await recordCommand(flags({ symbols: 'NOPE', output: 'nope.jsonl' }), unknown.io, { config: mock.config, now: () => NOW })).toBe(2);
    expect(unknown.out.stderr).toMatch(/eql record: binanceusdm: .*NOPE.*\(HISTORY_UNKNOWN_SYMBOL\)/);
  });
});
