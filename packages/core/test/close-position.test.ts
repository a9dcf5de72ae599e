import { firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { type ActionContext, type ActionError, ClosePositionExecutor, type Exchange, PaperExchange, parseRecording, preview, type QueryRequest } from '@eql/core';

// close_position: a reduce-only market order against the open position, all or percent of it, placed once.

function context(key: string, inDoubt = false): ActionContext {
  const ctx: ActionContext = { trigger: {} as ActionContext['trigger'], stepId: 'close', executionId: 'e1', idempotencyKey: key, ownerId: 'k1', now: () => 0 };
  if (inDoubt) ctx.inDoubt = { executionId: 'e0', since: '2026-01-01T00:00:00.000Z' };
  return ctx;
}

const close = (params: Record<string, unknown>) => ({ stepId: 'close', type: 'close_position', params }) as never;

async function outcome(executor: ClosePositionExecutor, params: Record<string, unknown>, ctx = context('q:1:close')) {
  return (await firstValueFrom(executor.execute(close(params), ctx))).result as Record<string, unknown>;
}

describe('close_position', () => {
  it('closes a long or a short, all of it or a percent, with a reduce-only market order; nothing when flat', async () => {
    const paper = new PaperExchange();
    paper.onPrice('BTC-PERP', 100);
    const executor = new ClosePositionExecutor({ get: (id) => (id === 'paper' ? paper : undefined) });
    expect(await outcome(executor, { exchange: 'paper', symbol: 'BTC' })).toEqual({ exchange: 'paper', symbol: 'BTC', closed: 0, note: 'no open position' });
    void paper.placeOrder({ clientOrderId: 'long', symbol: 'BTC', side: 'buy', type: 'market', amount: 2 });
    expect(await outcome(executor, { exchange: 'paper', symbol: 'BTC', percent: 25 }, context('q:1:close'))).toMatchObject({ side: 'sell', amount: 0.5, closedPercent: 25, status: 'filled' });
    expect(paper.position('BTC')?.size).toBe(1.5);
    expect(await outcome(executor, { exchange: 'paper', symbol: 'BTC' }, context('q:2:close'))).toMatchObject({ side: 'sell', amount: 1.5, closedPercent: 100, status: 'filled' });
    expect(paper.position('BTC')).toBeUndefined();
    void paper.placeOrder({ clientOrderId: 'short', symbol: 'BTC', side: 'sell', type: 'market', amount: 3 });
    expect(await outcome(executor, { exchange: 'paper', symbol: 'BTC-PERP' }, context('q:3:close'))).toMatchObject({ side: 'buy', amount: 3, status: 'filled' });
    expect(paper.position('BTC')).toBeUndefined();
  });

  it('closes once: a retry in doubt finds the order under its client order id and places nothing', async () => {
    const paper = new PaperExchange();
    paper.onPrice('BTC-PERP', 100);
    void paper.placeOrder({ clientOrderId: 'long', symbol: 'BTC', side: 'buy', type: 'market', amount: 2 });
    const executor = new ClosePositionExecutor({ get: () => paper });
    const first = await outcome(executor, { exchange: 'paper', symbol: 'BTC', percent: 50 });
    const again = await outcome(executor, { exchange: 'paper', symbol: 'BTC', percent: 50 }, context('q:1:close', true));
    expect(again).toMatchObject({ orderId: first.orderId, foundByClientOrderId: true });
    expect(paper.position('BTC')?.size).toBe(1);
  });

  it('says why it cannot: no connection, a venue that cannot tell its positions, a spot symbol', async () => {
    const blind: Exchange = { id: 'blind', isPerpetual: () => true, lastPrice: () => 1, availableBalanceUsd: () => 1, placeOrder: () => ({ orderId: 'x', clientOrderId: 'x', status: 'filled', filled: 1 }) };
    const executor = new ClosePositionExecutor({ get: (id) => (id === 'blind' ? blind : undefined) });
    const failure = (params: Record<string, unknown>) => outcome(executor, params).then(() => undefined, (error: unknown) => error as ActionError);
    expect(await failure({ exchange: 'binance', symbol: 'BTC' })).toMatchObject({ code: 'EXCHANGE_NOT_CONNECTED' });
    expect(await failure({ exchange: 'blind', symbol: 'BTC' })).toMatchObject({ code: 'ORDER_CLOSE_UNSUPPORTED' });
    expect(await failure({ exchange: 'blind', symbol: 'BTC/USDT' })).toMatchObject({ code: 'SYMBOL_NOT_PERPETUAL' });
  });

  it('in a preview, trades on the paper account: each trigger buys 1, then closes half of what is open', () => {
    const start = Date.parse('2026-03-02T00:00:00Z');
    const prices = [100, 95, 97, 94, 99];
    const recording = parseRecording(prices.map((price, i) => JSON.stringify({ at: new Date(start + i * 3_600_000).toISOString(), source: 'price', symbol: 'BTC', price })).join('\n'));
    const rule = {
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: 'crosses_below', value: 96 }] },
        actions: [
          { stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', size: 1 } },
          { stepId: 'half', type: 'close_position', params: { exchange: 'paper', symbol: 'BTC', percent: 50 } },
        ],
        expiresIn: '7d',
        repeat: { cooldown: '1m' },
      },
    } as unknown as QueryRequest;
    const fills = preview(rule, recording).paper?.fills.map((fill) => [fill.side, fill.amount, fill.price]);
    // 95: buy 1, sell 0.5; 94: buy 1 (1.5 open), sell 0.75.
    expect(fills).toEqual([
      ['buy', 1, 95],
      ['sell', 0.5, 95],
      ['buy', 1, 94],
      ['sell', 0.75, 94],
    ]);
  });
});
