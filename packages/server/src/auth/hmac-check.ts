import type { FastifyReply, FastifyRequest } from 'fastify';
import { HMAC_ROUTE_TABLE, type HmacRoute, isTradeFlavouredQuery, matchHmacRoute, signatureRequirement, type StoredLookup, storedLookupNeeded, verifyRequestSignature } from '@eql/core';
import type { HostContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { isAutoRequest } from './authenticate.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The row of spec 5.2 for a request, from the route Fastify matched (so a percent-encoded spelling of
 * a path, which the router decodes, cannot dodge its row), with the decoded route parameters. The
 * signing path is the path as sent, inside /v2/auto (the first two segments, however spelled, dropped).
 */
function routeOf(request: FastifyRequest): HmacRoute {
  const rawPath = request.url.split('?')[0] ?? '';
  const signingPath = `/${rawPath.split('/').slice(3).join('/')}`;
  const pattern = request.routeOptions.url;
  if (pattern === undefined || !pattern.startsWith('/v2/auto')) return matchHmacRoute(request.method, signingPath);
  const autoPattern = pattern.slice('/v2/auto'.length);
  const entry = HMAC_ROUTE_TABLE.find((row) => row.method === request.method.toUpperCase() && row.pattern === autoPattern);
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) if (typeof value === 'string') params[name] = value;
  return { entry, signingPath, params };
}

/**
 * Spec 5.2 on /v2/auto routes, with the core's route table: decides whether a signature is
 * required (looking up the stored query or draft when the rule needs it), and verifies it when
 * required or when one was sent anyway. Missing headers, a bad signature or timestamp drift → 401.
 */
export function hmacCheck(context: HostContext) {
  const check = verify(context);
  // Rows of the table by "METHOD pattern": a request without signature headers on a route that cannot
  // require one passes without further work (most reads).
  const rows = new Map(HMAC_ROUTE_TABLE.map((row) => [`${row.method} /v2/auto${row.pattern}`, row]));
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    if (!request.apiKey || !isAutoRequest(request)) return done();
    const row = rows.get(`${request.method} ${request.routeOptions.url ?? ''}`);
    const sent = request.headers['x-svc-timestamp'] !== undefined || request.headers['x-svc-signature'] !== undefined;
    if (!sent && (row === undefined || row.rule === 'optional')) return done();
    check(request, reply).then(() => done(), done);
  };
}

function verify(context: HostContext) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const key = request.apiKey;
    if (!key) return;
    const route = routeOf(request);
    const timestamp = header(request, 'x-svc-timestamp');
    const signature = header(request, 'x-svc-signature');
    const sent = timestamp !== undefined || signature !== undefined;
    let stored: StoredLookup | undefined;
    const lookup = storedLookupNeeded(route);
    if (lookup) {
      try {
        const record = lookup.kind === 'query' ? await context.store.queryById(lookup.id) : await context.store.draftById(lookup.id);
        if (!record) stored = { kind: 'not-found' };
        else if (record.keyId !== key.id) stored = { kind: 'other-owner' };
        else stored = { kind: 'found', tradeFlavoured: record.tradeFlavoured || isTradeFlavouredQuery(record.request.query) };
      } catch {
        stored = { kind: 'error' };
      }
    }
    const requirement = signatureRequirement(route, stored === undefined ? { body: request.body } : { body: request.body, stored });
    if (requirement === 'optional' && !sent) return;
    const bodyText = route.entry?.bodyInSignature === false ? '' : (request.rawBody ?? '');
    const check = await verifyRequestSignature({
      secret: context.box.open(key.hmacSecretSealed),
      timestamp,
      signature,
      method: request.method,
      path: route.signingPath,
      body: bodyText,
      nowSeconds: Math.floor(context.now() / 1000),
    });
    if (!check.ok) throw new ApiError(401, `signature_${check.reason.replace(/-/g, '_')}`, check.message);
  };
}
