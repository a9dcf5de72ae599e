/**
 * `@eql/core/ajv`: the request schema compiled by ajv at run time, for callers that want ajv's
 * ValidateFunction with its schema. `@eql/core`'s `validate` does not need it (its validators are compiled
 * ahead of time) and does not load ajv's compiler.
 *
 * @packageDocumentation
 */
export { compiledRequestSchema } from './validation/compiled-schema.js';
