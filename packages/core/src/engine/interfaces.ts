import type { Observable, ObservableInput } from 'rxjs';
import type { Action, CallbackAction, LlmSpeed, QueryRequest } from '../generated/eql-types.js';
import type { Observation, Topic } from './observations.js';
import type { ConditionFacts } from '../language/message-template.js';

/** A value that may arrive later. Stores and sinks may be synchronous (in-memory, SQLite) or not. */
export type MaybePromise<T> = T | Promise<T>;

// ---------------------------------------------------------------- data

/**
 * A source of observations. The engine calls `observe` once per topic it needs and shares the stream
 * among every query on that topic; it unsubscribes when the last such query goes.
 */
export interface DataSource {
  /** A name for logs and errors, such as `replay` or `ccxt:binance`. */
  readonly name: string;
  /** Whether this source serves the topic (a price source may know only some symbols). */
  supports(topic: Topic): boolean;
  /** Observations of the topic, in time order, timed on the engine's scheduler. */
  observe(topic: Topic): Observable<Observation>;
  /**
   * Optional, for a source whose streams never fail or end: the observations `observe(topic)` would give,
   * handed to `listener` as plain calls, with no Observable or Subscriber in between. Returns what stops
   * them. The engine uses it when a source has it: at 100k queries over many symbols, each object between
   * a pushed tick and the engine is a likely cache miss. A listener that throws does not stop the others
   * (the error is reported later, as RxJS reports a subscriber's).
   */
  listen?(topic: Topic, listener: ObservationListener): () => void;
}

/** What {@link DataSource.listen} hands each observation to. */
export type ObservationListener = (observation: Observation) => void;

/** Scores how well an item (a post, a news text) matches a condition's text: 0 to 100. */
export interface SemanticMatcher {
  /** The match score, 0 (unrelated) to 100 (the item says what the condition's text asks for). */
  match(conditionText: string, itemText: string): number;
}

// ---------------------------------------------------------------- LLM

/** What the engine asks the LLM provider to judge for an llm condition: the predicate, at one instant. */
export interface LlmJudgeRequest {
  /** The predicate of an llm condition. */
  query: string;
  speed: LlmSpeed;
  /** Evaluation instant (epoch ms), so recorded verdicts can be replayed. */
  at: number;
  /** The condition's period (ms): the evidence window of a judgement. */
  periodMs?: number;
}

/** The provider's verdict on an llm condition; the condition holds when `confidence` passes its threshold. */
export interface LlmJudgement {
  /** How strongly the predicate holds, 0 to 100. */
  confidence: number;
  reasoning?: string;
}

/** A trade the analysis of an llm action recommends; a trade callback turns it into an order. */
export interface TradeSignal {
  side: 'buy' | 'sell';
  symbol?: string;
  price?: number;
  size?: number;
  amountUsd?: number;
  positionSizePercent?: number;
  reason?: string;
}

/** What an llm action asks the provider to analyse when its query fires. */
export interface LlmAnalyzeRequest {
  prompt: string;
  analysisType: string;
  speed: LlmSpeed;
  assetMetadata?: Record<string, string>;
  /** What fired: the query's title and the states of its conditions at the trigger. */
  trigger: TriggerContext;
}

/** The provider's answer to an llm action: a text response and the trades it recommends (possibly none). */
export interface LlmAnalysis {
  response: string;
  trades: TradeSignal[];
}

/**
 * The LLM behind llm conditions and llm actions. The host plugs in a model (or an offline analyst); previews
 * use a {@link RecordedLlmProvider} that replays recorded verdicts.
 */
export interface LlmProvider {
  /** Judges an llm condition; called once per `period`. */
  judge(request: LlmJudgeRequest): ObservableInput<LlmJudgement>;
  /** Runs the analysis of an llm action. */
  analyze(request: LlmAnalyzeRequest): ObservableInput<LlmAnalysis>;
}

// ---------------------------------------------------------------- actions

