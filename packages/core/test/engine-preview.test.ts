import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRecording, preview, type QueryRequest } from '@eql/core';

/** The notable moments of fixtures/recordings/README.md, found by queries replayed on the recording. */
const market = parseRecording(readFileSync(new URL('../../../fixtures/recordings/market-3d.jsonl', import.meta.url), 'utf8'));
const btcDay = parseRecording(readFileSync(new URL('../../../fixtures/recordings/btc-1d.jsonl', import.meta.url), 'utf8'));

const query = (conditions: unknown, extra: Record<string, unknown> = {}): QueryRequest =>
  ({ title: 'preview test', query: { conditions, actions: [{ stepId: 'n', type: 'notify', params: { message: 'fired' } }], expiresIn: '7d', ...extra } }) as QueryRequest;
const leaf = (condition: Record<string, unknown>) => ({ AND: [condition] });

describe('preview on the shipped recordings', () => {
  it.each([
    ['BTC crossing 105,000', leaf({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: 'crosses_above', value: 105000 }), '2026-01-06T16:02:00.000Z'],
    ['the same on the one-day recording', leaf({ source: 'price', method: 'current', args: { symbol: 'BTC/USDT' }, operator: '>', value: 105000 }), '2026-01-06T16:02:00.000Z'],
    ["elonmusk's dogecoin post", leaf({ source: 'tweet', args: { username: 'elonmusk', text: 'dogecoin', minConfidence: 80 } }), '2026-01-06T02:14:37.000Z'],
    ["saylor's bitcoin purchase", leaf({ source: 'tweet', args: { username: 'saylor', text: 'acquired BTC', minConfidence: 80 } }), '2026-01-05T12:31:04.000Z'],
    ['the Solana ETF approval', leaf({ source: 'news', args: { text: 'SEC approves spot Solana ETF', minConfidence: 80 } }), '2026-01-05T20:30:00.000Z'],
    ['the exploit', leaf({ source: 'news', args: { text: 'protocol exploited drained', minConfidence: 80 } }), '2026-01-07T02:47:00.000Z'],
    ['bullish sentiment above 80', leaf({ source: 'llm', method: 'athena_condition', args: { query: 'Is crypto market sentiment bullish?', period: '1h' } }), '2026-01-06T16:00:00.000Z'],
    ['a liquidity crisis at 50 or more', leaf({ source: 'llm', args: { query: 'Is a major exchange facing a liquidity crisis?', period: '1h' }, operator: '>=', value: 50 }), '2026-01-07T10:00:00.000Z'],
    // README: hourly closes at HH:59; our 1h candle closes at the first tick of the next hour.
    ['SOL RSI(14, 1h) above 70', leaf({ source: 'ta', method: 'rsi', args: { symbol: 'SOL', timeframe: '1h', period: 14 }, operator: '>', value: 70 }), '2026-01-06T00:00:00.000Z'],
    ['SOL RSI(14, 1h) below 30', leaf({ source: 'ta', method: 'rsi', args: { symbol: 'SOL' }, operator: '<', value: 30 }), '2026-01-07T04:00:00.000Z'],
    ['BTC 24h high above 106,000 (first at 16:33, the day high at 16:43)', leaf({ source: 'price', method: 'high', args: { symbol: 'BTC', period: '24h' }, operator: '>', value: 106000 }), '2026-01-06T16:33:00.000Z'],
  ])('finds %s', (_name, conditions, at) => {
    const recording = _name.includes('one-day') ? btcDay : market;
    const result = preview(query(conditions), recording);
    expect(result.trigger?.at).toBe(at);
    expect(result.status).toBe('triggered');
    expect(result.executions).toEqual([expect.objectContaining({ stepId: 'n', status: 'succeeded' })]);
  });

  it('combines conditions: BTC above 104,000 while the sentiment verdict is at 80 or more', () => {
    const result = preview(
      query({ AND: [leaf({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 104000 }).AND[0], leaf({ source: 'llm', args: { query: 'Is crypto market sentiment bullish?', period: '1h' } }).AND[0]] }),
      market,
    );
    expect(result.trigger?.at).toBe('2026-01-06T16:00:00.000Z');
    expect(result.trigger?.conditionStates.map((state) => state.holds)).toEqual([true, true]);
    expect(result.timeline.at(-1)).toMatchObject({ at: '2026-01-06T16:00:00.000Z', trigger: 1 });
  });

  it('does not fire when the recording never satisfies the query, and ends active', () => {
    const result = preview(query(leaf({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 200000 })), market);
    expect(result).toMatchObject({ triggered: false, trigger: null, status: 'active' });
  });

  it('repeats with a cooldown: one trigger a day while BTC stays above 1', () => {
    const result = preview(query(leaf({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }), { repeat: { cooldown: '1d' } }), market);
    expect(result.triggers.map((trigger) => trigger.at)).toEqual(['2026-01-05T00:00:00.000Z', '2026-01-06T00:00:00.000Z', '2026-01-07T00:00:00.000Z']);
  });

  it('is deterministic', () => {
    const q = query({ OR: [leaf({ source: 'ta', method: 'macd_histogram', args: { symbol: 'ETH', timeframe: '15m' }, operator: 'crosses_below', value: 0 }).AND[0], leaf({ source: 'news', args: { text: 'FlowEx halts withdrawals' } }).AND[0]] });
    expect(preview(q, market)).toEqual(preview(q, market));
  });

  it('describes notifications instead of sending them, and trades orders on paper', () => {
    const result = preview(
      {
        query: {
          conditions: leaf({ source: 'price', method: 'current', args: { symbol: 'ETH' }, operator: '<', value: 3200 }),
          actions: [
            { stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/eql' } },
            { stepId: 'sell', type: 'market_order', params: { exchange: 'hyperliquid', symbol: 'ETH', side: 'sell', amountUsd: 500 } },
          ],
          expiresIn: '7d',
        },
      } as unknown as QueryRequest,
      market,
    );
    const [hook, sell] = result.executions.map((e) => e.result as Record<string, unknown>);
    expect(hook).toEqual({ dryRun: true, wouldPost: 'https://hooks.example.com/eql' });
    // The venue it names is simulated on paper: a market sell of $500 at the price of the trigger.
    const price = result.trigger?.conditionStates[0]?.value as number;
    expect(sell).toMatchObject({ exchange: 'hyperliquid', symbol: 'ETH', side: 'sell', type: 'market', status: 'filled', averagePrice: price });
    expect(sell?.filled).toBeCloseTo(500 / price, 9);
    expect(result.paper?.trades).toMatchObject([{ symbol: 'ETH', side: 'short', entryPrice: price, open: true }]);
  });
});

describe('the prices a preview gives for its chart', () => {
  const btcAbove = query({ AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 200000 }, { source: 'ta', method: 'rsi', args: { symbol: 'SOL', timeframe: '1h', period: 14 }, operator: '>', value: 70 }] });

  it('has every symbol the price and ta conditions read, in time order, within the run, with its lowest and highest price', () => {
    const result = preview(btcAbove, market, { maxPricePoints: 200 });
    expect(result.prices.map((series) => series.symbol)).toEqual(['BTC', 'SOL']);
    for (const series of result.prices) {
      const ticks = market.observations.filter((observation) => observation.source === 'price' && observation.symbol.startsWith(series.symbol));
      const prices = ticks.map((tick) => (tick as { price: number }).price);
      expect(series.points.length).toBeLessThanOrEqual(200);
      expect(series.points.length).toBeGreaterThan(100);
      const times = series.points.map((point) => Date.parse(point.at));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(times[0]).toBeGreaterThanOrEqual(market.start);
      expect(Math.min(...series.points.map((point) => point.price))).toBe(Math.min(...prices));
      expect(Math.max(...series.points.map((point) => point.price))).toBe(Math.max(...prices));
    }
  });

  it('keeps every tick of a run shorter than the bound, and none outside from..to', () => {
    const from = Date.parse('2026-01-06T16:00:00Z');
    const to = Date.parse('2026-01-06T16:10:00Z');
    const result = preview(query(leaf({ source: 'price', method: 'current', args: { symbol: 'BTC/USDT' }, operator: '>', value: 1e9 })), btcDay, { from, to });
    const inRun = btcDay.observations.filter((observation) => observation.source === 'price' && observation.at >= from && observation.at <= to);
    expect(result.prices).toEqual([{ symbol: 'BTC/USDT', points: inRun.map((tick) => ({ at: new Date(tick.at).toISOString(), price: (tick as { price: number }).price })) }]);
  });

  it('has none for a query without price conditions', () => {
    expect(preview(query(leaf({ source: 'news', args: { text: 'exploit', minConfidence: 80 } })), market).prices).toEqual([]);
  });
});
