import { checkPerpetualSymbol } from '../../language/symbols.js';
import { baseAsset } from '../observations.js';
import type { Exchange, OrderRequest, OrderResult } from '../interfaces.js';

interface PaperOrder {
  result: OrderResult;
  request: OrderRequest;
}

/**
 * The built-in paper venue (`paper`): perpetual markets only, fills against the prices the engine
 * sees. Market orders fill at the last price; limit orders fill at once when marketable, else rest
 * and fill when a later price reaches them. Idempotent by clientOrderId: placing the same id twice
 * returns the first order. Balances and positions are kept per venue instance.
 */
export class PaperExchange implements Exchange {
  readonly id = 'paper';
  private readonly prices = new Map<string, number>();
  private readonly orders = new Map<string, PaperOrder>();
  private readonly positions = new Map<string, { size: number; entry: number; leverage: number }>();
  private nextOrder = 1;
  private realizedUsd = 0;

  constructor(private readonly depositUsd = 10_000) {}

  /** Feeds a price (the engine calls this for every price it observes). */
  onPrice(symbol: string, price: number): void {
    if (!(price > 0)) return;
    const base = baseAsset(symbol);
    this.prices.set(base, price);
    for (const order of this.orders.values()) {
      const { request, result } = order;
      if (result.status !== 'open' || baseAsset(request.symbol) !== base || request.price === undefined) continue;
      const marketable = request.side === 'buy' ? price <= request.price : price >= request.price;
      if (marketable) this.fill(order, request.price);
    }
  }

  isPerpetual(symbol: string): boolean {
    return checkPerpetualSymbol(symbol).ok && this.prices.has(baseAsset(symbol));
  }

  lastPrice(symbol: string): number {
    const price = this.prices.get(baseAsset(symbol));
    if (price === undefined) throw new Error(`the paper venue has no price for ${symbol} yet`);
    return price;
  }

  /** Deposit plus realized profit, less the margin open positions use (notional / leverage). */
  availableBalanceUsd(): number {
    let margin = 0;
    for (const position of this.positions.values()) margin += (Math.abs(position.size) * position.entry) / position.leverage;
    return this.depositUsd + this.realizedUsd - margin;
  }

  /** The open position in the symbol's asset (size signed: negative is short), or undefined when there is none. */
  position(symbol: string): { size: number; entry: number; leverage: number } | undefined {
    const position = this.positions.get(baseAsset(symbol));
    return position ? { ...position } : undefined;
  }

  placeOrder(request: OrderRequest): OrderResult {
    const existing = this.orders.get(request.clientOrderId);
    if (existing) return { ...existing.result };
    if (!checkPerpetualSymbol(request.symbol).ok) throw new Error(`${request.symbol} is not a perpetual market`);
    if (!(request.amount > 0)) throw new Error('order amount must be positive');
    const last = this.lastPrice(request.symbol);
    const order: PaperOrder = {
      request: { ...request },
      result: { orderId: `paper-${this.nextOrder++}`, clientOrderId: request.clientOrderId, status: 'open', filled: 0 },
    };
    this.orders.set(request.clientOrderId, order);
    if (request.type === 'market') this.fill(order, last);
    else if (request.price !== undefined && (request.side === 'buy' ? last <= request.price : last >= request.price)) this.fill(order, request.price);
    else if (request.timeInForce === 'IOC') order.result.status = 'rejected';
    return { ...order.result };
  }

  private fill(order: PaperOrder, price: number): void {
    const { request } = order;
    const base = baseAsset(request.symbol);
    const signed = request.side === 'buy' ? request.amount : -request.amount;
    const current = this.positions.get(base) ?? { size: 0, entry: price, leverage: 1 };
    const reducing = current.size !== 0 && Math.sign(signed) !== Math.sign(current.size);
    if (request.reduceOnly && !reducing) {
      order.result = { ...order.result, status: 'rejected' };
      return;
    }
    const amount = request.reduceOnly ? Math.min(request.amount, Math.abs(current.size)) : request.amount;
    const change = Math.sign(signed) * amount;
    const closed = reducing ? Math.min(Math.abs(current.size), amount) : 0;
    // Realized profit of the part that closes the open position.
    this.realizedUsd += closed * (price - current.entry) * Math.sign(current.size);
    const size = current.size + change;
    let entry = current.entry;
    if (!reducing) entry = (current.entry * Math.abs(current.size) + price * amount) / Math.abs(size);
    else if (Math.sign(size) !== Math.sign(current.size)) entry = price;
    if (size === 0) this.positions.delete(base);
    else this.positions.set(base, { size, entry, leverage: Math.max(1, request.leverage ?? current.leverage) });
    order.result = { ...order.result, status: 'filled', filled: amount, averagePrice: price };
  }
}
