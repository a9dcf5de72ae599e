import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerKey } from '../../auth/authenticate.js';
import type { HostContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { parseIngestValues } from '@eql/market-data';
import { ANALYSIS_CREDITS, eventSummary, keywordMentions, smartStats, tokenNews, topMentions, trendingContracts, trendingNarratives, trendingTokens } from './market-handlers.js';
import { M } from './market-schemas.js';

type Query = Record<string, unknown>;

/** Largest ingest request body. */
export const INGEST_BODY_LIMIT = 16 * 1024 * 1024;

/** Charges an analysis endpoint's credits to the caller's key, once the answer is ready. */
async function charge(context: HostContext, request: FastifyRequest, reason: string): Promise<void> {
  const key = callerKey(request);
  await context.store.charge(key.id, ANALYSIS_CREDITS, reason, request.id, new Date(context.now()).toISOString());
  request.creditsUsed = ANALYSIS_CREDITS;
}

/** Spec 4.2: account, aggregations and data endpoints (API key), and the ingest route. */
export function marketRoutes(app: FastifyInstance, context: HostContext): void {
  // Authenticated by the onRequest hook; `callerKey` makes sure of it in the handler too.
  const read = (answer: (query: Query) => Promise<unknown>) => (request: FastifyRequest) => {
    callerKey(request);
    return answer(request.query as Query);
  };
  app.get('/v2/account/smart-stats', { schema: M.smartStats }, read((query) => smartStats(context, query)));
  app.get('/v2/aggregations/trending-tokens', { schema: M.trendingTokens }, read((query) => trendingTokens(context, query)));
  app.get('/v2/aggregations/trending-cas/twitter', { schema: M.trendingCasTwitter }, read((query) => trendingContracts(context, 'twitter', query)));
  app.get('/v2/aggregations/trending-cas/telegram', { schema: M.trendingCasTelegram }, read((query) => trendingContracts(context, 'telegram', query)));
  app.get('/v2/data/keyword-mentions', { schema: M.keywordMentions }, read((query) => keywordMentions(context, query)));
  app.get('/v2/data/token-news', { schema: M.tokenNews }, read((query) => tokenNews(context, query)));
  app.get('/v2/data/top-mentions', { schema: M.topMentions }, read((query) => topMentions(context, query)));
  app.get('/v2/data/event-summary', { schema: M.eventSummary }, async (request) => {
    const body = await eventSummary(context, request.query as Query);
    await charge(context, request, 'event-summary');
    return body;
  });
  app.get('/v2/data/trending-narratives', { schema: M.trendingNarratives }, async (request) => {
    const body = await trendingNarratives(context, request.query as Query);
    await charge(context, request, 'trending-narratives');
    return body;
  });

  // Our addition: market data in, for keys with the `ingest` scope. All or nothing: one bad item and
  // nothing is written (the 400 lists every bad item by index). Parsing and writing go in batches with
  // turns of the event loop between them, so a 10,000-item request does not stall other requests.
  app.post('/v2/ingest', { schema: M.ingest, bodyLimit: INGEST_BODY_LIMIT }, async (request) => {
    const key = callerKey(request);
    if (!key.scopes.includes('ingest')) throw new ApiError(403, 'missing_scope', 'this key may not ingest market data (create one with `eql keys create --scope ingest`)');
    const { items } = request.body as { items: unknown[] };
    const { items: accepted, problems } = await parseIngestValues(items, { maxProblems: 100 });
    if (problems.length > 0) throw new ApiError(400, 'invalid_items', `${problems.length === 100 ? 'at least 100' : problems.length} item(s) are invalid; nothing was ingested`, problems);
    try {
      return { success: true, data: await context.market.ingest(accepted) };
    } catch (error) {
      if (error instanceof RangeError) throw new ApiError(400, 'invalid_items', `${error.message}; nothing was ingested`);
      throw error;
    }
  });
}
