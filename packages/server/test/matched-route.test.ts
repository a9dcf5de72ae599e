import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { matchedRoute, registerMatchedRoute } from '../src/http/matched-route.js';

describe('matchedRoute', () => {
  it("gives the matched route's options as Fastify does, read once for every hook of a request", async () => {
    const app = Fastify({ logger: false });
    registerMatchedRoute(app);
    const seen: Array<{ url: string | undefined; same: boolean; method: string | undefined }> = [];
    app.addHook('onRequest', (request, _reply, done) => {
      const first = matchedRoute(request);
      seen.push({ url: first.url, same: matchedRoute(request) === first, method: first.method as string | undefined });
      // Fastify's own getter agrees (and builds a new object each time).
      expect(request.routeOptions.url).toBe(first.url);
      expect(request.routeOptions).not.toBe(request.routeOptions);
      done();
    });
    app.addHook('preHandler', (request, _reply, done) => {
      seen.push({ url: matchedRoute(request).url, same: true, method: undefined });
      done();
    });
    app.get('/v2/items/:itemId', { schema: { params: { type: 'object', properties: { itemId: { type: 'string' } } } } }, (request) => ({
      url: matchedRoute(request).url,
      hasParams: matchedRoute(request).schema?.params !== undefined,
    }));
    try {
      const found = await app.inject({ url: '/v2/items/42' });
      expect(found.json()).toEqual({ url: '/v2/items/:itemId', hasParams: true });
      expect(seen).toEqual([
        { url: '/v2/items/:itemId', same: true, method: 'GET' },
        { url: '/v2/items/:itemId', same: true, method: undefined },
      ]);
      seen.length = 0;
      // A path no route matches: no pattern, and each request reads its own route.
      expect((await app.inject({ url: '/v2/nothing' })).statusCode).toBe(404);
      // (Fastify's not-found handler runs the app's onRequest and preHandler hooks too.)
      expect(seen).toEqual([
        { url: undefined, same: true, method: undefined },
        { url: undefined, same: true, method: undefined },
      ]);
      expect((await app.inject({ url: '/v2/items/7' })).json()).toEqual({ url: '/v2/items/:itemId', hasParams: true });
    } finally {
      await app.close();
    }
  });
});
