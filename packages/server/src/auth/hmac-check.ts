import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  HMAC_MAX_DRIFT_SECONDS,
  HMAC_ROUTE_TABLE,
  type HmacRoute,
  isTradeFlavouredQuery,
  matchHmacRoute,
  signatureRequirement,
  signingPayload,
  type StoredLookup,
  storedLookupNeeded,
  verifyRequestSignature,
} from '@eql/core';
import type { HostContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { isAutoRequest } from './authenticate.js';
import { matchedRoute } from '../http/matched-route.js';

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
  const pattern = matchedRoute(request).url;
  if (pattern === undefined || !pattern.startsWith('/v2/auto')) return matchHmacRoute(request.method, signingPath);
  const autoPattern = pattern.slice('/v2/auto'.length);
  const entry = HMAC_ROUTE_TABLE.find((row) => row.method === request.method.toUpperCase() && row.pattern === autoPattern);
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) if (typeof value === 'string') params[name] = value;
  return { entry, signingPath, params };
}

/** At most this often (by the host's clock) the used signatures whose time is over are deleted from the store. */
const PRUNE_EVERY_MS = 10_000;

/** Whether the request URL carries a query string (a lone `?` does not count). */
function hasQueryString(request: FastifyRequest): boolean {
  const mark = request.url.indexOf('?');
  return mark >= 0 && mark < request.url.length - 1;
}

/**
 * Spec 5.2 on /v2/auto routes, with the core's route table: decides whether a signature is
 * required (looking up the stored query or draft when the rule needs it), and verifies it when
 * required or when one was sent anyway. Missing headers, a bad signature or timestamp drift → 401.
 * Two rules close what the spec's signing string leaves open (docs/http-api.md): on a route of the
 * table a signed request carries no query string (the signature does not cover it, so it could
 * re-point the request: 401 `signature_unsigned_query`), and a signature is accepted once (its digest
 * is kept in the store while its timestamp is within the drift window: 401 `signature_replayed`).
 */
export function hmacCheck(context: HostContext) {
  const check = verify(context);
  // Rows of the table by "METHOD pattern": a request without signature headers on a route that cannot
  // require one passes without further work (most reads).
  const rows = new Map(HMAC_ROUTE_TABLE.map((row) => [`${row.method} /v2/auto${row.pattern}`, row]));
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    if (!request.apiKey || !isAutoRequest(request)) return done();
    const row = rows.get(`${request.method} ${matchedRoute(request).url ?? ''}`);
    const sent = request.headers['x-svc-timestamp'] !== undefined || request.headers['x-svc-signature'] !== undefined;
    if (!sent && (row === undefined || row.rule === 'optional')) return done();
    check(request, reply).then(() => done(), done);
  };
}

function verify(context: HostContext) {
  let prunedAt = Number.NEGATIVE_INFINITY;
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
    if (route.entry !== undefined && sent && hasQueryString(request)) {
      throw new ApiError('signature_unsigned_query', 'a signed request must not carry a query string: the signature (timestamp + method + path + body) does not cover it. Name a draft to update in the path: POST /v2/auto/queries/drafts/{draftId}');
    }
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
    if (!check.ok) {
      // A mismatch says what the host signed (never the secret), so that a client can diff its own string.
      const details =
        check.reason === 'invalid-signature' && timestamp !== undefined
          ? {
              signed: signingPayload({ timestamp, method: request.method, path: route.signingPath, body: bodyText }),
              parts: { timestamp, method: request.method.toUpperCase(), path: route.signingPath, bodyBytes: Buffer.byteLength(bodyText), bodySha256: createHash('sha256').update(bodyText).digest('hex') },
              how: 'x-svc-signature = lowercase hex HMAC-SHA256(your HMAC secret, signed), signed = timestamp + METHOD + path inside /v2/auto + the body exactly as sent',
            }
          : undefined;
      // The checker's reasons are the catalogue's signature_* codes (missing-headers → signature_missing_headers).
      throw new ApiError(`signature_${check.reason.replace(/-/g, '_') as 'missing_headers' | 'invalid_timestamp' | 'timestamp_drift' | 'invalid_signature'}`, check.message, details);
    }
    // Accepted once: the same timestamp, method, path and body give the same signature, so a copy of the
    // request is refused while its timestamp is still inside the window (and past it, drift refuses it).
    const digest = createHash('sha256').update((signature ?? '').toLowerCase()).digest('hex');
    const expiresAt = (Number(timestamp) + HMAC_MAX_DRIFT_SECONDS + 1) * 1000;
    if (!(await context.store.useSignature(key.id, digest, expiresAt))) {
      throw new ApiError('signature_replayed', 'this signature was already used: a signed request is accepted once. Sign each request afresh; a request identical to an earlier one (same method, path and body) needs another x-svc-timestamp');
    }
    const now = context.now();
    if (now - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now;
      try {
        // A drift window of grace, for hosts sharing the store whose clocks differ.
        await context.store.pruneUsedSignatures(now - HMAC_MAX_DRIFT_SECONDS * 1000);
      } catch (error) {
        request.log.warn({ err: error }, 'pruning used signatures failed');
      }
    }
  };
}
