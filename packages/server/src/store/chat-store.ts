import type { MaybePromise } from '@eql/core';

/** A conversation of `/v2/chat` (kind `chat`) or of the query builder `/v2/auto/chat` (kind `builder`). */
export interface ChatSessionRecord {
  id: string;
  /** The owner: an API key, or the key row of a payment-model agent. */
  keyId: number;
  kind: 'chat' | 'builder';
  analysisType: string | null;
  /** What the conversation carries between turns (the builder's current query), JSON. */
  state: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface ChatMessageRecord {
  role: 'user' | 'assistant';
  content: string;
  /** Credits the turn cost (on the assistant's message). */
  credits: number;
  createdAt: string;
}

/** Conversations of chat and the builder; every write is durable when the call returns. */
export interface ChatStore {
  createSession(session: ChatSessionRecord): MaybePromise<void>;
  session(id: string): MaybePromise<ChatSessionRecord | undefined>;
  /** Appends a turn (the question and the answer) and the new state, at once. */
  appendTurn(sessionId: string, messages: readonly ChatMessageRecord[], state: unknown, at: string): MaybePromise<void>;
  /** The last `limit` messages, oldest first. */
  messages(sessionId: string, limit: number): MaybePromise<ChatMessageRecord[]>;
}
