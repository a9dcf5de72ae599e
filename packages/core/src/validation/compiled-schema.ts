import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { eqlSchema } from '../generated/eql-schema.js';
import type { QueryRequest } from '../generated/eql-types.js';

let detailed: ValidateFunction<QueryRequest> | undefined;

/**
 * The detailed build of the request schema as ajv compiles it at run time (on first use): all errors,
 * each with its schema node. `validate` runs the builds compiled ahead of time instead (schema-check.ts);
 * this is for callers that want ajv's ValidateFunction with its schema, and it loads ajv's compiler.
 */
export function compiledRequestSchema(): ValidateFunction<QueryRequest> {
  if (detailed) return detailed;
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true,
    discriminator: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    keywords: ['x-diagnostics', 'tsType'],
  });
  addFormats.default(ajv, ['date-time']);
  detailed = ajv.compile<QueryRequest>(eqlSchema);
  return detailed;
}
