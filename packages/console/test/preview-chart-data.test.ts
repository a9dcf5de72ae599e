import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRecording, preview } from '@eql/core';
import { formatAmount, formatNumber, formatPercent, formatUsd, pricePrecision } from '../src/numbers.js';
import { chartData, onSlots, slotOf } from '../src/views/preview-chart-data.js';

// What the console's preview chart draws, from a real preview: every series on the candles' grid (the
// chart's time scale has a slot per distinct time), and numbers written for people.

const RECORDING = parseRecording(readFileSync(new URL('../../../fixtures/recordings/market-3d.jsonl', import.meta.url), 'utf8'));
const MEAN_REVERSION = {
  query: {
    conditions: { AND: [{ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '5m', period: 14 }, operator: 'crosses_below', value: 30 }] },
    actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC-PERP', side: 'buy', size: 0.05, takeProfit: { percent: 1 }, stopLoss: { percent: 1 } } }],
    repeat: { cooldown: '1h', maxTriggers: 20 },
    expiresIn: '3d',
  },
};

const sortedStarts = fc.uniqueArray(fc.integer({ min: 0, max: 1e6 }), { minLength: 1, maxLength: 50 }).map((starts) => starts.sort((a, b) => a - b));

describe('the chart’s time grid', () => {
  it('puts an instant in the last slot starting at or before it (the first, before them all)', () => {
    fc.assert(
      fc.property(sortedStarts, fc.integer({ min: -10, max: 1e6 + 10 }), (starts, time) => {
        const slot = slotOf(starts, time);
        const atOrBefore = starts.filter((start) => start <= time);
        expect(slot).toBe(atOrBefore.length === 0 ? starts[0] : atOrBefore.at(-1));
      }),
    );
  });

  it('keeps one point a slot, the last value there, in time order', () => {
    fc.assert(
      fc.property(sortedStarts, fc.array(fc.tuple(fc.integer({ min: 0, max: 1e6 }), fc.double({ noNaN: true, noDefaultInfinity: true })), { maxLength: 80 }), (starts, raw) => {
        const points = raw.sort((a, b) => a[0] - b[0]).map(([time, value]) => ({ at: new Date(time * 1000).toISOString(), value }));
        const sampled = onSlots(starts, points);
        expect(sampled.map((point) => point.time)).toEqual([...new Set(points.map((point) => slotOf(starts, Date.parse(point.at) / 1000)))].sort((a, b) => a - b));
        for (const point of sampled) {
          const last = points.filter((candidate) => slotOf(starts, Date.parse(candidate.at) / 1000) === point.time).at(-1);
          expect(point.value).toBe(last?.value);
        }
      }),
    );
  });
});

describe('chartData of a trading rule’s preview', () => {
  const result = preview(MEAN_REVERSION as never, RECORDING, { paper: { feeRate: 0.0005 } });
  const data = chartData(result);

  it('draws the query’s candles, its RSI and the equity, all on the candles’ grid', () => {
    expect(data?.symbol).toBe('BTC');
    expect(data?.timeframe).toBe('5m');
    const starts = new Set(data?.candles.map((candle) => candle.time));
    expect(starts.size).toBe(data?.candles.length);
    const times = [...(data?.markers ?? []), ...(data?.indicators[0]?.values ?? []), ...(data?.equity?.values ?? []), ...(data?.warmUp ?? [])].map((point) => point.time);
    expect(times.length).toBeGreaterThan(100);
    expect(times.filter((time) => !starts.has(time))).toEqual([]);
    expect(data?.indicators.map((pane) => [pane.label, pane.threshold])).toEqual([['BTC rsi 5m crosses_below 30', 30]]);
    expect(data?.equity?.deposit).toBe(10_000);
    // The equity's last point is the account's final equity.
    expect(data?.equity?.values.at(-1)?.value).toBeCloseTo(result.paper?.summary.finalEquityUsd ?? NaN, 6);
  });

  it('marks every trigger and every fill of the symbol, exits by their name', () => {
    const markers = data?.markers ?? [];
    expect(markers.filter((marker) => marker.kind === 'trigger')).toHaveLength(result.triggers.length);
    const fills = result.paper?.fills ?? [];
    expect(markers.filter((marker) => marker.kind === 'buy' || marker.kind === 'sell').map((marker) => marker.label).sort()).toEqual(
      fills.map((fill) => (fill.exit === 'take_profit' ? 'TP' : fill.exit === 'stop_loss' ? 'SL' : fill.exit === 'trailing_stop' ? 'TS' : fill.side === 'buy' ? 'B' : 'S')).sort(),
    );
    expect(markers.some((marker) => marker.label === 'TP') && markers.some((marker) => marker.label === 'SL')).toBe(true);
    expect(markers.map((marker) => marker.time)).toEqual([...markers.map((marker) => marker.time)].sort((a, b) => a - b));
    expect(markers.find((marker) => marker.label === 'SL')?.text).toMatch(/^sell \(stop loss\) 0\.05 BTC-PERP @ [\d,]+\.?\d* at 2026-01-0\dT/);
  });

  it('has nothing to draw for a query that reads no price', () => {
    const news = preview({ query: { conditions: { AND: [{ source: 'news', args: { text: 'ETF approved', minConfidence: 80 } }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn: '1d' } } as never, RECORDING);
    expect(chartData(news)).toBeUndefined();
  });
});

describe('numbers for people', () => {
  it.each([
    [102776.67, '102,776.67'],
    [102776.6789, '102,776.68'],
    [41.23456789012345, '41.2346'],
    [30, '30'],
    [0, '0'],
    [0.000123456, '0.0001235'],
    [-3.5, '-3.5'],
  ])('formatNumber(%s) is %s', (value, text) => expect(formatNumber(value)).toBe(text));

  it.each([
    [1234.5, false, '$1,234.50'],
    [1234.5, true, '+$1,234.50'],
    [-3.1, true, '-$3.10'],
    [0, true, '$0.00'],
  ])('formatUsd(%s, signed %s) is %s', (value, signed, text) => expect(formatUsd(value, signed)).toBe(text));

  it('writes percents with two decimals and a no-break space, amounts to the satoshi, and price scales by magnitude', () => {
    expect(formatPercent(12.345)).toBe('12.35\u00a0%');
    expect(formatPercent(-1.2, true)).toBe('-1.20\u00a0%');
    expect(formatPercent(0.5, true)).toBe('+0.50\u00a0%');
    expect(formatAmount(0.123456789)).toBe('0.12345679');
    expect(formatAmount(0.05)).toBe('0.05');
    expect([pricePrecision(100_000), pricePrecision(3.2), pricePrecision(0.0004)]).toEqual([2, 4, 6]);
  });
});