/** The state of one condition at an instant: what it read, whether it held. */
export interface ConditionState {
  /** JSON pointer of the condition inside `query.conditions`, such as `/AND/0`. */
  path: string;
  source: string;
  method?: string;
  holds: boolean;
  /** The value read (price, indicator, confidence), when there is one. */
  value?: number;
  /** The threshold compared against, when it is a number or a live operand's value. */
  threshold?: number;
  /** Since when it has held (epoch ms). */
  since?: number;
  /** For latched matches: the item that matched. */
  match?: { id?: string; text: string; confidence: number; at: number };
  /** tweet and news before a match: the score (0 to 100) of the last item on the topic, and its time. */
  lastScore?: { confidence: number; at: number };
  /** With a live operand: what `threshold` was read from, such as `ta.bbands_upper`. */
  operand?: string;
  /**
   * Whether the condition can be judged as written: `ready`; `warming_up` while a window or an
   * indicator still needs more of the past (`readyAt`: the earliest instant it can be ready, when that
   * is predictable); `no_data` when nothing can make it ready (`reason` says why). The engine always
   * sets it; it is optional only for states persisted before it existed.
   */
  status?: ConditionStatus;
  /** With `warming_up`: the earliest instant (epoch ms) the value can be defined. */
  readyAt?: number;
  /** With `warming_up` or `no_data`: why. */
  reason?: string;
  /** Time (epoch ms) of the observation the value was read from. */
  observedAt?: number;
}

/** What `inspect` tells about a query now (the host's poll shows it as latestEvaluation). */
export interface QueryInspection {
  queryId: string;
  status: RuntimeState['status'];
  triggerCount: number;
  lastTriggerAt?: number;
  /** Time of the last input that reached the query's conditions (a tick, an item, a verdict). */
  evaluatedAt: number;
  wouldTriggerNow: boolean;
  conditionStates: ConditionState[];
  expiresAt: number;
}

/** Whether a condition can be judged yet: see {@link ConditionState.status}. */
export type ConditionStatus = 'ready' | 'warming_up' | 'no_data';

/** What made a query fire: which query, which trigger, when, and the state of each of its conditions. */
export interface TriggerContext {
  queryId: string;
  title?: string;
  /** 1 for the first trigger, 2 for the second under a repeat policy, ... */
  triggerIndex: number;
  /** The instant of the observation (or timer) that made the conditions hold (epoch ms). */
  firedAt: number;
  conditionStates: ConditionState[];
  /** The symbol and operator of each condition, when the query's texts have placeholders (message-template.ts). */
  templateFacts?: ConditionFacts;
  /** With `templateFacts`: the last price of each symbol the query's price and ta conditions read, when it fired. */
  prices?: Record<string, number>;
}

/** What an action executor is told about the run of one action: its trigger, its step and its ids. */
export interface ActionContext {
  trigger: TriggerContext;
  stepId: string;
  executionId: string;
  /** Stable across retries and restarts: `<queryId>:<triggerIndex>:<stepId>`. Use it as the idempotency key. */
  idempotencyKey: string;
  /** The owner of the query (an API key id in the host), for per-key secrets and exchange connections. */
  ownerId?: string;
  /** Current time of the engine's scheduler. */
  now(): number;
  /** For an llm callback: the analysis it acts on. */
  analysis?: LlmAnalysis;
  /**
   * Set when this run settles a send that a restart left in doubt: its outbox entry was written (so it
   * may have gone out) but no outcome was recorded. `executionId` is the execution that was cut off (this
   * run continues it) and `since` when it started.
   */
  inDoubt?: { executionId: string; since: string };
}

/** What an action executor gives back when the action succeeded; a failed action errors instead. */
export interface ActionOutcome {
  /** What the action produced: a notification id, an HTTP status, an order id, ... */
  result?: Record<string, unknown>;
  /** An llm action's analysis, handed to its callback action. */
  analysis?: LlmAnalysis;
}

/** A failure with a stable code, recorded on the execution (`error: {code, message}`). */
export class ActionError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'ActionError';
  }
}

