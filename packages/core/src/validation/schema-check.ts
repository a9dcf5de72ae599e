import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { eqlSchema } from '../generated/eql-schema.js';
import type { QueryRequest } from '../generated/eql-types.js';

/**
 * The compiled schema of the query request, in two builds, each compiled once on first use:
 * - the detailed one reports every error at once (editors show them all) and is `verbose`, so errors
 *   carry the schema node that failed (its `x-diagnostics` annotation gives the code and message);
 * - the fast one stops at the first error, for the common case of a valid document.
 * Both use discriminators, so a condition with a known `source` is checked only against its shape.
 */
let detailed: ValidateFunction<QueryRequest> | undefined;
let fast: ValidateFunction<QueryRequest> | undefined;

function compile(reportAll: boolean): ValidateFunction<QueryRequest> {
  const ajv = new Ajv2020({
    allErrors: reportAll,
    verbose: reportAll,
    discriminator: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    keywords: ['x-diagnostics', 'tsType'],
  });
  addFormats.default(ajv, ['date-time']);
  return ajv.compile<QueryRequest>(eqlSchema);
}

/** The detailed build: all errors, each with its schema node. */
export function compiledRequestSchema(): ValidateFunction<QueryRequest> {
  detailed ??= compile(true);
  return detailed;
}

/** Runs the schema; returns ajv's raw errors, all of them (empty when the document conforms). */
export function checkRequestSchema(document: unknown): ErrorObject[] {
  fast ??= compile(false);
  if (fast(document)) return [];
  const validate = compiledRequestSchema();
  return validate(document) ? [] : [...(validate.errors ?? [])];
}

export type { ErrorObject };
