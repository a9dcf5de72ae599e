import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isRecord, isTradeFlavouredQuery, preview, type PreviewPaperOptions, type QueryRequest, randomUuid, validate } from '@eql/core';
import { callerKey } from '../auth/authenticate.js';
import type { HostContext } from '../context.js';
import { ApiError, notFound, pageError } from '../http/errors.js';
import { TEXT_FORM_ROUTE } from '../http/text-form-body.js';
import { createQuery, hostValidation, invalidQuery, requestBody } from '../host/query-service.js';
import { maskRequestSecrets, restoreMaskedSecrets, SECRET_MASK, type SecretRequired } from '../store/request-secrets.js';
import type { DraftRecord } from '../store/records.js';
import { S } from './schemas.js';

/** 400 secret_required: masks sent where no stored secret may be kept, each named by its JSON pointer. */
function secretRequired(required: readonly SecretRequired[]): ApiError {
  const paths = required.map((entry) => entry.path).join(', ');
  return new ApiError('secret_required', `send the secret again, not ${SECRET_MASK}, at ${paths}: a masked secret is kept only for its stored destination`, required);
}

/**
 * Drafts (spec 4.4): work in progress, stored as given (an invalid draft is kept, with its findings),
 * validated, previewed and converted into an active query on demand. Update by
 * `POST /v2/auto/queries/drafts/{draftId}` (or `?draftId=` on unsigned requests).
 */
