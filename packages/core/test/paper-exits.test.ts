import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type OrderRequest, PaperExchange, type PaperOrderRecord } from '@eql/core';

// The paper venue's exits (take-profit, stop-loss, trailing stop): sent at the first tick after the fill
// that reaches them, filled at that tick's price, one canceling the others. Checked against a reference
// that walks the path by itself.

const SYMBOL = 'BTC-PERP';

/** A path of prices after the entry: steps of up to ±4 %, with gaps of up to ±15 % now and then. */
const pathArb = fc.array(
  fc.oneof({ weight: 9, arbitrary: fc.integer({ min: -400, max: 400 }) }, { weight: 1, arbitrary: fc.integer({ min: -1500, max: 1500 }) }),
  { minLength: 1, maxLength: 120 },
).map((steps) => {
  let price = 100;
  return steps.map((bp) => (price = Math.max(1, price * (1 + bp / 10_000))));
});

interface Exits {
  takeProfit?: number;
  stopLoss?: number;
  trailing?: number;
}

const exitsArb: fc.Arbitrary<Exits> = fc
  .record({ takeProfit: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }), stopLoss: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }), trailing: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }) })
  .filter((exits) => exits.takeProfit !== undefined || exits.stopLoss !== undefined || exits.trailing !== undefined);

function entry(side: 'buy' | 'sell', exits: Exits): OrderRequest {
  const request: OrderRequest = { clientOrderId: 'entry', symbol: SYMBOL, side, type: 'market', amount: 2 };
  if (exits.takeProfit !== undefined) request.takeProfit = { percent: exits.takeProfit };
  if (exits.stopLoss !== undefined) request.stopLoss = { percent: exits.stopLoss };
  if (exits.trailing !== undefined) request.trailingStop = { percent: exits.trailing };
  return request;
}

/** Where the reference says the position closes: the first tick reaching any exit, its kind and price. */
function expectedExit(side: 'buy' | 'sell', exits: Exits, path: readonly number[]): { index: number; kind: string; price: number } | undefined {
  const long = side === 'buy';
  const entryPrice = 100;
  const tp = exits.takeProfit === undefined ? undefined : entryPrice * (long ? 1 + exits.takeProfit / 100 : 1 - exits.takeProfit / 100);
  const sl = exits.stopLoss === undefined ? undefined : entryPrice * (long ? 1 - exits.stopLoss / 100 : 1 + exits.stopLoss / 100);
  let best = entryPrice;
  for (const [index, price] of path.entries()) {
    best = long ? Math.max(best, price) : Math.min(best, price);
    const trail = exits.trailing === undefined ? undefined : best * (long ? 1 - exits.trailing / 100 : 1 + exits.trailing / 100);
    // Several at one tick: the venue looks at the exits in the order they were attached.
    if (tp !== undefined && (long ? price >= tp : price <= tp)) return { index, kind: 'take_profit', price };
    if (sl !== undefined && (long ? price <= sl : price >= sl)) return { index, kind: 'stop_loss', price };
    if (trail !== undefined && (long ? price <= trail : price >= trail)) return { index, kind: 'trailing_stop', price };
  }
  return undefined;
}

function run(side: 'buy' | 'sell', exits: Exits, path: readonly number[], venue = new PaperExchange()): PaperExchange {
  venue.onPrice(SYMBOL, 100);
  void venue.placeOrder(entry(side, exits));
  for (const price of path) venue.onPrice(SYMBOL, price);
  return venue;
}

const statusOf = (venue: PaperExchange, kind: string) => venue.findOrderByClientId(`entry:${kind}`);

