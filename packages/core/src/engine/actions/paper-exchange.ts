import { checkPerpetualSymbol } from '../../language/symbols.js';
import { baseAsset } from '../observations.js';
import type { Exchange, MaybePromise, OrderRequest, OrderResult, PaperExit, PaperOrderLog, PaperOrderRecord } from '../interfaces.js';
import type { PaperFill } from '../paper-report.js';
import { exitTriggers, trailingTrigger } from './exit-levels.js';

/**
 * Where a caller that feeds one topic's prices keeps the venue's box for the symbol it fed last: the
 * next price of that symbol then costs no lookup (the engine keeps one per topic; at 100k queries the
 * lookup's hash table is out of the processor's caches at every tick).
 */
export interface PaperPriceRoute {
  paperSymbol: string | undefined;
  paperBox: { price: number } | undefined;
}

/** How the paper venue fills: costs, and who is told of each fill. */
export interface PaperVenueOptions {
  /** Fee on each fill, a fraction of its notional (0.0005 is 5 bp). Default 0. */
  feeRate?: number;
  /** Market orders and exits fill this fraction worse than the price (a buy above it, a sell below). Default 0. */
  slippage?: number;
  /** Told of every fill as it happens (not of the fills a restore replays). */
  onFill?: (fill: PaperFill) => void;
}

interface PaperOrder {
  result: OrderResult;
  request: OrderRequest;
  seq: number;
  fillSeq?: number;
  exit?: PaperExit;
}

/**
 * The built-in paper venue (`paper`): perpetual markets only, fills against the prices the engine
 * sees. Market orders fill at the last price; limit orders fill at once when marketable, else rest
 * and fill when a later price reaches them. Idempotent by clientOrderId: placing the same id twice
 * returns the first order. Balances and positions are kept per venue instance.
 *
 * **Exits.** An order that opens or grows a position with `takeProfit`, `stopLoss` or `trailingStop` gets
 * them as exits once it fills: reduce-only market orders for the amount it opened, each sent at the first
 * tick after the fill that reaches its trigger (a long's take-profit at or above it, its stop at or below),
 * filled at that tick's price: a price that gaps through a stop fills where it gapped to, never at the
 * stop's level. A percent is counted from the fill price; a trailing stop's trigger follows the best price
 * since the fill. When one exit of an order fills, the others are canceled; an exit whose position is gone
 * by then is canceled too.
 *
 * With a {@link PaperOrderLog}, every order is saved when placed (before `placeOrder` answers) and when it
 * fills; {@link PaperExchange.restore} gives a new instance the orders saved before, so a venue started again
 * after a crash recognises a client order id it already took, keeps resting limit orders, and has the
 * positions and realized profit its fills made.
 */
export class PaperExchange implements Exchange {
  readonly id = 'paper';
  /**
   * The last price of each base asset, in a box updated in place: a \`Map\` holds a number as a new heap
   * object, and every tick of the engine feeds a price. Boxes are also kept by the symbol a feed names, so
   * a tick costs one lookup.
   */
  private readonly prices = new Map<string, { price: number }>();
  private readonly pricesBySymbol = new Map<string, { price: number }>();
  private readonly orders = new Map<string, PaperOrder>();
  /** Limit orders still open: a price visits these only (filled and rejected orders stay in `orders`, for their ids). */
  private readonly resting = new Set<PaperOrder>();
  /** Exits waiting for their trigger. */
  private readonly exits = new Set<PaperOrder>();
  private readonly positions = new Map<string, { size: number; entry: number; leverage: number }>();
  private nextOrder = 1;
  private nextFill = 1;
  private realizedUsd = 0;
  private feesUsd = 0;

  constructor(
    private readonly depositUsd = 10_000,
    private readonly log?: PaperOrderLog,
    private readonly options: PaperVenueOptions = {},
  ) {}

  /** Told when the assets the venue watches may have changed (see {@link watchedAssets}). */
  private watchListener: (() => void) | undefined;

  /**
   * The base assets whose prices the venue needs: those with a resting order or an open exit. The engine
   * keeps their ticks coming (see {@link onWatchChange}) whether or not a query still reads them, so that a
   * stop still fires after the query that opened the position has ended.
   */
  watchedAssets(): Set<string> {
    const assets = new Set<string>();
    for (const order of this.resting) if (order.result.status === 'open') assets.add(baseAsset(order.request.symbol));
    for (const order of this.exits) if (order.result.status === 'open') assets.add(baseAsset(order.request.symbol));
    return assets;
  }

  /** Sets the one listener told when the watched assets may have changed (an order rests, an exit opens or ends). */
  onWatchChange(listener: () => void): void {
    this.watchListener = listener;
  }