export function draftRoutes(app: FastifyInstance, context: HostContext): void {
  const { store } = context;

  const ownDraft = async (keyId: number, draftId: string): Promise<DraftRecord> => {
    const draft = await store.draftById(draftId);
    if (!draft || draft.keyId !== keyId) throw notFound(`draft ${draftId}`);
    return draft;
  };

  const upsert = async (request: FastifyRequest, draftId: string | undefined) => {
    const given = requestBody(request.body);
    const key = callerKey(request);
    const now = new Date(context.now()).toISOString();
    const existing = draftId === undefined ? undefined : await ownDraft(key.id, draftId);
    if (existing?.convertedQueryId) throw new ApiError('draft_converted', `draft ${existing.id} was converted into query ${existing.convertedQueryId}`);
    // A draft read back shows its secrets masked: an update that sends the mask back keeps the stored
    // secret only while its destination is unchanged; elsewhere the secret must be sent again.
    const restored = restoreMaskedSecrets(given, existing?.request);
    if (!restored.ok) throw secretRequired(restored.required);
    const body = restored.request;
    const query = isRecord(body.query) ? body.query : {};
    const draft: DraftRecord = {
      id: existing?.id ?? randomUuid(),
      keyId: key.id,
      request: body as unknown as QueryRequest,
      tradeFlavoured: isTradeFlavouredQuery(query),
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
      convertedQueryId: null,
    };
    await store.upsertDraft(draft);
    return { draftId: draft.id, created: existing === undefined, createdAt: draft.createdAt, updatedAt: draft.updatedAt, validation: validate(body, { now: context.now(), ...hostValidation(context) }) };
  };

  // Without `draftId` a new draft; `?draftId=` updates one, on unsigned requests (a signature does not cover the query string).
  app.post('/v2/auto/queries/drafts', { schema: S.upsertDraft, config: TEXT_FORM_ROUTE }, (request) => upsert(request, (request.query as { draftId?: string }).draftId));
  // Updates the named draft: the id is in the path, which a signature covers.
  app.post('/v2/auto/queries/drafts/:draftId', { schema: S.updateDraft, config: TEXT_FORM_ROUTE }, (request) => upsert(request, (request.params as { draftId: string }).draftId));

  app.get('/v2/auto/queries/drafts', { schema: S.listDrafts }, async (request) => {
    const key = callerKey(request);
    const { limit, cursor } = request.query as { limit?: number; cursor?: string };
    let page;
    try {
      page = await store.listDrafts(key.id, { limit: limit ?? 20, ...(cursor ? { cursor } : {}) });
    } catch (error) {
      throw pageError(error, cursor);
    }
    return {
      drafts: page.items.map((draft) => ({
        draftId: draft.id,
        title: draft.request.title ?? null,
        tradeFlavoured: draft.tradeFlavoured,
        createdAt: draft.createdAt,
        updatedAt: draft.updatedAt,
        convertedQueryId: draft.convertedQueryId,
      })),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  });

  app.get('/v2/auto/queries/drafts/:draftId', { schema: S.draft }, async (request) => {
    const draft = await ownDraft(callerKey(request).id, (request.params as { draftId: string }).draftId);
    // Bot tokens and webhook header values are secrets: never echoed (docs/http-api.md).
    return { draftId: draft.id, request: maskRequestSecrets(draft.request), createdAt: draft.createdAt, updatedAt: draft.updatedAt, convertedQueryId: draft.convertedQueryId };
  });

  app.delete('/v2/auto/queries/drafts/:draftId', { schema: S.deleteDraft }, async (request) => {
    const draft = await ownDraft(callerKey(request).id, (request.params as { draftId: string }).draftId);
    await store.deleteDraft(draft.id);
    return { id: draft.id, deletedAt: new Date(context.now()).toISOString() };
  });

  app.post('/v2/auto/queries/drafts/:draftId/validate', { schema: S.validateDraft }, async (request) => {
    const draft = await ownDraft(callerKey(request).id, (request.params as { draftId: string }).draftId);
    return validate(draft.request, { mode: 'api-key', now: context.now(), ...hostValidation(context) });
  });

  app.post('/v2/auto/queries/drafts/:draftId/convert', { schema: S.convertDraft }, async (request, reply) => {
    const key = callerKey(request);
    const draft = await ownDraft(key.id, (request.params as { draftId: string }).draftId);
    if (draft.convertedQueryId) throw new ApiError('draft_converted', `draft ${draft.id} was already converted into query ${draft.convertedQueryId}`);
    const result = validate(draft.request, { mode: 'api-key', now: context.now(), ...hostValidation(context) });
    if (!result.valid) throw invalidQuery(result, 'draft_invalid');
    // Converting is the explicit step that activates a validated draft: no separate validate call is needed.
    const { created } = await createQuery(context, key, draft.request as unknown as Record<string, unknown>, { requireValidation: false, fromDraft: draft.id });
    await store.markDraftConverted(draft.id, created.queryId);
    request.creditsUsed = created.estimatedCredits;
    return reply.status(201).send(created);
  });

  app.post('/v2/auto/queries/drafts/:draftId/preview', { schema: S.previewDraft }, async (request) => {
    const draft = await ownDraft(callerKey(request).id, (request.params as { draftId: string }).draftId);
    const result = validate(draft.request, { now: context.now(), allowPrivateWebhooks: context.config.allowPrivateWebhooks });
    if (!result.valid) throw invalidQuery(result, 'draft_invalid');
    return preview(draft.request, context.runner.recording, { queryId: draft.id, paper: paperOf(request.query as PaperQuery), renew: (request.query as PaperQuery).renew === true });
  });

  app.post('/v2/auto/queries/preview', { schema: S.preview, config: TEXT_FORM_ROUTE }, (request) => {
    const body = requestBody(request.body);
    const { from, to } = request.query as { from?: string; to?: string } & PaperQuery;
    const result = validate({ query: body.query }, { now: context.now(), allowPrivateWebhooks: context.config.allowPrivateWebhooks });
    if (!result.valid) throw invalidQuery(result);
    const options: { from?: number; to?: number; paper: PreviewPaperOptions; renew: boolean } = { paper: paperOf(request.query as PaperQuery), renew: (request.query as PaperQuery).renew === true };
    for (const [name, value] of [['from', from], ['to', to]] as const) {
      if (value === undefined) continue;
      const time = Date.parse(value);
      if (Number.isNaN(time)) throw new ApiError('invalid_request', `${name} must be an ISO 8601 time`);
      options[name] = time;
    }
    if (options.from !== undefined && options.to !== undefined && options.from > options.to) throw new ApiError('invalid_request', 'from must not be after to');
    return preview({ query: body.query as QueryRequest['query'] }, context.runner.recording, options);
  });
}

/** The paper account of a preview's query string (its schema checks the ranges). */
interface PaperQuery {
  renew?: boolean;
  fee?: number;
  slippage?: number;
  deposit?: number;
}

/** Percents to the fractions the preview takes. */
function paperOf(query: PaperQuery): PreviewPaperOptions {
  const paper: PreviewPaperOptions = {};
  if (query.fee !== undefined) paper.feeRate = query.fee / 100;
  if (query.slippage !== undefined) paper.slippage = query.slippage / 100;
  if (query.deposit !== undefined) paper.depositUsd = query.deposit;
  return paper;
}
