import { describe, expect, it } from 'vitest';
import { parseRecording, preview, type QueryRequest } from '@eql/core';

// A preview's order steps trade on a paper venue fed the replayed prices: fills, round trips, equity and
// statistics, checked against a case computed by hand.

const HOUR = 3_600_000;
const START = Date.parse('2026-03-02T00:00:00Z');

/** BTC once an hour: falls through 96, rallies to a take-profit, falls through 96 again and through the stop. */
const PRICES = [100, 99, 95, 97, 103, 105, 95.5, 92, 90];
const recording = parseRecording(PRICES.map((price, i) => JSON.stringify({ at: new Date(START + i * HOUR).toISOString(), source: 'price', symbol: 'BTC', price })).join('\n'));

function dipBuyer(extra: Record<string, unknown> = {}): QueryRequest {
  return {
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: 'crosses_below', value: 96 }] },
      actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'binance', symbol: 'BTC', side: 'buy', size: 1, takeProfit: { percent: 10 }, stopLoss: { percent: 5 }, ...extra } }],
      expiresIn: '7d',
      repeat: { cooldown: '1m' },
    },
  } as unknown as QueryRequest;
}

const at = (hour: number) => new Date(START + hour * HOUR).toISOString();

describe('preview trades on paper', () => {
  it('keeps watching a position’s exits after the query that opened it has ended: the exit still fires', () => {
    // No repeat: the query fires once (at 95) and is done; the trade is closed by its take-profit all the same.
    const once = dipBuyer();
    delete (once.query as { repeat?: unknown }).repeat;
    const result = preview(once, recording);
    expect(result.endedBy).toBe('triggered');
    expect(result.paper?.fills.map((fill) => [fill.at, fill.side, fill.price, fill.exit ?? 'entry'])).toEqual([
      [at(2), 'buy', 95, 'entry'],
      [at(5), 'sell', 105, 'take_profit'],
    ]);
    expect(result.paper?.summary).toMatchObject({ trades: 1, openTrades: 0 });
  });

  it('a limit order resting after its query ended still fills when the price comes to it', () => {
    const limit = dipBuyer();
    limit.query.actions = [{ stepId: 'buy', type: 'limit_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', size: 1, price: 91 } }] as never;
    delete (limit.query as { repeat?: unknown }).repeat;
    const result = preview(limit, recording);
    expect(result.endedBy).toBe('triggered');
    expect(result.paper?.fills.map((fill) => [fill.at, fill.side, fill.price])).toEqual([[at(8), 'buy', 91]]);
  });

  it('fills entries at the trigger price and exits at the first tick through them; trades, PnL, fees, drawdown and exposure as computed by hand', () => {
    const result = preview(dipBuyer(), recording, { paper: { feeRate: 0.001 } });
    const paper = result.paper;
    expect(paper).toBeDefined();
    expect(result.triggers.map((trigger) => trigger.at)).toEqual([at(2), at(6)]);
    // Buy 1 at 95 (fee 0.095), take-profit 104.5 reached at 105 (fee 0.105); buy 1 at 95.5 (fee 0.0955),
    // stop 90.725 gapped through to 90 (fee 0.09).
    expect(paper?.fills.map((fill) => [fill.at, fill.side, fill.price, fill.exit ?? 'entry'])).toEqual([
      [at(2), 'buy', 95, 'entry'],
      [at(5), 'sell', 105, 'take_profit'],
      [at(6), 'buy', 95.5, 'entry'],
      [at(8), 'sell', 90, 'stop_loss'],
    ]);
    expect(paper?.trades).toMatchObject([
      { symbol: 'BTC', side: 'long', openedAt: at(2), entryPrice: 95, closedAt: at(5), exitPrice: 105, closedBy: 'take_profit', open: false },
      { symbol: 'BTC', side: 'long', openedAt: at(6), entryPrice: 95.5, closedAt: at(8), exitPrice: 90, closedBy: 'stop_loss', open: false },
    ]);
    expect(paper?.trades[0]?.pnlUsd).toBeCloseTo(10 - 0.095 - 0.105, 9);
    expect(paper?.trades[1]?.pnlUsd).toBeCloseTo(-5.5 - 0.0955 - 0.09, 9);
    expect(paper?.trades[1]?.returnPercent).toBeCloseTo(((-5.5 - 0.1855) / 95.5) * 100, 9);
    const summary = paper?.summary;
    expect(summary).toMatchObject({ trades: 2, openTrades: 0, wins: 1, losses: 1, winRatePercent: 50 });
    expect(summary?.realizedPnlUsd).toBeCloseTo(4.5, 9);
    expect(summary?.feesUsd).toBeCloseTo(0.3855, 9);
    expect(summary?.netPnlUsd).toBeCloseTo(4.1145, 9);
    expect(summary?.finalEquityUsd).toBeCloseTo(10_004.1145, 9);
    // The equity peaked at 10,009.8 after the take-profit and fell to 10,004.1145 at the stop.
    expect(summary?.maxDrawdownUsd).toBeCloseTo(5.6855, 9);
    expect(summary?.maxDrawdownPercent).toBeCloseTo((5.6855 / 10_009.8) * 100, 9);
    // A position was open 3 h + 2 h of the 8 h run.
    expect(Date.parse(result.to) - Date.parse(result.from)).toBe(8 * HOUR);
    expect(summary?.exposurePercent).toBeCloseTo((5 / 8) * 100, 9);
    // One day of data: no Sharpe ratio.
    expect(summary?.sharpe).toBeNull();
    expect(paper?.equity.at(-1)?.equityUsd).toBeCloseTo(10_004.1145, 9);
  });

  it('slippage fills market orders and exits worse; a trade left open counts its unrealized profit at the last price', () => {
    const result = preview(dipBuyer({ takeProfit: { percent: 50 }, stopLoss: { percent: 50 } }), recording, { paper: { slippage: 0.01, depositUsd: 1_000 } });
    const paper = result.paper;
    // Bought at 95 × 1.01 = 95.95 and again at 95.5 × 1.01 = 96.455: one long of 2, still open at 90.
    expect(paper?.fills.map((fill) => fill.price)).toEqual([95 * 1.01, 95.5 * 1.01]);
    expect(paper?.trades).toHaveLength(1);
    expect(paper?.trades[0]).toMatchObject({ side: 'long', amount: 2, open: true });
    const entry = (95 * 1.01 + 95.5 * 1.01) / 2;
    expect(paper?.trades[0]?.entryPrice).toBeCloseTo(entry, 9);
    expect(paper?.summary.unrealizedPnlUsd).toBeCloseTo(2 * (90 - entry), 9);
    expect(paper?.summary).toMatchObject({ trades: 0, openTrades: 1, winRatePercent: null });
    expect(paper?.summary.finalEquityUsd).toBeCloseTo(1_000 + 2 * (90 - entry), 9);
  });

  it('has no paper report without order steps, and refuses fees and slippage out of range', () => {
    const notify = { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '<', value: 96 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'dip' } }] } } as unknown as QueryRequest;
    expect(preview(notify, recording).paper).toBeUndefined();
    expect(() => preview(dipBuyer(), recording, { paper: { feeRate: 0.5 } })).toThrow(/feeRate/);
    expect(() => preview(dipBuyer(), recording, { paper: { slippage: -0.01 } })).toThrow(/slippage/);
    expect(() => preview(dipBuyer(), recording, { paper: { depositUsd: 0 } })).toThrow(/depositUsd/);
  });

  it('gives daily Sharpe once the run spans days: the mean over the deviation of the daily returns, × √365', () => {
    // Four days, one price a day at noon: buy at the first, hold.
    const days = [100, 110, 99, 121];
    const daily = parseRecording(days.map((price, i) => JSON.stringify({ at: new Date(START + (i * 24 + 12) * HOUR).toISOString(), source: 'price', symbol: 'BTC', price })).join('\n'));
    const hold = { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 0 }] }, actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', size: 10 } }], expiresIn: '7d' } } as unknown as QueryRequest;
    const summary = preview(hold, daily).paper?.summary;
    // Equity at the end of each day: 10,000, 10,100, 9,990, 10,210 (10 BTC bought at 100).
    const equity = [10_000, 10_100, 9_990, 10_210];
    const returns = equity.map((value, i) => value / (i === 0 ? 10_000 : (equity[i - 1] as number)) - 1);
    const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
    const deviation = Math.sqrt(returns.reduce((a, b) => a + (b - mean) ** 2, 0) / returns.length);
    expect(summary?.sharpe).toBeCloseTo((mean / deviation) * Math.sqrt(365), 9);
    expect(summary?.maxDrawdownUsd).toBeCloseTo(110, 9);
  });

  it('renew: a query created again at each expiry trades to the end of a run longer than its lifetime', () => {
    // 40 days, one price an hour, a dip below 96 every day at noon.
    const hours = 40 * 24;
    const swings = parseRecording(
      Array.from({ length: hours }, (_, i) => JSON.stringify({ at: new Date(START + i * HOUR).toISOString(), source: 'price', symbol: 'BTC', price: i % 24 === 12 ? 95 : 100 })).join('\n'),
    );
    const rule = {
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: 'crosses_below', value: 96 }] },
        actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', size: 1, takeProfit: { percent: 4 } } }],
        expiresIn: '10d',
        repeat: { cooldown: '1h' },
      },
    } as unknown as QueryRequest;
    const once = preview(rule, swings);
    expect(once.endedBy).toBe('expired');
    expect(once.triggers).toHaveLength(10);
    const renewed = preview(rule, swings, { renew: true });
    expect(renewed.endedBy).toBe('end');
    expect(renewed.lives).toBe(4);
    expect(renewed.triggers).toHaveLength(40);
    // Each dip bought at 95 is sold at the next 100 (take-profit 98.8): 40 trades, each +5.
    expect(renewed.paper?.summary).toMatchObject({ trades: 40, wins: 40 });
    expect(renewed.paper?.summary.realizedPnlUsd).toBeCloseTo(200, 9);
  });
});