/** Runs the actions of one type (notify, webhook, orders, ...): the engine picks the executor by the action's `type`. */
export interface ActionExecutor {
  /**
   * Runs one action. A failure is an error (an {@link ActionError} gives it a stable code); an executor that
   * retries, such as the webhook's, does so itself and reports `attempts` in its result. The outcome may be
   * given as is (the engine goes on at once), as a promise, or as an observable whose first value counts (one
   * that completes without a value fails the step: `ACTION_FAILED`).
   */
  execute(action: Action | CallbackAction, context: ActionContext): ActionOutcome | ObservableInput<ActionOutcome>;
  /**
   * Settles a run that a restart left in doubt (`context.inDoubt` is set): the outbox says it started, nothing
   * says how it ended. Without this method the engine runs `execute` again with the same idempotency key,
   * which is right when the target drops duplicates by that key (a webhook's `webhook-id`, an order's client
   * order id, a notification's step). An executor whose target cannot tell (a bot API) fails here instead of
   * sending twice.
   */
  resume?(action: Action | CallbackAction, context: ActionContext): ActionOutcome | ObservableInput<ActionOutcome>;
}

// ---------------------------------------------------------------- exchanges

/** An order an order action asks an {@link Exchange} to place, sized in base units. */
export interface OrderRequest {
  /** Idempotency: a retry with the same id can never place a second order. */
  clientOrderId: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  /** Base units. */
  amount: number;
  price?: number;
  reduceOnly?: boolean;
  leverage?: number;
  timeInForce?: 'GTC' | 'IOC' | 'PO';
  takeProfit?: { price?: number; percent?: number };
  stopLoss?: { price?: number; percent?: number };
  /** A stop that follows the best price since the fill, `percent` away from it. */
  trailingStop?: { percent: number };
}

/** What the venue says of an order once placed: its ids, status and how much has filled. */
export interface OrderResult {
  orderId: string;
  clientOrderId: string;
  /** `canceled`: an exit the venue dropped (its sibling filled first, or its position was closed). */
  status: 'open' | 'filled' | 'partially_filled' | 'rejected' | 'canceled';
  filled: number;
  averagePrice?: number;
}

/** A trading venue account the order actions trade on (a paper exchange in previews, ccxt in the host). */
export interface Exchange {
  readonly id: string;
  /** Whether the symbol is in the venue's perpetual universe (spec 2.9). */
  isPerpetual(symbol: string): MaybePromise<boolean>;
  /** Last traded price of a perpetual symbol, for sizing by amountUsd. */
  lastPrice(symbol: string): MaybePromise<number>;
  /** Free collateral in USD, for sizing by positionSizePercent. */
  availableBalanceUsd(): MaybePromise<number>;
  /** Places an order, or returns the one already placed under the same clientOrderId. */
  placeOrder(order: OrderRequest): MaybePromise<OrderResult>;
  /**
   * The order placed under a clientOrderId, or undefined when the venue has none. The engine asks it first
   * when a restart left an order in doubt, so an order already placed is found without being sized or sent
   * again. A venue that cannot be asked throws (nothing is placed then).
   */
  findOrderByClientId?(clientOrderId: string, symbol: string): MaybePromise<OrderResult | undefined>;
  /**
   * The open position of a perpetual market (`size` signed: negative is short, in the unit `placeOrder`
   * takes), or undefined when there is none; `close_position` reads it. A venue without it cannot close.
   */
  position?(symbol: string): MaybePromise<{ size: number; entry: number } | undefined>;
}

/**
 * An order of the paper venue as it is kept across restarts: what was asked, what the venue answered, and
 * the order in which orders were placed and filled (positions are rebuilt by replaying the fills).
 */
export interface PaperOrderRecord {
  request: OrderRequest;
  result: OrderResult;
  /** 1 for the venue's first order, 2 for the next, ... (its `orderId` is `paper-<seq>`). */
  seq: number;
  /** When filled: 1 for the first fill, 2 for the next, ... */
  fillSeq?: number;
  /** For an exit the venue attached to a filled order: what triggers it (see {@link PaperExit}). */
  exit?: PaperExit;
}

/**
 * An exit of the paper venue: a reduce-only market order it holds for a filled order (`parent`, its client
 * order id) and sends at the first tick through `trigger`. A trailing stop moves `trigger` with `best`, the
 * best price since the fill. Exits of one parent cancel one another (one cancels the others).
 */
export interface PaperExit {
  kind: 'take_profit' | 'stop_loss' | 'trailing_stop';
  parent: string;
  trigger: number;
  /** A trailing stop's distance in percent, and the best price it has seen. */
  percent?: number;
  best?: number;
}

