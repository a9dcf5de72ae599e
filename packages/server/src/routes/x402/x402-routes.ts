import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HostContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { cancelQuery, pollQuery, sessionOfQuery, sessionsOfQuery } from '../../host/query-actions.js';
import { checkForCreate, createQuery, requestBody } from '../../host/query-service.js';
import type { OwnerKeys } from '../../host/owner-keys.js';
import { agentGate } from '../../payment/agent-gate.js';
import type { PaymentFacilitator } from '../../payment/facilitator-client.js';
import type { PaymentConfig } from '../../payment/payment-config.js';
import { paymentGate, type PaymentGateOptions } from '../../payment/payment-gate.js';
import type { PaymentLedger } from '../../payment/payment-ledger.js';
import { CHAT_CREDITS, chatBodySchema, chatResponseSchema, parseChatRequest } from '../chat/chat-request.js';
import { chatTurn } from '../chat/chat-turn.js';
import { builderBodySchema, builderResponseSchema, builderTurn, parseBuilderRequest } from '../chat/builder-turn.js';
import { smartStats, smartStatsAccount, trendingContracts, trendingRange, trendingTokens } from '../market/market-handlers.js';
import { M } from '../market/market-schemas.js';
import { paidTwin, X } from './x402-schemas.js';

/** Codes of create refusals that are validation findings: validate answers them as `valid: false`. */
const FINDINGS = new Set(['invalid_query', 'action_not_allowed', 'unserved_symbol', 'unserved_timeframe', 'lookback_exceeds_lifetime']);

export interface X402Options {
  payments: PaymentConfig;
  ledger: PaymentLedger;
  owners: OwnerKeys;
  facilitator?: PaymentFacilitator;
}

/** Credits of the data routes of the payment model (spec 8: smart stats 1; the others say "payment": 1 too). */
export const X402_DATA_CREDITS = 1;

type Query = Record<string, unknown>;
const tagged = <T extends object>(schema: T, security: 'payment' | 'agent' | 'paid agent' = 'payment') => ({
  ...schema,
  tags: ['x402'],
  security: security === 'payment' ? [{ x402Payment: [] }] : security === 'agent' ? [{ agentSecret: [] }] : [{ agentSecret: [], x402Payment: [] }],
});

/**
 * Spec 4.5: the payment-model routes. Paid routes check the request first (a bad one is a 400 before
 * any payment is asked), then take a USDC payment (docs/x402.md); agent routes need the agent secret and
 * see only that agent's queries. Payments and owners are recorded in the credits ledger of the owner's
 * key row (see OwnerKeys).
 */
