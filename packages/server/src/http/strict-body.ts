import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';
import { matchedRoute } from './matched-route.js';

/** The part of a JSON schema this check reads. */
interface SchemaNode {
  type?: unknown;
  properties?: Record<string, SchemaNode>;
  items?: unknown;
}

const JSON_TYPE: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number',
  integer: (value) => typeof value === 'number',
  boolean: (value) => typeof value === 'boolean',
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first place where `value` has another JSON type than the scalar type `schema` declares, as a JSON pointer. */
export function mistypedPath(schema: SchemaNode | undefined, value: unknown, path = ''): string | undefined {
  if (!schema || value === undefined) return undefined;
  if (typeof schema.type === 'string') {
    const check = JSON_TYPE[schema.type];
    if (check && !check(value)) return path === '' ? '/' : path;
  }
  if (schema.properties && isObject(value)) {
    for (const [name, child] of Object.entries(schema.properties)) {
      const found = mistypedPath(child, value[name], `${path}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (found) return found;
    }
  }
  if (isObject(schema.items) && Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = mistypedPath(schema.items, item, `${path}/${index}`);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * JSON bodies keep their types. The host's validator coerces types (so `?limit=20` is a number), and
 * would coerce bodies as well: `{"message": 123}` would pass as the string "123" and be charged. This
 * preValidation hook sees the body as parsed, before the schema coerces it, and answers 400
 * `invalid_request` where a property the route's body schema declares as string, number, integer or
 * boolean holds another JSON type (issue 15). Query strings and path parameters are text and are still
 * coerced.
 */
export function refuseMistypedBody(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void {
  const schema = matchedRoute(request).schema?.body as SchemaNode | undefined;
  const path = isObject(request.body) || Array.isArray(request.body) ? mistypedPath(schema, request.body) : undefined;
  if (path === undefined) return done();
  const expected = String(typeAt(schema, path));
  done(new ApiError('invalid_request', `invalid request: body${path} must be a JSON ${expected}`, [{ path, message: `must be ${expected}` }]));
}

function typeAt(schema: SchemaNode | undefined, path: string): unknown {
  let node = schema;
  for (const token of path.split('/').slice(1)) {
    if (!node) return undefined;
    node = /^\d+$/.test(token) && isObject(node.items) ? (node.items) : node.properties?.[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node?.type;
}
