import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../http/errors.js';
import type { HostMetrics } from '../observability/host-metrics.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * `GET /metrics`: the Prometheus text format. With a token, a scrape without `Authorization: Bearer
 * <token>` gets a 401 (compared in constant time, over digests so the length does not show either).
 */
export function metricsRoute(app: FastifyInstance, metrics: HostMetrics, token?: string): void {
  const expected = token === undefined ? undefined : digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected !== undefined) {
      const header = request.headers.authorization ?? '';
      const sent = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
      if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
        return reply
          .status(401)
          .header('www-authenticate', 'Bearer realm="metrics"')
          .send(errorBody('metrics_token_required', 'GET /metrics needs Authorization: Bearer <EQL_METRICS_TOKEN>'));
      }
    }
    const { text, contentType } = await metrics.scrape();
    return reply.type(contentType).send(text);
  });
}
