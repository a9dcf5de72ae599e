import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

const NUL = '\u0000';

/** A JSON pointer token: `~` and `/` escaped, and a NUL shown as `\u0000` so the answer can be read. */
const pointerToken = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1').replaceAll(NUL, '\\u0000');

/**
 * The JSON pointer of the first string (a value or a property name) holding a NUL in a parsed body,
 * in document order; `''` for the body itself. Walked with a stack of its own: a body nested deeper
 * than the call stack is read like any other.
 */
export function nulPath(value: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop() as { value: unknown; path: string };
    if (typeof current === 'string') {
      if (current.includes(NUL)) return path;
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    const entries = Array.isArray(current) ? current.map((item, index) => [String(index), item] as const) : Object.entries(current);
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [name, child] = entries[index] as readonly [string, unknown];
      const childPath = `${path}/${pointerToken(name)}`;
      if (name.includes(NUL)) return childPath;
      stack.push({ value: child, path: childPath });
    }
  }
  return undefined;
}

const MUST_NOT = 'must not contain a NUL character (U+0000)';

/**
 * Text never holds a NUL (U+0000): PostgreSQL refuses it in its text columns and in the parameters
 * of a lookup (an id holding one), SQLite keeps it, and no field of the API means anything by it.
 * This preValidation hook answers 400 `invalid_request` naming the first path parameter, query
 * parameter or body field (a value or a property name, at any depth) that holds one, on every route
 * and before anything reads the request, so both stores give the same answer and none a 500.
 */
export function refuseNulCharacters(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void {
  for (const [where, values] of [['path', request.params], ['query', request.query]] as const) {
    if (typeof values !== 'object' || values === null) continue;
    for (const [name, value] of Object.entries(values)) {
      // A repeated query parameter reads as an array of its values.
      if (name.includes(NUL) || nulPath(value) !== undefined) {
        const path = `/${pointerToken(name)}`;
        done(new ApiError('invalid_request', `invalid request: ${where} parameter "${pointerToken(name)}" ${MUST_NOT}`, [{ path, message: MUST_NOT }]));
        return;
      }
    }
  }
  const path = nulPath(request.body);
  if (path === undefined) return done();
  done(new ApiError('invalid_request', `invalid request: body${path} ${MUST_NOT}`, [{ path: path === '' ? '/' : path, message: MUST_NOT }]));
}
