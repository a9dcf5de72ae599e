import type { SchedulerLike } from 'rxjs';
import { ClosePositionExecutor } from './actions/close-position.js';
import { LlmActionExecutor } from './actions/llm-analysis.js';
import { MessengerBotExecutor } from './actions/messenger-bot.js';
import { NotifyExecutor } from './actions/notify.js';
import { OrderExecutor } from './actions/orders.js';
import type { PaperExchange } from './actions/paper-exchange.js';
import { WebhookExecutor } from './actions/webhook.js';
import type { PriceHistory } from './history.js';
import type { EngineTracer } from './tracing.js';
import type { ActionExecutor, DataSource, ExchangeDirectory, HttpTransport, LlmProvider, MaybePromise, Notification, SemanticMatcher, StateStore } from './interfaces.js';

/** How an {@link Engine} is built: its data, time, store, executors and what they reach. */
export interface EngineOptions {
  /** Where observations come from; the first that supports a topic serves it. */
  sources?: DataSource[];
  /**
   * Past prices, so that windows and indicators are warm when a query starts; the first that supports
   * a topic serves it (see PriceHistory). Without one, series start from the first live observation.
   */
  history?: PriceHistory[];
  /**
   * Emit an `evaluation` event for every query at every observation, not only for the queries whose
   * conditions changed (previews, debugging): O(queries) per observation.
   */
  traceEvaluations?: boolean;
  /** Time: asyncScheduler (real time) by default; a virtual-time scheduler for previews and tests. */
  scheduler?: SchedulerLike;
  /** Where runtime state, executions, sessions and notifications go (in memory by default). */
  store?: StateStore;
  llm?: LlmProvider;
  matcher?: SemanticMatcher;
  /** Executors by action type, replacing the defaults below. */
  executors?: Partial<Record<string, ActionExecutor>>;
  /** For the default webhook and messenger_bot executors. */
  http?: HttpTransport;
  /** Exchanges connected per owner; the paper venue is always available. */
  exchanges?: ExchangeDirectory;
  /** The built-in paper venue (one is created when absent). */
  paper?: PaperExchange;
  /** Signing secret of webhooks, per owner; several sign together (a rotated secret during its grace period). */
  webhookSecret?: (ownerId: string | undefined) => MaybePromise<string | readonly string[] | undefined>;
  /** Deliver webhooks to private and loopback hosts (tests, self-hosted setups). */
  allowPrivateWebhooks?: boolean;
  /** Bot API base URL of messenger_bot (default https://api.telegram.org). */
  messengerBaseUrl?: string;
  /** Ids of executions and sessions (random UUIDs by default). */
  newId?: () => string;
  /** Spans of triggers and steps (the host's OpenTelemetry); none by default. */
  tracer?: EngineTracer;
}

/** What the default executors need of the engine that runs them. */
export interface ExecutorDeps {
  store: StateStore;
  scheduler: SchedulerLike;
  llm: LlmProvider | undefined;
  newId: () => string;
  paper: PaperExchange;
  /** A notify step stored a notification: tell the engine's listeners. */
  announce: (notification: Notification) => void;
  /** Whether a step is the query's first action (an llm step there opens the query's session). */
  isFirstStep: (queryId: string, stepId: string) => boolean;
}

/**
 * The executors of an engine by action type: notify, webhook and messenger_bot (with an `http` transport),
 * llm, and the orders (the paper venue, or the owner's connected exchange); `options.executors` replaces
 * any of them or adds others.
 */
export function defaultExecutors(options: EngineOptions, deps: ExecutorDeps): Map<string, ActionExecutor> {
  const executors = new Map<string, ActionExecutor>();
  executors.set('notify', new NotifyExecutor(deps.store, deps.announce));
  if (options.http) {
    const webhook = { transport: options.http, scheduler: deps.scheduler, allowPrivate: options.allowPrivateWebhooks ?? false };
    executors.set('webhook', new WebhookExecutor(options.webhookSecret ? { ...webhook, secretFor: options.webhookSecret } : webhook));
    const bot = { transport: options.http, scheduler: deps.scheduler };
    executors.set('messenger_bot', new MessengerBotExecutor(options.messengerBaseUrl ? { ...bot, baseUrl: options.messengerBaseUrl } : bot));
  }
  executors.set('llm', new LlmActionExecutor({ llm: deps.llm, store: deps.store, newId: deps.newId, isFirstStep: deps.isFirstStep }));
  const paper = deps.paper;
  const directory: ExchangeDirectory = {
    get: (exchangeId, ownerId) => (exchangeId === 'paper' ? paper : options.exchanges?.get(exchangeId, ownerId)),
  };
  const orders = new OrderExecutor(directory);
  executors.set('market_order', orders);
  executors.set('limit_order', orders);
  executors.set('close_position', new ClosePositionExecutor(directory));
  for (const [type, executor] of Object.entries(options.executors ?? {})) if (executor) executors.set(type, executor);
  return executors;
}
