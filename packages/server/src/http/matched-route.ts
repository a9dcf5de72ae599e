import type { FastifyInstance, FastifyRequest } from 'fastify';

type RouteOptionsOf = FastifyRequest['routeOptions'];

declare module 'fastify' {
  interface FastifyRequest {
    /** The matched route's options once read (see matchedRoute); null until then. */
    matchedRouteOptions: RouteOptionsOf | null;
  }
}

/** Declares the per-request slot of {@link matchedRoute} (once, when the app is built). */
export function registerMatchedRoute(app: FastifyInstance): void {
  app.decorateRequest('matchedRouteOptions', null);
}

/**
 * The options of the route Fastify matched (its pattern `url`, its `schema`), read once per request:
 * Fastify's `request.routeOptions` builds a new object at every read, and the hooks of one request read
 * it half a dozen times (stability, authentication, signatures, body types, the rate limiter).
 */
export function matchedRoute(request: FastifyRequest): RouteOptionsOf {
  let options = request.matchedRouteOptions;
  if (options === null || options === undefined) {
    options = request.routeOptions;
    request.matchedRouteOptions = options;
  }
  return options;
}
