import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { eqlSchema } from '../generated/eql-schema.js';
import type { QueryRequest } from '../generated/eql-types.js';

/**
 * The compiled schema of the query request. Compiled once, on first use, and shared by every caller.
 * Options: every error at once (editors show them all), discriminators so a condition with a known
 * `source` is only checked against that source's shape, and `verbose` so errors carry the schema node
 * that failed (its `x-diagnostics` annotation gives the code and message people see).
 */
let compiled: ValidateFunction<QueryRequest> | undefined;

export function compiledRequestSchema(): ValidateFunction<QueryRequest> {
  if (compiled === undefined) {
    const ajv = new Ajv2020({
      allErrors: true,
      discriminator: true,
      verbose: true,
      strict: true,
      strictRequired: false,
      allowUnionTypes: true,
      keywords: ['x-diagnostics', 'tsType'],
    });
    addFormats.default(ajv, ['date-time']);
    compiled = ajv.compile<QueryRequest>(eqlSchema);
  }
  return compiled;
}

/** Runs the schema; returns ajv's raw errors (empty when the document conforms). */
export function checkRequestSchema(document: unknown): ErrorObject[] {
  const validate = compiledRequestSchema();
  return validate(document) ? [] : [...(validate.errors ?? [])];
}

export type { ErrorObject };
