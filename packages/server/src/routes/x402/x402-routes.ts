import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HostContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { cancelQuery, pollQuery, sessionOfQuery, sessionsOfQuery } from '../../host/query-actions.js';
import { bodyHash, CALL_ORDER_WINDOW_MS, checkForCreate, createQuery, hostValidation, requestBody } from '../../host/query-service.js';
import type { OwnerKeys } from '../../host/owner-keys.js';
import type { PaymentConfig, PaymentFacilitator, PaymentLedger, PaymentRateLimits } from '@eql/x402';
import { x402Payments, type X402RouteConfig } from '@eql/x402/fastify';
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
  /** Bounds on refused payment signatures per payer and per client address (default `DEFAULT_PAYMENT_RATE_LIMITS`). */
  rateLimits?: PaymentRateLimits;
  /**
   * The payee is a demo (never settled) and the host's language model is real: what would spend the
   * model (chat, the builder, a query with llm calls) is refused with 403 `x402_demo_payee`.
   */
  refuseModelSpending?: boolean;
}

/** Credits of the data routes of the payment model (spec 8: smart stats 1; the others say "payment": 1 too). */
export const X402_DATA_CREDITS = 1;

type Query = Record<string, unknown>;
const tagged = <T extends object>(schema: T, security: 'payment' | 'agent' | 'paid agent' = 'payment') => ({
  ...schema,
  tags: ['x402'],
  security: security === 'payment' ? [{ x402Payment: [] }] : security === 'agent' ? [{ agentSecret: [] }] : [{ agentSecret: [], x402Payment: [] }],
});

/** The route config of a paid route (`@eql/x402/fastify`'s plugin gates it). */
const paid = (credits: X402RouteConfig['credits'], description: string, agent = false): { x402: X402RouteConfig } => ({ x402: { credits, description, agent } });
/** The route config of an agent route without payment. */
const agentOnly = { x402: { agent: true } } satisfies { x402: X402RouteConfig };

/**
 * Spec 4.5: the payment-model routes. Paid routes check the request first (a bad one is a 400 before
 * any payment is asked), then take a USDC payment (docs/x402.md); agent routes need the agent secret and
 * see only that agent's queries. Payments and owners are recorded in the credits ledger of the owner's
 * key row (see OwnerKeys). The gates are those of the `x402Payments` plugin, set by each route's config.
 */
