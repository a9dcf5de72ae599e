import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as sent: what HMAC signatures cover. */
    rawBody?: string;
  }
}

/**
 * JSON bodies are kept as text too (signatures cover the exact bytes) and parsed with a message that
 * says where the JSON broke. Fastify's `text/plain` parser is removed: no route takes plain text, and a
 * JSON body sent as `text/plain` (curl without `-H 'content-type: application/json'`) gets the 415 that
 * says which type to send, not "body must be object".
 */
export function registerRawJson(app: FastifyInstance): void {
  // Declared, so that requests with and without a body keep one shape (the text-form parser sets it too).
  app.decorateRequest('rawBody', undefined);
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    request.rawBody = text;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch (error) {
      done(new ApiError('invalid_json', `the body is not valid JSON: ${(error as Error).message}`), undefined);
    }
  });
}
