import { fetchRetrying429, type RetryPolicy, type Sleep, sleep } from './retry-after.js';
import { EqlClientError } from './errors.js';
import { type SigningSecret, signatureHeaders } from './request-signing.js';
import type { x402Client, x402HTTPClient } from '@x402/fetch';

/**
 * The one way the client reaches the host: every request (typed calls and event streams) goes through
 * the fetch made here, which adds the credentials a route takes, signs what spec 5.2 signs, pays the
 * x402 routes and waits out 429s. Each try is a new request, so a retried signature has a fresh timestamp.
 * A redirect is never followed (see {@link refuseRedirect}).
 */

/** A fetch of one request, as openapi-fetch calls it. */
export type RequestFetch = (request: Request) => Promise<Response>;

/** Everything the transport needs to know about the host and the caller. */
export interface TransportOptions {
  /** The host's base URL (`http://127.0.0.1:8787`); a path prefix is allowed (`https://api.example/eql`). */
  baseUrl: string;
  /** The API key, sent as `x-svc-api-key` on every route but the payment model's `/x402/*`. */
  apiKey?: string | undefined;
  /** The key's HMAC secret: signs the routes of spec 5.2's table. */
  hmacSecret?: SigningSecret | undefined;
  /** The agent secret of the payment model, sent as `x-svc-agent-secret` on `/x402/v2/auto/*`. */
  agentSecret?: string | undefined;
  /** Pays the `/x402/*` routes: an `x402Client` of `@x402/fetch` with the payer's scheme registered. */
  payment?: x402Client | x402HTTPClient | undefined;
  /** How 429 answers are retried. */
  retry?: RetryPolicy | undefined;
  /** The fetch underneath (default: the global fetch). */
  fetch?: typeof globalThis.fetch | undefined;
  /** The clock, in milliseconds (default `Date.now`): signature timestamps and `retry-after` dates. */
  now?: (() => number) | undefined;
  /** The wait between retries (default `setTimeout`). */
  sleep?: Sleep | undefined;
}

/** The route of a URL inside the host: its path with the base URL's own path removed. */
export function routePath(url: URL, base: URL): string {
  const prefix = base.pathname.replace(/\/+$/, '');
  return prefix !== '' && url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : url.pathname;
}

/**
 * A redirect answered to a request is an error (`EqlClientError` `redirect_refused`) naming where it
 * pointed, without its query string: following it would send the API key, the signature or a payment
 * to wherever the answer says (another origin), and the host itself never redirects an API route.
 */
async function refuseRedirect(response: Response, url: URL): Promise<Response> {
  // A browser hides a redirect answered to `redirect: 'manual'` (an opaque response with status 0).
  const opaque = response.type === 'opaqueredirect';
  if (!opaque && (response.status < 300 || response.status > 399 || response.status === 304)) return response;
  await response.body?.cancel().catch(() => undefined);
  const location = opaque ? null : response.headers.get('location');
  let where = 'elsewhere';
  if (location !== null) {
    try {
      const target = new URL(location, url);
      where = `${target.origin}${target.pathname}`;
    } catch {
      where = 'an unreadable location';
    }
  }
  throw new EqlClientError('redirect_refused', `${url.origin}${url.pathname} answered ${opaque ? 'a redirect' : response.status} to ${where}; the client does not follow redirects (they would carry the API key and signature): set baseUrl to the host's own address`);
}

/** Makes the transport's fetch. */
export function createTransport(options: TransportOptions): RequestFetch {
  const base = new URL(options.baseUrl);
  const plainFetch = options.fetch ?? globalThis.fetch;
  // The x402 client (and zod, most of its weight) is loaded on the first paid request: a client of the
  // API-key routes never loads it, and a bundle keeps it in a chunk of its own.
  const payment = options.payment;
  let paidFetch: Promise<typeof globalThis.fetch> | undefined;
  const paid = (given: x402Client | x402HTTPClient) => (paidFetch ??= import('@x402/fetch').then(({ wrapFetchWithPayment }) => wrapFetchWithPayment(plainFetch, given)));
  const now = options.now ?? Date.now;
  const retry = { policy: options.retry ?? {}, now, sleep: options.sleep ?? sleep };

  return async (request) => {
    const url = new URL(request.url);
    const route = routePath(url, base);
    const paymentRoute = route.startsWith('/x402/');
    const body = request.body === null ? undefined : await request.text();
    const attempt = async (): Promise<Response> => {
      const headers = new Headers(request.headers);
      if (paymentRoute) {
        if (options.agentSecret !== undefined && route.startsWith('/x402/v2/auto/')) headers.set('x-svc-agent-secret', options.agentSecret);
      } else if (options.apiKey !== undefined) headers.set('x-svc-api-key', options.apiKey);
      if (route.startsWith('/v2/auto/')) {
        const signed = await signatureHeaders({ method: request.method, autoPath: route.slice('/v2/auto'.length), query: url.search, body, contentType: headers.get('content-type'), secret: options.hmacSecret, nowMs: now() });
        for (const [name, value] of Object.entries(signed)) headers.set(name, value);
      }
      // Redirects are not followed: the credentials and signature above are for this host only.
      const init: RequestInit = { method: request.method, headers, signal: request.signal, redirect: 'manual' };
      if (body !== undefined) init.body = body;
      const send = paymentRoute && payment ? await paid(payment) : plainFetch;
      return refuseRedirect(await send(new Request(url, init)), url);
    };
    return fetchRetrying429(attempt, retry, request.signal);
  };
}
