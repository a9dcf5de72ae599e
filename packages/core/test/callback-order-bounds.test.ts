import fc from 'fast-check';
import { firstValueFrom, of } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import {
  type ActionContext,
  ActionError,
  type CallbackAction,
  Engine,
  EpochVirtualScheduler,
  type Exchange,
  type LlmProvider,
  MemoryStateStore,
  OrderExecutor,
  type OrderRequest,
  PushSource,
  type QueryRequest,
  type TradeSignal,
  validate,
} from '@eql/core';

// Issue 45, finding 6: an llm action's order callback took side, symbol and size from the model's reply,
// unbounded. A model answering as an injected one would turned an owner's "$10 buy" into five sells of
// about $2M each. The callback's params are the owner's bounds now (docs/semantics.md).

const T0 = Date.parse('2026-01-05T00:00:00Z');
const INJECTED: TradeSignal[] = Array.from({ length: 5 }, () => ({ side: 'sell', symbol: 'BTC', amountUsd: 2_000_000, reason: 'as the post said' }));

/** An engine whose model answers every analysis with `trades`, and a query whose llm step has the owner's callback. */
function engineWith(trades: TradeSignal[], callbackParams: Record<string, unknown>) {
  const scheduler = new EpochVirtualScheduler(T0, Number.MAX_SAFE_INTEGER);
  const source = new PushSource();
  const store = new MemoryStateStore();
  const llm: LlmProvider = { judge: () => of({ confidence: 0 }), analyze: () => of({ response: 'Sell everything.', trades }) };
  let ids = 0;
  const engine = new Engine({ scheduler, sources: [source], store, newId: () => `id-${++ids}`, llm });
  const request = {
    title: 'a $10 buy',
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 }] },
      actions: [{ stepId: 'think', type: 'llm', params: { prompt: 'Should I buy?', callback: { action: { type: 'market_order', params: callbackParams } } } }],
      expiresIn: '1d',
    },
  } as unknown as QueryRequest;
  engine.add({ queryId: 'q', request, createdAt: T0 });
  source.push({ at: T0, source: 'price', symbol: 'BTC', price: 50_000 });
  return { engine, store };
}

const OWNER_BUY = { exchange: 'paper', symbol: 'BTC', side: 'buy', amountUsd: 10 };

describe("an llm callback's orders stay within the owner's bounds", () => {
  it('five $2M sells signalled on a "$10 buy" callback place nothing; each is refused and recorded', async () => {
    const { engine, store } = engineWith(INJECTED, OWNER_BUY);
    await vi.waitFor(() => expect(engine.inspect('q')?.status).toBe('triggered'));
    expect(engine.paper.position('BTC')).toBeUndefined();
    const callback = store.executionsOf('q').find((execution) => execution.stepId === 'think.callback');
    expect(callback).toMatchObject({ status: 'succeeded', result: { orders: [] } });
    const refused = callback?.result?.refused as Array<Record<string, unknown>>;
    expect(refused).toHaveLength(5);
    expect(refused[0]).toMatchObject({ signal: 0, side: 'sell', symbol: 'BTC', code: 'SIGNAL_OUT_OF_BOUNDS', message: 'the callback buys; the signal would sell' });
  });

  it('buys beyond the amount are refused; buys within it are placed until the trigger has used the owner\'s amount', async () => {
    const trades: TradeSignal[] = [
      { side: 'buy', symbol: 'BTC', amountUsd: 2_000_000 },
      { side: 'buy', symbol: 'ETH', amountUsd: 4 },
      { side: 'buy', symbol: 'BTC-PERP', amountUsd: 4 },
      { side: 'buy', symbol: 'BTC' },
      { side: 'buy', symbol: 'btc', amountUsd: 4 },
      { side: 'buy', amountUsd: 2 },
    ];
    const { engine, store } = engineWith(trades, OWNER_BUY);
    await vi.waitFor(() => expect(engine.inspect('q')?.status).toBe('triggered'));
    const result = store.executionsOf('q').find((execution) => execution.stepId === 'think.callback')?.result as { orders: Array<Record<string, unknown>>; refused: Array<Record<string, unknown>> };
    // $4 (BTC-PERP is BTC: placed as the owner's BTC), then $4 of the $6 left, then $2: $10 in all.
    expect(result.orders.map((order) => [order.symbol, order.side, (order.amount as number) * 50_000])).toEqual([
      ['BTC', 'buy', 4],
      ['BTC', 'buy', 4],
      ['BTC', 'buy', 2],
    ]);
    expect(result.refused.map((entry) => [entry.signal, entry.message])).toEqual([
      [0, '$2000000 exceeds the $10 left of the callback\'s amount in this trigger'],
      [1, 'the callback trades BTC; the signal names another market'],
      [3, '$10 exceeds the $6 left of the callback\'s amount in this trigger'],
    ]);
    expect(engine.paper.position('BTC')?.size).toBeCloseTo(10 / 50_000, 12);
  });

  it('a callback that bounds no size places nothing: the step fails with CALLBACK_UNBOUNDED', async () => {
    const { engine, store } = engineWith([{ side: 'buy', symbol: 'BTC', amountUsd: 2_000_000 }], { exchange: 'paper' });
    await vi.waitFor(() => expect(engine.inspect('q')?.status).toBe('failed'));
    expect(store.executionsOf('q').find((execution) => execution.stepId === 'think.callback')).toMatchObject({ status: 'failed', error: { code: 'CALLBACK_UNBOUNDED' } });
    expect(engine.paper.position('BTC')).toBeUndefined();
  });

  it('validation refuses such a callback at creation: callback-order-unbounded', () => {
    const withCallback = (params: Record<string, unknown>) => ({
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 }] },
        actions: [{ stepId: 'think', type: 'llm', params: { prompt: 'Trade?', callback: { action: { type: 'limit_order', params } } } }],
        expiresIn: '1d',
      },
    });
    const codes = (params: Record<string, unknown>) => validate(withCallback(params)).diagnostics.filter((diagnostic) => diagnostic.severity === 'error').map((diagnostic) => [diagnostic.code, diagnostic.path]);
    expect(codes({ exchange: 'paper' })).toEqual([['callback-order-unbounded', '/query/actions/0/params/callback/action/params']]);
    expect(codes({ exchange: 'paper', size: 1 })).toEqual([['callback-order-unbounded', '/query/actions/0/params/callback/action/params/size']]);
    expect(codes({ exchange: 'paper', symbol: 'BTC', size: 1 })).toEqual([]);
    expect(codes({ exchange: 'paper', amountUsd: 50 })).toEqual([]);
    expect(codes({ exchange: 'paper', positionSizePercent: 5 })).toEqual([]);
  });
});

