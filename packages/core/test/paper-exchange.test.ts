import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { type OrderRequest, PaperExchange, type PaperOrderRecord } from '@eql/core';

// The paper venue's limit orders: a price visits only the orders still open, and fills exactly those it
// reaches, at their limit price. Checked against a reference that looks at every order ever placed.

type Event = { kind: 'price'; symbol: string; price: number } | { kind: 'order'; symbol: string; side: 'buy' | 'sell'; type: 'market' | 'limit'; price: number };

const SYMBOLS = ['BTC-PERP', 'ETH-PERP'];

const events = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant<'price'>('price'), symbol: fc.constantFrom(...SYMBOLS), price: fc.integer({ min: 90, max: 110 }) }),
    fc.record({
      kind: fc.constant<'order'>('order'),
      symbol: fc.constantFrom(...SYMBOLS),
      side: fc.constantFrom<'buy' | 'sell'>('buy', 'sell'),
      type: fc.constantFrom<'market' | 'limit'>('market', 'limit', 'limit'),
      price: fc.integer({ min: 90, max: 110 }),
    }),
  ),
  { maxLength: 80 },
);

/** What each order should end as: a reference over all orders, with no index of the open ones. */
function reference(sequence: Event[]): Map<string, { status: string; averagePrice?: number }> {
  const last = new Map<string, number>();
  const orders = new Map<string, { symbol: string; side: 'buy' | 'sell'; price: number; status: string; averagePrice?: number }>();
  sequence.forEach((event, index) => {
    if (event.kind === 'price') {
      last.set(event.symbol, event.price);
      for (const order of orders.values()) {
        if (order.status !== 'open' || order.symbol !== event.symbol) continue;
        if (order.side === 'buy' ? event.price <= order.price : event.price >= order.price) Object.assign(order, { status: 'filled', averagePrice: order.price });
      }
      return;
    }
    const price = last.get(event.symbol);
    if (price === undefined) return; // no price yet: the venue refuses the order
    const id = `o${index}`;
    if (event.type === 'market') orders.set(id, { ...event, status: 'filled', averagePrice: price });
    else if (event.side === 'buy' ? price <= event.price : price >= event.price) orders.set(id, { ...event, status: 'filled', averagePrice: event.price });
    else orders.set(id, { ...event, status: 'open' });
  });
  return new Map([...orders].map(([id, order]) => [id, order.averagePrice === undefined ? { status: order.status } : { status: order.status, averagePrice: order.averagePrice }]));
}

function play(venue: PaperExchange, sequence: Event[], from = 0): void {
  sequence.forEach((event, index) => {
    if (index < from) return;
    if (event.kind === 'price') return venue.onPrice(event.symbol, event.price);
    const request: OrderRequest = { clientOrderId: `o${index}`, symbol: event.symbol, side: event.side, type: event.type, amount: 1, ...(event.type === 'limit' ? { price: event.price } : {}) };
    try {
      void venue.placeOrder(request);
    } catch {
      // no price yet
    }
  });
}

function outcome(venue: PaperExchange, sequence: Event[]) {
  const seen = new Map<string, { status: string; averagePrice?: number }>();
  sequence.forEach((_event, index) => {
    const order = venue.findOrderByClientId(`o${index}`);
    if (order) seen.set(`o${index}`, order.averagePrice === undefined ? { status: order.status } : { status: order.status, averagePrice: order.averagePrice });
  });
  return seen;
}

describe('the paper venue fills resting limit orders', () => {
  it('exactly those a later price reaches, at their limit price (property)', () => {
    fc.assert(
      fc.property(events, (sequence) => {
        const venue = new PaperExchange(1e12);
        play(venue, sequence);
        expect(outcome(venue, sequence)).toEqual(reference(sequence));
      }),
      { numRuns: 300 },
    );
  });

  it('the same after a restart in the middle: the restored venue knows which orders still rest (property)', () => {
    fc.assert(
      fc.property(events, fc.nat(), (sequence, cut) => {
        const at = sequence.length === 0 ? 0 : cut % sequence.length;
        const log: PaperOrderRecord[] = [];
        const first = new PaperExchange(1e12, { save: (records) => void log.push(...records) });
        play(first, sequence.slice(0, at));
        const second = new PaperExchange(1e12);
        second.restore(log);
        // The restored venue sees prices again (the engine feeds it the live ones): the last of each symbol.
        // A resting order was not marketable at that price, so seeing it again fills nothing.
        const last = new Map<string, number>();
        for (const event of sequence.slice(0, at)) if (event.kind === 'price') last.set(event.symbol, event.price);
        for (const [symbol, price] of last) second.onPrice(symbol, price);
        play(second, sequence, at);
        expect(outcome(second, sequence)).toEqual(reference(sequence));
      }),
      { numRuns: 300 },
    );
  });

  it('a price costs the same however many orders have filled before (only open orders are visited)', () => {
    const venue = new PaperExchange(1e12);
    venue.onPrice('BTC-PERP', 100);
    for (let i = 0; i < 5_000; i++) void venue.placeOrder({ clientOrderId: `m${i}`, symbol: 'BTC-PERP', side: 'buy', type: 'market', amount: 1 });
    void venue.placeOrder({ clientOrderId: 'rest', symbol: 'BTC-PERP', side: 'buy', type: 'limit', amount: 1, price: 95 });
    const visited = (venue as unknown as { resting: Set<unknown> }).resting.size;
    expect(visited).toBe(1);
    venue.onPrice('BTC-PERP', 95);
    expect(venue.findOrderByClientId('rest')).toMatchObject({ status: 'filled', averagePrice: 95 });
    expect((venue as unknown as { resting: Set<unknown> }).resting.size).toBe(0);
  });
});

describe('the paper venue fed through routes (the engine keeps one per topic)', () => {
  // A route keeps the venue's price box of the symbol it fed last, so a tick costs no lookup. Fed with or
  // without routes, in any mix of symbol forms and routes, the venue must know the same last prices.
  it('knows the same last price of each asset as a venue fed without routes (property)', () => {
    const forms = ['BTC-PERP', 'BTC/USDT:USDT', 'btc', 'ETH-PERP', 'ETH/USDT:USDT'];
    const feeds = fc.array(fc.record({ symbol: fc.constantFrom(...forms), route: fc.integer({ min: -1, max: 2 }), price: fc.integer({ min: 1, max: 1_000 }) }), { maxLength: 60 });
    fc.assert(
      fc.property(feeds, (sequence) => {
        const routed = new PaperExchange();
        const plain = new PaperExchange();
        const routes = [0, 1, 2].map(() => ({ paperSymbol: undefined as string | undefined, paperBox: undefined as { price: number } | undefined }));
        for (const { symbol, route, price } of sequence) {
          routed.onPrice(symbol, price, route < 0 ? undefined : routes[route]);
          plain.onPrice(symbol, price);
        }
        for (const symbol of ['BTC-PERP', 'ETH-PERP']) {
          const known = (venue: PaperExchange) => (venue.isPerpetual(symbol) ? venue.lastPrice(symbol) : undefined);
          expect(known(routed)).toBe(known(plain));
        }
      }),
      { numRuns: 300 },
    );
  });
});
