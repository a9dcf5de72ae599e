import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { errorBody } from './errors.js';

/** A route path (`/v2/auto/queries/:queryId`) as a pattern over request paths: each parameter is one segment. */
function pathPattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * The host's not-found handler: a path that exists for other methods answers 405
 * `method_not_allowed` with an `Allow` header listing them (RFC 9110 15.5.6), any other 404
 * `route_not_found`; both with the error body. Call it before the routes are added: it learns
 * them through the onRoute hook.
 */
export function notFoundOrMethodNotAllowed(app: FastifyInstance): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  const routes: Array<{ pattern: RegExp; methods: string[] }> = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    routes.push({ pattern: pathPattern(route.url), methods: methods.map(String) });
  });
  return (request, reply) => {
    const raw = request.url.split('?')[0] ?? '';
    let path = raw;
    try {
      path = decodeURIComponent(raw);
    } catch {
      // An undecodable path matches no route as written: it is looked up as sent.
    }
    const allowed = new Set<string>();
    for (const route of routes) if (route.pattern.test(path) || route.pattern.test(raw)) for (const method of route.methods) allowed.add(method);
    if (allowed.size > 0 && !allowed.has(request.method)) {
      const allow = [...allowed].sort().join(', ');
      return reply
        .status(405)
        .header('allow', allow)
        .send(errorBody('method_not_allowed', `${request.method} is not allowed on ${raw}; use ${allow}`, { allow: [...allowed].sort() }));
    }
    return reply.status(404).send(errorBody('route_not_found', `no route ${request.method} ${raw}`));
  };
}
