import Fastify, { type FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryWindowCounter, type WindowCounter } from '@eql/x402';
import { requestLimits, type RequestLimitsOptions } from '../src/metering/request-limits.js';

const WINDOW_MS = 60_000;

/** A Fastify app with the limiter: `/limited/:who` is bounded to `max` a window per `who`, `/free` is not bounded. */
function limitedApp(counter: WindowCounter, max = 3, overrides: Partial<RequestLimitsOptions> = {}): FastifyInstance {
  const app = Fastify({ logger: false });
  app.addHook(
    'preHandler',
    requestLimits({
      counter,
      windowMs: WINDOW_MS,
      boundOf: (request) => {
        const who = (request.params as { who?: string }).who;
        return who === undefined ? undefined : { key: `who:${who}`, max };
      },
      refusal: (_request, bound, ttlMs) => Object.assign(new Error(`more than ${bound.max}; retry in ${Math.ceil(ttlMs / 1000)} s`), { statusCode: 429 }),
      ...overrides,
    }),
  );
  app.get('/limited/:who', () => ({ ok: true }));
  app.get('/free', () => ({ ok: true }));
  return app;
}

describe('requestLimits', () => {
  it('counts a key in fixed windows: headers on every bounded answer, a 429 with retry-after past the bound, a new window after it ends', async () => {
    let now = 1_000_000;
    const app = limitedApp(new MemoryWindowCounter({ now: () => now }));
    try {
      for (let count = 1; count <= 3; count += 1) {
        const answer = await app.inject({ url: '/limited/a' });
        expect(answer.statusCode).toBe(200);
        expect(answer.headers['x-ratelimit-limit']).toBe('3');
        expect(answer.headers['x-ratelimit-remaining']).toBe(String(3 - count));
        // Seconds left in the window, rounded up: 60, 49.5 → 50, 39.
        expect(answer.headers['x-ratelimit-reset']).toBe(['60', '50', '39'][count - 1]);
        expect(answer.headers['retry-after']).toBeUndefined();
        now += 10_500;
      }
      // 31.5 s into the window: the fourth is refused, and told when the window ends (28.5 s → 29 s).
      const refused = await app.inject({ url: '/limited/a' });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ message: 'more than 3; retry in 29 s' });
      expect(refused.headers['x-ratelimit-limit']).toBe('3');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers['x-ratelimit-reset']).toBe('29');
      expect(refused.headers['retry-after']).toBe('29');
      // Another key has its own window; an unbounded route is neither counted nor marked.
      expect((await app.inject({ url: '/limited/b' })).headers['x-ratelimit-remaining']).toBe('2');
      const free = await app.inject({ url: '/free' });
      expect(free.statusCode).toBe(200);
      expect(free.headers['x-ratelimit-limit']).toBeUndefined();
      // The window ends 60 s after its first request: the next request opens a new one.
      now = 1_000_000 + WINDOW_MS;
      const next = await app.inject({ url: '/limited/a' });
      expect(next.statusCode).toBe(200);
      expect(next.headers['x-ratelimit-remaining']).toBe('2');
      expect(next.headers['x-ratelimit-reset']).toBe('60');
    } finally {
      await app.close();
    }
  });

  it('waits for a counter that answers with a promise (a shared database), and fails the request with what the counter threw or rejected', async () => {
    const memory = new MemoryWindowCounter();
    const later: WindowCounter = {
      hit: async (key, windowMs) => {
        await new Promise((resolve) => setImmediate(resolve));
        return memory.hit(key, windowMs);
      },
      unhit: (key) => memory.unhit(key),
      peek: (key) => memory.peek(key),
    };
    const app = limitedApp(later, 1);
    try {
      const first = await app.inject({ url: '/limited/a' });
      expect([first.statusCode, first.headers['x-ratelimit-remaining']]).toEqual([200, '0']);
      const second = await app.inject({ url: '/limited/a' });
      expect([second.statusCode, second.headers['retry-after']]).toEqual([429, '60']);
    } finally {
      await app.close();
    }
    for (const hit of [
      () => {
        throw new Error('counter broke');
      },
      () => Promise.reject(new Error('counter broke')),
    ]) {
      const broken = limitedApp({ hit, unhit: () => undefined, peek: () => ({ count: 0, ttlMs: 0 }) });
      try {
        const answer = await broken.inject({ url: '/limited/a' });
        expect(answer.statusCode).toBe(500);
        expect(answer.json()).toMatchObject({ message: 'counter broke' });
        // The handler did not run.
        expect(answer.body).not.toContain('"ok"');
      } finally {
        await broken.close();
      }
    }
  });

  it('admits and refuses as a reference fixed-window model does, for any sequence of keys and instants', async () => {
    type Step = { who: 'a' | 'b' | 'c'; advanceMs: number };
    const step = fc.record({ who: fc.constantFrom<Step['who']>('a', 'b', 'c'), advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30_000 }), fc.constant(WINDOW_MS)) });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(step, { maxLength: 40 }), async (max, steps) => {
        let now = 0;
        const app = limitedApp(new MemoryWindowCounter({ now: () => now }), max);
        // The model: a window opens with the first request of a key after the previous one ended.
        const windows = new Map<string, { start: number; count: number }>();
        try {
          for (const { who, advanceMs } of steps) {
            now += advanceMs;
            let window = windows.get(who);
            if (!window || now >= window.start + WINDOW_MS) windows.set(who, (window = { start: now, count: 0 }));
            window.count += 1;
            const answer = await app.inject({ url: `/limited/${who}` });
            const reset = String(Math.ceil((window.start + WINDOW_MS - now) / 1000));
            expect(answer.statusCode).toBe(window.count > max ? 429 : 200);
            expect(answer.headers['x-ratelimit-remaining']).toBe(String(Math.max(0, max - window.count)));
            expect(answer.headers['x-ratelimit-reset']).toBe(reset);
            expect(answer.headers['retry-after']).toBe(window.count > max ? reset : undefined);
          }
        } finally {
          await app.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
