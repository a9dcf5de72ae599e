import { type Exchange, type OrderRequest, type OrderResult } from '@eql/core';
import { ExchangeAdapterError } from './adapter-error.js';
import { ccxtErrorKinds, describeCcxtError, isCcxtError, isDuplicateOrderError, isTransientCcxtError } from './ccxt-errors.js';
import { type CcxtClient, type CcxtMarket, type CcxtOrder, type CcxtParams } from './ccxt-types.js';
import { venueClientOrderId } from './client-order-id.js';
import { connectCcxt, type ConnectOptions, type ExchangeCredentials } from './ccxt-connect.js';
import { isActivePerpetual, resolveMarket } from './market-symbols.js';
import { createOrderParams, exitTriggers, toOrderResult } from './order-mapping.js';
import { redactor } from './redact.js';

/** Options of a {@link CcxtExchange}: how EQL client order ids map to the venue's, and which secrets to redact. */
export interface CcxtExchangeOptions {
  /** The venue id for an EQL client order id; by default {@link venueClientOrderId}. */
  clientOrderIdFor?: (exchangeId: string, clientOrderId: string) => string;
  /**
   * Whether `fetchOrder(id, symbol, {clientOrderId})` finds orders by client order id on this venue.
   * Known for the venues in {@link CLIENT_ID_LOOKUP_VENUES}; others are searched in open and closed orders.
   */
  lookupByClientOrderId?: boolean;
  /** Secret values to keep out of error messages (set by {@link CcxtExchange.connect}). */
  secrets?: ReadonlyArray<string | undefined>;
}

/** Venues whose ccxt `fetchOrder` accepts `params.clientOrderId` and then ignores the order id. */
export const CLIENT_ID_LOOKUP_VENUES: ReadonlySet<string> = new Set([
  'hyperliquid',
  'binance',
  'binanceusdm',
  'binancecoinm',
  'okx',
  'myokx',
  'okxus',
  'bitget',
  'aster',
  'apex',
  'delta',
  'grvt',
  'paradex',
  'woofipro',
  'modetrade',
  'hashkey',
]);

/** Venues whose market orders need a price (Hyperliquid bounds the fill price by a slippage around it). */
const MARKET_ORDERS_NEED_PRICE: ReadonlySet<string> = new Set(['hyperliquid']);

/** Currencies counted as USD collateral. */
const USD_CURRENCIES = ['USDT', 'USDC', 'USD'];

/**
 * An {@link Exchange} over a ccxt exchange instance. Symbols map as in {@link resolveMarket}; orders
 * go only to active perpetual markets.
 *
 * Idempotency: the EQL client order id becomes a deterministic venue id ({@link venueClientOrderId});
 * before placing, the venue is asked for an order under that id (`fetchOrder` by client order id
 * where the venue supports it, else open then closed orders filtered by it) and an existing order is
 * returned instead of placing a second one. A duplicate-id refusal, or a transient failure while
 * placing, also leads to a lookup. When the lookup itself cannot be done because of a transient
 * failure, nothing is placed and a retryable error is thrown.
 */
export class CcxtExchange implements Exchange {
  readonly id: string;
  private readonly redact: (text: string) => string;

  constructor(
    readonly client: CcxtClient,
    private readonly options: CcxtExchangeOptions = {},
  ) {
    this.id = client.id;
    this.redact = redactor(options.secrets ?? []);
  }

  /**
   * Builds `ccxt[exchangeId]` with the credentials (`apiKey`/`secret`, or `walletAddress`/`privateKey`
   * for wallet venues) and verifies them with `fetchBalance`. Errors never contain credentials.
   */
  static async connect(exchangeId: string, credentials: ExchangeCredentials, options: ConnectOptions & CcxtExchangeOptions = {}): Promise<CcxtExchange> {
    const client = await connectCcxt(exchangeId, credentials, options);
    const secrets = [credentials.apiKey, credentials.secret, credentials.password, credentials.uid, credentials.walletAddress, credentials.privateKey];
    return new CcxtExchange(client, { ...options, secrets: [...(options.secrets ?? []), ...secrets] });
  }

  async isPerpetual(symbol: string): Promise<boolean> {
    const market = resolveMarket(symbol, await this.markets(), 'trade');
    return market !== undefined && isActivePerpetual(market);
  }