  /**
   * Takes back the orders a previous instance saved (any order): client order ids, resting orders, and the
   * positions and realized profit of their fills, replayed in the order they filled. Call it before any order.
   */
  restore(records: readonly PaperOrderRecord[]): void {
    for (const record of [...records].sort((a, b) => a.seq - b.seq)) {
      const order: PaperOrder = { request: { ...record.request }, result: { ...record.result }, seq: record.seq };
      if (record.fillSeq !== undefined) order.fillSeq = record.fillSeq;
      if (record.exit !== undefined) order.exit = { ...record.exit };
      const earlier = this.orders.get(record.request.clientOrderId);
      if (earlier) {
        this.resting.delete(earlier);
        this.exits.delete(earlier);
      }
      this.orders.set(record.request.clientOrderId, order);
      if (order.result.status === 'open') (order.exit ? this.exits : this.resting).add(order);
      this.nextOrder = Math.max(this.nextOrder, record.seq + 1);
    }
    const fills = [...this.orders.values()].filter((order) => order.fillSeq !== undefined).sort((a, b) => (a.fillSeq as number) - (b.fillSeq as number));
    for (const order of fills) {
      if (order.result.status === 'filled' && order.result.averagePrice !== undefined) this.applyFill(order.request, order.result.filled, order.result.averagePrice);
      this.nextFill = Math.max(this.nextFill, (order.fillSeq as number) + 1);
    }
    this.watchListener?.();
  }

  /** Feeds a price (the engine calls this for every price it observes, with the topic's `route`). */
  onPrice(symbol: string, price: number, route?: PaperPriceRoute): void {
    if (!(price > 0)) return;
    // A box is its asset's for good (`prices` forgets none), so a route's box stays the one to write.
    const routed = route !== undefined && route.paperSymbol === symbol ? route.paperBox : undefined;
    let box = routed ?? this.pricesBySymbol.get(symbol);
    if (box !== undefined) box.price = price;
    else box = this.remember(symbol, price);
    if (route !== undefined && routed === undefined) {
      route.paperSymbol = symbol;
      route.paperBox = box;
    }
    if (this.resting.size === 0 && this.exits.size === 0) return;
    const base = baseAsset(symbol);
    const watched = this.resting.size + this.exits.size;
    // Exits first: they watch the ticks after their fill, so an entry this tick fills is not judged by it.
    if (this.exits.size > 0) this.watchExits(base, price);
    this.fillResting(base, price);
    if (this.resting.size + this.exits.size !== watched) this.watchListener?.();
  }

  /** Fills the resting orders of `base` that `price` makes marketable. */
  private fillResting(base: string, price: number): void {
    for (const order of this.resting) {
      const { request, result } = order;
      if (result.status !== 'open') {
        this.resting.delete(order);
        continue;
      }
      if (baseAsset(request.symbol) !== base || request.price === undefined) continue;
      const marketable = request.side === 'buy' ? price <= request.price : price >= request.price;
      if (marketable) {
        this.resting.delete(order);
        // A fill found by a price is saved as it happens, with its exits (together: a position is never
        // saved without its stop); a failed save shows again at the next one.
        this.saveQuietly([order, ...this.fill(order, request.price)]);
      }
    }
  }

  /** Sends the exits of `base` that `price` reaches (see the class comment) and moves trailing stops. */
  private watchExits(base: string, price: number): void {
    for (const order of this.exits) {
      const exit = order.exit as PaperExit;
      if (order.result.status !== 'open') {
        this.exits.delete(order);
        continue;
      }
      if (baseAsset(order.request.symbol) !== base) continue;
      // The exit sells a long, buys back a short.
      const long = order.request.side === 'sell';
      if (exit.kind === 'trailing_stop' && exit.best !== undefined && exit.percent !== undefined && (long ? price > exit.best : price < exit.best)) {
        exit.best = price;
        exit.trigger = trailingTrigger(long ? 'long' : 'short', price, exit.percent);
        this.saveQuietly([order]);
      }
      const reached = exit.kind === 'take_profit' ? (long ? price >= exit.trigger : price <= exit.trigger) : long ? price <= exit.trigger : price >= exit.trigger;
      if (!reached) continue;
      this.exits.delete(order);
      const position = this.positions.get(base);
      const open = position !== undefined && (long ? position.size > 0 : position.size < 0);
      if (open) this.fill(order, price);
      else order.result = { ...order.result, status: 'canceled' };
      // The exit and the siblings it cancels are saved together: never one filled and another still open.
      const changed = [order];
      for (const sibling of this.exits) {
        if (sibling.exit?.parent !== exit.parent) continue;
        this.exits.delete(sibling);
        sibling.result = { ...sibling.result, status: 'canceled' };
        changed.push(sibling);
      }
      this.saveQuietly(changed);
    }
  }

