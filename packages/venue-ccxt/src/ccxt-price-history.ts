import { bucketStartOf, firstBucketStartFrom, HistoryError, type Candle, type PriceHistory, type PriceTick, type PriceTopic } from '@eql/core';
import { ccxtErrorKinds, describeCcxtError, isTransientCcxtError } from './ccxt-errors.js';
import { createCcxtClient, UnknownExchangeError, type CcxtConfig } from './ccxt-load.js';
import { backoffDelay } from './ccxt-retry.js';
import { type CcxtClient, type CcxtMarket } from './ccxt-types.js';
import { resolveMarket } from './market-symbols.js';
import { redactor } from './redact.js';

/** Options of a {@link CcxtPriceHistory}: how much history it serves, how it pages and retries, and its clock. */
export interface CcxtPriceHistoryOptions {
  /** How far back the history starts, in candles of each timeframe (see `origin`). Default 1000. */
  maxCandles?: number;
  /** Candles per `fetchOHLCV` request. Default the venue's limit for the market type (ccxt `features`), else 500. */
  pageLimit?: number;
  /** Retries of one request after transient errors (network, HTTP 429, 5xx, timeouts). Default 4. */
  retries?: number;
  /** The first delay of the backoff between retries, doubling after each. Default 500 ms. */
  retryBaseMs?: number;
  /** The largest delay of the backoff between retries. Default 30 s. */
  retryMaxMs?: number;
  /** The clock (epoch ms): construction time for `origin`, and "nothing exists after now" for paging. Default `Date.now`. */
  now?: () => number;
  /** Constructor options when the history builds the exchange from an id. */
  config?: CcxtConfig;
}

/** Stable codes of the {@link HistoryError}s this history rejects with. */
export type CcxtHistoryErrorCode =
  /** The venue has no market for the symbol (or refused it as a bad symbol). */
  | 'HISTORY_UNKNOWN_SYMBOL'
  /** The venue still answered "too many requests" (HTTP 429/418) after every retry. */
  | 'HISTORY_RATE_LIMITED'
  /** Anything else: the venue unreachable after every retry, no OHLCV or timeframe support, refused credentials, bad arguments. */
  | 'HISTORY_UNAVAILABLE';

const MINUTE = 60_000;
const DAY = 86_400_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: MINUTE, h: 60 * MINUTE, d: DAY };
/** Keys of a client or config that hold credentials, kept out of error messages. */
const SECRET_KEYS = ['apiKey', 'secret', 'password', 'uid', 'login', 'token', 'privateKey', 'walletAddress', 'twofa'];

/** How a timeframe is fetched: the venue timeframe `key` of `baseMs`, aggregated when `baseMs < tf`. */
interface FetchPlan {
  key: string;
  baseMs: number;
}

interface Resolved {
  client: CcxtClient;
  market: CcxtMarket;
  fetchOHLCV: NonNullable<CcxtClient['fetchOHLCV']>;
}

/**
 * Past prices of one ccxt venue through its REST `fetchOHLCV`, so the engine's indicators and price
 * windows are warm when a query starts. Requests go through ccxt's own rate limiter (`enableRateLimit`,
 * on by default); transient failures (network, HTTP 429, 5xx, timeouts) are retried with exponential
 * backoff up to `retries` times per request. Every failure rejects with a {@link HistoryError} (codes in
 * {@link CcxtHistoryErrorCode}) whose message carries no credentials or query strings; no method
 * throws synchronously.
 *
 * - **Symbols** map to markets as in {@link resolveMarket} (`BTC` is the venue's perpetual of BTC).
 * - **Timeframes**: a timeframe up to `1d` the venue lists in `timeframes` is fetched as is (venue
 *   candles up to a day are aligned to UTC, as EQL's). Any other, and always `3d` and `1w`, is built
 *   from the largest venue timeframe up to `1d` that divides it, in the engine's buckets
 *   (`bucketStartOf`): `3d` counted from 1970-01-01 and `1w` starting on Mondays 00:00 UTC.
 * - **Origin**: `origin(topic, tf)` is the bucket start of `(construction time) - maxCandles * tf`, the
 *   same instant for every call on an instance, so every query of a series smooths its indicators
 *   from the same point whatever its activation time. `candles` never goes before it; a long-lived
 *   instance therefore fetches more candles as time goes on (`maxCandles` bounds the warm-up at start).
 * - **Ticks** are synthetic, at minute resolution: see {@link CcxtPriceHistory.ticks}.
 */
