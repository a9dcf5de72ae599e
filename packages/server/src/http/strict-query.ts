import type { FastifyInstance, RouteOptions } from 'fastify';
import { ApiError } from './errors.js';

/** A number as a query string may write it; one too large for a double (`1e400`) reads as Infinity. */
const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

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
  // A number too large to be one (`?page=1e400` reads as Infinity) is a 400 before the schema coerces it.
  app.addHook('preValidation', (request, _reply, done) => {
    const query = request.query;
    if (isObject(query)) {
      for (const [name, value] of Object.entries(query)) {
        if (typeof value === 'string' && NUMERIC.test(value) && !Number.isFinite(Number(value))) {
          done(new ApiError('invalid_request', `invalid request: query parameter "${name}" is not a finite number`, [{ path: `/${name}`, message: 'must be a finite number' }]));
          return;
        }
      }
    }
    done();
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = (route.schema ??= {});
    const querystring = schema.querystring;
    if (querystring === undefined) schema.querystring = { type: 'object', properties: {}, additionalProperties: false };
    else if (isObject(querystring) && querystring.additionalProperties !== false) schema.querystring = { ...querystring, additionalProperties: false };
  });
}
