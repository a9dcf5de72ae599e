import type { FastifyInstance } from 'fastify';
import { callerKey } from '../../auth/authenticate.js';
import type { HostContext } from '../../context.js';
import { errorResponses as errors } from '../error-schemas.js';
import { builderBodySchema, builderResponseSchema, builderTurn, parseBuilderRequest } from './builder-turn.js';
import { chatBodySchema, chatResponseSchema, parseChatRequest } from './chat-request.js';
import { chatTurn } from './chat-turn.js';

/** Spec 4.3: POST /v2/chat; spec 4.4: POST /v2/auto/chat (the query builder). Charged to the key: fast 5 credits, expert 18. */
export function chatRoutes(app: FastifyInstance, context: HostContext): void {
  app.post('/v2/chat', { schema: { tags: ['chat'], summary: 'One complete answer of the analyst; sessionId continues a conversation', body: chatBodySchema, response: { 200: chatResponseSchema, ...errors(400, 401, 404, 429, 502, 504) } } }, async (request) => {
    const key = callerKey(request);
    const answer = await chatTurn(context, key.id, parseChatRequest(request.body as Record<string, unknown>));
    await context.store.charge(key.id, answer.creditsConsumed, 'chat', answer.sessionId, new Date(context.now()).toISOString());
    request.creditsUsed = answer.creditsConsumed;
    return { success: true, data: answer };
  });

  app.post(
    '/v2/auto/chat',
    { schema: { tags: ['auto'], summary: 'The AI query builder: plain words to an EQL query (Markdown reply with the query in a JSON code block)', body: builderBodySchema, response: { 200: builderResponseSchema, ...errors(400, 401, 403, 404, 429, 502, 504) } } },
    async (request) => {
      const key = callerKey(request);
      const answer = await builderTurn(context, context.builders['api-key'], key.id, parseBuilderRequest(request.body as Record<string, unknown>));
      await context.store.charge(key.id, answer.creditsConsumed, 'builder', answer.sessionId, new Date(context.now()).toISOString());
      request.creditsUsed = answer.creditsConsumed;
      return { success: true, data: answer };
    },
  );
}