describe('a callback left in doubt by a restart', () => {
  it('counts the orders the venue already has against the budget, and sends nothing twice', async () => {
    const sent: OrderRequest[] = [];
    let asked = 0;
    const exchange: Exchange = {
      id: 'paper',
      isPerpetual: () => true,
      lastPrice: () => 50_000,
      availableBalanceUsd: () => 10_000,
      placeOrder: (order) => (sent.push(order), { orderId: `o-${sent.length}`, clientOrderId: order.clientOrderId, status: 'filled', filled: order.amount }),
      // The first signal's order went out before the restart.
      findOrderByClientId: (clientOrderId) => (asked++ === 0 ? { orderId: 'o-before', clientOrderId, status: 'filled', filled: 6 / 50_000 } : undefined),
    };
    const context: ActionContext = {
      trigger: { queryId: 'q', triggerIndex: 1, firedAt: T0, conditionStates: [] },
      stepId: 'think.callback',
      executionId: 'e',
      idempotencyKey: 'q:1:think.callback',
      now: () => T0,
      analysis: { response: '', trades: [{ side: 'buy', symbol: 'BTC', amountUsd: 6 }, { side: 'buy', symbol: 'BTC', amountUsd: 6 }, { side: 'buy', symbol: 'BTC', amountUsd: 4 }] },
      inDoubt: { executionId: 'e', since: new Date(T0).toISOString() },
    };
    const outcome = await firstValueFrom(new OrderExecutor({ get: () => exchange }).execute({ type: 'market_order', params: OWNER_BUY } as CallbackAction, context));
    expect(outcome.result).toMatchObject({ orders: [{ orderId: 'o-before', foundByClientOrderId: true }, { orderId: 'o-1' }], refused: [{ signal: 1, code: 'SIGNAL_OUT_OF_BOUNDS' }] });
    expect(sent.map((order) => order.amount * 50_000)).toEqual([4]);
  });
});

