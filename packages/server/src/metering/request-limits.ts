import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { WindowCount, WindowCounter } from '@eql/x402';

/** The bound of one request: at most `max` requests a window under `key`. */
export interface RequestBound {
  /** What the request counts under (`key:<id>`, `ip:<address>`). */
  key: string;
  /** Requests allowed a window under that key. */
  max: number;
}

/** Options of {@link requestLimits}. */
export interface RequestLimitsOptions {
  /** Where the windows are counted: this process's memory, or a table every host of a database shares. */
  counter: WindowCounter;
  /** The length of a window, in milliseconds. */
  windowMs: number;
  /** The bound of a request, or `undefined` when the request is not limited. */
  boundOf: (request: FastifyRequest) => RequestBound | undefined;
  /** The error a request past its bound fails with (a 429); `ttlMs` is the time left in the window. */
  refusal: (request: FastifyRequest, bound: RequestBound, ttlMs: number) => Error;
}

/**
 * A `preHandler` hook that bounds requests a window per key, in fixed windows (the first request of a
 * key opens a window, later ones in it add up). Every limited answer carries `x-ratelimit-limit`,
 * `x-ratelimit-remaining` and `x-ratelimit-reset` (seconds left in the window); a request past the bound
 * fails with `refusal` and `retry-after` too. Requests that are not limited are neither counted nor
 * marked.
 *
 * The host used `@fastify/rate-limit`, with the same headers and the same fixed windows; this hook counts
 * in the `WindowCounter` contract the x402 bounds use too (in memory, or PostgreSQL's table shared by the
 * hosts of a database). It answers synchronously when the counter does, and waits only for a counter that
 * answers with a promise (docs/decisions.md, "The request limiter is the host's own hook").
 */
export function requestLimits(options: RequestLimitsOptions): preHandlerHookHandler {
  const { counter, windowMs, boundOf, refusal } = options;
  const answer = (request: FastifyRequest, reply: FastifyReply, bound: RequestBound, window: WindowCount): Error | undefined => {
    const reset = String(Math.ceil(window.ttlMs / 1000));
    const past = window.count > bound.max;
    void reply.header('x-ratelimit-limit', String(bound.max));
    void reply.header('x-ratelimit-remaining', past ? '0' : String(bound.max - window.count));
    void reply.header('x-ratelimit-reset', reset);
    if (!past) return undefined;
    void reply.header('retry-after', reset);
    return refusal(request, bound, window.ttlMs);
  };
  return function limitRequest(request, reply, done) {
    const bound = boundOf(request);
    if (bound === undefined) return done();
    let counted: WindowCount | Promise<WindowCount>;
    try {
      counted = counter.hit(bound.key, windowMs);
    } catch (error) {
      return done(error as Error);
    }
    if (counted instanceof Promise) {
      counted.then(
        (window) => done(answer(request, reply, bound, window)),
        (error: unknown) => done(error as Error),
      );
      return;
    }
    done(answer(request, reply, bound, counted));
  };
}
