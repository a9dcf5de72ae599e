import type { FastifyReply, FastifyRequest } from 'fastify';
import { PaymentHttpError } from '../../src/index.js';

/** The error body of the EQL host, which the test apps answer with too. */
export function errorBody(code: string, message: string): { success: false; error: { code: string; message: string } } {
  return { success: false, error: { code, message } };
}

/** The test apps' error handler: gate errors with their status and code, anything else a 500. */
export function handleError(error: Error, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof PaymentHttpError) return reply.status(error.statusCode).send(errorBody(error.code, error.message));
  return reply.status(500).send(errorBody('internal_error', 'the host failed to handle the request'));
}