export function x402Routes(app: FastifyInstance, context: HostContext, options: X402Options): void {
  const { owners } = options;
  const agent = agentGate(options.payments);
  const gate = (credits: PaymentGateOptions['credits'], description: string) =>
    paymentGate({ config: options.payments, ledger: options.ledger, credits, description, now: context.now, ...(options.facilitator ? { facilitator: options.facilitator } : {}) });
  const payerOf = (request: FastifyRequest) => {
    if (!request.payment) throw new ApiError(402, 'payment_missing', 'this route needs a payment');
    return owners.of(`payer:${request.payment.payer.toLowerCase()}`);
  };
  const agentOf = (request: FastifyRequest) => {
    if (!request.agent) throw new ApiError(400, 'missing_agent_secret', 'this route is for agents: send x-svc-agent-secret');
    return owners.of(`agent:${request.agent.id}`);
  };
  const record = async (request: FastifyRequest, reason: string, ref: string): Promise<void> => {
    const payment = request.payment;
    if (!payment) return;
    const owner = await payerOf(request);
    await context.store.charge(owner.id, payment.credits, `x402 ${reason}`, ref, new Date(context.now()).toISOString());
  };

  // Data (1 credit each).
  const data = (path: string, schema: { response: Record<string | number, unknown> }, description: string, answer: (query: Query) => Promise<unknown>, check: (query: Query) => unknown) => {
    // The parameters are checked while pricing: a bad request is a 400 before any payment is asked.
    const paid = gate((request) => {
      check(request.query as Query);
      return X402_DATA_CREDITS;
    }, description);
    app.get(path, { schema: tagged(paidTwin(schema)), ...paid.hooks }, async (request) => {
      const body = await answer(request.query as Query);
      await record(request, path.replace('/x402/v2/', ''), request.id);
      return body;
    });
  };
  const range = (query: Query) => trendingRange(context, query);
  data('/x402/v2/account/smart-stats', M.smartStats, 'Smart stats of an account', (query) => smartStats(context, query), smartStatsAccount);
  data('/x402/v2/aggregations/trending-tokens', M.trendingTokens, 'Trending tokens', (query) => trendingTokens(context, query), range);
  data('/x402/v2/aggregations/trending-cas/twitter', M.trendingCasTwitter, 'Trending contract addresses on X', (query) => trendingContracts(context, 'twitter', query), range);
  data('/x402/v2/aggregations/trending-cas/telegram', M.trendingCasTelegram, 'Trending contract addresses on Telegram', (query) => trendingContracts(context, 'telegram', query), range);

  // Chat (fast 5, expert 18): the request is checked while pricing it, so a bad one costs nothing.
  const chat = gate((request) => CHAT_CREDITS[parseChatRequest(request.body as Record<string, unknown>).speed], 'An answer of the analyst');
  app.post('/x402/v2/chat', { schema: tagged({ summary: 'One complete answer of the analyst, paid per request', body: chatBodySchema, response: { 200: chatResponseSchema } }), ...chat.hooks }, async (request) => {
    const owner = await payerOf(request);
    const answer = await chatTurn(context, owner.id, parseChatRequest(request.body as Record<string, unknown>));
    await record(request, 'chat', answer.sessionId);
    return { success: true, data: answer };
  });

  // The query builder (fast 5, expert 18), in payment mode: it offers no trade actions.
  const builder = gate((request) => CHAT_CREDITS[parseBuilderRequest(request.body as Record<string, unknown>).speed], 'A reply of the query builder');
  app.post('/x402/v2/auto/chat', { schema: tagged({ summary: 'The AI query builder, paid per request', body: builderBodySchema, response: { 200: builderResponseSchema } }), ...builder.hooks }, async (request) => {
    const owner = await payerOf(request);
    const answer = await builderTurn(context, context.builders.payment, owner.id, parseBuilderRequest(request.body as Record<string, unknown>));
    await record(request, 'builder', answer.sessionId);
    return { success: true, data: answer };
  });

  // Agent routes.
  const create = gate((request) => checkForCreate(requestBody(request.body), 'payment', context.now(), context.host.served()).estimatedCost.credits, 'Create an EQL query');
  app.post('/x402/v2/auto/queries', { onRequest: agent, schema: tagged(X.create, 'paid agent'), ...create.hooks }, async (request, reply) => {
    const owner = await agentOf(request);
    const { created } = await createQuery(context, owner, requestBody(request.body), { requireValidation: false, mode: 'payment', beforeCommit: () => create.settle(request) });
    return reply.status(201).send(created);
  });
  app.post('/x402/v2/auto/queries/validate', { onRequest: agent, schema: tagged(X.validate, 'agent') }, (request) => {
    try {
      const result = checkForCreate(requestBody(request.body), 'payment', context.now(), context.host.served());
      return result;
    } catch (error) {
      // Spec 4.5: validate answers valid/errors/warnings; the findings are the answer, not an error.
      if (error instanceof ApiError && FINDINGS.has(error.code)) return { valid: false, ...(error.details as object) };
      throw error;
    }
  });
  app.post('/x402/v2/auto/queries/:queryId', { onRequest: agent, schema: tagged(X.poll, 'agent') }, async (request) => pollQuery(context, (await agentOf(request)).id, (request.params as { queryId: string }).queryId));
  app.post('/x402/v2/auto/queries/:queryId/cancel', { onRequest: agent, schema: tagged(X.cancel, 'agent') }, async (request) => cancelQuery(context, (await agentOf(request)).id, (request.params as { queryId: string }).queryId));
  app.post('/x402/v2/auto/queries/:queryId/sessions', { onRequest: agent, schema: tagged(X.sessions, 'agent') }, async (request) => sessionsOfQuery(context, (await agentOf(request)).id, (request.params as { queryId: string }).queryId));
  app.post('/x402/v2/auto/queries/:queryId/sessions/:sessionId', { onRequest: agent, schema: tagged(X.session, 'agent') }, async (request) => {
    const { queryId, sessionId } = request.params as { queryId: string; sessionId: string };
    return sessionOfQuery(context, (await agentOf(request)).id, queryId, sessionId);
  });
}