export class CcxtPriceHistory implements PriceHistory {
  readonly name: string;
  readonly exchangeId: string;
  private readonly createdAt: number;
  private readonly maxCandles: number;
  private readonly retries: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly now: () => number;
  private client?: CcxtClient;
  private clientPromise?: Promise<CcxtClient>;
  private marketsPromise?: Promise<Record<string, CcxtMarket>>;
  private marketsFailed = false;

  /** Over an exchange instance, or an exchange id built (REST only) with `options.config`. */
  constructor(
    exchange: CcxtClient | string,
    private readonly options: CcxtPriceHistoryOptions = {},
  ) {
    if (typeof exchange === 'string') {
      this.exchangeId = exchange.toLowerCase();
    } else {
      this.client = exchange;
      this.clientPromise = Promise.resolve(exchange);
      this.exchangeId = exchange.id;
    }
    this.name = `ccxt:${this.exchangeId}`;
    this.now = options.now ?? Date.now;
    this.createdAt = this.now();
    this.maxCandles = positiveInteger(options.maxCandles) ?? 1000;
    this.retries = options.retries !== undefined && Number.isInteger(options.retries) && options.retries >= 0 ? options.retries : 4;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.retryMaxMs = options.retryMaxMs ?? 30_000;
  }

  /** Price topics of no exchange or of this one. */
  supports(topic: PriceTopic): boolean {
    return topic.source === 'price' && (topic.exchange === undefined || topic.exchange.toLowerCase() === this.exchangeId);
  }

  /**
   * The bucket start of `(construction time) - maxCandles * timeframeMs`: fixed for the life of the
   * instance, whatever the topic (undefined for a timeframe that is not a positive whole number of ms).
   */
  origin(_topic: PriceTopic, timeframeMs: number): number | undefined {
    if (!isTimeframeLength(timeframeMs)) return undefined;
    return bucketStartOf(this.createdAt - this.maxCandles * timeframeMs, timeframeMs);
  }

  /**
   * Candles of `timeframeMs` whose start is in `[max(from, origin), to)`, in order, from paged
   * `fetchOHLCV` requests (`since` = the last start + one timeframe after each page, until a page is
   * empty or reaches `to`). The last candle is partial when `to` falls inside its bucket: it is the
   * venue's candle of that bucket, which holds the trades before `to` when `to` is now (the engine's
   * case); for a `to` in the past it also holds the bucket's later trades. Buckets without trades
   * have no candle; rows with a non-finite time or price are dropped, a non-finite volume counts as 0.
   */
  async candles(topic: PriceTopic, timeframeMs: number, from: number, to: number): Promise<readonly Candle[]> {
    try {
      if (!isTimeframeLength(timeframeMs)) throw this.error('HISTORY_UNAVAILABLE', `invalid timeframe length ${timeframeMs}`);
      checkRange(from, to, (message) => this.error('HISTORY_UNAVAILABLE', message));
      const start = Math.max(from, this.origin(topic, timeframeMs) ?? from);
      if (start >= to) return [];
      const resolved = await this.resolve(topic.symbol);
      return await this.fetchCandles(resolved, timeframeMs, start, to);
    } catch (error) {
      throw this.toHistoryError(error, topic.symbol);
    }
  }

