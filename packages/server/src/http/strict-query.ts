import type { FastifyInstance, RouteOptions } from 'fastify';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One rule for query parameters on every route (issue 15): a parameter the route does not declare is a
 * 400 `unknown_parameter` naming it (errors.ts), never silently ignored. Routes without a querystring
 * schema take none; a querystring schema is closed (`additionalProperties: false`). Documented
 * passthroughs (`lastEventId` of the streams, `draftId` of the draft upsert, ...) are declared in their
 * route's schema. Call it before the routes are added: it works through the onRoute hook, so the
 * OpenAPI document shows the same closed schemas.
 */
export function closeQueryStrings(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = (route.schema ??= {});
    const querystring = schema.querystring;
    if (querystring === undefined) schema.querystring = { type: 'object', properties: {}, additionalProperties: false };
    else if (isObject(querystring) && querystring.additionalProperties !== false) schema.querystring = { ...querystring, additionalProperties: false };
  });
}
