import createClient, { type Client } from 'openapi-fetch';
import { EqlApiError } from './errors.js';
import type { components, operations, paths } from './generated/openapi.js';
import { createTransport, type TransportOptions } from './host-fetch.js';
import { followNotifications, type StreamEvent, type StreamOptions } from './notification-stream.js';
import { retryAfterSeconds, sleep as realSleep } from './retry-after.js';

/**
 * The client of an EQL host: typed methods for the common calls, each returning the body of a 2xx and
 * throwing `EqlApiError` otherwise, the notification streams as async iterators, and `api`, the
 * openapi-fetch client typed by the whole OpenAPI document, for every other route.
 */

/** A query request (spec 2.1), as the EQL schema types it. */
export type QueryRequest = components['schemas']['QueryRequest'];

/** The JSON body an operation answers with `status`. */
export type ResponseBody<Operation extends keyof operations, Status extends number> = operations[Operation]['responses'] extends Record<Status, { content: { 'application/json': infer Body } }> ? Body : never;

/** The query parameters an operation takes. */
export type QueryParameters<Operation extends keyof operations> = operations[Operation]['parameters'] extends { query?: infer Query } ? NonNullable<Query> : never;

/** Options of {@link createEqlClient}: the host and the caller's credentials. */
export type EqlClientOptions = TransportOptions;

/** What a call of the typed client resolved to, as openapi-fetch gives it. */
interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The client; see {@link createEqlClient}. */
export interface EqlClient {
  /** Every route, typed from the OpenAPI document (openapi-fetch): `api.GET('/v2/auto/queries/{queryId}', {params: {path: {queryId}}})`. */
  readonly api: Client<paths>;
  /** `GET /v2/ping`. */
  ping(): Promise<ResponseBody<'ping', 200>>;
  /** `GET /v2/key-status`: the key's plan, usage and limits. */
  keyStatus(): Promise<ResponseBody<'getKeyStatus', 200>>;
  /** `POST /v2/auto/queries/validate`: the JSON form, or the text form as a string. */
  validateQuery(request: QueryRequest | string): Promise<ResponseBody<'validateQuery', 200>>;
  /** `POST /v2/auto/queries` (validate it first: the host requires it, spec 3); signed when the request trades. */
  createQuery(request: QueryRequest | string): Promise<ResponseBody<'createQuery', 201>>;
  /** `GET /v2/auto/queries/{queryId}`: its status, credits, latest evaluation and condition states. */
  getQuery(queryId: string): Promise<ResponseBody<'getQuery', 200>>;
  /** `GET /v2/auto/queries`: a page of the key's queries. */
  listQueries(query?: QueryParameters<'listQueries'>): Promise<ResponseBody<'listQueries', 200>>;
  /** `POST /v2/auto/queries/{queryId}/cancel`. */
  cancelQuery(queryId: string): Promise<ResponseBody<'cancelQuery', 200>>;
  /** `DELETE /v2/auto/queries/{queryId}`. */
  deleteQuery(queryId: string): Promise<ResponseBody<'deleteQuery', 200>>;
  /** `GET /v2/auto/executions`: a page of the key's executions. */
  listExecutions(query?: QueryParameters<'listExecutions'>): Promise<ResponseBody<'listExecutions', 200>>;
  /** `GET /v2/auto/exchanges`: the venues connected (the trade preflight the host requires before a trading query). */
  listExchanges(): Promise<ResponseBody<'listExchanges', 200>>;
  /** Notifications of every query of the key, or of one (`queryId`), resumed after `lastEventId`, reconnecting. */
  notifications(options?: StreamOptions): AsyncGenerator<StreamEvent, void, undefined>;
  /** The payment model's routes (`/x402/*`), paid with the client's `payment` and its `agentSecret`. */
  readonly paid: PaidRoutes;
}

/** The routes of the payment model: no API key; a USDC payment per request where it costs, the agent secret on Auto routes. */
export interface PaidRoutes {
  /** `POST /x402/v2/auto/queries/validate` (free). */
  validateQuery(request: QueryRequest): Promise<ResponseBody<'validateQueryPaid', 200>>;
  /** `POST /x402/v2/auto/queries`: pays the creation (5 credits and the simulated LLM calls) in USDC. */
  createQuery(request: QueryRequest): Promise<ResponseBody<'createQueryPaid', 201>>;
  /** `POST /x402/v2/auto/queries/{queryId}` (free): the query as a poll shows it. */
  getQuery(queryId: string): Promise<ResponseBody<'getQueryPaid', 200>>;
  /** `POST /x402/v2/auto/queries/{queryId}/cancel` (free). */
  cancelQuery(queryId: string): Promise<ResponseBody<'cancelQueryPaid', 200>>;
}

/** Makes a client of the host at `options.baseUrl`. */
export function createEqlClient(options: EqlClientOptions): EqlClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const transport = createTransport({ ...options, baseUrl });
  const api = createClient<paths>({ baseUrl, fetch: transport });

  /** The body of a 2xx, or the host's error as `EqlApiError`. */
  const unwrap = async <Body>(call: Promise<FetchResult>): Promise<Body> => {
    const { data, error, response } = await call;
    if (!response.ok) throw new EqlApiError(response.status, error, retryAfterSeconds(response, now()));
    return data as Body;
  };
  /** The body options of an EQL request: JSON as it is, the text form as `text/x-eql`. */
  const eqlBody = (request: QueryRequest | string) =>
    typeof request === 'string' ? { body: request as unknown as QueryRequest, bodySerializer: (text: unknown) => text as string, headers: { 'content-type': 'text/x-eql' } } : { body: request };
  const queryPath = (queryId: string) => ({ params: { path: { queryId } } });

  return {
    api,
    ping: () => unwrap(api.GET('/v2/ping')),
    keyStatus: () => unwrap(api.GET('/v2/key-status')),
    validateQuery: (request) => unwrap(api.POST('/v2/auto/queries/validate', eqlBody(request))),
    createQuery: (request) => unwrap(api.POST('/v2/auto/queries', eqlBody(request))),
    getQuery: (queryId) => unwrap(api.GET('/v2/auto/queries/{queryId}', queryPath(queryId))),
    listQueries: (query) => unwrap(api.GET('/v2/auto/queries', query ? { params: { query } } : {})),
    cancelQuery: (queryId) => unwrap(api.POST('/v2/auto/queries/{queryId}/cancel', queryPath(queryId))),
    deleteQuery: (queryId) => unwrap(api.DELETE('/v2/auto/queries/{queryId}', queryPath(queryId))),
    listExecutions: (query) => unwrap(api.GET('/v2/auto/executions', query ? { params: { query } } : {})),
    listExchanges: () => unwrap(api.GET('/v2/auto/exchanges')),
    notifications: (streamOptions) => followNotifications({ baseUrl, fetch: transport, sleep: options.sleep ?? realSleep, now }, streamOptions),
    paid: {
      validateQuery: (request) => unwrap(api.POST('/x402/v2/auto/queries/validate', { body: request })),
      createQuery: (request) => unwrap(api.POST('/x402/v2/auto/queries', { body: request })),
      getQuery: (queryId) => unwrap(api.POST('/x402/v2/auto/queries/{queryId}', queryPath(queryId))),
      cancelQuery: (queryId) => unwrap(api.POST('/x402/v2/auto/queries/{queryId}/cancel', queryPath(queryId))),
    },
  };
}