  /**
   * Ticks with `from <= at < to` preceded by the last tick before `from`, synthesised from 1-minute
   * candles (the venue's trades are not fetched): each minute gives its open at the minute's start,
   * its low and high (in that order when the minute closed up, else high then low) at a third and two
   * thirds of it, and its close at its last millisecond carrying the minute's whole volume. The minute
   * holding `to` is squeezed into `[start, to)`, so every tick is before `to`. The approximation is
   * minute resolution: within a minute the order and times of trades are made up, a `from` inside a
   * minute may count its whole volume, and for a `to` in the past the minute holding `to` is the
   * venue's whole minute. The reference tick comes from the minute before `from` (or from the part of
   * `from`'s own minute before it), else from the last candle of the `pageLimit` minutes before.
   * Origin does not apply to ticks.
   */
  async ticks(topic: PriceTopic, from: number, to: number): Promise<readonly PriceTick[]> {
    try {
      checkRange(from, to, (message) => this.error('HISTORY_UNAVAILABLE', message));
      const resolved = await this.resolve(topic.symbol);
      const fromMinute = Math.floor(from / MINUTE) * MINUTE;
      const end = Math.max(to, from);
      const minutes = await this.fetchCandles(resolved, MINUTE, fromMinute - MINUTE, end);
      const ticks = minutes.flatMap((candle) => syntheticTicks(candle, end));
      let before = ticks.filter((tick) => tick.at < from).at(-1);
      if (before === undefined) {
        const earlier = await this.lastCandleBefore(resolved, fromMinute - MINUTE);
        if (earlier !== undefined) before = syntheticTicks(earlier, end).at(-1);
      }
      const inside = ticks.filter((tick) => tick.at >= from && tick.at < to);
      return before === undefined ? inside : [before, ...inside];
    } catch (error) {
      throw this.toHistoryError(error, topic.symbol);
    }
  }

  /** Builds the exchange if needed and loads its markets (retrying transient failures). */
  async ready(): Promise<void> {
    try {
      await this.loadMarkets();
    } catch (error) {
      throw this.toHistoryError(error, undefined);
    }
  }

  /** Candles of `tf` with start in `[from, to)`, fetched natively or aggregated from a smaller venue timeframe. */
  private async fetchCandles(resolved: Resolved, tf: number, from: number, to: number): Promise<Candle[]> {
    const plan = fetchPlan(resolved.client.timeframes, tf);
    if (plan === undefined) throw this.error('HISTORY_UNAVAILABLE', `${this.exchangeId} has no candle timeframe that divides ${tf} ms`);
    const first = firstBucketStartFrom(from, tf);
    const rows = await this.fetchRows(resolved, plan, first, to);
    return plan.baseMs === tf ? rows : aggregate(rows, tf, first);
  }

  /** Paged `fetchOHLCV` of one venue timeframe: finite rows with start in `[since, to)`, de-duplicated and sorted. */
  private async fetchRows(resolved: Resolved, plan: FetchPlan, since: number, to: number): Promise<Candle[]> {
    const limit = this.pageLimit(resolved);
    const byStart = new Map<number, Candle>();
    let next = Math.ceil(since / plan.baseMs) * plan.baseMs;
    while (next < to && next <= this.now()) {
      const page = await this.request(() => resolved.fetchOHLCV(resolved.market.symbol, plan.key, next, limit));
      const rows = toCandles(page);
      if (rows.length === 0) break;
      let last = -Infinity;
      for (const row of rows) {
        last = Math.max(last, row.start);
        if (row.start >= since && row.start < to) byStart.set(row.start, row);
      }
      if (last + plan.baseMs >= to || last + plan.baseMs <= next) break;
      next = last + plan.baseMs;
    }
    return [...byStart.values()].sort((a, b) => a.start - b.start);
  }

  /** The last 1-minute candle starting before `before`, from one page ending there. */
  private async lastCandleBefore(resolved: Resolved, before: number): Promise<Candle | undefined> {
    const plan = fetchPlan(resolved.client.timeframes, MINUTE);
    if (plan === undefined) return undefined;
    const span = this.pageLimit(resolved) * plan.baseMs;
    const rows = await this.fetchRows(resolved, plan, before - span, before);
    return plan.baseMs === MINUTE ? rows.at(-1) : aggregate(rows, MINUTE, -Infinity).at(-1);
  }

