import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** What an incoming X-Request-Id may be: a plain token (a UUID, a proxy's hex id, `trace-01.a_b`), 1 to 128 characters. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The id of a request: the caller's `X-Request-Id` when it is a plain token, else a new UUID (a value
 * with spaces, quotes or control characters could forge log fields or headers, and is not repeated).
 */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** Sends the request's id back in `X-Request-Id`, on every answer (errors included). */
export function echoRequestId(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  void reply.header('x-request-id', request.id);
  done(null, payload);
}
