/**
 * JSON schemas of the routes: they validate parameters (a bad one is a 400 before any handler runs),
 * drive response serialization, and generate the OpenAPI document (schemas/openapi.json). Response
 * objects keep `additionalProperties: true` where the spec allows more fields than it shows.
 */

import { errorResponses as errors } from './error-schemas.js';

const callsBySpeed = {
  type: 'object',
  properties: { fast: { type: 'integer' }, expert: { type: 'integer' }, adaptive: { type: 'integer' } },
  required: ['fast', 'expert', 'adaptive'],
} as const;

const llmEstimate = {
  type: 'object',
  properties: {
    conditionCallsUpperBound: { type: 'integer' },
    actionCallsUpperBound: { type: 'integer' },
    conditionCallsBySpeed: callsBySpeed,
    actionCallsBySpeed: callsBySpeed,
  },
  required: ['conditionCallsUpperBound', 'actionCallsUpperBound', 'conditionCallsBySpeed', 'actionCallsBySpeed'],
} as const;

const diagnostic = {
  type: 'object',
  properties: { code: { type: 'string' }, severity: { type: 'string' }, message: { type: 'string' }, path: { type: 'string' }, fix: { type: 'object', additionalProperties: true } },
  required: ['code', 'severity', 'message', 'path'],
} as const;

/** The Last-Event-ID of an SSE stream as a query parameter, for clients that cannot set headers. */
const lastEventIdQuery = { type: 'object', properties: { lastEventId: { type: 'string', description: 'Last-Event-ID for clients that cannot set headers' } }, additionalProperties: false } as const;

/** Spec 2.4. */
export const validationResult = {
  type: 'object',
  description: 'Spec 2.4, plus diagnostics with JSON pointers and codes',
  properties: {
    valid: { type: 'boolean' },
    errors: { type: 'array', items: { type: 'string' } },
    warnings: { type: 'array', items: { type: 'string' } },
    simulationLlmCallsEstimate: llmEstimate,
    estimatedCost: { type: 'object', properties: { credits: { type: 'integer' }, price: { type: 'string', pattern: '^\\$[0-9]+\\.[0-9]+$' } }, required: ['credits', 'price'] },
    diagnostics: { type: 'array', items: diagnostic },
  },
  required: ['valid', 'errors', 'warnings'],
} as const;

const queryRequestBody = {
  type: 'object',
  description: 'Spec 2.1: the query request (schemas/eql.schema.json). Checked by the EQL validator, which reports every problem.',
  additionalProperties: true,
} as const;

const queryId = { type: 'object', properties: { queryId: { type: 'string', maxLength: 128 } }, required: ['queryId'] } as const;
const draftId = { type: 'object', properties: { draftId: { type: 'string', maxLength: 128 } }, required: ['draftId'] } as const;
/** The paper account a preview's order steps trade in (docs/http-api.md, "Preview"): percents and USD, as `eql preview` takes them. */
const paperAccount = {
  fee: { type: 'number', minimum: 0, maximum: 10, description: 'Fee per fill, in percent of its notional (0.05 is 5 bp); default 0.' },
  slippage: { type: 'number', minimum: 0, maximum: 10, description: 'Market orders and exits fill this percent worse than the replayed price; default 0.' },
  deposit: { type: 'number', exclusiveMinimum: 0, maximum: 1e12, description: 'The paper account, in USD; default 10000.' },
  renew: { type: 'boolean', description: 'Create the query again each time it expires, so that a run longer than its lifetime trades to the end; default false.' },
} as const;

const paging = { limit: { type: 'integer', minimum: 1, maximum: 100 }, cursor: { type: 'string', maxLength: 512 } } as const;

const execution = {
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'string' },
    queryId: { type: 'string' },
    type: { type: 'string' },
    status: { type: 'string', enum: ['running', 'succeeded', 'failed'] },
    stepId: { type: 'string' },
    triggerIndex: { type: 'integer' },
    attempts: { type: 'integer' },
    createdAt: { type: 'string' },
    finishedAt: { type: ['string', 'null'] },
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
    result: { type: 'object', additionalProperties: true },
  },
  required: ['id', 'queryId', 'type', 'status', 'createdAt'],
} as const;

const created = {
  type: 'object',
  description: 'Spec 2.5',
  properties: { queryId: { type: 'string', format: 'uuid' }, status: { type: 'string', const: 'active' }, estimatedCredits: { type: 'integer' }, simulationLlmCallsEstimate: llmEstimate },
  required: ['queryId', 'status', 'estimatedCredits', 'simulationLlmCallsEstimate'],
} as const;