  async lastPrice(symbol: string): Promise<number> {
    return this.priceOf(await this.perpetual(symbol));
  }

  /** Free USDT + USDC + USD of the account (`fetchBalance`). */
  /**
   * The open position of a perpetual (ccxt's unified `fetchPositions`: contracts, signed by its side), for
   * close_position; undefined when flat. A venue without `fetchPositions` refuses: it cannot close.
   */
  async position(symbol: string): Promise<{ size: number; entry: number } | undefined> {
    const market = await this.perpetual(symbol);
    if (!this.client.has.fetchPositions || !this.client.fetchPositions) {
      throw new ExchangeAdapterError('ORDER_CLOSE_UNSUPPORTED', `${this.id} tells no positions through ccxt, so it cannot close one; nothing was placed`);
    }
    let positions: Awaited<ReturnType<NonNullable<CcxtClient['fetchPositions']>>>;
    try {
      positions = await this.client.fetchPositions([market.symbol]);
    } catch (error) {
      throw this.failure('read its positions', error);
    }
    const open = positions.find((entry) => entry.symbol === market.symbol && typeof entry.contracts === 'number' && entry.contracts > 0);
    if (open === undefined) return undefined;
    const size = (open.contracts as number) * (open.side === 'short' ? -1 : 1);
    return { size, entry: typeof open.entryPrice === 'number' ? open.entryPrice : Number.NaN };
  }

  async availableBalanceUsd(): Promise<number> {
    const balance = await this.call('fetch the balance', () => this.client.fetchBalance());
    const free = isRecord(balance.free) ? balance.free : {};
    let total = 0;
    for (const code of USD_CURRENCIES) {
      const entry = balance[code];
      const amount = isRecord(entry) ? entry.free : free[code];
      if (typeof amount === 'number' && Number.isFinite(amount)) total += amount;
    }
    return total;
  }

  /** The id this venue sees for an EQL client order id. */
  venueClientOrderId(clientOrderId: string): string {
    return (this.options.clientOrderIdFor ?? venueClientOrderId)(this.id, clientOrderId);
  }

  async placeOrder(order: OrderRequest): Promise<OrderResult> {
    checkOrder(order);
    const market = await this.perpetual(order.symbol);
    const venueId = this.venueClientOrderId(order.clientOrderId);
    if (order.trailingStop !== undefined && !this.client.has.createTrailingPercentOrder) {
      throw new ExchangeAdapterError('ORDER_TRAILING_UNSUPPORTED', `${this.id} places no trailing stop through ccxt; nothing was placed`);
    }
    const existing = await this.findOrder(venueId, market.symbol);
    if (existing !== undefined) {
      const result = toOrderResult(existing, order.clientOrderId, venueId);
      // A restart between the entry and its trailing stop: the entry is there, the stop may not be.
      await this.placeTrailingStop(order, market.symbol, result);
      return result;
    }

    const needsReference = order.type === 'market' && (MARKET_ORDERS_NEED_PRICE.has(this.id) || hasPercentExit(order));
    const reference = order.price ?? (needsReference ? await this.priceOf(market) : undefined);
    const exits = this.rounded(market.symbol, exitTriggers(order, reference));
    if ((exits.takeProfit !== undefined || exits.stopLoss !== undefined) && !this.client.has.createOrderWithTakeProfitAndStopLoss) {
      throw new ExchangeAdapterError('ORDER_EXITS_UNSUPPORTED', `${this.id} cannot attach take-profit or stop-loss to an order; nothing was placed`);
    }
    if (order.leverage !== undefined) await this.applyLeverage(order.leverage, market.symbol);

    const params = createOrderParams(order, venueId, exits);
    const price = order.type === 'limit' ? order.price : MARKET_ORDERS_NEED_PRICE.has(this.id) ? reference : undefined;
    let placed: CcxtOrder;
    try {
      placed = await this.client.createOrder(market.symbol, order.type, order.side, order.amount, price, params);
    } catch (error) {
      if (isDuplicateOrderError(error) || isTransientCcxtError(error)) {
        const found = await this.findOrder(venueId, market.symbol).catch(() => undefined);
        if (found !== undefined) return toOrderResult(found, order.clientOrderId, venueId);
      }
      throw this.failure('place the order', error);
    }
    const result = toOrderResult(placed, order.clientOrderId, venueId);
    await this.placeTrailingStop(order, market.symbol, result);
    return result;
  }

