import { asyncScheduler, defer, exhaustMap, filter, map, Observable, switchMap, throwError, timer, type SchedulerLike } from 'rxjs';
import { type DataSource, type Observation, type PriceObservation, type Topic } from '@eql/core';
import { isPermanentCcxtError } from './ccxt-errors.js';
import { createCcxtClient, UnknownExchangeError, type CcxtConfig } from './ccxt-load.js';
import { retryTransient } from './ccxt-retry.js';
import { type CcxtClient, type CcxtMarket, type CcxtTicker } from './ccxt-types.js';
import { resolveMarket } from './market-symbols.js';

/** Options of a {@link CcxtPriceSource}: its scheduler, polling interval, retry backoff and whether to use websockets. */
export interface CcxtPriceSourceOptions {
  /** The engine's scheduler: times polling, backoff and observations without a venue timestamp. */
  scheduler?: SchedulerLike;
  /** Delay between `fetchTicker` polls when the venue has no `watchTicker`. Default 2000 ms. */
  pollIntervalMs?: number;
  /** The first delay of the backoff after transient errors, doubling after each. Default 500 ms. */
  retryBaseMs?: number;
  /** The largest delay of the backoff after transient errors. Default 30 s. */
  retryMaxMs?: number;
  /** Use `watchTicker` (ccxt pro) when the venue has it. Default true. */
  useWebsocket?: boolean;
  /** Constructor options when the source builds the exchange from an id. */
  config?: CcxtConfig;
}

/** The venue has no market for a symbol; retrying cannot help. */
export class UnknownSymbolError extends Error {
  constructor(
    readonly exchangeId: string,
    readonly symbol: string,
  ) {
    super(`${exchangeId} has no market for "${symbol}"; use a ticker (BTC), a -PERP name (BTC-PERP) or a unified symbol (BTC/USDT:USDT)`);
    this.name = 'UnknownSymbolError';
  }
}

const isPermanent = (error: unknown): boolean =>
  error instanceof UnknownSymbolError || error instanceof UnknownExchangeError || isPermanentCcxtError(error);

/**
 * Live prices from one ccxt venue. `observe({source: 'price', symbol})` maps the EQL symbol to a market
 * (see {@link resolveMarket}), then streams its ticker: `watchTicker` in a loop when the venue has it
 * (ccxt pro), else `fetchTicker` every `pollIntervalMs`. Transient failures (network, rate limits,
 * venue errors) are retried with backoff and never complete the stream; an unknown symbol errors it.
 * Unsubscribing stops the polling or watching.
 */
export class CcxtPriceSource implements DataSource {
  readonly name: string;
  readonly exchangeId: string;
  private readonly scheduler: SchedulerLike;
  private readonly pollIntervalMs: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly useWebsocket: boolean;
  private readonly owned: boolean;
  private client?: CcxtClient;
  private clientPromise?: Promise<CcxtClient>;
  private marketsPromise?: Promise<Record<string, CcxtMarket>>;
  /** The last market load failed: the next one must ask ccxt to reload. */
  private marketsFailed = false;
  /** Watch loops per market symbol, so a venue-side unwatch only happens when the last one stops. */
  private readonly watchers = new Map<string, number>();

  /** Over an exchange instance (REST or pro), or an exchange id built with ccxt pro when it has one. */
  constructor(
    exchange: CcxtClient | string,
    private readonly options: CcxtPriceSourceOptions = {},
  ) {
    this.owned = typeof exchange === 'string';
    if (typeof exchange === 'string') {
      this.exchangeId = exchange.toLowerCase();
    } else {
      this.client = exchange;
      this.clientPromise = Promise.resolve(exchange);
      this.exchangeId = exchange.id;
    }
    this.name = `ccxt:${this.exchangeId}`;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.retryMaxMs = options.retryMaxMs ?? 30_000;
    this.useWebsocket = options.useWebsocket ?? true;
  }

  /**
   * Price topics of this venue (or of no venue). Once markets are loaded (see {@link ready}), only
   * symbols the venue has; before that every symbol, and `observe` errors on an unknown one.
   */
  supports(topic: Topic): boolean {
    if (topic.source !== 'price') return false;
    if (topic.exchange !== undefined && topic.exchange.toLowerCase() !== this.exchangeId) return false;
    const markets = this.client?.markets;
    return markets === undefined || resolveMarket(topic.symbol, markets, 'price') !== undefined;
  }

  /** Builds the exchange if needed and loads its markets. */
  async ready(): Promise<void> {
    await this.loadMarkets();
  }

  /** The ccxt market symbol an EQL symbol maps to (`BTC` → `BTC/USDT:USDT`). */
  async marketSymbol(symbol: string): Promise<string> {
    const market = resolveMarket(symbol, await this.loadMarkets(), 'price');
    if (market === undefined) throw new UnknownSymbolError(this.exchangeId, symbol);
    return market.symbol;
  }

