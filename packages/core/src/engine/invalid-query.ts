import type { ErrorObject } from '../validation/schema-check.js';

/** One reason a request cannot run: where (a JSON pointer into the request) and what is wrong. */
export interface InvalidQueryProblem {
  pointer: string;
  message: string;
}

/**
 * Thrown by `Engine.add` for a request that does not conform to the EQL schema (or that the engine
 * cannot build): the query is not added. `validate(request)` gives the full diagnostics with codes and
 * fixes; validate before adding, as the host does.
 */
export class InvalidQueryError extends Error {
  constructor(
    readonly queryId: string,
    readonly problems: readonly InvalidQueryProblem[],
  ) {
    const first = problems[0];
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    super(`query ${queryId} cannot run: ${first ? `${first.pointer || '/'}: ${first.message}` : 'it is not a valid EQL request'}${more}; validate(request) says why in full`);
    this.name = 'InvalidQueryError';
  }

  /** From ajv's errors of the request schema. */
  static fromSchemaErrors(queryId: string, errors: readonly ErrorObject[]): InvalidQueryError {
    return new InvalidQueryError(queryId, errors.map((error) => ({ pointer: error.instancePath, message: error.message ?? 'does not conform to the schema' })));
  }
}
