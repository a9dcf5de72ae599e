import { getMaxDrawdown, getSharpeRatio } from 'trading-signals';
import type { PaperExit } from './interfaces.js';
import { isoTime } from './maybe.js';
import { baseAsset, type Observation } from './observations.js';
import { thinned } from './thinned.js';

/** One fill of the paper venue in a preview, as the venue reports it (see `PaperExchange` `onFill`). */
export interface PaperFill {
  clientOrderId: string;
  symbol: string;
  side: 'buy' | 'sell';
  amount: number;
  /** The fill price, slippage included. */
  price: number;
  feeUsd: number;
  /** Profit of the part of a position the fill closed, before its fee. */
  realizedUsd: number;
  /** Set when an exit of an order filled (take-profit, stop-loss, trailing stop). */
  exit?: PaperExit['kind'];
  /** The asset's position after the fill: signed size (negative is short) and entry price. */
  position: { size: number; entry: number };
}

/** A fill at its instant (epoch ms). */
export interface TimedFill extends PaperFill {
  at: number;
}

/** A round trip: a position from the fill that opened it to the one that brought it back to 0 (or now). */
export interface PaperTrade {
  symbol: string;
  side: 'long' | 'short';
  openedAt: string;
  entryPrice: number;
  /** The largest size the position reached, in base units. */
  amount: number;
  closedAt?: string;
  exitPrice?: number;
  /** What closed it: an exit of the venue, or an order of the query. */
  closedBy?: PaperExit['kind'] | 'order';
  /** Realized profit less fees; for an open trade, plus its unrealized profit at the last price. */
  pnlUsd: number;
  /** pnlUsd over the notional at entry (entry price × amount), in percent. */
  returnPercent: number;
  open: boolean;
}

/** The statistics of a preview's paper trading (docs/semantics.md, "Preview trades on paper"). */
export interface PaperSummary {
  /** Closed round trips, and those still open at the end. */
  trades: number;
  openTrades: number;
  wins: number;
  losses: number;
  /** wins / closed trades × 100; null without a closed trade. */
  winRatePercent: number | null;
  realizedPnlUsd: number;
  unrealizedPnlUsd: number;
  feesUsd: number;
  /** realized + unrealized − fees. */
  netPnlUsd: number;
  returnPercent: number;
  finalEquityUsd: number;
  /** Largest fall of the equity from a peak, in percent of that peak and in USD. */
  maxDrawdownPercent: number;
  maxDrawdownUsd: number;
  /** Mean over standard deviation of the daily returns of the equity (UTC days) × √365; null under two days or without variance. */
  sharpe: number | null;
  /** Share of the run's time with a position open, in percent. */
  exposurePercent: number;
}

/** What a preview's order steps did on the paper venue. */
export interface PaperReport {
  depositUsd: number;
  feeRate: number;
  slippage: number;
  fills: Array<Omit<TimedFill, 'at'> & { at: string }>;
  trades: PaperTrade[];
  /** The equity after each price of a traded asset, at most `maxPoints` (each bucket keeps its lowest and highest). */
  equity: Array<{ at: string; equityUsd: number }>;
  summary: PaperSummary;
}

const DAY_MS = 86_400_000;

/**
 * The report of a run from the venue's fills and the recording's prices over [from, to]: the equity walks
 * the prices of the traded assets (deposit + realized − fees + the open positions at the last price), the
 * trades follow each asset's position from 0 back to 0.
 */
export function paperReport(
  fills: readonly TimedFill[],
  observations: readonly Observation[],
  run: { from: number; to: number; depositUsd: number; feeRate: number; slippage: number; maxPoints: number },
): PaperReport {
  const traded = new Set(fills.map((fill) => baseAsset(fill.symbol)));
  const positions = new Map<string, { size: number; entry: number }>();
  const last = new Map<string, number>();
  let realized = 0;
  let fees = 0;
  let next = 0;
  const equity: Array<{ at: number; value: number }> = [];
  let openSince: number | undefined;
  let exposed = 0;
  const unrealized = (): number => {
    let sum = 0;
    for (const [base, position] of positions) sum += position.size * ((last.get(base) ?? position.entry) - position.entry);
    return sum;
  };
  const applyUntil = (time: number): void => {
    while (next < fills.length && (fills[next] as TimedFill).at <= time) {
      const fill = fills[next++] as TimedFill;
      const base = baseAsset(fill.symbol);
      realized += fill.realizedUsd;
      fees += fill.feeUsd;
      if (fill.position.size === 0) positions.delete(base);
      else positions.set(base, { ...fill.position });
      const anyOpen = positions.size > 0;
      if (anyOpen && openSince === undefined) openSince = fill.at;
      if (!anyOpen && openSince !== undefined) {
        exposed += fill.at - openSince;
        openSince = undefined;
      }
    }
  };
  for (const observation of observations) {
    if (observation.source !== 'price' || observation.at < run.from || observation.at > run.to) continue;
    const base = baseAsset(observation.symbol);
    if (!traded.has(base)) continue;
    last.set(base, observation.price);
    applyUntil(observation.at);
    equity.push({ at: observation.at, value: run.depositUsd + realized - fees + unrealized() });
  }
  applyUntil(Number.POSITIVE_INFINITY);
  if (openSince !== undefined) exposed += Math.max(0, run.to - openSince);
  const finalUnrealized = unrealized();
  const finalEquity = run.depositUsd + realized - fees + finalUnrealized;
  const values = equity.length > 0 ? equity.map((point) => point.value) : [run.depositUsd];
  const trades = roundTrips(fills, last);
  const closed = trades.filter((trade) => !trade.open);
  const wins = closed.filter((trade) => trade.pnlUsd > 0).length;
  return {
    depositUsd: run.depositUsd,
    feeRate: run.feeRate,
    slippage: run.slippage,
    fills: fills.map((fill) => ({ ...fill, at: isoTime(fill.at) })),
    trades,
    equity: thinned(equity, Math.max(2, run.maxPoints), (point) => point.value).map((point) => ({ at: isoTime(point.at), equityUsd: point.value })),
    summary: {
      trades: closed.length,
      openTrades: trades.length - closed.length,
      wins,
      losses: closed.length - wins,
      winRatePercent: closed.length === 0 ? null : (wins / closed.length) * 100,
      realizedPnlUsd: realized,
      unrealizedPnlUsd: finalUnrealized,
      feesUsd: fees,
      netPnlUsd: finalEquity - run.depositUsd,
      returnPercent: ((finalEquity - run.depositUsd) / run.depositUsd) * 100,
      finalEquityUsd: finalEquity,
      maxDrawdownPercent: getMaxDrawdown([run.depositUsd, ...values]),
      maxDrawdownUsd: largestFall([run.depositUsd, ...values]),
      sharpe: dailySharpe(equity, run.depositUsd),
      exposurePercent: run.to > run.from ? (exposed / (run.to - run.from)) * 100 : 0,
    },
  };
}