describe('the bounds as a law: no model reply makes the orders of a trigger exceed them', () => {
  const LAST: Record<string, number> = { BTC: 50_000, ETH: 2_000 };
  const BALANCE = 10_000;
  const asset = (symbol: string) => (symbol.split(/[/:_-]/)[0] ?? symbol).toUpperCase();

  /** A venue that fills nothing and records every order it is sent. */
  function venue(): { exchange: Exchange; sent: OrderRequest[] } {
    const sent: OrderRequest[] = [];
    const exchange: Exchange = {
      id: 'paper',
      isPerpetual: () => true,
      lastPrice: (symbol) => LAST[asset(symbol)] ?? 1,
      availableBalanceUsd: () => BALANCE,
      placeOrder: (order) => {
        sent.push(order);
        return { orderId: `o-${sent.length}`, clientOrderId: order.clientOrderId, status: 'open', filled: 0 };
      },
    };
    return { exchange, sent };
  }

  const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
  const symbol = fc.constantFrom('BTC', 'ETH', 'BTC-PERP', 'eth', 'BTC/USDT:USDT');
  const money = fc.double({ min: 0.01, max: 1e9, noNaN: true, noDefaultInfinity: true });
  const owner = fc.record(
    {
      symbol: maybe(fc.constantFrom('BTC', 'ETH')),
      side: maybe(fc.constantFrom<'buy' | 'sell'>('buy', 'sell')),
      size: maybe(fc.double({ min: 0.0001, max: 10, noNaN: true, noDefaultInfinity: true })),
      amountUsd: maybe(money),
      positionSizePercent: maybe(fc.double({ min: 0.1, max: 100, noNaN: true, noDefaultInfinity: true })),
      leverage: maybe(fc.constantFrom(1, 3, 20)),
      price: maybe(money),
    },
    { requiredKeys: [] },
  );
  const signal = fc.record(
    {
      side: fc.constantFrom<'buy' | 'sell'>('buy', 'sell'),
      symbol: maybe(symbol),
      price: maybe(money),
      size: maybe(fc.double({ min: 1e-6, max: 1e6, noNaN: true, noDefaultInfinity: true })),
      amountUsd: maybe(money),
      positionSizePercent: maybe(fc.double({ min: 0.1, max: 100, noNaN: true, noDefaultInfinity: true })),
    },
    { requiredKeys: ['side'] },
  );
  /** Drops the keys fast-check left undefined: the params are JSON. */
  const json = <T extends object>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

  it('count, side, symbol, units and notional (at the worst fill price) stay within what the owner gave', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<'market_order' | 'limit_order'>('market_order', 'limit_order'), owner, fc.array(signal, { maxLength: 12 }), async (type, ownerParams, signals) => {
        const params = json({ exchange: 'paper', ...ownerParams });
        const trades = signals.map(json);
        const { exchange, sent } = venue();
        const executor = new OrderExecutor({ get: () => exchange });
        const context: ActionContext = {
          trigger: { queryId: 'q', triggerIndex: 1, firedAt: T0, conditionStates: [] },
          stepId: 'think.callback',
          executionId: 'e',
          idempotencyKey: 'q:1:think.callback',
          now: () => T0,
          analysis: { response: '', trades },
        };
        let failure: unknown;
        try {
          await firstValueFrom(executor.execute({ type, params } as CallbackAction, context));
        } catch (error) {
          failure = error;
        }
        const unbounded = params.amountUsd === undefined && params.positionSizePercent === undefined && (params.size === undefined || params.symbol === undefined);
        if (unbounded && trades.length > 0) {
          expect(failure).toBeInstanceOf(ActionError);
          expect((failure as ActionError).code).toBe('CALLBACK_UNBOUNDED');
        }
        expect(sent.length).toBeLessThanOrEqual(unbounded ? 0 : 5);
        let units = 0;
        let notional = 0;
        for (const order of sent) {
          if (params.side !== undefined) expect(order.side).toBe(params.side);
          if (params.symbol !== undefined) expect(order.symbol).toBe(params.symbol);
          if (params.price !== undefined) expect(order.price).toBe(params.price);
          expect(order.leverage).toBe(params.leverage);
          const last = LAST[asset(order.symbol)] ?? 1;
          const worst = order.type === 'market' ? last : order.side === 'buy' ? (order.price as number) : Math.max(order.price as number, last);
          units += order.amount;
          notional += order.amount * worst;
        }
        const slack = 1 + 1e-6;
        if (params.size !== undefined) expect(units).toBeLessThanOrEqual(params.size * slack);
        if (params.amountUsd !== undefined) expect(notional).toBeLessThanOrEqual(params.amountUsd * slack);
        if (params.positionSizePercent !== undefined) expect(notional).toBeLessThanOrEqual(((BALANCE * params.positionSizePercent * (params.leverage ?? 1)) / 100) * slack);
      }),
      { numRuns: 400 },
    );
  });
});