/**
 * Where the paper venue keeps its orders: saved when placed and when they fill, before the venue answers,
 * so that a restarted venue knows every client order id it took (the host keeps them in its store).
 */
export interface PaperOrderLog {
  /**
   * Saves orders together, all or none (an order and the exits it got; an exit and the siblings it
   * canceled), each replacing the one with its clientOrderId; durable when it returns (or its promise
   * resolves). Their clientOrderIds differ.
   */
  save(records: readonly PaperOrderRecord[]): MaybePromise<void>;
}

/** Finds the exchange an owner has connected, by id. */
export interface ExchangeDirectory {
  /** The exchange `exchangeId` as connected by the owner, or undefined when the owner has not connected it. */
  get(exchangeId: string, ownerId: string | undefined): MaybePromise<Exchange | undefined>;
}

// ---------------------------------------------------------------- records

/** Where the execution of an action stands: running, or finished as succeeded or failed. */
export type ExecutionStatus = 'running' | 'succeeded' | 'failed';

/** Spec 2.6: one run of one action. */
export interface ExecutionRecord {
  id: string;
  queryId: string;
  stepId: string;
  /** The action type; an llm callback runs as its own execution with its own type. */
  type: string;
  status: ExecutionStatus;
  triggerIndex: number;
  /** When the execution started (the engine's clock). */
  createdAt: string;
  /** The instant of the observation that caused the trigger (ISO 8601). */
  observedAt?: string;
  finishedAt?: string;
  attempts: number;
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** Spec 2.10: what a notify action (and a query trigger) delivers over SSE. */
export interface NotificationDraft {
  type: string;
  category: string;
  title: string;
  body: string;
  data: { queryId: string; [key: string]: unknown };
  priority: 'low' | 'normal' | 'high';
  createdAt: string;
  ownerId?: string;
}

export interface Notification extends NotificationDraft {
  id: number;
}

/** Spec 2.8: an LLM session recorded by an llm action. */
export interface LlmSession {
  sessionId: string;
  queryId: string;
  title: string | null;
  analysisType: string | null;
  status: string;
  createdAt: string;
  executedAt: string;
  messages: Array<{
    query: string | null;
    response: string | null;
    status: string | null;
    analysisType: string | null;
    timestamp: string | null;
    trades: TradeSignal[];
  }>;
}

// ---------------------------------------------------------------- state

/** What the engine must remember of a query across restarts. */
export interface RuntimeState {
  status: 'active' | 'triggered' | 'expired' | 'cancelled' | 'failed';
  /** Triggers so far (a repeat policy allows several). */
  triggerCount: number;
  lastTriggerAt?: number;
  /** A trigger whose actions have not all finished: resumed after a restart, never re-fired. */
  /** A trigger whose actions have not all run: finished after a restart (`prices` as it fired, for the placeholders of its texts). */
  pendingTrigger?: { triggerIndex: number; final: boolean; firedAt: number; conditionStates: ConditionState[]; completedSteps: string[]; prices?: Record<string, number> };
  /** Latched tweet/news matches by condition path. */
  latched: Record<string, { at: number; confidence: number; text: string; id?: string }>;
  /** Last llm verdict by condition path. */
  verdicts: Record<string, { at: number; confidence: number }>;
  /** Last cron pulse by condition path. */
  cronPulses: Record<string, number>;
}

/**
 * One entry of the outbox: a step's side effect, written before the step runs and completed with its
 * outcome (Temporal records a side effect once in the same way; Alertmanager keeps a notification log).
 * An entry still `pending` after a restart is a send in doubt: it may or may not have happened.
 */
export interface OutboxEntry {
  /** The step's idempotency key, `<queryId>:<triggerIndex>:<stepId>` (unique). */
  key: string;
  queryId: string;
  triggerIndex: number;
  stepId: string;
  /** The action type (an llm callback's own type). */
  type: string;
  /** The execution record of the run; a run settled after a restart continues this one. */
  executionId: string;
  /** `pending` from before the action runs until its outcome is recorded. */
  status: 'pending' | 'succeeded' | 'failed';
  /** When the run started (ISO 8601), also the execution's `createdAt`. */
  createdAt: string;
  finishedAt?: string;
  /** The outcome of a succeeded run (an llm step's analysis too, for its callback). */
  result?: Record<string, unknown>;
  analysis?: LlmAnalysis;
  /** The failure of a failed run. */
  error?: { code: string; message: string };
}

/** Where the engine writes what must survive a restart. Calls may return promises; order is kept. */
export interface StateStore {
  /** Saves a query's runtime state, replacing the last one saved. */
  saveRuntime(queryId: string, state: RuntimeState): MaybePromise<void>;
  /** Saves an execution record, replacing an earlier one with the same id. */
  saveExecution(record: ExecutionRecord): MaybePromise<void>;
  /** Saves the LLM session of an llm action. */
  saveSession(session: LlmSession): MaybePromise<void>;
  /**
   * Stores a notification and gives it its numeric id. A second draft of the same query, trigger and step
   * (`data.triggerIndex`, `data.stepId`) gets the notification stored first: a notify step run again after a
   * restart notifies once. (After `forgetQuery` a store may treat the query's id as new: a query added later
   * under the same id notifies anew.)
   */
  addNotification(draft: NotificationDraft): MaybePromise<Notification>;
  /**
   * Writes an outbox entry, replacing the one with its key; durable when it returns (the engine writes a
   * `pending` entry before every action runs). Optional: without an outbox, a step a restart interrupted
   * runs again as if it had never started.
   */
  saveOutbox?(entry: OutboxEntry): MaybePromise<void>;
  /**
   * Claims a fresh trigger's step: writes its `pending` entry only when the key has none, and answers
   * whether this call wrote it. Optional (without it `saveOutbox` writes the entry). When the claim is
   * lost, another run of the same trigger (a host that owned the query before) wrote the entry first:
   * the step is not run as new, the entry decides as after a restart (an outcome is taken as is, a
   * `pending` entry is a send in doubt, settled under its execution and idempotency key).
   */
  claimOutbox?(entry: OutboxEntry): MaybePromise<boolean>;
  /** The outbox entry of an idempotency key, if any (read when a restart resumes a trigger). */
  outboxEntry?(key: string): MaybePromise<OutboxEntry | undefined>;
  /**
   * The engine no longer runs the query (`Engine.remove`) and will not read its state again: a store that
   * keeps records only for the engine may drop its runtime state, executions, outbox entries and sessions.
   * Called after the last save the engine makes for the query (a trigger running when it was removed
   * finishes its current step first). Optional: a store that keeps records for others (an API that shows a
   * query's executions after it ended) leaves it out. `dispose` never calls it: state must survive restarts.
   */
  forgetQuery?(queryId: string): MaybePromise<void>;
  /**
   * Runs `work` (the engine settling one instant: what fires, and the writes of its triggers) with the
   * writes that answer at once inside it grouped: a synchronous store (SQLite) commits them once rather
   * than each alone, so a tick that fires thousands of queries is one commit. A write failing inside is
   * answered as it would be alone; the group commits what was written. Optional: a store whose writes
   * answer later may group them itself.
   */
  together?(work: () => void): void;
}

/** A query as the engine receives it. */
export interface QueryToRun {
  queryId: string;
  request: QueryRequest;
  /** Epoch ms; the lifetime counts from here. */
  createdAt: number;
  ownerId?: string;
}

// ---------------------------------------------------------------- HTTP (webhooks, bot API)

/** An HTTP request the engine sends through an {@link HttpTransport} (webhooks, messenger bot APIs). */
export interface HttpRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  /** Abort the request when no full response arrived in this time. */
  timeoutMs: number;
}

/** The response to an {@link HttpRequest}, whatever its status; the body read as text. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Why a request got no HTTP response. */
export type TransportFailure = 'timeout' | 'blocked-target' | 'network';

/** Thrown by an {@link HttpTransport} when a request got no HTTP response; `failure` says why. */
export class TransportError extends Error {
  constructor(
    readonly failure: TransportFailure,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/**
 * Sends one HTTP request. The Node implementation (packages/adapters) resolves the host and refuses
 * private addresses at send time, follows no redirects, and rejects with a TransportError.
 */
export interface HttpTransport {
  /** Sends the request and resolves with the response of any status; rejects with a TransportError when there is none. */
  send(request: HttpRequest): Promise<HttpResponse>;
}