/**
 * The round trips of each asset's position, from the fills in order. A fill's realized profit and fee
 * count to the trade it belongs to; a fill that flips a position closes one trade (its fee counts there)
 * and opens the next.
 */
function roundTrips(fills: readonly TimedFill[], lastPrices: ReadonlyMap<string, number>): PaperTrade[] {
  const trades: PaperTrade[] = [];
  const open = new Map<string, { trade: PaperTrade; pnl: number; position: { size: number; entry: number } }>();
  const start = (fill: TimedFill, pnl: number): void => {
    const trade: PaperTrade = {
      symbol: fill.symbol,
      side: fill.position.size > 0 ? 'long' : 'short',
      openedAt: isoTime(fill.at),
      entryPrice: fill.position.entry,
      amount: Math.abs(fill.position.size),
      pnlUsd: 0,
      returnPercent: 0,
      open: true,
    };
    trades.push(trade);
    open.set(baseAsset(fill.symbol), { trade, pnl, position: { ...fill.position } });
  };
  for (const fill of fills) {
    const base = baseAsset(fill.symbol);
    const current = open.get(base);
    if (current === undefined) {
      if (fill.position.size !== 0) start(fill, fill.realizedUsd - fill.feeUsd);
      continue;
    }
    current.pnl += fill.realizedUsd - fill.feeUsd;
    const sameSide = fill.position.size !== 0 && (fill.position.size > 0) === (current.trade.side === 'long');
    if (sameSide) {
      current.position = { ...fill.position };
      current.trade.amount = Math.max(current.trade.amount, Math.abs(fill.position.size));
      current.trade.entryPrice = fill.position.entry;
      continue;
    }
    Object.assign(current.trade, { closedAt: isoTime(fill.at), exitPrice: fill.price, closedBy: fill.exit ?? 'order', open: false });
    finish(current.trade, current.pnl);
    open.delete(base);
    if (fill.position.size !== 0) start(fill, 0);
  }
  for (const [base, { trade, pnl, position }] of open) {
    const price = lastPrices.get(base) ?? position.entry;
    finish(trade, pnl + position.size * (price - position.entry));
  }
  return trades;
}

function finish(trade: PaperTrade, pnl: number): void {
  trade.pnlUsd = pnl;
  const notional = trade.entryPrice * trade.amount;
  trade.returnPercent = notional > 0 ? (pnl / notional) * 100 : 0;
}

function largestFall(values: readonly number[]): number {
  let peak = Number.NEGATIVE_INFINITY;
  let fall = 0;
  for (const value of values) {
    peak = Math.max(peak, value);
    fall = Math.max(fall, peak - value);
  }
  return fall;
}

/** Sharpe of the daily returns: the equity at the end of each UTC day against the day before (the deposit before the first). */
function dailySharpe(equity: ReadonlyArray<{ at: number; value: number }>, deposit: number): number | null {
  const closes: number[] = [];
  let day: number | undefined;
  for (const point of equity) {
    const pointDay = Math.floor(point.at / DAY_MS);
    if (pointDay !== day) {
      closes.push(point.value);
      day = pointDay;
    } else closes[closes.length - 1] = point.value;
  }
  const returns: number[] = [];
  let previous = deposit;
  for (const close of closes) {
    returns.push(previous > 0 ? close / previous - 1 : 0);
    previous = close;
  }
  if (returns.length < 2) return null;
  try {
    return getSharpeRatio(returns) * Math.sqrt(365);
  } catch {
    return null; // no variance
  }
}