  /**
   * The trailing stop of an entry, as a second order: reduce-only, on the other side, for the amount the
   * entry filled, with ccxt's unified `trailingPercent`; under its own client order id (the entry's with
   * `:trailing_stop`), so a retry finds it instead of placing a second one. Nothing while the entry has not
   * filled (a resting limit order: the venue would refuse a reduce-only order without a position).
   */
  private async placeTrailingStop(order: OrderRequest, symbol: string, entry: OrderResult): Promise<void> {
    if (order.trailingStop === undefined || !(entry.filled > 0)) return;
    const venueId = this.venueClientOrderId(`${order.clientOrderId}:trailing_stop`);
    if ((await this.findOrder(venueId, symbol)) !== undefined) return;
    const params = { clientOrderId: venueId, reduceOnly: true, trailingPercent: order.trailingStop.percent };
    try {
      await this.client.createOrder(symbol, 'market', order.side === 'buy' ? 'sell' : 'buy', entry.filled, undefined, params);
    } catch (error) {
      throw this.failure('place the trailing stop (the entry is placed)', error);
    }
  }

  /**
   * The order placed under an EQL client order id, if any (the engine asks when a restart left an order
   * in doubt): {@link findOrder} under the venue's id for it. Throws when the venue could not be asked.
   */
  async findOrderByClientId(clientOrderId: string, symbol: string): Promise<OrderResult | undefined> {
    const market = await this.perpetual(symbol);
    const venueId = this.venueClientOrderId(clientOrderId);
    const found = await this.findOrder(venueId, market.symbol);
    return found === undefined ? undefined : toOrderResult(found, clientOrderId, venueId);
  }

