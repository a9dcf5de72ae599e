import { type Observable, of, throwError, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import type { Action, CallbackAction, QueryRequest } from '../generated/eql-types.js';
import { isRecord } from '../util/json-pointer.js';
import { Engine } from './engine.js';
import type { EngineEvent } from './events.js';
import { type ActionContext, ActionError, type ActionExecutor, type ActionOutcome, type ConditionState, type ExecutionRecord } from './interfaces.js';
import { messageText } from './actions/messenger-bot.js';
import { notificationText } from './actions/notify.js';
import { ownBody } from './actions/webhook.js';
import { PaperExchange } from './actions/paper-exchange.js';
import { PreviewOrderExecutor } from './actions/preview-orders.js';
import { paperReport, type PaperReport, type TimedFill } from './paper-report.js';
import { isoConditionState, type IsoConditionState } from './iso-states.js';
import { isoTime } from './maybe.js';
import { baseAsset, type PriceObservation } from './observations.js';
import { collectConditions } from '../language/query-walk.js';
import type { Recording } from './recording.js';
import { RecordedLlmProvider } from './recorded-llm.js';
import { candlesOf, IndicatorTrace, type PreviewCandles, type PreviewIndicator } from './preview-chart.js';
import { thinned } from './thinned.js';
import { RecordingHistory } from './recording-history.js';
import { ReplaySource } from './replay-source.js';

/** A virtual-time scheduler whose clock reads epoch milliseconds. */
export class EpochVirtualScheduler extends VirtualTimeScheduler {
  constructor(start: number, end: number = Number.MAX_SAFE_INTEGER) {
    super(VirtualAction, end);
    this.frame = start;
  }

  /** Runs everything due up to `time` and moves the clock there (even when nothing was due). */
  advanceTo(time: number): void {
    this.maxFrames = Math.max(this.maxFrames, time);
    const limit = this.maxFrames;
    this.maxFrames = time;
    this.flush();
    this.maxFrames = limit;
    if (this.frame < time) this.frame = time;
  }

  /** Runs everything due in the next `ms` milliseconds and moves the clock forward by `ms`. */
  advanceBy(ms: number): void {
    this.advanceTo(this.now() + ms);
  }
}

/** Options of {@link preview}: the part of the recording to replay, the timeline's size and the query's id. */
export interface PreviewOptions {
  /** Start of the replay (epoch ms); the recording's start by default. The query counts as created then. */
  from?: number;
  /** End of the replay (epoch ms); the recording's end by default. */
  to?: number;
  /** Most timeline entries kept (the trigger is always kept). Default 500. */
  maxTimeline?: number;
  /** Most price points per symbol in `prices` (default 1,000): a longer run keeps each bucket's lowest and highest. */
  maxPricePoints?: number;
  queryId?: string;
  /**
   * Told how far the replay is, a fraction from 0 to 1 of [from, to], at most every `progressStep`
   * (default 0.05) of it: for a command line to show progress on a long recording.
   */
  onProgress?: (fraction: number) => void;
  progressStep?: number;
  /** How order steps trade on the preview's paper venue (see {@link PreviewPaperOptions}). */
  paper?: PreviewPaperOptions;
  /**
   * Creates the query again each time it expires, as a trader re-creates a rule, so that a run longer
   * than its `expiresIn` (at most 30 days) goes on to the end: a backtest over a year. Each life starts
   * afresh (trigger count, cooldown, latches); series and the paper account carry on. Default false.
   */
  renew?: boolean;
}

/**
 * The paper account order steps trade in a preview: every venue a query names is simulated by a fresh paper
 * venue fed the replayed prices. `feeRate` (a fraction of each fill's notional, at most 0.1) and `slippage`
 * (market orders and exits fill this fraction worse, at most 0.1) default to 0; the deposit to 10,000 USD.
 */
export interface PreviewPaperOptions {
  depositUsd?: number;
  feeRate?: number;
  slippage?: number;
}

/**
 * One condition in a timeline entry: whether it holds, what it read (`value`), what it was compared
 * with (`threshold`, read from `operand` for a live operand), its readiness (`status`, and `readyAt` in
 * ISO 8601 and `reason` while warming up or without data) and, for tweet and news before a match, the
 * score of the last item (`lastScore`) against the threshold (minConfidence).
 */
export interface TimelineChange {
  path: string;
  source: string;
  method?: string;
  holds: boolean;
  value?: number;
  threshold?: number;
  operand?: string;
  status?: ConditionState['status'];
  readyAt?: string;
  reason?: string;
  lastScore?: { confidence: number; at: string };
}

/** One instant of a preview's timeline: the conditions that changed then and whether the query would fire. */
export interface TimelineEntry {
  /** The instant of the observation (or timer) evaluated, ISO 8601. */
  at: string;
  wouldTriggerNow: boolean;
  /** Set on the entry of a trigger: its index (the states are those at the trigger). */
  trigger?: number;
  /** Conditions that changed at this instant: holds, readiness, or a new item scored. */
  changes: TimelineChange[];
}

/** One trigger in a preview: when it fired, its index, whether it was the last one, and the condition states (times in ISO 8601). */
export interface PreviewTrigger {
  at: string;
  triggerIndex: number;
  final: boolean;
  conditionStates: IsoConditionState[];
}

/**
 * What {@link preview} returns: when the query would have fired, the timeline of its conditions and what its
 * actions would have done.
 */
export interface PreviewResult {
  queryId: string;
  from: string;
  to: string;
  /** Status at the end of the replay. */
  status: string;
  /** Why the replay ended: the query fired for good, expired (at `expiredAt`), or the recording (or `to`) ended. */
  endedBy: 'triggered' | 'expired' | 'failed' | 'end';
  /** When the query's lifetime ended the run (createdAt + expiresIn), ISO 8601. */
  expiredAt?: string;
  triggered: boolean;
  /** The first trigger, or null. */
  trigger: PreviewTrigger | null;
  triggers: PreviewTrigger[];
  /** Changes of the conditions over time (only instants where something changed). */
  timeline: TimelineEntry[];
  timelineTruncated: boolean;
  /** What the actions would have done: nothing is sent, no order is placed. */
  executions: ExecutionRecord[];
  problems: Array<{ at: string; code: string; message: string }>;
  /**
   * The recording's prices of every symbol the query's price and ta conditions read, over the run (for a
   * chart): in time order, at most `maxPricePoints` per symbol (each bucket of a longer run keeps its
   * lowest and its highest price, so no extreme is lost).
   */
  prices: PreviewPrices[];
  /** With `renew`: how many times the query was created over the run (absent when once). */
  lives?: number;
  /**
   * The candles of the same symbols over the run (for a candlestick chart): at the query's finest `ta`
   * timeframe on the symbol when at most `maxPricePoints` of them fit, else at the next timeframe that fits.
   */
  candles: PreviewCandles[];
  /** What each `ta` condition read over the run, with its threshold (for an indicator pane). */
  indicators: PreviewIndicator[];
  /** What the order steps did on paper: fills, round trips, the equity and their statistics; absent without order steps. */
  paper?: PaperReport;
}

/** The prices of one symbol over a preview's run. */
export interface PreviewPrices {
  symbol: string;
  points: Array<{ at: string; price: number }>;
}

/**
 * Replays a recording against one query in virtual time and tells when it would have fired, with
 * the timeline of its conditions. Deterministic: the same query and recording give the same result.
 * Actions run dry: notifications, webhooks and bot messages are described, not sent (with the texts and
 * bodies they would carry, placeholders filled); orders trade on a paper venue fed the replayed prices
 * (`result.paper`: fills, trades, equity and statistics); llm conditions and actions answer from the
 * recording's verdicts.
 */
export function preview(request: QueryRequest | { query: QueryRequest['query']; title?: string }, recording: Recording, options: PreviewOptions = {}): PreviewResult {
  const from = options.from ?? recording.start;
  const to = options.to ?? recording.end;
  const scheduler = new EpochVirtualScheduler(from, to);
  const queryId = options.queryId ?? 'preview';
  let lives = 1;
  const account = paperAccount(options.paper);
  const fills: TimedFill[] = [];
  const paper = new PaperExchange(account.depositUsd, undefined, { feeRate: account.feeRate, slippage: account.slippage, onFill: (fill) => fills.push({ ...fill, at: scheduler.now() }) });
  // Orders trade on paper, whatever venue they name.
  const orders = new PreviewOrderExecutor(paper);
  let counter = 0;
  const engine = new Engine({
    scheduler,
    sources: [new ReplaySource(recording.observations, { scheduler, latestOnSubscribe: false })],
    // Everything of the recording before `from` is history: series start as a replay from the start would hold them.
    history: [new RecordingHistory(recording.observations)],
    llm: new RecordedLlmProvider(recording.observations),
    executors: { ...dryRunExecutors(), market_order: orders, limit_order: orders, close_position: orders },
    paper,
    traceEvaluations: true,
    newId: () => `preview-${++counter}`,
  });
  const result: PreviewResult = {
    queryId,
    from: isoTime(from),
    to: isoTime(to),
    status: 'active',
    endedBy: 'end',
    triggered: false,
    trigger: null,
    triggers: [],
    timeline: [],
    timelineTruncated: false,
    executions: [],
    problems: [],
    prices: [],
    candles: [],
    indicators: [],
  };
  const maxPoints = options.maxPricePoints ?? 1_000;
  const symbols = symbolsOf(request.query);
  const ticks = recording.observations.filter((observation): observation is PriceObservation => observation.source === 'price' && observation.at >= from && observation.at <= to);
  result.prices = pricesOf(symbols, ticks, maxPoints);
  result.candles = candlesOf(request.query, symbols, ticks, from, to, maxPoints);
  const indicatorTrace = new IndicatorTrace(request.query);
  const maxTimeline = options.maxTimeline ?? 500;
  const last = new Map<string, string>();
  let lastWould = false;
  /** What of a state the timeline shows as a change: holds, readiness, the last item scored. */
  const signature = (state: ConditionState) => `${state.holds}|${state.status ?? ''}|${state.reason ?? ''}|${state.lastScore?.at ?? ''}`;
  const progressStep = options.progressStep ?? 0.05;
  let nextProgress = progressStep;
  const subscription = engine.events$.subscribe((event: EngineEvent) => {
    if (options.onProgress && to > from) {
      const fraction = (event.at - from) / (to - from);
      if (fraction >= nextProgress && fraction < 1) {
        options.onProgress(fraction);
        nextProgress = (Math.floor(fraction / progressStep) + 1) * progressStep;
      }
    }
    switch (event.type) {
      case 'evaluation': {
        indicatorTrace.record(event.at, event.conditionStates);
        const changes = event.conditionStates.filter((state) => last.get(state.path) !== signature(state)).map(timelineChange);
        for (const state of event.conditionStates) last.set(state.path, signature(state));
        if (changes.length === 0 && event.wouldTriggerNow === lastWould) return;
        lastWould = event.wouldTriggerNow;
        if (result.timeline.length >= maxTimeline) {
          result.timelineTruncated = true;
          return;
        }
        result.timeline.push({ at: isoTime(event.at), wouldTriggerNow: event.wouldTriggerNow, changes });
        return;
      }
      case 'trigger': {
        indicatorTrace.record(event.at, event.conditionStates);
        const trigger = { at: isoTime(event.at), triggerIndex: event.triggerIndex, final: event.final, conditionStates: event.conditionStates.map(isoConditionState) };
        result.timeline.push({ at: trigger.at, wouldTriggerNow: true, trigger: event.triggerIndex, changes: event.conditionStates.map(timelineChange) });
        for (const state of event.conditionStates) last.set(state.path, signature(state));
        lastWould = true;
        result.triggers.push(trigger);
        result.trigger ??= trigger;
        result.triggered = true;
        return;
      }
      case 'expired':
        result.expiredAt = isoTime(event.at);
        if (options.renew === true && event.queryId === queryId && event.at < to) {
          lives += 1;
          // After the engine is done with the expiry, at the same instant.
          scheduler.schedule(() => {
            engine.remove(queryId);
            engine.add({ queryId, request: created, createdAt: scheduler.now() });
          }, 0);
        }
        return;
      case 'execution-succeeded':
      case 'execution-failed':
        result.executions.push(event.execution);
        return;
      case 'status-changed':
        result.status = event.status;
        return;
      case 'problem':
        if (result.problems.length < 100) result.problems.push({ at: isoTime(event.at), code: event.code, message: event.message });
        return;
      default:
        return;
    }
  });
  const title = 'title' in request ? request.title : undefined;
  const created = title === undefined ? { query: request.query } : { query: request.query, title };
  engine.add({ queryId, request: created, createdAt: from });
  // The states at the start: a query warming up or without data says so before anything happens.
  const initial = engine.inspect(queryId);
  if (initial && initial.status === 'active' && result.timeline.length === 0) {
    result.timeline.push({ at: isoTime(from), wouldTriggerNow: initial.wouldTriggerNow, changes: initial.conditionStates.map(timelineChange) });
    for (const state of initial.conditionStates) last.set(state.path, signature(state));
    lastWould = initial.wouldTriggerNow;
  }
  scheduler.flush();
  result.status = engine.inspect(queryId)?.status ?? result.status;
  result.endedBy = result.status === 'triggered' ? 'triggered' : result.status === 'expired' ? 'expired' : result.status === 'failed' ? 'failed' : 'end';
  if (lives > 1) result.lives = lives;
  result.indicators = indicatorTrace.indicators(maxPoints);
  subscription.unsubscribe();
  engine.dispose();
  if (tradesOf(request.query)) {
    result.paper = paperReport(fills, recording.observations, { from, to, ...account, maxPoints });
  }
  return result;
}

/** The paper account of a preview, its options checked (a RangeError names the one out of range). */
function paperAccount(options: PreviewPaperOptions = {}): Required<PreviewPaperOptions> {
  const { depositUsd = 10_000, feeRate = 0, slippage = 0 } = options;
  if (!(Number.isFinite(depositUsd) && depositUsd > 0 && depositUsd <= 1e12)) throw new RangeError(`depositUsd must be a number above 0 (got ${depositUsd})`);
  if (!(Number.isFinite(feeRate) && feeRate >= 0 && feeRate <= 0.1)) throw new RangeError(`feeRate must be a fraction from 0 to 0.1 (got ${feeRate})`);
  if (!(Number.isFinite(slippage) && slippage >= 0 && slippage <= 0.1)) throw new RangeError(`slippage must be a fraction from 0 to 0.1 (got ${slippage})`);
  return { depositUsd, feeRate, slippage };
}

/** Whether a query has order steps, its own or an llm step's callback. */
function tradesOf(query: unknown): boolean {
  const isOrder = (type: unknown) => type === 'market_order' || type === 'limit_order' || type === 'close_position';
  const actions = isRecord(query) && Array.isArray(query.actions) ? query.actions : [];
  return actions.some((action) => isRecord(action) && (isOrder(action.type) || (isRecord(action.params) && isRecord(action.params.callback) && isRecord(action.params.callback.action) && isOrder(action.params.callback.action.type))));
}

/** The symbols a query's price and ta conditions (and their live operands) read, in document order. */
function symbolsOf(query: unknown): string[] {
  const symbols: string[] = [];
  const add = (node: unknown) => {
    if (!isRecord(node) || (node.source !== 'price' && node.source !== 'ta') || !isRecord(node.args)) return;
    const symbol = node.args.symbol;
    if (typeof symbol === 'string' && !symbols.includes(symbol)) symbols.push(symbol);
  };
  const leaves = collectConditions(query).leaves.sort((a, b) => a.pointer.localeCompare(b.pointer, 'en', { numeric: true }));
  for (const leaf of leaves) {
    add(leaf.node);
    add(leaf.node.value);
  }
  return symbols;
}

/** See {@link PreviewResult.prices}: `ticks` are the run's, in time order. */
function pricesOf(symbols: readonly string[], ticks: readonly PriceObservation[], maxPoints: number): PreviewPrices[] {
  return symbols.map((symbol) => {
    const asset = baseAsset(symbol);
    const own = ticks.filter((tick) => baseAsset(tick.symbol) === asset);
    return { symbol, points: thinned(own, Math.max(2, maxPoints), (tick) => tick.price).map((tick) => ({ at: isoTime(tick.at), price: tick.price })) };
  });
}

/** A condition state as the timeline shows it (times in ISO 8601). */
function timelineChange(state: ConditionState): TimelineChange {
  const change: TimelineChange = { path: state.path, source: state.source, holds: state.holds };
  if (state.method !== undefined) change.method = state.method;
  if (state.value !== undefined) change.value = state.value;
  if (state.threshold !== undefined) change.threshold = state.threshold;
  if (state.operand !== undefined) change.operand = state.operand;
  if (state.status !== undefined) change.status = state.status;
  if (state.readyAt !== undefined) change.readyAt = isoTime(state.readyAt);
  if (state.reason !== undefined) change.reason = state.reason;
  if (state.lastScore !== undefined) change.lastScore = { confidence: state.lastScore.confidence, at: isoTime(state.lastScore.at) };
  return change;
}

/** Executors that describe what they would do instead of doing it (orders trade on the preview's paper venue). */
function dryRunExecutors(): Record<string, ActionExecutor> {
  const describe = (what: (params: Record<string, unknown>, context: ActionContext) => Record<string, unknown>): ActionExecutor => ({
    execute: (action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> =>
      of({ result: { dryRun: true, ...what(isRecord(action.params) ? action.params : {}, context) } }),
  });
  return {
    // The body it would send, its placeholders filled; one that is no JSON once filled fails as it would live.
    webhook: {
      execute: (action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> => {
        const params = isRecord(action.params) ? action.params : {};
        const own = ownBody(params, context);
        if (own instanceof ActionError) return throwError(() => own);
        return of({ result: { dryRun: true, wouldPost: params.url, ...(own ? { body: own.body, contentType: own.contentType } : {}) } });
      },
    },
    messenger_bot: describe((params, context) => ({ wouldMessageChat: params.chatId, text: messageText(params, context) })),
    notify: describe((params, context) => ({ wouldNotify: notificationText(params, context) })),
  };
}
