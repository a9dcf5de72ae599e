import { classifyRequestActions } from '../language/trade-flavour.js';

/**
 * Spec 5.2, "when HMAC applies", as one table and one function. Routes are matched on the path
 * inside /v2/auto; routes absent from the table (builder chat, previews, reads, ...) take a signature
 * optionally.
 */

/** How a route of {@link HMAC_ROUTE_TABLE} decides whether a request must be signed. */
export type HmacRule =
  /** Always required. */
  | 'always'
  /** Required when the request body is trade-flavoured or names an unknown action type. */
  | 'body-trade'
  /** Required when the stored query is trade-flavoured, or cannot be looked up. */
  | 'stored-query'
  /** Required when the stored draft is trade-flavoured; a missing draft or another key's proceeds (404). */
  | 'stored-draft'
  /** Not required; a signature sent anyway is accepted. */
  | 'optional';

/** One row of {@link HMAC_ROUTE_TABLE}: a route of the Auto API and its signing rule. */
export interface HmacRouteEntry {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path pattern inside /v2/auto; `:name` matches one segment. */
  pattern: string;
  rule: HmacRule;
  /** Whether the request body is part of the signing payload (otherwise the empty string is). */
  bodyInSignature: boolean;
}

/** The routes inside /v2/auto whose signature may be required (spec 5.2); every other route takes one optionally. */
export const HMAC_ROUTE_TABLE: readonly HmacRouteEntry[] = [
  { method: 'POST', pattern: '/exchanges', rule: 'always', bodyInSignature: true },
  { method: 'DELETE', pattern: '/exchanges/:exchange', rule: 'always', bodyInSignature: false },
  { method: 'POST', pattern: '/queries', rule: 'body-trade', bodyInSignature: true },
  { method: 'POST', pattern: '/queries/validate', rule: 'optional', bodyInSignature: true },
  { method: 'POST', pattern: '/queries/drafts', rule: 'body-trade', bodyInSignature: true },
  // The host's update of a named draft: the id is in the signed path (a query string is not signed).
  { method: 'POST', pattern: '/queries/drafts/:draftId', rule: 'body-trade', bodyInSignature: true },
  { method: 'POST', pattern: '/queries/drafts/:draftId/convert', rule: 'stored-draft', bodyInSignature: false },
  { method: 'POST', pattern: '/queries/:queryId/cancel', rule: 'stored-query', bodyInSignature: false },
  { method: 'DELETE', pattern: '/queries/:queryId', rule: 'stored-query', bodyInSignature: false },
  { method: 'GET', pattern: '/validate-symbol/:exchange/:symbol', rule: 'optional', bodyInSignature: false },
  // The host's rotation of a key's webhook signing secret (ours): a secret that signs every webhook.
  { method: 'POST', pattern: '/webhook-secret/rotate', rule: 'always', bodyInSignature: true },
];

/** A request matched against {@link HMAC_ROUTE_TABLE} by {@link matchHmacRoute}. */
export interface HmacRoute {
  /** The table row, or undefined for a route outside the table (signature optional). */
  entry: HmacRouteEntry | undefined;
  /** The path to sign: the request's own path inside /v2/auto. */
  signingPath: string;
  /** Values of the `:name` segments. */
  params: Record<string, string>;
}

function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    const segment = want[i] as string;
    const actual = got[i] as string;
    if (segment.startsWith(':')) {
      if (actual === '') return undefined;
      params[segment.slice(1)] = actual;
    } else if (segment !== actual) return undefined;
  }
  return params;
}

/** Finds the table row of a request; `autoPath` is the path inside /v2/auto without the query string. */
export function matchHmacRoute(method: string, autoPath: string): HmacRoute {
  const upper = method.toUpperCase();
  for (const entry of HMAC_ROUTE_TABLE) {
    if (entry.method !== upper) continue;
    const params = matchPattern(entry.pattern, autoPath);
    if (params) return { entry, signingPath: autoPath, params };
  }
  return { entry: undefined, signingPath: autoPath, params: {} };
}

/** The result of looking up the stored query or draft a request names. */
export type StoredLookup =
  | { kind: 'found'; tradeFlavoured: boolean }
  | { kind: 'not-found' }
  | { kind: 'other-owner' }
  | { kind: 'error' };

/** What {@link signatureRequirement} may need beyond the route: the request body or the stored record it names. */
export interface HmacContext {
  /** The parsed request body, for `body-trade` rows. */
  body?: unknown;
  /** The lookup, for `stored-query` and `stored-draft` rows; absent means it was not possible. */
  stored?: StoredLookup;
}

/** Which stored record the rule needs looked up before it can decide. */
export function storedLookupNeeded(route: HmacRoute): { kind: 'query'; id: string } | { kind: 'draft'; id: string } | undefined {
  if (route.entry?.rule === 'stored-query') return { kind: 'query', id: route.params.queryId ?? '' };
  if (route.entry?.rule === 'stored-draft') return { kind: 'draft', id: route.params.draftId ?? '' };
  return undefined;
}

/** Whether a request must carry a valid signature (`required`) or may carry one (`optional`). */
export type SignatureRequirement = 'required' | 'optional';

/**
 * Whether a matched request must be signed, by its row's rule; `context` supplies the body or the stored lookup
 * that the rule reads. A lookup that failed counts as trade-flavoured (required).
 */
export function signatureRequirement(route: HmacRoute, context: HmacContext = {}): SignatureRequirement {
  switch (route.entry?.rule) {
    case 'always':
      return 'required';
    case 'body-trade': {
      const actions = classifyRequestActions(context.body);
      return actions === 'trade' || actions === 'unknown' ? 'required' : 'optional';
    }
    case 'stored-query':
      return context.stored?.kind === 'found' && !context.stored.tradeFlavoured ? 'optional' : 'required';
    case 'stored-draft': {
      const stored = context.stored;
      if (stored === undefined || stored.kind === 'error') return 'required';
      if (stored.kind === 'found') return stored.tradeFlavoured ? 'required' : 'optional';
      return 'optional';
    }
    default:
      return 'optional';
  }
}
