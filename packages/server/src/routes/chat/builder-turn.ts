import { randomUuid, type QueryRequest } from '@eql/core';
import { MAX_MESSAGE_TOKENS, messageTokens, type QueryBuilder } from '@eql/builder';
import { ApiError } from '../../http/errors.js';
import type { ChatMessage, Speed } from '@eql/llm';
import type { ChatStore } from '../../store/chat-store.js';
import { CHAT_CREDITS, MAX_MESSAGE_LENGTH } from './chat-request.js';
import { ownSession, withoutNul } from './chat-turn.js';

const HISTORY_MESSAGES = 20;

export interface BuilderRequest {
  message: string;
  speed: Speed;
  sessionId?: string;
}

export interface BuilderAnswer {
  creditsConsumed: number;
  sessionId: string;
  /** Markdown: what the query does, the query in a ```json block, warnings; or a question. */
  message: string;
  /** The query of the reply (valid in the route's mode), when there is one. */
  query?: QueryRequest;
}

/**
 * Checks a builder body (`{message, speed?, sessionId?}`); the route schema has checked the types and
 * the length (4,000 characters). A message of more tokens than the builder reads is a 400
 * `message_too_long`, before any charge or payment: the builder would only answer that.
 */
export function parseBuilderRequest(body: Record<string, unknown>): BuilderRequest {
  const message = typeof body.message === 'string' ? body.message.trim() : '';
  if (message === '') throw new ApiError('missing_message', 'message is required: say in plain words what to watch for and what to do');
  const tokens = messageTokens(message);
  if (tokens > MAX_MESSAGE_TOKENS) {
    throw new ApiError(
      'message_too_long',
      `message has ${tokens} words and signs; the query builder reads at most ${MAX_MESSAGE_TOKENS}: say in a sentence or two what to watch for and what to do, and add the rest in the next messages`,
      { field: 'message', tokens, maxTokens: MAX_MESSAGE_TOKENS },
    );
  }
  return { message, speed: body.speed === 'expert' ? 'expert' : 'fast', ...(typeof body.sessionId === 'string' && body.sessionId !== '' ? { sessionId: body.sessionId } : {}) };
}

export const builderBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['message'],
  properties: { message: { type: 'string', maxLength: MAX_MESSAGE_LENGTH }, speed: { type: 'string', enum: ['fast', 'expert'] }, sessionId: { type: 'string', maxLength: 64 } },
} as const;

export const builderResponseSchema = {
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    data: {
      type: 'object',
      properties: { creditsConsumed: { type: 'integer' }, sessionId: { type: 'string' }, message: { type: 'string' }, query: { type: 'object', additionalProperties: true } },
      required: ['creditsConsumed', 'sessionId', 'message'],
    },
  },
  required: ['success', 'data'],
} as const;

/**
 * One turn of the query builder: continues the builder session (its current query is the session's
 * state) or starts one, stores the question, the reply and the new state, and says what it cost
 * (fast 5 credits, expert 18, as chat).
 */
export async function builderTurn(context: { chats: ChatStore; now: () => number }, builder: QueryBuilder, ownerKeyId: number, request: BuilderRequest): Promise<BuilderAnswer> {
  const at = new Date(context.now()).toISOString();
  const session = request.sessionId ? await ownSession(context.chats, request.sessionId, ownerKeyId, 'builder') : undefined;
  const history: ChatMessage[] = session ? (await context.chats.messages(session.id, HISTORY_MESSAGES)).map((message) => ({ role: message.role, content: message.content })) : [];
  const reply = await builder.reply({ message: request.message, speed: request.speed, history, ...(session ? { state: session.state } : {}) });
  const markdown = withoutNul(reply.markdown);
  const credits = CHAT_CREDITS[request.speed];
  const sessionId = session?.id ?? randomUuid();
  if (!session) await context.chats.createSession({ id: sessionId, keyId: ownerKeyId, kind: 'builder', analysisType: null, state: undefined, createdAt: at, updatedAt: at });
  const answeredAt = new Date(context.now()).toISOString();
  await context.chats.appendTurn(
    sessionId,
    [
      { role: 'user', content: request.message, credits: 0, createdAt: at },
      { role: 'assistant', content: markdown, credits, createdAt: answeredAt },
    ],
    reply.state,
    answeredAt,
  );
  return { creditsConsumed: credits, sessionId, message: markdown, ...(reply.query ? { query: reply.query } : {}) };
}
