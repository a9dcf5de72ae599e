import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MemoryWindowCounter, type WindowCounter } from '@eql/x402';
import { callerKey } from '../../auth/authenticate.js';
import type { HostContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { requestLimits } from '../../metering/request-limits.js';
import { parseIngestValues } from '@eql/market-data';
import { ANALYSIS_CREDITS, eventSummary, keywordMentions, smartStats, tokenNews, topMentions, trendingContracts, trendingNarratives, trendingTokens } from './market-handlers.js';
import { M } from './market-schemas.js';

type Query = Record<string, unknown>;

/** Largest ingest request body. */
export const INGEST_BODY_LIMIT = 16 * 1024 * 1024;

/** `POST /v2/ingest` requests a minute per API key by default (EQL_INGEST_REQUESTS_PER_MINUTE): up to 160 MB of JSON a minute. */
export const INGEST_REQUESTS_PER_MINUTE = 10;

/** Options of {@link marketRoutes}. */
export interface MarketRoutesOptions {
  /** Where the ingest requests of each key are counted (default: this process's memory, on the host's clock). */
  ingestCounter?: WindowCounter;
}

/** Charges an analysis endpoint's credits to the caller's key, once the answer is ready. */
async function charge(context: HostContext, request: FastifyRequest, reason: string): Promise<void> {
  const key = callerKey(request);
  await context.store.charge(key.id, ANALYSIS_CREDITS, reason, request.id, new Date(context.now()).toISOString());
  request.creditsUsed = ANALYSIS_CREDITS;
}

/** Spec 4.2: account, aggregations and data endpoints (API key), and the ingest route. */
export function marketRoutes(app: FastifyInstance, context: HostContext, options: MarketRoutesOptions = {}): void {
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
  // Up to 16 MB of JSON is costly to read, so the scope and the key's requests a minute are checked
  // before a byte of the body is: in onRequest hooks of the route, after the host's authentication.
  const ingestPerMinute = context.config.ingestRequestsPerMinute ?? INGEST_REQUESTS_PER_MINUTE;
  const ingestLimit = requestLimits({
    counter: options.ingestCounter ?? new MemoryWindowCounter({ now: context.now }),
    windowMs: 60_000,
    boundOf: (request) => (request.apiKey ? { key: `key:${request.apiKey.id}`, max: ingestPerMinute } : undefined),
    refusal: (_request, bound, ttlMs) => new ApiError('rate_limited', `more than ${bound.max} ingest requests a minute for this key; retry in ${Math.ceil(ttlMs / 1000)} s`),
  });
  const onRequest = [requireIngestScope, ingestLimit];
  app.post('/v2/ingest', { schema: M.ingest, bodyLimit: INGEST_BODY_LIMIT, onRequest }, async (request) => {
    callerKey(request);
    const { items } = request.body as { items: unknown[] };
    const { items: accepted, problems } = await parseIngestValues(items, { maxProblems: 100 });
    if (problems.length > 0) throw new ApiError('invalid_items', `${problems.length === 100 ? 'at least 100' : problems.length} item(s) are invalid; nothing was ingested`, problems);
    try {
      return { success: true, data: await context.market.ingest(accepted) };
    } catch (error) {
      if (error instanceof RangeError) throw new ApiError('invalid_items', `${error.message}; nothing was ingested`);
      throw error;
    }
  });
}

/** The key may ingest (`ingest` scope), else 403 `missing_scope`: an onRequest hook, so the body is never read for it. */
function requireIngestScope(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  try {
    if (!callerKey(request).scopes.includes('ingest')) throw new ApiError('missing_scope', 'this key may not ingest market data (create one with `eql keys create --scope ingest`)');
    done();
  } catch (error) {
    done(error as Error);
  }
}
