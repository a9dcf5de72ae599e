import type { Exchange } from '@eql/core';
import type { HostConfig } from './config.js';
import type { Analyst } from '@eql/llm';
import type { QueryBuilder } from '@eql/builder';
import type { MarketData } from '@eql/market-data';
import type { ChatStore } from './store/chat-store.js';
import type { ExchangeConnector } from './host/process-runner.js';
import type { QueryRunner } from './host/query-runner.js';
import type { SecretBox } from './secrets.js';
import type { UsageMeter } from './metering/usage-meter.js';
import type { SseHub } from './sse/hub.js';
import type { HostStore } from './store/store.js';

/** Everything the routes share. */
export interface HostContext {
  config: HostConfig;
  store: HostStore;
  box: SecretBox;
  /** What runs the queries: this process's engine, or the cluster's partitions. */
  runner: QueryRunner;
  hub: SseHub;
  /** Request counts of the quotas. */
  usage: UsageMeter;
  /** Verifies credentials and connects an exchange. */
  connectExchange: ExchangeConnector;
  /** An exchange without credentials, for symbol checks (public market data). */
  publicExchange: (exchangeId: string) => Promise<Exchange>;
  /** Posts, news, Telegram messages and accounts (the data endpoints, chat and analysis). */
  market: MarketData;
  /** Answers chat, summaries and narratives (a language model, or the offline analyst). */
  analyst: Analyst;
  /** The query builders of the two models: `api-key` (/v2/auto/chat) and `payment` (/x402/v2/auto/chat, no trade actions). */
  builders: Record<'api-key' | 'payment', QueryBuilder>;
  /** Conversations of chat and the query builder. */
  chats: ChatStore;
  /** Wall clock, epoch ms (injectable for tests of time windows). */
  now: () => number;
  /** When the host was built (epoch ms), and whether it was told to stop (`/ready` then answers 503). */
  lifecycle: { startedAt: number; draining: boolean };
}
