import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerKey } from '../auth/authenticate.js';
import type { HostContext } from '../context.js';
import { ApiError, notFound } from '../http/errors.js';
import { S } from './schemas.js';

const TERMINAL = new Set(['triggered', 'expired', 'cancelled', 'failed']);

function lastEventId(request: FastifyRequest): number {
  const header = request.headers['last-event-id'];
  const raw = (Array.isArray(header) ? header[0] : header) ?? (request.query as { lastEventId?: string }).lastEventId;
  if (raw === undefined || raw === '') return 0;
  if (!/^[0-9]{1,15}$/.test(raw)) throw new ApiError(400, 'invalid_last_event_id', 'Last-Event-ID must be a notification id (a whole number)');
  return Number(raw);
}

/**
 * Spec 6: SSE streams of one query and of all the caller's queries. A query stream answers 404 for an
 * unknown query, 410 Gone for a deleted one, and 204 No Content (which tells EventSource clients to
 * stop reconnecting) for a query that is done and has nothing more after Last-Event-ID; a live one
 * streams until the query is done, then sends `event: end` and closes.
 */
export function streamRoutes(app: FastifyInstance, context: HostContext): void {
  app.get('/v2/auto/queries/stream', { schema: S.allStream }, async (request, reply) => {
    const key = callerKey(request);
    const after = lastEventId(request);
    reply.hijack();
    await context.hub.open(reply.raw, { keyId: key.id }, after, {});
  });

  app.get('/v2/auto/queries/:queryId/stream', { schema: S.queryStream }, async (request, reply) => {
    const key = callerKey(request);
    const { queryId } = request.params as { queryId: string };
    const record = await context.store.queryById(queryId);
    if (!record || record.keyId !== key.id) throw notFound(`query ${queryId}`);
    if (record.deletedAt !== null) throw new ApiError(410, 'query_deleted', `query ${queryId} was deleted`);
    const after = lastEventId(request);
    const status = context.host.engine.inspect(queryId)?.status ?? record.status;
    const done = TERMINAL.has(status);
    if (done && (await context.store.countNotificationsAfter(key.id, after, queryId)) === 0) return reply.status(204).send();
    reply.hijack();
    await context.hub.open(reply.raw, { keyId: key.id, queryId }, after, { queryId, status });
    if (done) context.hub.end(queryId, status);
  });
}