  private pageLimit(resolved: Resolved): number {
    return positiveInteger(this.options.pageLimit) ?? venueOhlcvLimit(resolved.client.features, resolved.market) ?? 500;
  }

  /** Runs a request, retrying transient ccxt errors with backoff up to `retries` times. */
  private async request<T>(call: (attempt: number) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await call(attempt);
      } catch (error) {
        if (attempt > this.retries || !isTransientCcxtError(error)) throw error;
        await sleep(backoffDelay(attempt, this.retryBaseMs, this.retryMaxMs));
      }
    }
  }

  private async resolve(symbol: string): Promise<Resolved> {
    const markets = await this.loadMarkets();
    const client = await this.getClient();
    const market = resolveMarket(symbol, markets, 'price');
    if (market === undefined) throw this.error('HISTORY_UNKNOWN_SYMBOL', `${this.exchangeId} has no market for "${symbol}"`);
    if (client.has.fetchOHLCV === false || client.fetchOHLCV === undefined) {
      throw this.error('HISTORY_UNAVAILABLE', `${this.exchangeId} gives no candles (fetchOHLCV)`);
    }
    const fetchOHLCV = client.fetchOHLCV.bind(client);
    return { client, market, fetchOHLCV };
  }

  private getClient(): Promise<CcxtClient> {
    this.clientPromise ??= createCcxtClient(this.exchangeId, this.options.config, { pro: false }).then((client) => {
      this.client = client;
      return client;
    });
    return this.clientPromise;
  }

  private loadMarkets(): Promise<Record<string, CcxtMarket>> {
    this.marketsPromise ??= this.getClient()
      .then(async (client) => {
        // ccxt keeps a failed loadMarkets promise and returns it again unless asked to reload.
        await this.request((attempt) => client.loadMarkets(attempt > 1 || this.marketsFailed));
        return client.markets ?? {};
      })
      .catch((error: unknown) => {
        this.marketsPromise = undefined;
        this.marketsFailed = true;
        throw error;
      });
    return this.marketsPromise;
  }

  private error(code: CcxtHistoryErrorCode, message: string): HistoryError {
    return new HistoryError(code, message);
  }

  private toHistoryError(error: unknown, symbol: string | undefined): HistoryError {
    if (error instanceof HistoryError) return error;
    if (error instanceof UnknownExchangeError) return this.error('HISTORY_UNAVAILABLE', error.message);
    const what = symbol === undefined ? 'markets' : `the price history of "${symbol}"`;
    const detail = describeCcxtError(error, this.redactor());
    const kinds = ccxtErrorKinds(error);
    if (kinds.includes('BadSymbol')) return this.error('HISTORY_UNKNOWN_SYMBOL', `${this.exchangeId} has no market for "${symbol ?? ''}" (${detail})`);
    if (kinds.includes('RateLimitExceeded') || kinds.includes('DDoSProtection')) {
      return this.error('HISTORY_RATE_LIMITED', `${this.exchangeId} rate-limited ${what} after ${this.retries + 1} attempts (${detail})`);
    }
    const attempts = isTransientCcxtError(error) ? ` after ${this.retries + 1} attempts` : '';
    return this.error('HISTORY_UNAVAILABLE', `${this.exchangeId} could not give ${what}${attempts} (${detail})`);
  }

  /** Removes the credentials of the client and of the config from a text, and URL query strings. */
  private redactor(): (text: string) => string {
    const holders = [this.client as unknown as Record<string, unknown> | undefined, this.options.config];
    const secrets = holders.flatMap((holder) => SECRET_KEYS.map((key) => holder?.[key]).filter((value): value is string => typeof value === 'string'));
    return redactor(secrets);
  }
}

