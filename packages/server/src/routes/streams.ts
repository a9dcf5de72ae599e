import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerKey } from '../auth/authenticate.js';
import type { HostContext } from '../context.js';
import { ApiError, notFound } from '../http/errors.js';
import type { StreamSlot } from '../sse/hub.js';
import { S } from './schemas.js';

const TERMINAL = new Set(['triggered', 'expired', 'cancelled', 'failed']);

function lastEventId(request: FastifyRequest): number {
  const header = request.headers['last-event-id'];
  const raw = (Array.isArray(header) ? header[0] : header) ?? (request.query as { lastEventId?: string }).lastEventId;
  if (raw === undefined || raw === '') return 0;
  if (!/^[0-9]{1,15}$/.test(raw)) throw new ApiError('invalid_last_event_id', 'Last-Event-ID must be a notification id (a whole number)');
  return Number(raw);
}

/** The wait a refused stream is told to take (`retry-after`): a slot is free as soon as another of the key's streams closes. */
const STREAM_SLOT_RETRY_SECONDS = 1;

/** One of the caller's stream slots (429 `too_many_streams` when it has the most it may have open). */
async function reserveStream(context: HostContext, keyId: number): Promise<StreamSlot> {
  const slot = await context.hub.reserve(keyId);
  if (slot) return slot;
  const limit = context.hub.maxStreamsPerKey;
  throw new ApiError('too_many_streams', `this API key already has ${limit} event streams open, the most it may: close one first (the all-queries stream, GET /v2/auto/queries/stream, follows every query over one connection)`, { limit }, { 'retry-after': String(STREAM_SLOT_RETRY_SECONDS) });
}

/**
 * Spec 6: SSE streams of one query and of all the caller's queries. A query stream answers 404 for an
 * unknown query, 410 Gone for a deleted one, and 204 No Content (which tells EventSource clients to
 * stop reconnecting) for a query that is done and has nothing more after Last-Event-ID; a live one
 * streams until the query is done, then sends `event: end` and closes. A key has at most
 * `maxStreamsPerKey` streams open at once, on all the hosts of a PostgreSQL database together (429
 * beyond); a stream's slot is free again when it closes.
 */
export function streamRoutes(app: FastifyInstance, context: HostContext): void {
  app.get('/v2/auto/queries/stream', { schema: S.allStream }, async (request, reply) => {
    const key = callerKey(request);
    const after = lastEventId(request);
    const slot = await reserveStream(context, key.id);
    reply.hijack();
    await context.hub.open(reply.raw, { keyId: key.id }, after, {}, slot);
  });

  app.get('/v2/auto/queries/:queryId/stream', { schema: S.queryStream }, async (request, reply) => {
    const key = callerKey(request);
    const { queryId } = request.params as { queryId: string };
    // Taken before the lookups, so that requests arriving together cannot pass the cap; given back when no stream opens.
    const slot = await reserveStream(context, key.id);
    let status: string;
    let after: number;
    try {
      const record = await context.store.queryById(queryId);
      if (!record || record.keyId !== key.id) throw notFound(`query ${queryId}`);
      if (record.deletedAt !== null) throw new ApiError('query_deleted', `query ${queryId} was deleted`);
      after = lastEventId(request);
      status = (await context.runner.inspect(queryId))?.status ?? record.status;
      if (TERMINAL.has(status) && (await context.store.countNotificationsAfter(key.id, after, queryId)) === 0) {
        slot.release();
        return reply.status(204).send();
      }
    } catch (error) {
      slot.release();
      throw error;
    }
    const done = TERMINAL.has(status);
    reply.hijack();
    await context.hub.open(reply.raw, { keyId: key.id, queryId }, after, { queryId, status }, slot);
    if (done) context.hub.end(queryId, status);
  });
}
