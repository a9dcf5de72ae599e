import fastifyStatic from '@fastify/static';
import { consoleBuilt, consoleDir } from '@eql/console';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.js';

/**
 * Everything the console page (and its language worker) may load or reach: its own files and this host,
 * nothing else (no CDN, no inline script, no evaluated code: the EQL schema is compiled ahead of time).
 * CodeMirror sets styles inline, hence 'unsafe-inline' for styles only.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The web console at `/console/` (packages/console, built by `npm run build`): static files with a strict
 * content security policy. Without a build, `/console` answers 503 `console_not_built` saying how to make it.
 */
export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  if (!consoleBuilt()) {
    app.get('/console', { schema: { hide: true } }, () => {
      throw new ApiError('console_not_built', 'the web console is not built: run `npm run build` (npm install does it), then start the host again');
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: consoleDir,
    prefix: '/console/',
    index: ['index.html'],
    decorateReply: false,
    cacheControl: false,
    // Hashed asset names never change: cached for good; index.html is checked every time.
    setHeaders: (response, path) => {
      response.setHeader('content-security-policy', CONSOLE_CSP);
      response.setHeader('x-content-type-options', 'nosniff');
      response.setHeader('referrer-policy', 'no-referrer');
      response.setHeader('cache-control', /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console/'));
}