export async function x402Routes(app: FastifyInstance, context: HostContext, options: X402Options): Promise<void> {
  const { owners } = options;
  await app.register(x402Payments, {
    config: options.payments,
    ledger: options.ledger,
    now: context.now,
    ...(options.facilitator ? { facilitator: options.facilitator } : {}),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
  });
  const payerOf = (request: FastifyRequest) => {
    if (!request.payment) throw new ApiError('payment_missing', 'this route needs a payment');
    return owners.of(`payer:${request.payment.payer.toLowerCase()}`);
  };
  const agentOf = (request: FastifyRequest) => {
    if (!request.agent) throw new ApiError('missing_agent_secret', 'this route is for agents: send x-svc-agent-secret');
    return owners.of(`agent:${request.agent.id}`);
  };
  // Checked while pricing, so the refusal comes before any payment is asked or verified.
  const refuseModelSpending = (): void => {
    if (!options.refuseModelSpending) return;
    throw new ApiError(
      'x402_demo_payee',
      "this host takes demo payments (EQL_X402_DEMO: verified locally, never settled) and its language model is real: what spends the model is served only to a real payee (EQL_X402_PAY_TO)",
    );
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
    const pricing = (request: FastifyRequest): number => {
      check(request.query as Query);
      return X402_DATA_CREDITS;
    };
    app.get(path, { schema: tagged(paidTwin(schema)), config: paid(pricing, description) }, async (request) => {
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
  const chat = paid((request) => {
    refuseModelSpending();
    return CHAT_CREDITS[parseChatRequest(request.body as Record<string, unknown>).speed];
  }, 'An answer of the analyst');
  app.post('/x402/v2/chat', { schema: tagged({ summary: 'One complete answer of the analyst, paid per request', body: chatBodySchema, response: { 200: chatResponseSchema } }), config: chat }, async (request) => {
    const owner = await payerOf(request);
    const answer = await chatTurn(context, owner.id, parseChatRequest(request.body as Record<string, unknown>));
    await record(request, 'chat', answer.sessionId);
    return { success: true, data: answer };
  });

  // The query builder (fast 5, expert 18), in payment mode: it offers no trade actions.
  const builder = paid((request) => {
    refuseModelSpending();
    return CHAT_CREDITS[parseBuilderRequest(request.body as Record<string, unknown>).speed];
  }, 'A reply of the query builder');
  app.post('/x402/v2/auto/chat', { schema: tagged({ summary: 'The AI query builder, paid per request', body: builderBodySchema, response: { 200: builderResponseSchema } }), config: builder }, async (request) => {
    const owner = await payerOf(request);
    const answer = await builderTurn(context, context.builders.payment, owner.id, parseBuilderRequest(request.body as Record<string, unknown>));
    await record(request, 'builder', answer.sessionId);
    return { success: true, data: answer };
  });

  // Agent routes. Spec 3's "validate, then create" holds here too: the agent validated this exact body
  // (POST /x402/v2/auto/queries/validate) within 24 hours, else 409 validate_first, before any payment is asked.
  const create = paid(
    async (request) => {
      const body = requestBody(request.body);
      const checked = checkForCreate(body, 'payment', context.now(), hostValidation(context));
      const { conditionCallsUpperBound, actionCallsUpperBound } = checked.simulationLlmCallsEstimate;
      if (conditionCallsUpperBound + actionCallsUpperBound > 0) refuseModelSpending();
      const { credits } = checked.estimatedCost;
      const owner = await agentOf(request);
      if (!(await context.store.validatedSince(owner.id, bodyHash(body), new Date(context.now() - CALL_ORDER_WINDOW_MS).toISOString()))) {
        throw new ApiError('validate_first', 'validate this exact query with POST /x402/v2/auto/queries/validate before creating it');
      }
      return credits;
    },
    'Create an EQL query',
    true,
  );
  app.post('/x402/v2/auto/queries', { schema: tagged(X.create, 'paid agent'), config: create }, async (request, reply) => {
    const owner = await agentOf(request);
    const { created } = await createQuery(context, owner, requestBody(request.body), { requireValidation: true, mode: 'payment', beforeCommit: () => request.settlePayment() });
    return reply.status(201).send(created);
  });
  app.post('/x402/v2/auto/queries/validate', { config: agentOnly, schema: tagged(X.validate, 'agent') }, async (request) => {
    try {
      const body = requestBody(request.body);
      const result = checkForCreate(body, 'payment', context.now(), hostValidation(context));
      await context.store.rememberValidation((await agentOf(request)).id, bodyHash(body), new Date(context.now()).toISOString());
      return result;
    } catch (error) {
      // Spec 4.5: validate answers valid/errors/warnings; the findings are the answer, not an error.
      if (error instanceof ApiError && FINDINGS.has(error.code)) return { valid: false, ...(error.details as object) };
      throw error;
    }
  });
  app.post('/x402/v2/auto/queries/:queryId', { config: agentOnly, schema: tagged(X.poll, 'agent') }, async (request) => pollQuery(context, (await agentOf(request)).id, (request.params as { queryId: string }).queryId));
  app.post('/x402/v2/auto/queries/:queryId/cancel', { config: agentOnly, schema: tagged(X.cancel, 'agent') }, async (request) => cancelQuery(context, (await agentOf(request)).id, (request.params as { queryId: string }).queryId));
  app.post('/x402/v2/auto/queries/:queryId/sessions', { config: agentOnly, schema: tagged(X.sessions, 'agent') }, async (request) => sessionsOfQuery(context, (await agentOf(request)).id, (request.params as { queryId: string }).queryId));
  app.post('/x402/v2/auto/queries/:queryId/sessions/:sessionId', { config: agentOnly, schema: tagged(X.session, 'agent') }, async (request) => {
    const { queryId, sessionId } = request.params as { queryId: string; sessionId: string };
    return sessionOfQuery(context, (await agentOf(request)).id, queryId, sessionId);
  });
}