  /** Saves orders changed by a price: a failed save shows again at the next one. */
  private saveQuietly(orders: readonly PaperOrder[]): void {
    const saved = this.save(orders);
    if (saved instanceof Promise) saved.catch(() => undefined);
  }

  /** The exits waiting for their trigger, oldest first (copies). */
  openExits(): Array<{ clientOrderId: string; symbol: string; side: 'buy' | 'sell'; amount: number; exit: PaperExit }> {
    return [...this.exits].map((order) => ({ clientOrderId: order.request.clientOrderId, symbol: order.request.symbol, side: order.request.side, amount: order.request.amount, exit: { ...(order.exit as PaperExit) } }));
  }

  /** A symbol not seen before: its asset's box (made for the first symbol of the asset), kept by the symbol too. */
  private remember(symbol: string, price: number): { price: number } {
    const base = baseAsset(symbol);
    let box = this.prices.get(base);
    if (box === undefined) {
      box = { price };
      this.prices.set(base, box);
    } else box.price = price;
    // Bounded like baseAsset's own cache: a stream of ever new symbols cannot grow it.
    if (this.pricesBySymbol.size >= 10_000) this.pricesBySymbol.clear();
    this.pricesBySymbol.set(symbol, box);
    return box;
  }

  isPerpetual(symbol: string): boolean {
    return checkPerpetualSymbol(symbol).ok && this.prices.has(baseAsset(symbol));
  }

  lastPrice(symbol: string): number {
    const price = this.prices.get(baseAsset(symbol))?.price;
    if (price === undefined) throw new Error(`the paper venue has no price for ${symbol} yet`);
    return price;
  }

  /** Deposit plus realized profit, less fees and the margin open positions use (notional / leverage). */
  availableBalanceUsd(): number {
    let margin = 0;
    for (const position of this.positions.values()) margin += (Math.abs(position.size) * position.entry) / position.leverage;
    return this.depositUsd + this.realizedUsd - this.feesUsd - margin;
  }

  /** The open position in the symbol's asset (size signed: negative is short), or undefined when there is none. */
  position(symbol: string): { size: number; entry: number; leverage: number } | undefined {
    const position = this.positions.get(baseAsset(symbol));
    return position ? { ...position } : undefined;
  }

  /** The order placed under a client order id, if this venue (or one it was restored from) took it. */
  findOrderByClientId(clientOrderId: string): OrderResult | undefined {
    const order = this.orders.get(clientOrderId);
    return order ? { ...order.result } : undefined;
  }

  /** Places the order (saved before this answers), or returns the one placed under its clientOrderId. */
  placeOrder(request: OrderRequest): MaybePromise<OrderResult> {
    const existing = this.orders.get(request.clientOrderId);
    if (existing) return { ...existing.result };
    if (!checkPerpetualSymbol(request.symbol).ok) throw new Error(`${request.symbol} is not a perpetual market`);
    if (!(request.amount > 0)) throw new Error('order amount must be positive');
    const last = this.lastPrice(request.symbol);
    const seq = this.nextOrder++;
    const order: PaperOrder = {
      request: { ...request },
      result: { orderId: `paper-${seq}`, clientOrderId: request.clientOrderId, status: 'open', filled: 0 },
      seq,
    };
    this.orders.set(request.clientOrderId, order);
    let exits: PaperOrder[] = [];
    if (request.type === 'market') exits = this.fill(order, last);
    else if (request.price !== undefined && (request.side === 'buy' ? last <= request.price : last >= request.price)) exits = this.fill(order, request.price);
    else if (request.timeInForce === 'IOC') order.result.status = 'rejected';
    if (order.result.status === 'open') this.resting.add(order);
    if (order.result.status === 'open' || exits.length > 0) this.watchListener?.();
    const result = { ...order.result };
    // The order and its exits are durable, together, before the venue answers.
    const saved = this.save([order, ...exits]);
    return saved instanceof Promise ? saved.then(() => result) : result;
  }

  /** Saves orders together (all or none), as records of their state now. */
  private save(orders: readonly PaperOrder[]): MaybePromise<void> {
    if (!this.log) return;
    return this.log.save(
      orders.map((order) => {
        const record: PaperOrderRecord = { request: { ...order.request }, result: { ...order.result }, seq: order.seq };
        if (order.fillSeq !== undefined) record.fillSeq = order.fillSeq;
        if (order.exit !== undefined) record.exit = { ...order.exit };
        return record;
      }),
    );
  }