function positiveInteger(value: number | undefined): number | undefined {
  return value !== undefined && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function isTimeframeLength(tf: number): boolean {
  return Number.isSafeInteger(tf) && tf > 0;
}

function checkRange(from: number, to: number, fail: (message: string) => Error): void {
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw fail(`invalid time range [${from}, ${to})`);
}

/** Length in ms of a unified ccxt timeframe (`15m`, `4h`, `1d`), or undefined for weeks, months, years and unknown forms. */
function unifiedTimeframeMs(key: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(key);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  const unit = UNIT_MS[match[2]];
  return unit === undefined ? undefined : Number(match[1]) * unit;
}

/**
 * The venue timeframe to fetch for `tf`: the venue's own when it is at most a day, else the largest
 * venue timeframe up to a day that divides `tf` (aggregated). Venue timeframes above a day are never
 * used: their buckets are not aligned like EQL's.
 */
function fetchPlan(timeframes: Record<string, unknown> | undefined, tf: number): FetchPlan | undefined {
  let best: FetchPlan | undefined;
  for (const key of Object.keys(timeframes ?? {})) {
    const ms = unifiedTimeframeMs(key);
    if (ms === undefined || ms > DAY || ms > tf || tf % ms !== 0) continue;
    if (best === undefined || ms > best.baseMs) best = { key, baseMs: ms };
  }
  return best;
}

/** ccxt's `features[type][subType].fetchOHLCV.limit` for the market. */
function venueOhlcvLimit(features: Record<string, unknown> | undefined, market: CcxtMarket): number | undefined {
  const type = market.spot === true ? 'spot' : market.swap === true ? 'swap' : market.future === true ? 'future' : market.option === true ? 'option' : undefined;
  if (type === undefined || features === undefined) return undefined;
  let node = features[type] as Record<string, unknown> | undefined;
  if (type !== 'spot' && node !== undefined) node = node[market.inverse === true ? 'inverse' : 'linear'] as Record<string, unknown> | undefined;
  const limit = (node?.fetchOHLCV as Record<string, unknown> | undefined)?.limit;
  return typeof limit === 'number' ? positiveInteger(limit) : undefined;
}

/** ccxt OHLCV rows to candles: rows with a non-finite time or price are dropped; a non-finite or negative volume counts as 0. */
function toCandles(page: unknown): Candle[] {
  const candles: Candle[] = [];
  for (const row of Array.isArray(page) ? (page as unknown[]) : []) {
    if (!Array.isArray(row)) continue;
    const [start, open, high, low, close] = (row as unknown[]).slice(0, 5).map(finite);
    if (start === undefined || open === undefined || high === undefined || low === undefined || close === undefined) continue;
    const volume = finite(row[5]) ?? 0;
    candles.push({ start, open, high, low, close, volume: volume > 0 ? volume : 0 });
  }
  return candles;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Sorted candles of a smaller timeframe into the engine's buckets of `tf` (`bucketStartOf`) starting at or after `first`. */
function aggregate(rows: readonly Candle[], tf: number, first: number): Candle[] {
  const out: Candle[] = [];
  let open: { start: number; open: number; high: number; low: number; close: number; volume: number } | undefined;
  for (const row of rows) {
    const start = bucketStartOf(row.start, tf);
    if (start < first) continue;
    if (open !== undefined && open.start === start) {
      open.high = Math.max(open.high, row.high);
      open.low = Math.min(open.low, row.low);
      open.close = row.close;
      open.volume += row.volume;
      continue;
    }
    if (open !== undefined) out.push(open);
    open = { start, open: row.open, high: row.high, low: row.low, close: row.close, volume: row.volume };
  }
  if (open !== undefined) out.push(open);
  return out;
}

/**
 * Four ticks seeing a minute's open, high, low, close and volume: open at its start, the extremes at
 * a third and two thirds (low first when it closed up), close at its last instant before `end`.
 */
function syntheticTicks(candle: Candle, end: number): PriceTick[] {
  const last = Math.max(candle.start, Math.min(candle.start + MINUTE, end) - 1);
  const span = last - candle.start;
  const [first, second] = candle.close >= candle.open ? [candle.low, candle.high] : [candle.high, candle.low];
  return [
    { at: candle.start, price: candle.open },
    { at: candle.start + Math.floor(span / 3), price: first },
    { at: candle.start + Math.floor((2 * span) / 3), price: second },
    { at: last, price: candle.close, volume: candle.volume },
  ];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
