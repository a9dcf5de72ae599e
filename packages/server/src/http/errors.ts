import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ModelError } from '@eql/llm';
import { PaymentHttpError } from '@eql/x402';
import { databaseTrouble } from './database-unavailable.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export { ERROR_CODES, type ErrorCode, isErrorCode } from './error-codes.js';

/** `Retry-After` of a 503 for the database (seconds): a PostgreSQL restart takes a few. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * Every error of the host has one body: `{success: false, error: {code, message, details?}}`, with a
 * stable snake_case code (http/error-codes.ts, the catalogue; docs/http-api.md lists them). Handlers throw ApiError; the error handler
 * turns anything else into a 4xx when it is the client's doing, never a 500 for bad input.
 */
export class ApiError extends Error {
  /** The status of the code (http/error-codes.ts). */
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = ERROR_CODES[code];
  }
}

export interface ErrorBody {
  success: false;
  error: { code: string; message: string; details?: unknown };
}

/** The error body of a code of the catalogue. */
export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  return bodyOf(code, message, details);
}

/** The body of any code: the catalogue's, or the payment model's own (x402's codes). */
function bodyOf(code: string, message: string, details?: unknown): ErrorBody {
  return details === undefined ? { success: false, error: { code, message } } : { success: false, error: { code, message, details } };
}

/**
 * What a list route throws when its store failed to read a page: a cursor the host did not give is the
 * caller's doing (400 invalid_cursor); the database being down, or a failure without a cursor, is not.
 */
export function pageError(error: unknown, cursor: string | undefined): unknown {
  return cursor && !databaseTrouble(error) ? new ApiError('invalid_cursor', 'the cursor is not one this host gave') : error;
}

export const notFound = (what: string): ApiError => new ApiError('not_found', `${what} not found`);

/** Fastify's own errors mapped to statuses and codes people can act on. */
function classify(error: FastifyError): { status: number; code: ErrorCode; message: string; details?: unknown } {
  if (error.validation) {
    // A query parameter the route does not declare (http/strict-query.ts): one code, naming it.
    const unknown = error.validationContext === 'querystring' ? error.validation.find((issue) => issue.keyword === 'additionalProperties') : undefined;
    const parameter = unknown?.params.additionalProperty;
    if (typeof parameter === 'string') {
      return { status: 400, code: 'unknown_parameter', message: `unknown query parameter "${parameter}": this route does not take it`, details: { parameter } };
    }
    return {
      status: 400,
      code: 'invalid_request',
      message: `invalid request: ${error.message}`,
      details: error.validation.map((issue) => ({ path: issue.instancePath, message: issue.message })),
    };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'body_too_large', message: 'the request body is larger than the host accepts' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type', message: 'send the body as application/json' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'invalid_json', message: 'the body is empty; send a JSON object' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'invalid_json', message: error.message };
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status === 429) return { status, code: 'rate_limited', message: error.message };
  if (status >= 400 && status < 500) return { status, code: 'bad_request', message: error.message };
  return { status: 500, code: 'internal_error', message: 'the host failed to handle the request' };
}

export function handleError(error: FastifyError | ApiError | PaymentHttpError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ModelError) {
    // The language model did not answer: the upstream's fault, said so (the message carries no secret).
    const code = error.code.toLowerCase() as Lowercase<typeof error.code>;
    return reply.status(ERROR_CODES[code]).send(errorBody(code, error.message));
  }
  if (error instanceof ApiError) {
    if (error.headers) void reply.headers(error.headers);
    return reply.status(error.statusCode).send(errorBody(error.code, error.message, error.details));
  }
  if (error instanceof PaymentHttpError) return reply.status(error.statusCode).send(bodyOf(error.code, error.message));
  const trouble = databaseTrouble(error);
  if (trouble) {
    // Not the request's fault nor a bug: the database restarts, is cut off or is held up. Logged as a
    // warning (an outage makes many), answered so that clients retry.
    request.log.warn({ err: error }, `database ${trouble}`);
    const body = trouble === 'busy' ? errorBody('database_busy', 'the database did not answer in time; retry shortly') : errorBody('database_unavailable', 'the database cannot be reached now; retry shortly');
    return reply.status(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).send(body);
  }
  const classified = classify(error);
  if (classified.status >= 500) request.log.error({ err: error }, 'unhandled error');
  return reply.status(classified.status).send(errorBody(classified.code, classified.message, classified.details));
}
