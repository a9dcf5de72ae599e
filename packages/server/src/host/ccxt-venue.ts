import { defer, type Observable, switchMap, type SchedulerLike } from 'rxjs';
import { type Candle, type DataSource, type Exchange, HistoryError, type Observation, type PriceHistory, type PriceTick, type PriceTopic, type Topic } from '@eql/core';
import type * as VenueCcxt from '@eql/venue-ccxt';

/**
 * The ccxt venue of the host, `@eql/venue-ccxt`, loaded with a dynamic import only when the
 * configuration asks for it: a `ccxt:<exchange id>` feed (its prices and candles), or a real venue
 * (`EQL_EXCHANGES`) being connected or listed. A host on the replay feed and the paper venue never
 * loads it, nor ccxt. Only types are imported statically here.
 */
export type CcxtVenue = typeof VenueCcxt;

let loading: Promise<CcxtVenue> | undefined;

/** `@eql/venue-ccxt`, imported once on first call (a failed import is tried again on the next call). */
export function loadCcxtVenue(): Promise<CcxtVenue> {
  loading ??= import('@eql/venue-ccxt').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** Connects a ccxt exchange with credentials and proves they work (`fetchBalance`). */
export async function connectCcxtExchange(exchangeId: string, credentials: Record<string, string>): Promise<Exchange> {
  const { CcxtExchange } = await loadCcxtVenue();
  return CcxtExchange.connect(exchangeId, credentials);
}

/** A ccxt exchange without credentials: its markets and prices only. */
export async function publicCcxtExchange(exchangeId: string): Promise<Exchange> {
  const { CcxtExchange, createCcxtClient } = await loadCcxtVenue();
  return new CcxtExchange(await createCcxtClient(exchangeId, {}));
}

/**
 * Live prices of a ccxt venue (`feed: ccxt:<id>`), as the venue package's `CcxtPriceSource` once it is
 * loaded. The import starts at construction; until it is done, the source supports every price topic
 * of its venue (as a `CcxtPriceSource` does before the venue's markets are loaded) and `observe` waits
 * for it.
 */
export class CcxtFeed implements DataSource {
  readonly name: string;
  readonly exchangeId: string;
  private source?: VenueCcxt.CcxtPriceSource;
  private readonly loaded: Promise<VenueCcxt.CcxtPriceSource>;
  private closed = false;

  constructor(exchangeId: string, options: { scheduler: SchedulerLike }) {
    this.exchangeId = exchangeId.toLowerCase();
    this.name = `ccxt:${this.exchangeId}`;
    this.loaded = loadCcxtVenue().then(({ CcxtPriceSource }) => (this.source = new CcxtPriceSource(this.exchangeId, options)));
    // A failed import is reported by `observe` (an engine problem); nothing is unhandled meanwhile.
    this.loaded.catch(() => undefined);
  }

  supports(topic: Topic): boolean {
    if (this.source) return this.source.supports(topic);
    return topic.source === 'price' && (topic.exchange === undefined || topic.exchange.toLowerCase() === this.exchangeId);
  }

  observe(topic: Topic): Observable<Observation> {
    return defer(() => this.loaded).pipe(switchMap((source) => source.observe(topic)));
  }

  /** Closes the venue's client (websockets, keep-alive sockets) if it was loaded. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const source = await this.loaded.catch(() => undefined);
    await source?.close();
  }
}

/**
 * Past prices of a ccxt venue (`feed: ccxt:<id>`), as the venue package's `CcxtPriceHistory` once it
 * is loaded; the import starts at construction and every answer waits for it.
 */
export class CcxtFeedHistory implements PriceHistory {
  readonly name: string;
  readonly exchangeId: string;
  private readonly loaded: Promise<VenueCcxt.CcxtPriceHistory>;

  constructor(exchangeId: string, options: { now: () => number }) {
    this.exchangeId = exchangeId.toLowerCase();
    this.name = `ccxt:${this.exchangeId}`;
    // As the venue's own failures, a failed import is a HistoryError (shown in condition states).
    this.loaded = loadCcxtVenue().then(
      ({ CcxtPriceHistory }) => new CcxtPriceHistory(this.exchangeId, options),
      (error: unknown) => {
        throw new HistoryError('HISTORY_UNAVAILABLE', `the ccxt venue package could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    this.loaded.catch(() => undefined);
  }

  /** Price topics of no exchange or of this one (as `CcxtPriceHistory`). */
  supports(topic: PriceTopic): boolean {
    return topic.source === 'price' && (topic.exchange === undefined || topic.exchange.toLowerCase() === this.exchangeId);
  }

  async origin(topic: PriceTopic, timeframeMs: number): Promise<number | undefined> {
    return (await this.loaded).origin(topic, timeframeMs);
  }

  async ticks(topic: PriceTopic, from: number, to: number): Promise<readonly PriceTick[]> {
    return (await this.loaded).ticks(topic, from, to);
  }

  async candles(topic: PriceTopic, timeframeMs: number, from: number, to: number): Promise<readonly Candle[]> {
    return (await this.loaded).candles(topic, timeframeMs, from, to);
  }
}
