import { matchHmacRoute, signatureRequirement, signRequest } from '@eql/core';
import { EqlClientError } from './errors.js';

/**
 * Spec 5.2 on the client's side: which requests are signed and how. The table and the rules are the
 * host's own (`HMAC_ROUTE_TABLE` of @eql/core): a route of the table is signed whenever the client has
 * the secret (the host accepts a signature where it is optional), and a request the host would refuse
 * unsigned is refused here before it is sent.
 */

/** The key's HMAC secret, or a function that gives it when a request is signed (to keep it out of long-lived objects). */
export type SigningSecret = string | (() => string | Promise<string>);

/** A request to sign, as the transport sees it. */
export interface RequestToSign {
  method: string;
  /** The path inside /v2/auto (`/queries`, `/queries/{id}/cancel`). */
  autoPath: string;
  /** The URL's query string (`?x=1` or empty): signed routes must have none. */
  query: string;
  /** The exact body text sent, if any. */
  body: string | undefined;
  /** The request's content type (a JSON body is read to decide whether it trades). */
  contentType: string | null;
  secret: SigningSecret | undefined;
  nowMs: number;
}

/**
 * The headers that sign a request (`x-svc-timestamp`, `x-svc-signature`), or none for a route the table
 * does not list or a request sent unsigned; throws `EqlClientError` `signature_required` when the host
 * would refuse it unsigned and there is no secret.
 */
export async function signatureHeaders(request: RequestToSign): Promise<Record<string, string>> {
  const route = matchHmacRoute(request.method, request.autoPath);
  const entry = route.entry;
  if (!entry) return {};
  if (request.secret === undefined) {
    if (mustBeSigned(entry.rule, route, request)) {
      throw new EqlClientError('signature_required', `${request.method.toUpperCase()} /v2/auto${request.autoPath} must be signed (spec 5.2): give the client the key's HMAC secret (hmacSecret)`);
    }
    return {};
  }
  if (request.query !== '') {
    throw new EqlClientError('signature_unsigned_query', `${request.method.toUpperCase()} /v2/auto${request.autoPath} is signed and the query string is not: send what it names in the path or the body instead of ${request.query}`);
  }
  const secret = typeof request.secret === 'function' ? await request.secret() : request.secret;
  const timestamp = String(Math.floor(request.nowMs / 1000));
  const signature = await signRequest(secret, { timestamp, method: request.method, path: request.autoPath, body: entry.bodyInSignature ? (request.body ?? '') : '' });
  return { 'x-svc-timestamp': timestamp, 'x-svc-signature': signature };
}

/** Whether the host refuses the request unsigned, as far as the client can tell (a stored query's flavour it cannot). */
function mustBeSigned(rule: string, route: ReturnType<typeof matchHmacRoute>, request: RequestToSign): boolean {
  if (rule === 'always') return true;
  if (rule !== 'body-trade' || request.body === undefined || !isJson(request.contentType)) return false;
  let body: unknown;
  try {
    body = JSON.parse(request.body);
  } catch {
    return false;
  }
  return signatureRequirement(route, { body }) === 'required';
}

function isJson(contentType: string | null): boolean {
  return contentType === null || /^application\/([\w.+-]+\+)?json\b/i.test(contentType);
}