  /**
   * The order placed under a venue client order id, if any. Throws a retryable error when the venue
   * could not be asked (so that a caller never places blindly after a failed lookup).
   */
  async findOrder(venueId: string, symbol: string): Promise<CcxtOrder | undefined> {
    const client = this.client;
    const matches = (order: CcxtOrder): boolean => order.clientOrderId !== undefined && order.clientOrderId.toLowerCase() === venueId.toLowerCase();
    const lookupById = this.options.lookupByClientOrderId ?? CLIENT_ID_LOOKUP_VENUES.has(this.id);
    if (lookupById && client.has.fetchOrder && client.fetchOrder) {
      try {
        const order = await client.fetchOrder(venueId, symbol, { clientOrderId: venueId });
        return order.id !== undefined && (order.clientOrderId === undefined || matches(order)) ? order : undefined;
      } catch (error) {
        if (isCcxtError(error, 'OrderNotFound')) return undefined;
        throw this.failure('look up the order by its client order id', error, true);
      }
    }
    const lists: Array<() => Promise<CcxtOrder[]> | undefined> = [
      () => (client.has.fetchOpenOrders && client.fetchOpenOrders ? client.fetchOpenOrders(symbol) : undefined),
      () => (client.has.fetchClosedOrders && client.fetchClosedOrders ? client.fetchClosedOrders(symbol) : undefined),
      () => (!client.has.fetchClosedOrders && client.has.fetchOrders && client.fetchOrders ? client.fetchOrders(symbol) : undefined),
    ];
    for (const list of lists) {
      let orders: CcxtOrder[] | undefined;
      try {
        orders = await list();
      } catch (error) {
        if (isTransientCcxtError(error)) throw this.failure('look up orders by client order id', error, true);
        continue;
      }
      const found = orders?.find(matches);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Closes the ccxt instance (websockets of ccxt pro). */
  async close(): Promise<void> {
    if (this.client.close) await this.client.close();
  }

  private async markets(): Promise<Record<string, CcxtMarket>> {
    await this.call('load markets', () => this.client.loadMarkets());
    return this.client.markets ?? {};
  }

  private async perpetual(symbol: string): Promise<CcxtMarket> {
    const market = resolveMarket(symbol, await this.markets(), 'trade');
    if (market === undefined) {
      throw new ExchangeAdapterError('SYMBOL_NOT_PERPETUAL', `${this.id} has no perpetual market for "${symbol}"`);
    }
    if (!isActivePerpetual(market)) {
      throw new ExchangeAdapterError('SYMBOL_NOT_PERPETUAL', `${market.symbol} is not an active perpetual market on ${this.id}`);
    }
    return market;
  }

  private async priceOf(market: CcxtMarket): Promise<number> {
    const ticker = await this.call(`fetch the ticker of ${market.symbol}`, () => this.client.fetchTicker(market.symbol));
    const price = ticker.last ?? ticker.close ?? ticker.markPrice;
    if (price === undefined || !Number.isFinite(price) || price <= 0) {
      throw new ExchangeAdapterError('EXCHANGE_NO_PRICE', `${this.id} gave no last price for ${market.symbol}`, true);
    }
    return price;
  }

  private rounded(symbol: string, exits: { takeProfit?: number; stopLoss?: number }): { takeProfit?: number; stopLoss?: number } {
    const round = (price: number): number => {
      const text = this.client.priceToPrecision?.(symbol, price);
      const value = text === undefined ? Number.NaN : Number(text);
      return Number.isFinite(value) && value > 0 ? value : price;
    };
    const out: { takeProfit?: number; stopLoss?: number } = {};
    if (exits.takeProfit !== undefined) out.takeProfit = round(exits.takeProfit);
    if (exits.stopLoss !== undefined) out.stopLoss = round(exits.stopLoss);
    return out;
  }

  /** Sets leverage when the venue supports it; "no change" answers are fine. */
  private async applyLeverage(leverage: number, symbol: string): Promise<void> {
    if (!this.client.has.setLeverage || !this.client.setLeverage) return;
    try {
      await this.client.setLeverage(leverage, symbol);
    } catch (error) {
      if (isCcxtError(error, 'NoChange')) return;
      const failure = this.failure('set leverage', error);
      throw failure.code === 'EXCHANGE_UNAVAILABLE'
        ? failure
        : new ExchangeAdapterError('LEVERAGE_REJECTED', `${this.id} refused leverage ${leverage} on ${symbol}; nothing was placed (${describeCcxtError(error, this.redact)})`);
    }
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.failure(what, error);
    }
  }

  /** An ExchangeAdapterError for a ccxt failure, with a code from the ccxt error class. */
  private failure(what: string, error: unknown, forceRetryable = false): ExchangeAdapterError {
    if (error instanceof ExchangeAdapterError) return error;
    const detail = describeCcxtError(error, this.redact);
    const message = `${this.id} could not ${what}: ${detail}`;
    const kinds = ccxtErrorKinds(error);
    if (forceRetryable || isTransientCcxtError(error)) return new ExchangeAdapterError('EXCHANGE_UNAVAILABLE', message, true);
    if (kinds.includes('AuthenticationError')) return new ExchangeAdapterError('EXCHANGE_CREDENTIALS_REJECTED', message);
    if (kinds.includes('BadSymbol')) return new ExchangeAdapterError('SYMBOL_NOT_PERPETUAL', message);
    if (kinds.includes('InsufficientFunds')) return new ExchangeAdapterError('INSUFFICIENT_BALANCE', message);
    if (kinds.includes('InvalidOrder') || kinds.includes('ArgumentsRequired') || kinds.includes('BadRequest')) {
      return new ExchangeAdapterError('ORDER_INVALID', message);
    }
    return new ExchangeAdapterError(what === 'place the order' ? 'ORDER_REJECTED' : 'EXCHANGE_ERROR', message);
  }
}

function checkOrder(order: OrderRequest): void {
  if (!(Number.isFinite(order.amount) && order.amount > 0)) {
    throw new ExchangeAdapterError('ORDER_INVALID', `order amount must be a positive number, not ${order.amount}`);
  }
  if (order.type === 'limit' && !(order.price !== undefined && Number.isFinite(order.price) && order.price > 0)) {
    throw new ExchangeAdapterError('ORDER_INVALID', 'a limit order needs a positive price');
  }
  if (order.clientOrderId === '') throw new ExchangeAdapterError('ORDER_INVALID', 'an order needs a clientOrderId');
}

function hasPercentExit(order: OrderRequest): boolean {
  return (order.takeProfit?.price === undefined && order.takeProfit?.percent !== undefined) || (order.stopLoss?.price === undefined && order.stopLoss?.percent !== undefined);
}

function isRecord(value: unknown): value is CcxtParams {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
