import type { FastifyInstance } from 'fastify';
import { callerKey } from '../../auth/authenticate.js';
import type { HostContext } from '../../context.js';
import { chatBodySchema, chatResponseSchema, parseChatRequest } from './chat-request.js';
import { chatTurn } from './chat-turn.js';

const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, { type: 'object', additionalProperties: true, description: `Error ${status}` }]));

/** Spec 4.3: POST /v2/chat, charged to the key (fast 5 credits, expert 18). */
export function chatRoutes(app: FastifyInstance, context: HostContext): void {
  app.post('/v2/chat', { schema: { tags: ['chat'], summary: 'One complete answer of the analyst; sessionId continues a conversation', body: chatBodySchema, response: { 200: chatResponseSchema, ...errors(400, 401, 404) } } }, async (request) => {
    const key = callerKey(request);
    const answer = await chatTurn(context, key.id, parseChatRequest(request.body as Record<string, unknown>));
    await context.store.charge(key.id, answer.creditsConsumed, 'chat', answer.sessionId, new Date(context.now()).toISOString());
    request.creditsUsed = answer.creditsConsumed;
    return { success: true, data: answer };
  });
}