const conditionState = { type: 'object', additionalProperties: true, properties: { path: { type: 'string' }, holds: { type: 'boolean' } } } as const;

const polled = {
  type: 'object',
  description: 'Spec 2.6. A draft id resolves too: a converted draft as the query it became (with draftId), one not converted yet with kind "draft" and status "draft"',
  additionalProperties: true,
  properties: {
    queryId: { type: 'string' },
    status: { type: 'string' },
    credits: { type: 'integer' },
    latestEvaluation: {
      type: ['object', 'null'],
      properties: { evaluatedAt: { type: 'string' }, wouldTriggerNow: { type: 'boolean' }, conditionStates: { type: 'array', items: conditionState } },
    },
    executions: { type: 'array', items: execution },
  },
  required: ['queryId', 'status', 'credits', 'latestEvaluation', 'executions'],
} as const;

const tags = (...names: string[]) => ({ tags: names });

export const S = {
  ping: { ...tags('system'), response: { 200: { type: 'object', properties: { success: { type: 'boolean' }, data: { type: 'object', properties: { message: { type: 'string' } } } } } } },
  keyStatus: { ...tags('system'), response: { 200: { type: 'object', additionalProperties: true, properties: { success: { type: 'boolean' }, data: { type: 'object', additionalProperties: true } } }, ...errors(401) } },
  validate: { ...tags('auto'), body: queryRequestBody, response: { 200: validationResult, ...errors(400, 401, 403, 429) } },
  create: {
    ...tags('auto'),
    body: queryRequestBody,
    headers: { type: 'object', properties: { 'idempotency-key': { type: 'string', maxLength: 200 } } },
    response: { 200: created, 201: created, ...errors(400, 401, 403, 409, 422, 429) },
  },
  listQueries: {
    ...tags('auto'),
    querystring: { type: 'object', properties: { status: { type: 'string' }, ...paging }, additionalProperties: false },
    response: { 200: { type: 'object', properties: { queries: { type: 'array', items: { type: 'object', additionalProperties: true } }, nextCursor: { type: 'string' } }, required: ['queries'] }, ...errors(400, 401) },
  },
  poll: { ...tags('auto'), params: queryId, response: { 200: polled, ...errors(401, 404) } },
  cancel: {
    ...tags('auto'),
    params: queryId,
    response: { 200: { type: 'object', properties: { id: { type: 'string' }, status: { type: 'string', const: 'cancelled' }, cancelledAt: { type: 'string' } }, required: ['id', 'status', 'cancelledAt'] }, ...errors(401, 404, 409) },
  },
  delete: {
    ...tags('auto'),
    params: queryId,
    response: { 200: { type: 'object', properties: { id: { type: 'string' }, deletedAt: { type: 'string' } }, required: ['id', 'deletedAt'] }, ...errors(401, 404, 409) },
  },
  listExecutions: {
    ...tags('auto'),
    querystring: {
      type: 'object',
      properties: { queryId: { type: 'string' }, status: { type: 'string', enum: ['running', 'succeeded', 'failed'] }, type: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, ...paging },
      additionalProperties: false,
    },
    response: { 200: { type: 'object', properties: { executions: { type: 'array', items: execution }, nextCursor: { type: 'string' } }, required: ['executions'] }, ...errors(400, 401) },
  },
  execution: { ...tags('auto'), params: { type: 'object', properties: { executionId: { type: 'string' } }, required: ['executionId'] }, response: { 200: execution, ...errors(401, 404) } },
  sessions: {
    ...tags('auto'),
    params: queryId,
    response: {
      200: {
        type: 'object',
        properties: {
          queryId: { type: 'string' },
          sessions: { type: 'array', items: { type: 'object', properties: { sessionId: { type: 'string' }, status: { type: ['string', 'null'] }, executedAt: { type: ['string', 'null'] } } } },
        },
        required: ['queryId', 'sessions'],
      },
      ...errors(401, 404),
    },
  },
  session: {
    ...tags('auto'),
    params: { type: 'object', properties: { queryId: { type: 'string' }, sessionId: { type: 'string' } }, required: ['queryId', 'sessionId'] },
    response: { 200: { type: 'object', additionalProperties: true, properties: { sessionId: { type: 'string' }, queryId: { type: 'string' }, messages: { type: 'array', items: { type: 'object', additionalProperties: true } } } }, ...errors(401, 404) },
  },
  upsertDraft: {
    ...tags('drafts'),
    body: queryRequestBody,
    querystring: { type: 'object', properties: { draftId: { type: 'string', maxLength: 128 } }, additionalProperties: false },
    response: { 200: { type: 'object', additionalProperties: true, properties: { draftId: { type: 'string' }, created: { type: 'boolean' }, validation: validationResult } }, ...errors(400, 401, 404) },
  },
  updateDraft: {
    ...tags('drafts'),
    description: 'Updates the named draft (404 when unknown); the id is in the path, which a signature covers (spec 5.2 signing path /queries/drafts/{draftId}, body signed)',
    params: draftId,
    body: queryRequestBody,
    response: { 200: { type: 'object', additionalProperties: true, properties: { draftId: { type: 'string' }, created: { type: 'boolean' }, validation: validationResult } }, ...errors(400, 401, 404, 409) },
  },
  listDrafts: {
    ...tags('drafts'),
    querystring: { type: 'object', properties: paging, additionalProperties: false },
    response: { 200: { type: 'object', properties: { drafts: { type: 'array', items: { type: 'object', additionalProperties: true } }, nextCursor: { type: 'string' } }, required: ['drafts'] }, ...errors(400, 401) },
  },
  draft: { ...tags('drafts'), params: draftId, response: { 200: { type: 'object', additionalProperties: true }, ...errors(401, 404) } },
  deleteDraft: { ...tags('drafts'), params: draftId, response: { 200: { type: 'object', properties: { id: { type: 'string' }, deletedAt: { type: 'string' } } }, ...errors(401, 404) } },
  validateDraft: { ...tags('drafts'), params: draftId, response: { 200: validationResult, ...errors(401, 404) } },
  convertDraft: { ...tags('drafts'), params: draftId, response: { 200: created, 201: created, ...errors(401, 404, 409, 422) } },
  previewDraft: { ...tags('drafts'), params: draftId, querystring: { type: 'object', properties: paperAccount, additionalProperties: false }, response: { 200: { type: 'object', additionalProperties: true }, ...errors(400, 401, 404, 409) } },
  preview: {
    ...tags('auto'),
    body: { type: 'object', properties: { query: { type: 'object', additionalProperties: true } }, required: ['query'], additionalProperties: true },
    querystring: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' }, ...paperAccount }, additionalProperties: false },
    response: { 200: { type: 'object', additionalProperties: true }, ...errors(400, 401) },
  },
  validateSymbol: {
    ...tags('exchanges'),
    params: { type: 'object', properties: { exchange: { type: 'string', maxLength: 64 }, symbol: { type: 'string', maxLength: 64 } }, required: ['exchange', 'symbol'] },
    response: { 200: { type: 'object', description: 'Spec 2.9: supported is the STRING "true" or "false"', properties: { supported: { type: 'string', enum: ['true', 'false'] } }, required: ['supported'] }, ...errors(400, 401, 403, 502) },
  },
  listExchanges: {
    ...tags('exchanges'),
    response: { 200: { type: 'object', properties: { exchanges: { type: 'array', items: { type: 'object', additionalProperties: true } }, available: { type: 'array', items: { type: 'string' } } }, required: ['exchanges'] }, ...errors(401) },
  },
  connectExchange: {
    ...tags('exchanges'),
    body: {
      type: 'object',
      properties: { exchange: { type: 'string', pattern: '^[a-z][a-z0-9_]{1,31}$' }, credentialType: { type: 'string', maxLength: 32 }, credentials: { type: 'object', additionalProperties: true } },
      required: ['exchange', 'credentialType', 'credentials'],
      additionalProperties: true,
    },
    response: { 200: { type: 'object', additionalProperties: true }, 201: { type: 'object', additionalProperties: true }, ...errors(400, 401, 403, 422, 502) },
  },
  disconnectExchange: {
    ...tags('exchanges'),
    params: { type: 'object', properties: { exchange: { type: 'string', maxLength: 64 } }, required: ['exchange'] },
    response: { 200: { type: 'object', properties: { exchange: { type: 'string' }, disconnectedAt: { type: 'string' } } }, ...errors(401, 404, 409) },
  },
  queryStream: { ...tags('streams'), params: queryId, headers: { type: 'object', properties: { 'last-event-id': { type: 'string' } } }, querystring: lastEventIdQuery },
  allStream: { ...tags('streams'), headers: { type: 'object', properties: { 'last-event-id': { type: 'string' } } }, querystring: lastEventIdQuery },
} as const;