  observe(topic: Topic): Observable<Observation> {
    if (topic.source !== 'price') {
      return throwError(() => new Error(`${this.name} serves price topics only, not ${topic.source}`));
    }
    const retrying = retryTransient<string>({ baseMs: this.retryBaseMs, maxMs: this.retryMaxMs, scheduler: this.scheduler, isPermanent });
    return defer(() => this.marketSymbol(topic.symbol)).pipe(
      retrying,
      switchMap((marketSymbol) => defer(() => this.getClient()).pipe(switchMap((client) => this.tickers(client, marketSymbol)))),
      this.toObservations(topic.symbol),
    );
  }

  /** Closes the exchange when this source built it (websockets of ccxt pro). */
  async close(): Promise<void> {
    if (this.owned && this.client?.close) await this.client.close();
  }

  private tickers(client: CcxtClient, marketSymbol: string): Observable<CcxtTicker> {
    if (this.useWebsocket && client.has.watchTicker && client.watchTicker !== undefined) {
      return this.watched(client, marketSymbol).pipe(this.retry<CcxtTicker>());
    }
    return timer(0, this.pollIntervalMs, this.scheduler).pipe(
      exhaustMap(() => defer(() => client.fetchTicker(marketSymbol)).pipe(this.retry<CcxtTicker>())),
    );
  }

  /** `watchTicker` in a loop until unsubscribed; each call resolves with the next update. */
  private watched(client: CcxtClient, marketSymbol: string): Observable<CcxtTicker> {
    return new Observable<CcxtTicker>((subscriber) => {
      let active = true;
      this.watchers.set(marketSymbol, (this.watchers.get(marketSymbol) ?? 0) + 1);
      const loop = async (): Promise<void> => {
        while (active && client.watchTicker !== undefined) {
          const ticker = await client.watchTicker(marketSymbol);
          if (active) subscriber.next(ticker);
        }
      };
      loop().catch((error: unknown) => {
        if (active) subscriber.error(error);
      });
      return () => {
        active = false;
        const left = (this.watchers.get(marketSymbol) ?? 1) - 1;
        if (left > 0) {
          this.watchers.set(marketSymbol, left);
          return;
        }
        this.watchers.delete(marketSymbol);
        if (client.has.unWatchTicker && client.unWatchTicker) client.unWatchTicker(marketSymbol).catch(() => undefined);
      };
    });
  }

  /**
   * Tickers to observations of the symbol as asked. Stale tickers (older than the last one) and
   * repeated polls of the same ticker are dropped. `volume` is the growth of the venue's rolling
   * 24 h base volume since the previous ticker: omitted on the first one, when the venue gives no
   * base volume, or when the window shrank (old trades left it), since the traded amount is then unknown.
   */
  private toObservations(symbol: string): (source: Observable<CcxtTicker>) => Observable<PriceObservation> {
    return (source) =>
      defer(() => {
        let previous: { at: number; price: number; baseVolume: number | undefined } | undefined;
        return source.pipe(
          map((ticker): PriceObservation | undefined => {
            const price = ticker.last ?? ticker.close;
            if (price === undefined || !Number.isFinite(price)) return undefined;
            const at = ticker.timestamp ?? this.scheduler.now();
            const baseVolume = finiteOrUndefined(ticker.baseVolume);
            if (previous !== undefined) {
              if (at < previous.at) return undefined;
              if (ticker.timestamp !== undefined && at === previous.at && price === previous.price && baseVolume === previous.baseVolume) return undefined;
            }
            const delta = previous?.baseVolume !== undefined && baseVolume !== undefined ? baseVolume - previous.baseVolume : undefined;
            previous = { at, price, baseVolume };
            const observation: PriceObservation = { at, source: 'price', symbol, price, exchange: this.exchangeId };
            if (delta !== undefined && delta >= 0) observation.volume = delta;
            return observation;
          }),
          filter((observation): observation is PriceObservation => observation !== undefined),
        );
      });
  }

  private retry<T>(): (source: Observable<T>) => Observable<T> {
    return retryTransient<T>({ baseMs: this.retryBaseMs, maxMs: this.retryMaxMs, scheduler: this.scheduler, isPermanent });
  }

  private getClient(): Promise<CcxtClient> {
    this.clientPromise ??= createCcxtClient(this.exchangeId, this.options.config, { pro: this.useWebsocket }).then((client) => {
      this.client = client;
      return client;
    });
    return this.clientPromise;
  }

  private loadMarkets(): Promise<Record<string, CcxtMarket>> {
    const reload = this.marketsFailed;
    this.marketsPromise ??= this.getClient()
      .then(async (client) => {
        // ccxt keeps a failed loadMarkets promise and answers it again unless asked to reload.
        await client.loadMarkets(reload);
        this.marketsFailed = false;
        return client.markets ?? {};
      })
      .catch((error: unknown) => {
        this.marketsPromise = undefined;
        this.marketsFailed = true;
        throw error;
      });
    return this.marketsPromise;
  }
}

function finiteOrUndefined(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}
