import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchedRoute } from './matched-route.js';

/** The response header that says how stable a route is (spec 9): `beta` or `experimental`. */
export const STABILITY_HEADER = 'x-eql-stability';

export type Stability = 'beta' | 'experimental';

/** Spec 4.2 flags these data routes experimental (and their payment-model twins, spec 4.5 "as 4.2"). */
const EXPERIMENTAL = new Set(['/v2/account/smart-stats', '/v2/aggregations/trending-tokens', '/x402/v2/account/smart-stats', '/x402/v2/aggregations/trending-tokens']);

/**
 * The stability of a route (spec 9: "Auto endpoints are flagged beta; some data endpoints are flagged
 * experimental"): every Auto route, with an API key or paid, is `beta`; the data routes spec 4.2 marks
 * `(experimental)` are `experimental`; the others are stable (undefined). `path` is a route path in
 * either form (`/v2/auto/queries/:queryId` or `/v2/auto/queries/{queryId}`).
 */
export function stabilityOf(path: string): Stability | undefined {
  if (path.startsWith('/v2/auto/') || path === '/v2/auto' || path.startsWith('/x402/v2/auto/')) return 'beta';
  return EXPERIMENTAL.has(path) ? 'experimental' : undefined;
}

/**
 * An onRequest hook: the answers of a beta or experimental route carry `x-eql-stability`, whatever
 * their status, SSE streams included (set on the raw response, which a hijacked stream writes).
 */
export function stabilityHeader(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const route = matchedRoute(request).url;
  const stability = route === undefined ? undefined : stabilityOf(route);
  if (stability) reply.raw.setHeader(STABILITY_HEADER, stability);
  done();
}
