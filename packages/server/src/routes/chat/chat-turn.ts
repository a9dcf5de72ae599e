import { randomUuid } from '@eql/core';
import { ApiError } from '../../http/errors.js';
import type { Analyst, ChatMessage } from '@eql/llm';
import type { ChatStore } from '../../store/chat-store.js';
import { CHAT_CREDITS, type ChatRequest } from './chat-request.js';

/** Earlier messages given to the analyst with a new question. */
const HISTORY_MESSAGES = 20;

export interface ChatTurnContext {
  analyst: Analyst;
  chats: ChatStore;
  now: () => number;
}

export interface ChatAnswer {
  creditsConsumed: number;
  sessionId: string;
  message: string;
}

/**
 * A model's text as answered and stored: a NUL (U+0000), which PostgreSQL's text columns refuse and
 * no text of the API holds, becomes U+FFFD. The request's own text never holds one (http/refuse-nul.ts);
 * what a model writes is not the caller's to check.
 */
export function withoutNul(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD');
}

/** The caller's session of a kind, or 404 (unknown, another owner's, or of the other kind). */
export async function ownSession(chats: ChatStore, sessionId: string, keyId: number, kind: 'chat' | 'builder') {
  const session = await chats.session(sessionId);
  if (!session || session.keyId !== keyId || session.kind !== kind) throw new ApiError('session_not_found', `chat session ${sessionId} not found`);
  return session;
}

/**
 * One chat turn (spec 4.3): continues the session (or starts one), asks the analyst with the
 * session's recent history, stores the question and the answer, and says what it cost. Nothing is
 * stored when the analyst fails (the caller is then not charged either).
 */
export async function chatTurn(context: ChatTurnContext, ownerKeyId: number, request: ChatRequest): Promise<ChatAnswer> {
  const now = context.now();
  const at = new Date(now).toISOString();
  const session = request.sessionId ? await ownSession(context.chats, request.sessionId, ownerKeyId, 'chat') : undefined;
  const history: ChatMessage[] = session ? (await context.chats.messages(session.id, HISTORY_MESSAGES)).map((message) => ({ role: message.role, content: message.content })) : [];
  const answer = await context.analyst.chat({
    analysisType: request.analysisType,
    speed: request.speed,
    history,
    now,
    ...(request.message ? { message: request.message } : {}),
    ...(request.assetMetadata ? { assetMetadata: request.assetMetadata } : {}),
  });
  const message = withoutNul(answer.message);
  const credits = CHAT_CREDITS[request.speed];
  const sessionId = session?.id ?? randomUuid();
  if (!session) await context.chats.createSession({ id: sessionId, keyId: ownerKeyId, kind: 'chat', analysisType: request.analysisType, state: undefined, createdAt: at, updatedAt: at });
  const question = request.message ?? `(${request.analysisType}${request.assetMetadata ? ` ${JSON.stringify(request.assetMetadata)}` : ''})`;
  await context.chats.appendTurn(
    sessionId,
    [
      { role: 'user', content: question, credits: 0, createdAt: at },
      { role: 'assistant', content: message, credits, createdAt: new Date(context.now()).toISOString() },
    ],
    undefined,
    new Date(context.now()).toISOString(),
  );
  return { creditsConsumed: credits, sessionId, message };
}
