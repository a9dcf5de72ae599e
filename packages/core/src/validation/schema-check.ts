import type { ErrorObject } from 'ajv/dist/2020.js';
import { validate as detailedAhead } from '../generated/eql-validate-detailed.js';
import { validate as fastAhead } from '../generated/eql-validate-fast.js';

/**
 * The schema of the query request, in two builds:
 * - the detailed one reports every error at once (editors show them all) and is `verbose`, so errors
 *   carry the schema node that failed (its `x-diagnostics` annotation gives the code and message);
 * - the fast one stops at the first error, for the common case of a valid document. It measures strings
 *   in UTF-16 units (`.length`), not in code points: never fewer, so at a maxLength it refuses at least what
 *   the schema refuses, and a document it refuses goes to the detailed build, which counts code points and
 *   decides. (Its minLength agrees while no minimum exceeds 1: codegen checks it.) Counting code points
 *   was the fast build's largest single cost. Only its verdict is read, so codegen leaves out its errors:
 *   the error objects, the instance path handed to each nested call, the schema nodes only errors name, and
 *   the support of keywords the schema does not use (`$dynamicRef`, `unevaluated*`). Its code is a third of
 *   ajv's, and what a valid document runs sits in fewer cache lines.
 * Both use discriminators, so a condition with a known `source` is checked only against its shape.
 *
 * Both are compiled ahead of time (`npm run codegen` writes ajv's standalone code): nothing is compiled
 * when a process starts, and the validator runs where code may not be evaluated (a page or worker with a
 * strict content security policy), and ajv's compiler is not loaded (`@eql/core/ajv` compiles the
 * detailed build, for callers that want ajv's ValidateFunction with its schema).
 */
type AheadValidate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
const fast = fastAhead as AheadValidate;
const detailedBuild = detailedAhead as AheadValidate;
/** Whether the document conforms to the schema (the fast build: it stops at the first error). */
export function conformsToSchema(document: unknown): boolean {
  return fast(document);
}

/** No error: one shared frozen list. */
const NO_ERRORS: readonly ErrorObject[] = Object.freeze([]);

/** Runs the schema; returns ajv's raw errors, all of them (empty when the document conforms). */
export function checkRequestSchema(document: unknown): readonly ErrorObject[] {
  if (conformsToSchema(document)) return NO_ERRORS;
  return detailedBuild(document) ? [] : [...(detailedBuild.errors ?? [])];
}

export type { ErrorObject };
