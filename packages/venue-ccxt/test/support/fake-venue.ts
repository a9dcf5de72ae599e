import { type CcxtCapabilities, type CcxtClient, type CcxtMarket, type CcxtOrder, type CcxtParams, type CcxtTicker } from '../../src/index.js';

/** A market as ccxt describes it, with the fields the adapters read. */
export function market(symbol: string, overrides: Partial<CcxtMarket> = {}): CcxtMarket {
  const [pair = symbol, settle] = symbol.split(':');
  const [base = pair, quote = 'USDT'] = pair.split('/');
  const swap = settle !== undefined;
  return {
    id: `${base}${quote}`,
    symbol,
    base,
    quote,
    settle,
    spot: !swap,
    swap,
    active: true,
    linear: swap ? settle !== base : undefined,
    inverse: swap ? settle === base : undefined,
    ...overrides,
  };
}

export const DEFAULT_MARKETS: CcxtMarket[] = [
  market('BTC/USDT'),
  market('BTC/USDT:USDT'),
  market('BTC/USDC:USDC', { id: 'BTCUSDC' }),
  market('BTC/USD:BTC', { id: 'BTCUSD_PERP' }),
  market('ETH/USDC:USDC', { id: 'ETHUSDC' }),
  market('SOL/USDT', { id: 'SOLUSDT' }),
  market('DOGE/USDT:USDT', { active: false }),
  market('XRP/USDT:USDT', { id: 'XRP_USDT', active: undefined }),
];

type Method = 'loadMarkets' | 'fetchTicker' | 'watchTicker' | 'createOrder' | 'fetchOrder' | 'fetchOpenOrders' | 'fetchClosedOrders' | 'fetchBalance' | 'setLeverage';

/**
 * A ccxt-like venue in memory: it records every call, serves tickers from a script, keeps the orders
 * placed, and can be told to fail the next calls of a method.
 */
export class FakeVenue implements CcxtClient {
  has: CcxtCapabilities = {
    fetchTicker: true,
    watchTicker: false,
    unWatchTicker: false,
    createOrder: true,
    fetchOrder: true,
    fetchOpenOrders: true,
    fetchClosedOrders: true,
    fetchBalance: true,
    setLeverage: true,
    createOrderWithTakeProfitAndStopLoss: true,
  };
  markets?: Record<string, CcxtMarket>;
  readonly calls: Array<{ method: Method | 'unWatchTicker'; args: unknown[] }> = [];
  readonly orders: CcxtOrder[] = [];
  balance: Record<string, unknown> = { info: {}, USDT: { free: 1000, used: 5, total: 1005 }, USDC: { free: 250.5, used: 0, total: 250.5 }, BTC: { free: 1 } };
  /** Tickers handed out in turn; the last repeats. A function computes one per call. */
  tickers: Array<CcxtTicker | ((symbol: string) => CcxtTicker)> = [{ last: 100, timestamp: 1_000, baseVolume: 10 }];
  /** How a new order fills. */
  fill: (order: CcxtOrder) => CcxtOrder = (order) => ({ ...order, status: 'closed', filled: order.amount, average: 101 });
  /** Lookup by client order id in fetchOrder (like hyperliquid, binance, okx). */
  fetchOrderByClientId = true;
  private readonly failures = new Map<Method, unknown[]>();
  private tickerIndex = 0;
  private nextOrderId = 1;

  constructor(
    readonly id = 'fakevenue',
    private readonly marketList: CcxtMarket[] = DEFAULT_MARKETS,
  ) {}