  /** Fills an order at `price`; returns the exits it gets (for the amount it opened), not yet saved. */
  private fill(order: PaperOrder, price: number): PaperOrder[] {
    const { request } = order;
    const current = this.positions.get(baseAsset(request.symbol));
    const reducing = current !== undefined && current.size !== 0 && Math.sign(request.side === 'buy' ? 1 : -1) !== Math.sign(current.size);
    if (request.reduceOnly && !reducing) {
      order.result = { ...order.result, status: 'rejected' };
      return [];
    }
    const amount = request.reduceOnly ? Math.min(request.amount, Math.abs(current?.size ?? 0)) : request.amount;
    const opened = request.reduceOnly ? 0 : reducing ? Math.max(0, amount - Math.abs(current.size)) : amount;
    const slippage = request.type === 'market' ? (this.options.slippage ?? 0) : 0;
    const filledAt = request.side === 'buy' ? price * (1 + slippage) : price * (1 - slippage);
    const { realizedUsd, feeUsd } = this.applyFill(request, amount, filledAt);
    order.fillSeq = this.nextFill++;
    order.result = { ...order.result, status: 'filled', filled: amount, averagePrice: filledAt };
    if (this.options.onFill) {
      const position = this.positions.get(baseAsset(request.symbol));
      const fill: PaperFill = { clientOrderId: request.clientOrderId, symbol: request.symbol, side: request.side, amount, price: filledAt, feeUsd, realizedUsd, position: position ? { size: position.size, entry: position.entry } : { size: 0, entry: filledAt } };
      if (order.exit) fill.exit = order.exit.kind;
      this.options.onFill(fill);
    }
    return opened > 0 ? this.attachExits(order, opened, filledAt) : [];
  }

  /** The exits of a filled order for the `amount` it opened at `price`, waiting from the next tick on. */
  private attachExits(parent: PaperOrder, amount: number, price: number): PaperOrder[] {
    const { request } = parent;
    const triggers = exitTriggers(request, price);
    const long = request.side === 'buy';
    const wanted: PaperExit[] = [];
    if (triggers.takeProfit !== undefined) wanted.push({ kind: 'take_profit', parent: request.clientOrderId, trigger: triggers.takeProfit });
    if (triggers.stopLoss !== undefined) wanted.push({ kind: 'stop_loss', parent: request.clientOrderId, trigger: triggers.stopLoss });
    if (request.trailingStop !== undefined) {
      const { percent } = request.trailingStop;
      wanted.push({ kind: 'trailing_stop', parent: request.clientOrderId, trigger: trailingTrigger(long ? 'long' : 'short', price, percent), percent, best: price });
    }
    return wanted.map((exit) => {
      const seq = this.nextOrder++;
      const clientOrderId = `${request.clientOrderId}:${exit.kind}`;
      const order: PaperOrder = {
        request: { clientOrderId, symbol: request.symbol, side: long ? 'sell' : 'buy', type: 'market', amount, reduceOnly: true },
        result: { orderId: `paper-${seq}`, clientOrderId, status: 'open', filled: 0 },
        seq,
        exit,
      };
      this.orders.set(clientOrderId, order);
      this.exits.add(order);
      return order;
    });
  }

  /** Moves the position of the order's asset by a fill of `amount` at `price`; returns its realized profit and fee. */
  private applyFill(request: OrderRequest, amount: number, price: number): { realizedUsd: number; feeUsd: number } {
    const base = baseAsset(request.symbol);
    const signed = request.side === 'buy' ? request.amount : -request.amount;
    const current = this.positions.get(base) ?? { size: 0, entry: price, leverage: 1 };
    const reducing = current.size !== 0 && Math.sign(signed) !== Math.sign(current.size);
    const change = Math.sign(signed) * amount;
    const closed = reducing ? Math.min(Math.abs(current.size), amount) : 0;
    // Realized profit of the part that closes the open position.
    const realizedUsd = closed * (price - current.entry) * Math.sign(current.size);
    const feeUsd = amount * price * (this.options.feeRate ?? 0);
    this.realizedUsd += realizedUsd;
    this.feesUsd += feeUsd;
    const size = current.size + change;
    let entry = current.entry;
    if (!reducing) entry = (current.entry * Math.abs(current.size) + price * amount) / Math.abs(size);
    else if (Math.sign(size) !== Math.sign(current.size)) entry = price;
    if (size === 0) this.positions.delete(base);
    else this.positions.set(base, { size, entry, leverage: Math.max(1, request.leverage ?? current.leverage) });
    return { realizedUsd, feeUsd };
  }
}
