import type { ExecutionRecord, LlmSession, Notification, QueryRequest, RuntimeState } from '@eql/core';
import type { Plan } from '../config.js';

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
}

export type KeyScope = 'ingest';

export type QueryStatus = RuntimeState['status'];

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

export interface DraftRecord {
  id: string;
  keyId: number;
  request: QueryRequest;
  tradeFlavoured: boolean;
  createdAt: string;
  updatedAt: string;
  convertedQueryId: string | null;
}

export interface ExchangeRecord {
  keyId: number;
  exchange: string;
  credentialType: string;
  credentialsSealed: string | null;
  connectedAt: string;
}

export interface StoredExecution extends ExecutionRecord {
  keyId: number;
}

export interface StoredSession extends LlmSession {
  keyId: number;
}

export interface StoredNotification extends Notification {
  keyId: number;
}

export interface Page<T> {
  items: T[];
  /** Pass back to get the next page; absent on the last. */
  nextCursor?: string;
}

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
