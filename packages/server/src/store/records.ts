import type { ExecutionRecord, LlmSession, Notification, QueryRequest, RuntimeState } from '@eql/core';

/** The plan of an API key: it sets its request rate, quotas and overage (`PLANS` of the host's config) and how many active queries it may run. */
/** A plan's name (free, pro, or one of EQL_PLANS_FILE: settings/plans.ts). */
export type Plan = string;

/** An API key as stored: its hash and prefix (never the key), owner details, plan, status, sealed HMAC secret, dates and scopes. */
export interface ApiKeyRecord {
  id: number;
  keyHash: string;
  /** The first characters of the key, for people to recognise it (`eql_AbC1…`). */
  keyPrefix: string;
  name: string;
  email: string | null;
  project: string | null;
  plan: Plan;
  status: 'active' | 'disabled';
  autoEnabled: boolean;
  /** The HMAC secret, sealed (it must be recoverable to verify signatures). */
  hmacSecretSealed: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  /** Extra permissions: `ingest` (write market data). */
  scopes: KeyScope[];
  /**
   * The secret that signs the webhooks of this key's queries (`whsec_…`), sealed; a key without one
   * sends its webhooks unsigned (the key rows of payment-model agents).
   */
  webhookSecretSealed?: string | null;
  /** The webhook secret before the last rotation, sealed: it still signs too until `previousWebhookSecretUntil`. */
  previousWebhookSecretSealed?: string | null;
  /** ISO 8601: when the grace period of the previous webhook secret ends. */
  previousWebhookSecretUntil?: string | null;
}

/** A permission a key may have beyond the Auto routes: `ingest` lets it write market data. */
export type KeyScope = 'ingest';

/** The status of a stored query: the engine's (`active`, `triggered`, `expired`, `cancelled` or `failed`). */
export type QueryStatus = RuntimeState['status'];

/**
 * A query as stored: its owner key, request, status and credits, its dates, the engine's runtime state,
 * and the draft it came from. `tradeFlavoured` is true when its actions place orders.
 */
export interface QueryRecord {
  id: string;
  keyId: number;
  request: QueryRequest;
  status: QueryStatus;
  tradeFlavoured: boolean;
  estimatedCredits: number;
  credits: number;
  createdAt: string;
  expiresAt: string;
  cancelledAt: string | null;
  deletedAt: string | null;
  runtime: RuntimeState | null;
  fromDraft: string | null;
}

/** A saved draft of a query (not running): its owner key, request, dates, and the query it was converted into, if any. */
export interface DraftRecord {
  id: string;
  keyId: number;
  request: QueryRequest;
  tradeFlavoured: boolean;
  createdAt: string;
  updatedAt: string;
  convertedQueryId: string | null;
}

/** A key's connection to an exchange: the credential type (`api_key`, `wallet`), the credentials sealed by the host's {@link SecretBox}, and when it was connected. */
export interface ExchangeRecord {
  keyId: number;
  exchange: string;
  credentialType: string;
  credentialsSealed: string | null;
  connectedAt: string;
}

/** An execution of an action step (spec 2.6), with the id of the key that owns its query. */
export interface StoredExecution extends ExecutionRecord {
  keyId: number;
}

/** The LLM session of an llm action (spec 2.8), with the id of the key that owns its query. */
export interface StoredSession extends LlmSession {
  keyId: number;
}

/** A notification (spec 2.10) as stored and sent over SSE, with the id of the key it is for. */
export interface StoredNotification extends Notification {
  keyId: number;
}

/** One page of a list, newest first, with the cursor of the next page. */
export interface Page<T> {
  items: T[];
  /** Pass back to get the next page; absent on the last. */
  nextCursor?: string;
}

/** Which executions {@link HostStore.listExecutions} returns: a key's, optionally of one query, status or action type, created in [since, until), one page after `cursor`. */
export interface ExecutionFilter {
  keyId: number;
  queryId?: string;
  status?: string;
  type?: string;
  since?: string;
  until?: string;
  limit: number;
  cursor?: string;
}
