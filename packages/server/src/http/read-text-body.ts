import { ApiError } from './errors.js';

/** The part of a request's payload stream this reader uses (Fastify hands parsers the raw request, or a preParsing hook's stream). */
interface Payload {
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  on(event: 'end' | 'error', listener: (error?: Error) => void): unknown;
  removeListener(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  removeListener(event: 'end' | 'error', listener: (error?: Error) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

const tooLarge = (limit: number, what: string): ApiError => new ApiError('body_too_large', `${what} takes at most ${limit} bytes`, { limit });

/**
 * A request body as UTF-8 text, at most `limit` bytes: a declared `content-length` past the limit is
 * refused before a byte is read, and a body that grows past it as soon as it does (413 `body_too_large`,
 * naming the limit). Bytes are gathered and decoded once at the end, so a character split between two
 * chunks is read whole.
 */
export function readTextBody(payload: Payload, declaredLength: string | undefined, limit: number, what: string): Promise<string> {
  if (Number(declaredLength) > limit) return Promise.reject(tooLarge(limit, what));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    // Only this reader's own listeners are removed: the server's stay on the request.
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
    };
    function onData(chunk: Buffer | string): void {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > limit) {
        stop();
        // The rest is never read: the answer closes the connection.
        payload.pause();
        reject(tooLarge(limit, what));
        return;
      }
      chunks.push(bytes);
    }
    function onEnd(): void {
      stop();
      resolve(Buffer.concat(chunks, received).toString('utf8'));
    }
    function onError(error?: Error): void {
      stop();
      reject(error ?? new Error('the request body could not be read'));
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
}