  /** The next calls of `method` throw these errors, in order. */
  failNext(method: Method, ...errors: unknown[]): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...errors]);
  }

  count(method: Method | 'unWatchTicker'): number {
    return this.calls.filter((call) => call.method === method).length;
  }

  private enter(method: Method, args: unknown[]): void {
    this.calls.push({ method, args });
    const pending = this.failures.get(method);
    if (pending !== undefined && pending.length > 0) throw pending.shift();
  }

  loadMarkets(): Promise<Record<string, CcxtMarket>> {
    return this.run('loadMarkets', [], () => {
      this.markets ??= Object.fromEntries(this.marketList.map((entry) => [entry.symbol, entry]));
      return this.markets;
    });
  }

  fetchTicker(symbol: string, params?: CcxtParams): Promise<CcxtTicker> {
    return this.run('fetchTicker', [symbol, params], () => this.nextTicker(symbol));
  }

  watchTicker(symbol: string, params?: CcxtParams): Promise<CcxtTicker> {
    return new Promise((resolve, reject) => {
      setTimeout(() => {
        this.run('watchTicker', [symbol, params], () => this.nextTicker(symbol)).then(resolve, reject);
      }, 5);
    });
  }

  unWatchTicker(symbol: string): Promise<unknown> {
    this.calls.push({ method: 'unWatchTicker', args: [symbol] });
    return Promise.resolve(true);
  }

  createOrder(symbol: string, type: string, side: string, amount: number, price?: number, params: CcxtParams = {}): Promise<CcxtOrder> {
    return this.run('createOrder', [symbol, type, side, amount, price, params], () => {
      const clientOrderId = typeof params.clientOrderId === 'string' ? params.clientOrderId : undefined;
      if (clientOrderId !== undefined && this.orders.some((order) => order.clientOrderId === clientOrderId)) {
        throw Object.assign(new Error(`${this.id} duplicate clientOrderId`), { name: 'DuplicateOrderId' });
      }
      const order = this.fill({ id: `o${this.nextOrderId++}`, clientOrderId, symbol, amount, price, status: 'open', filled: 0 });
      this.orders.push(order);
      return order;
    });
  }

  fetchOrder(id: string, symbol?: string, params: CcxtParams = {}): Promise<CcxtOrder> {
    return this.run('fetchOrder', [id, symbol, params], () => {
      const byClient = this.fetchOrderByClientId && typeof params.clientOrderId === 'string' ? params.clientOrderId : undefined;
      const found = this.orders.find((order) => (byClient !== undefined ? order.clientOrderId === byClient : order.id === id));
      if (found === undefined) throw new OrderNotFoundLike(`${this.id} order ${id} not found`);
      return found;
    });
  }

  fetchOpenOrders(symbol?: string): Promise<CcxtOrder[]> {
    return this.run('fetchOpenOrders', [symbol], () => this.orders.filter((order) => order.status === 'open' && (symbol === undefined || order.symbol === symbol)));
  }

  fetchClosedOrders(symbol?: string): Promise<CcxtOrder[]> {
    return this.run('fetchClosedOrders', [symbol], () => this.orders.filter((order) => order.status !== 'open' && (symbol === undefined || order.symbol === symbol)));
  }

  /** Open positions, when a test sets it (and `has.fetchPositions`). */
  fetchPositions?: CcxtClient['fetchPositions'];

  fetchBalance(): Promise<Record<string, unknown>> {
    return this.run('fetchBalance', [], () => this.balance);
  }

  setLeverage(leverage: number, symbol?: string): Promise<unknown> {
    return this.run('setLeverage', [leverage, symbol], () => ({ leverage }));
  }

  priceToPrecision(_symbol: string, price: number): string {
    return price.toFixed(1);
  }

  private nextTicker(symbol: string): CcxtTicker {
    const entry = this.tickers[Math.min(this.tickerIndex, this.tickers.length - 1)];
    this.tickerIndex += 1;
    const ticker = typeof entry === 'function' ? entry(symbol) : entry;
    return { symbol, ...ticker };
  }

  private run<T>(method: Method, args: unknown[], body: () => T): Promise<T> {
    try {
      this.enter(method, args);
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** Like ccxt's OrderNotFound, by class name, without importing ccxt. */
export class OrderNotFoundLike extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OrderNotFound';
  }
}
