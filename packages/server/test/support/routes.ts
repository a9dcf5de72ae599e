
/** Every route of docs/http-api.md, with `{name}` placeholders for its path parameters. */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** Whether the route takes a JSON body. */
  body: boolean;
  /** SSE routes: a successful call does not end, so tests only check their refusals. */
  stream?: boolean;
}

export const AUTO_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v2/auto/queries/validate', body: true },
  { method: 'POST', path: '/v2/auto/queries', body: true },
  { method: 'GET', path: '/v2/auto/queries/{queryId}', body: false },
  { method: 'POST', path: '/v2/auto/queries/{queryId}/cancel', body: false },
  { method: 'DELETE', path: '/v2/auto/queries/{queryId}', body: false },
  { method: 'GET', path: '/v2/auto/queries', body: false },
  { method: 'POST', path: '/v2/auto/queries/drafts', body: true },
  { method: 'POST', path: '/v2/auto/queries/drafts/{draftId}', body: true },
  { method: 'GET', path: '/v2/auto/queries/drafts', body: false },
  { method: 'GET', path: '/v2/auto/queries/drafts/{draftId}', body: false },
  { method: 'DELETE', path: '/v2/auto/queries/drafts/{draftId}', body: false },
  { method: 'POST', path: '/v2/auto/queries/drafts/{draftId}/validate', body: false },
  { method: 'POST', path: '/v2/auto/queries/drafts/{draftId}/convert', body: false },
  { method: 'POST', path: '/v2/auto/queries/drafts/{draftId}/preview', body: false },
  { method: 'POST', path: '/v2/auto/queries/preview', body: true },
  { method: 'GET', path: '/v2/auto/executions', body: false },
  { method: 'GET', path: '/v2/auto/executions/{executionId}', body: false },
  { method: 'GET', path: '/v2/auto/queries/{queryId}/sessions', body: false },
  { method: 'GET', path: '/v2/auto/queries/{queryId}/sessions/{sessionId}', body: false },
  { method: 'GET', path: '/v2/auto/validate-symbol/{exchange}/{symbol}', body: false },
  { method: 'GET', path: '/v2/auto/exchanges', body: false },
  { method: 'POST', path: '/v2/auto/exchanges', body: true },
  { method: 'DELETE', path: '/v2/auto/exchanges/{exchange}', body: false },
  { method: 'POST', path: '/v2/auto/chat', body: true },
  { method: 'GET', path: '/v2/auto/queries/{queryId}/stream', body: false, stream: true },
  { method: 'GET', path: '/v2/auto/queries/stream', body: false, stream: true },
];

/** Spec 4.2 and 4.3 (API key, outside Auto), and our ingest route. */
export const DATA_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/v2/account/smart-stats', body: false },
  { method: 'GET', path: '/v2/aggregations/trending-tokens', body: false },
  { method: 'GET', path: '/v2/aggregations/trending-cas/twitter', body: false },
  { method: 'GET', path: '/v2/aggregations/trending-cas/telegram', body: false },
  { method: 'GET', path: '/v2/data/event-summary', body: false },
  { method: 'GET', path: '/v2/data/keyword-mentions', body: false },
  { method: 'GET', path: '/v2/data/token-news', body: false },
  { method: 'GET', path: '/v2/data/top-mentions', body: false },
  { method: 'GET', path: '/v2/data/trending-narratives', body: false },
  { method: 'POST', path: '/v2/chat', body: true },
  { method: 'POST', path: '/v2/ingest', body: true },
];

/** Spec 4.5. */
export const PAYMENT_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/x402/v2/account/smart-stats', body: false },
  { method: 'GET', path: '/x402/v2/aggregations/trending-tokens', body: false },
  { method: 'GET', path: '/x402/v2/aggregations/trending-cas/twitter', body: false },
  { method: 'GET', path: '/x402/v2/aggregations/trending-cas/telegram', body: false },
  { method: 'POST', path: '/x402/v2/chat', body: true },
  { method: 'POST', path: '/x402/v2/auto/chat', body: true },
  { method: 'POST', path: '/x402/v2/auto/queries', body: true },
  { method: 'POST', path: '/x402/v2/auto/queries/{queryId}', body: false },
  { method: 'POST', path: '/x402/v2/auto/queries/{queryId}/cancel', body: false },
  { method: 'POST', path: '/x402/v2/auto/queries/{queryId}/sessions', body: false },
  { method: 'POST', path: '/x402/v2/auto/queries/{queryId}/sessions/{sessionId}', body: false },
  { method: 'POST', path: '/x402/v2/auto/queries/validate', body: true },
];

export const AUTHENTICATED_ROUTES: readonly RouteSpec[] = [...AUTO_ROUTES, { method: 'GET', path: '/v2/key-status', body: false }, ...DATA_ROUTES];

/** Fills the placeholders of a route path. */
export function fill(path: string, values: Partial<Record<string, string>> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => values[name] ?? defaults[name] ?? 'x');
}

const defaults: Record<string, string> = {
  queryId: '00000000-0000-4000-8000-000000000000',
  draftId: '00000000-0000-4000-8000-000000000001',
  executionId: '00000000-0000-4000-8000-000000000002',
  sessionId: '00000000-0000-4000-8000-000000000003',
  exchange: 'paper',
  symbol: 'BTC',
};