describe('paper venue: exits', () => {
  it('close the position at the first tick that reaches one of them, at that tick’s price, and cancel the others', () => {
    fc.assert(
      fc.property(fc.constantFrom<'buy' | 'sell'>('buy', 'sell'), exitsArb, pathArb, (side, exits, path) => {
        const venue = run(side, exits, path);
        const expected = expectedExit(side, exits, path);
        const kinds = (['take_profit', 'stop_loss', 'trailing_stop'] as const).filter((kind) => statusOf(venue, kind) !== undefined);
        if (expected === undefined) {
          expect(venue.position(SYMBOL)?.size).toBe(side === 'buy' ? 2 : -2);
          for (const kind of kinds) expect(statusOf(venue, kind)?.status).toBe('open');
          return;
        }
        expect(venue.position(SYMBOL)).toBeUndefined();
        for (const kind of kinds) {
          const order = statusOf(venue, kind);
          if (kind === expected.kind) expect(order).toMatchObject({ status: 'filled', filled: 2, averagePrice: expected.price });
          else expect(order?.status).toBe('canceled');
        }
        expect(venue.openExits()).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('a stop never fills better than the market gave: a long’s stop fills at or below its level, a short’s at or above', () => {
    fc.assert(
      fc.property(fc.constantFrom<'buy' | 'sell'>('buy', 'sell'), fc.integer({ min: 1, max: 30 }), pathArb, (side, percent, path) => {
        const venue = run(side, { stopLoss: percent }, path);
        const stop = statusOf(venue, 'stop_loss');
        if (stop?.status !== 'filled') return;
        const level = side === 'buy' ? 100 * (1 - percent / 100) : 100 * (1 + percent / 100);
        if (side === 'buy') expect(stop.averagePrice).toBeLessThanOrEqual(level);
        else expect(stop.averagePrice).toBeGreaterThanOrEqual(level);
      }),
      { numRuns: 300 },
    );
  });

  it('a trailing stop follows the high-water mark: its trigger is percent below the highest price since the fill', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), pathArb, (percent, path) => {
        const venue = new PaperExchange();
        venue.onPrice(SYMBOL, 100);
        void venue.placeOrder(entry('buy', { trailing: percent }));
        let high = 100;
        for (const price of path) {
          venue.onPrice(SYMBOL, price);
          const open = venue.openExits()[0];
          if (open === undefined) {
            // Filled at the first price at or below percent under the high so far.
            expect(price).toBeLessThanOrEqual(Math.max(high, price) * (1 - percent / 100) + 1e-9);
            return;
          }
          high = Math.max(high, price);
          expect(open.exit.best).toBe(high);
          expect(open.exit.trigger).toBeCloseTo(high * (1 - percent / 100), 9);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('exits wait for the tick after their fill; a limit entry filled by a tick is not stopped out by it', () => {
    const venue = new PaperExchange();
    venue.onPrice(SYMBOL, 105);
    void venue.placeOrder({ clientOrderId: 'entry', symbol: SYMBOL, side: 'buy', type: 'limit', price: 100, amount: 1, stopLoss: { percent: 5 } });
    // The price gaps to 94: the limit fills at 100, its stop (95) waits for the next tick.
    venue.onPrice(SYMBOL, 94);
    expect(venue.findOrderByClientId('entry')).toMatchObject({ status: 'filled', averagePrice: 100 });
    expect(statusOf(venue, 'stop_loss')?.status).toBe('open');
    venue.onPrice(SYMBOL, 93);
    expect(statusOf(venue, 'stop_loss')).toMatchObject({ status: 'filled', averagePrice: 93 });
    expect(venue.position(SYMBOL)).toBeUndefined();
    // Realized: bought 1 at 100, sold at 93.
    expect(venue.availableBalanceUsd()).toBeCloseTo(10_000 - 7, 9);
  });

  it('an exit whose position was closed by another order is canceled, not filled into a new position', () => {
    const venue = new PaperExchange();
    venue.onPrice(SYMBOL, 100);
    void venue.placeOrder({ ...entry('buy', { stopLoss: 5 }), amount: 1 });
    void venue.placeOrder({ clientOrderId: 'close', symbol: SYMBOL, side: 'sell', type: 'market', amount: 1, reduceOnly: true });
    expect(venue.position(SYMBOL)).toBeUndefined();
    venue.onPrice(SYMBOL, 90);
    expect(statusOf(venue, 'stop_loss')?.status).toBe('canceled');
    expect(venue.position(SYMBOL)).toBeUndefined();
  });

  it('an order that reduces a position gets no exits; one that flips it gets exits for the part it opened', () => {
    const venue = new PaperExchange();
    venue.onPrice(SYMBOL, 100);
    void venue.placeOrder({ clientOrderId: 'long', symbol: SYMBOL, side: 'buy', type: 'market', amount: 1 });
    void venue.placeOrder({ clientOrderId: 'flip', symbol: SYMBOL, side: 'sell', type: 'market', amount: 3, stopLoss: { percent: 10 } });
    expect(venue.position(SYMBOL)?.size).toBe(-2);
    expect(venue.openExits()).toEqual([{ clientOrderId: 'flip:stop_loss', symbol: SYMBOL, side: 'buy', amount: 2, exit: { kind: 'stop_loss', parent: 'flip', trigger: 100 * (1 + 10 / 100) } }]);
    void venue.placeOrder({ clientOrderId: 'cut', symbol: SYMBOL, side: 'buy', type: 'market', amount: 1, stopLoss: { percent: 10 } });
    expect(venue.openExits().map((exit) => exit.clientOrderId)).toEqual(['flip:stop_loss']);
  });

  it('survive a restart: exits saved with their order (and each move of a trailing stop) come back and fire as before', () => {
    fc.assert(
      fc.property(fc.constantFrom<'buy' | 'sell'>('buy', 'sell'), exitsArb, pathArb, fc.nat(), (side, exits, path, cut) => {
        const saved = new Map<string, PaperOrderRecord>();
        const log = { save: (records: readonly PaperOrderRecord[]) => records.forEach((record) => saved.set(record.request.clientOrderId, structuredClone(record))) };
        const split = cut % (path.length + 1);
        const first = new PaperExchange(10_000, log);
        run(side, exits, path.slice(0, split), first);
        // A new instance from what was saved (as after kill -9), fed the rest of the path.
        const second = new PaperExchange(10_000, log);
        second.restore([...saved.values()]);
        second.onPrice(SYMBOL, path[split - 1] ?? 100);
        for (const price of path.slice(split)) second.onPrice(SYMBOL, price);
        const whole = run(side, exits, path);
        for (const kind of ['take_profit', 'stop_loss', 'trailing_stop']) expect(statusOf(second, kind)).toEqual(statusOf(whole, kind));
        expect(second.position(SYMBOL)).toEqual(whole.position(SYMBOL));
        expect(second.availableBalanceUsd()).toBeCloseTo(whole.availableBalanceUsd(), 6);
        expect(second.openExits()).toEqual(whole.openExits());
      }),
      { numRuns: 200 },
    );
  });
});
