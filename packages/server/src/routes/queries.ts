import type { FastifyInstance } from 'fastify';
import { formatIsoTime, parseInstant, validate } from '@eql/core';
import { callerKey } from '../auth/authenticate.js';
import type { HostContext } from '../context.js';
import { ApiError, notFound, pageError } from '../http/errors.js';
import { TEXT_FORM_ROUTE } from '../http/text-form-body.js';
import { cancelQuery, deleteQuery, sessionOfQuery, sessionsOfQuery } from '../host/query-actions.js';
import { bodyHash, createQuery, executionView, hostValidation, pollView, requestBody } from '../host/query-service.js';
import { ValidationMemo } from '../host/validation-memo.js';
import type { QueryStatus } from '../store/records.js';
import { S } from './schemas.js';

const STATUSES: readonly QueryStatus[] = ['active', 'triggered', 'expired', 'cancelled', 'failed'];

/** Spec 4.4: validate, create, poll, cancel, delete, list. */
export function queryRoutes(app: FastifyInstance, context: HostContext): void {
  const { store } = context;
  // A request validated again and again is written to the store once per 10 minutes (the window of create
  // is 24 hours). The memo names it by the digest of its canonical JSON, the store's own name for it: a
  // copy with other whitespace, another key order or in the text form is the same entry, and an entry's
  // size does not depend on the body's. It holds at most VALIDATION_MEMO_MAX_BYTES.
  const recentValidations = new ValidationMemo({ windowMs: 600_000 });
  const rememberValidation = async (keyId: number, body: unknown): Promise<void> => {
    const now = context.now();
    const digest = bodyHash(body);
    const name = `${keyId}:${digest}`;
    if (recentValidations.isFresh(name, now)) return;
    await store.rememberValidation(keyId, digest, formatIsoTime(now));
    // Remembered once written: a write that failed is tried again by the next validate.
    recentValidations.remember(name, now);
  };

  app.post('/v2/auto/queries/validate', { schema: S.validate, config: TEXT_FORM_ROUTE }, async (request) => {
    const body = requestBody(request.body);
    const key = callerKey(request);
    const result = validate(body, { mode: 'api-key', now: context.now(), ...hostValidation(context) });
    if (result.valid) await rememberValidation(key.id, body);
    return result;
  });

  app.post('/v2/auto/queries', { schema: S.create, config: TEXT_FORM_ROUTE }, async (request, reply) => {
    const key = callerKey(request);
    const idempotencyKey = request.headers['idempotency-key'];
    const { created, replayed } = await createQuery(context, key, requestBody(request.body), {
      requireValidation: true,
      ...(typeof idempotencyKey === 'string' && idempotencyKey !== '' ? { idempotencyKey } : {}),
    });
    if (!replayed) request.creditsUsed = created.estimatedCredits;
    return reply.status(replayed ? 200 : 201).send(created);
  });

  app.get('/v2/auto/queries', { schema: S.listQueries }, async (request) => {
    const key = callerKey(request);
    const query = request.query as { status?: QueryStatus; limit?: number; cursor?: string };
    if (query.status !== undefined && !STATUSES.includes(query.status)) throw new ApiError('invalid_request', `status must be one of ${STATUSES.join(', ')}`);
    let page;
    try {
      page = await store.listQueries(key.id, { limit: query.limit ?? 20, ...(query.status ? { status: query.status } : {}), ...(query.cursor ? { cursor: query.cursor } : {}) });
    } catch (error) {
      throw pageError(error, query.cursor);
    }
    return {
      queries: page.items.map((record) => ({
        queryId: record.id,
        title: record.request.title ?? null,
        status: record.status,
        credits: record.credits,
        tradeFlavoured: record.tradeFlavoured,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
        fromDraft: record.fromDraft,
      })),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  });

  app.get('/v2/auto/queries/:queryId', { schema: S.poll }, async (request) => {
    const { queryId } = request.params as { queryId: string };
    const key = callerKey(request);
    const record = await store.queryById(queryId);
    if (record && record.keyId === key.id && record.deletedAt === null) return pollView(context, record, await store.executionsOfQuery(queryId));
    // Spec 4.4: poll also resolves a draft id. A converted draft resolves to the query it became (a status
    // of spec 3); one not converted yet has none of spec 3's statuses (it was never created) and answers
    // `draft`, marked kind "draft"; never evaluated, its latestEvaluation is null (docs/http-api.md).
    const draft = await store.draftById(queryId);
    if (draft && draft.keyId === key.id) {
      const converted = draft.convertedQueryId === null ? undefined : await store.queryById(draft.convertedQueryId);
      if (converted && converted.deletedAt === null) return { ...(await pollView(context, converted, await store.executionsOfQuery(converted.id))), draftId: draft.id };
      return {
        queryId: draft.id,
        kind: 'draft',
        draftId: draft.id,
        status: 'draft',
        credits: 0,
        latestEvaluation: null,
        executions: [],
        ...(typeof draft.request.title === 'string' ? { title: draft.request.title } : {}),
        createdAt: draft.createdAt,
        updatedAt: draft.updatedAt,
        ...(draft.convertedQueryId === null ? {} : { convertedQueryId: draft.convertedQueryId }),
      };
    }
    throw notFound(`query ${queryId}`);
  });

  app.post('/v2/auto/queries/:queryId/cancel', { schema: S.cancel }, async (request) => {
    const { queryId } = request.params as { queryId: string };
    return cancelQuery(context, callerKey(request).id, queryId);
  });

  app.delete('/v2/auto/queries/:queryId', { schema: S.delete }, async (request) => {
    const { queryId } = request.params as { queryId: string };
    return deleteQuery(context, callerKey(request).id, queryId);
  });

  app.get('/v2/auto/executions', { schema: S.listExecutions }, async (request) => {
    const key = callerKey(request);
    const query = request.query as { queryId?: string; status?: string; type?: string; since?: string; until?: string; limit?: number; cursor?: string };
    const bounds: { since?: number; until?: number } = {};
    for (const bound of ['since', 'until'] as const) {
      const text = query[bound];
      if (text === undefined) continue;
      const time = parseInstant(text);
      if (time === undefined) throw new ApiError('invalid_request', `${bound} must be an ISO 8601 time with a zone or epoch milliseconds`);
      bounds[bound] = time;
    }
    if (bounds.since !== undefined && bounds.until !== undefined && bounds.since > bounds.until) throw new ApiError('invalid_request', 'since is after until: the range is reversed');
    let page;
    try {
      page = await store.listExecutions({
        keyId: key.id,
        limit: query.limit ?? 50,
        ...(query.queryId ? { queryId: query.queryId } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.type ? { type: query.type } : {}),
        ...(bounds.since !== undefined ? { since: new Date(bounds.since).toISOString() } : {}),
        ...(bounds.until !== undefined ? { until: new Date(bounds.until).toISOString() } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      });
    } catch (error) {
      throw pageError(error, query.cursor);
    }
    return { executions: page.items.map(executionView), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });

  app.get('/v2/auto/executions/:executionId', { schema: S.execution }, async (request) => {
    const { executionId } = request.params as { executionId: string };
    const execution = await store.executionById(executionId);
    if (!execution || execution.keyId !== callerKey(request).id) throw notFound(`execution ${executionId}`);
    return executionView(execution);
  });

  app.get('/v2/auto/queries/:queryId/sessions', { schema: S.sessions }, async (request) => {
    const { queryId } = request.params as { queryId: string };
    return sessionsOfQuery(context, callerKey(request).id, queryId);
  });

  app.get('/v2/auto/queries/:queryId/sessions/:sessionId', { schema: S.session }, async (request) => {
    const { queryId, sessionId } = request.params as { queryId: string; sessionId: string };
    return sessionOfQuery(context, callerKey(request).id, queryId, sessionId);
  });
}
