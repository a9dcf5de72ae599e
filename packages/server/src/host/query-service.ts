import { createHash } from 'node:crypto';
import { canonicalJson, type ConditionState, estimateCost, formatIsoTime, isoConditionState, isRecord, isTradeFlavouredQuery, lifetimeOf, type QueryRequest, randomUuid, validate, type ValidateOptions, type ValidationResult } from '@eql/core';
import type { HostContext } from '../context.js';
import { ApiError, type ErrorCode } from '../http/errors.js';
import type { ApiKeyRecord, QueryRecord, StoredExecution } from '../store/records.js';
import { limitsOf } from '../settings/plans.js';

/** How long a validate counts for a later create of the same body, and an exchange check for a trade create. */
export const CALL_ORDER_WINDOW_MS = 24 * 3_600_000;

/** Hash of a request body that ignores formatting and key order (what "the same body" means). */
export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** Deepest nesting of a request body: far beyond any query, far below what JSON.stringify survives. */
export const MAX_BODY_DEPTH = 256;

/**
 * Whether a parsed JSON value nests deeper than `limit`. It recurses, but never deeper than `limit` + 1
 * levels whatever the value (it stops there), so hostile input cannot exhaust the stack; and it allocates
 * nothing (a body is checked on every create and validate).
 */
function nestsDeeperThan(value: unknown, limit: number, depth = 1): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > limit) return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) if (nestsDeeperThan(value[index], limit, depth + 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (Object.hasOwn(record, key) && nestsDeeperThan(record[key], limit, depth + 1)) return true;
  return false;
}

/** The body of a query-request route: a JSON object, else 400 (also when it nests absurdly deep). */
export function requestBody(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) throw new ApiError('invalid_request', 'the body must be a JSON object such as {"query": {...}}');
  if (nestsDeeperThan(body, MAX_BODY_DEPTH)) throw new ApiError('invalid_request', `the body nests more than ${MAX_BODY_DEPTH} levels deep`);
  return body;
}

export function invalidQuery(result: ValidationResult, code: ErrorCode = 'invalid_query'): ApiError {
  const first = result.errors[0] ?? 'the query is not valid';
  return new ApiError(code, `the query is not valid: ${first}${result.errors.length > 1 ? ` (and ${result.errors.length - 1} more)` : ''}`, {
    errors: result.errors,
    warnings: result.warnings,
    diagnostics: result.diagnostics,
  });
}

/** What validation knows of this host: the data its feeds serve, and whether webhooks may target private hosts (EQL_ALLOW_PRIVATE_WEBHOOKS). */
export type HostValidation = Pick<ValidateOptions, 'served' | 'allowPrivateWebhooks'>;

/** The host's part of every validation of a query (validate, create, drafts, the payment model): {@link HostValidation}. */
export function hostValidation(context: HostContext): HostValidation {
  return { served: context.runner.served(), allowPrivateWebhooks: context.config.allowPrivateWebhooks };
}

/**
 * Validates a body for create in a payment model's mode, with the cost estimate: 400 `invalid_query`
 * with the findings; on the payment model, a query whose only problems are trade actions is a 422
 * `action_not_allowed` (spec 4.5: "actions limited to webhook, notify, messenger_bot, llm").
 */
export function checkForCreate(
  body: unknown,
  mode: 'api-key' | 'payment',
  now: number,
  host: HostValidation = {},
): ValidationResult & Required<Pick<ValidationResult, 'estimatedCost' | 'simulationLlmCallsEstimate'>> {
  const result = validate(body, { mode, now, ...host });
  if (!result.valid) {
    const codes = new Set(result.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').map((diagnostic) => diagnostic.code));
    if (mode === 'payment' && codes.size === 1 && codes.has('trade-in-payment-mode')) throw invalidQuery(result, 'action_not_allowed');
    // A well-formed query this host cannot serve: 422 with the finding's code, nothing charged.
    const unservable = [...codes].find((code) => UNSERVABLE.has(code));
    if (unservable !== undefined && [...codes].every((code) => UNSERVABLE.has(code) || code === 'trade-in-payment-mode')) throw invalidQuery(result, unservable.replaceAll('-', '_') as 'unserved_symbol' | 'unserved_timeframe' | 'lookback_exceeds_lifetime');
    throw invalidQuery(result);
  }
  const cost = result.estimatedCost && result.simulationLlmCallsEstimate ? { estimatedCost: result.estimatedCost, simulationLlmCallsEstimate: result.simulationLlmCallsEstimate } : estimateCost((body as QueryRequest).query);
  return { ...result, ...cost };
}

/** Validation codes of queries that are well formed but that this host cannot serve (answered 422). */
const UNSERVABLE = new Set(['unserved-symbol', 'unserved-timeframe', 'lookback-exceeds-lifetime']);

/** Spec 2.5: what create answers. */
export interface CreatedQuery {
  queryId: string;
  status: 'active';
  estimatedCredits: number;
  simulationLlmCallsEstimate: NonNullable<ValidationResult['simulationLlmCallsEstimate']>;
}

export interface CreateOptions {
  /** Enforce "validate, then create" (spec 3): the same body was validated by this key before. */
  requireValidation: boolean;
  idempotencyKey?: string;
  fromDraft?: string;
  /** The payment model (spec 4.5): trade actions refused (422), the estimate paid up front, not charged to a ledger. */
  mode?: 'api-key' | 'payment';
  /** Runs after every check and before the query is stored (the payment model settles here). */
  beforeCommit?: () => Promise<void>;
}

/**
 * Creates a query (spec 3: validate, then create): validates it (400 with the findings), enforces the
 * call order (409 `validate_first`; for trade actions 409 `check_exchanges_first` until the exchange
 * list was read, 422 `exchange_not_connected`), caps active queries (422), charges the estimate,
 * stores it and hands it to the engine. An Idempotency-Key replays the first answer.
 */
export async function createQuery(context: HostContext, key: ApiKeyRecord, body: Record<string, unknown>, options: CreateOptions): Promise<{ created: CreatedQuery; replayed: boolean }> {
  const { store } = context;
  if (options.idempotencyKey !== undefined) {
    const earlier = await store.queryByIdempotencyKey(key.id, options.idempotencyKey);
    if (earlier) {
      if (bodyHash(earlier.request) !== bodyHash(body)) throw new ApiError('idempotency_key_reused', 'this Idempotency-Key was used with another body');
      return { created: createdOf(earlier), replayed: true };
    }
  }
  const mode = options.mode ?? 'api-key';
  const result = checkForCreate(body, mode, context.now(), hostValidation(context));
  const request = body as unknown as QueryRequest;
  const since = new Date(context.now() - CALL_ORDER_WINDOW_MS).toISOString();
  if (options.requireValidation && !(await store.validatedSince(key.id, bodyHash(body), since))) {
    throw new ApiError('validate_first', 'validate this exact query with POST /v2/auto/queries/validate before creating it');
  }
  const tradeFlavoured = isTradeFlavouredQuery(request.query);
  if (tradeFlavoured) await checkExchanges(context, key, request, since);
  const most = limitsOf(context.config.plans, key.plan).maxActiveQueries;
  if ((await store.countActiveQueries(key.id)) >= most) {
    throw new ApiError('too_many_active_queries', `a ${key.plan} key runs at most ${most} active queries; cancel some first`);
  }
  const now = context.now();
  const record: QueryRecord = {
    id: randomUuid(),
    keyId: key.id,
    request,
    status: 'active',
    tradeFlavoured,
    estimatedCredits: result.estimatedCost.credits,
    credits: result.estimatedCost.credits,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + lifetimeOf(request.query)).toISOString(),
    cancelledAt: null,
    deletedAt: null,
    runtime: null,
    fromDraft: options.fromDraft ?? null,
  };
  await options.beforeCommit?.();
  try {
    await store.insertQuery(record, options.idempotencyKey);
  } catch (error) {
    // Two requests with one Idempotency-Key at once: the store keeps the first; the second replays it.
    const first = options.idempotencyKey === undefined ? undefined : await store.queryByIdempotencyKey(key.id, options.idempotencyKey);
    if (!first) throw error;
    if (bodyHash(first.request) !== bodyHash(body)) throw new ApiError('idempotency_key_reused', 'this Idempotency-Key was used with another body');
    return { created: createdOf(first), replayed: true };
  }
  await store.charge(key.id, record.credits, mode === 'payment' ? 'create (x402)' : 'create', record.id, record.createdAt);
  context.runner.add(record);
  return { created: createdOf(record, result.simulationLlmCallsEstimate), replayed: false };
}

async function checkExchanges(context: HostContext, key: ApiKeyRecord, request: QueryRequest, since: string): Promise<void> {
  if (!(await context.store.exchangesCheckedSince(key.id, since))) {
    throw new ApiError('check_exchanges_first', 'this query places orders: list your exchanges with GET /v2/auto/exchanges before creating it');
  }
  const connected = new Set(['paper', ...(await context.store.exchangesOf(key.id)).map((record) => record.exchange)]);
  for (const action of request.query.actions) {
    const params = action.type === 'llm' ? action.params.callback?.action.params : action.params;
    const exchange = isRecord(params) && typeof params.exchange === 'string' ? params.exchange : undefined;
    if (exchange !== undefined && !connected.has(exchange)) {
      throw new ApiError('exchange_not_connected', `step ${action.stepId} trades on ${exchange}, which this key has not connected (POST /v2/auto/exchanges)`);
    }
  }
}

function createdOf(record: QueryRecord, estimate?: CreatedQuery['simulationLlmCallsEstimate']): CreatedQuery {
  const simulationLlmCallsEstimate = estimate ?? validate(record.request, { mode: 'api-key', now: Date.parse(record.createdAt), allowPrivateWebhooks: true }).simulationLlmCallsEstimate;
  return {
    queryId: record.id,
    status: 'active',
    estimatedCredits: record.estimatedCredits,
    simulationLlmCallsEstimate: simulationLlmCallsEstimate ?? {
      conditionCallsUpperBound: 0,
      actionCallsUpperBound: 0,
      conditionCallsBySpeed: { fast: 0, expert: 0, adaptive: 0 },
      actionCallsBySpeed: { fast: 0, expert: 0, adaptive: 0 },
    },
  };
}

/** An execution as the API shows it (spec 2.6 plus its step, trigger and timing). */
export function executionView(execution: StoredExecution): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: execution.id,
    queryId: execution.queryId,
    type: execution.type,
    status: execution.status,
    stepId: execution.stepId,
    triggerIndex: execution.triggerIndex,
    attempts: execution.attempts,
    createdAt: execution.createdAt,
    finishedAt: execution.finishedAt ?? null,
  };
  if (execution.error) view.error = execution.error;
  if (execution.result) view.result = execution.result;
  return view;
}

/** Condition states with their instants as ISO 8601 strings, like every time of the API. */
export function isoStates(state: ConditionState): Record<string, unknown> {
  return isoConditionState(state);
}

/** Spec 2.6: the polled query. */
export async function pollView(context: HostContext, record: QueryRecord, executions: StoredExecution[]): Promise<Record<string, unknown>> {
  const inspection = await context.runner.inspect(record.id);
  const runtime = record.runtime;
  const status = inspection && record.status === 'active' ? inspection.status : record.status;
  const evaluatedAt = inspection ? inspection.evaluatedAt : Date.parse(record.createdAt);
  return {
    queryId: record.id,
    status,
    credits: record.credits,
    latestEvaluation: {
      evaluatedAt: formatIsoTime(evaluatedAt),
      wouldTriggerNow: inspection?.wouldTriggerNow ?? false,
      conditionStates: (inspection?.conditionStates ?? []).map(isoStates),
    },
    executions: executions.map(executionView),
    title: record.request.title ?? null,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    triggerCount: inspection?.triggerCount ?? runtime?.triggerCount ?? 0,
    lastTriggeredAt: inspection?.lastTriggerAt !== undefined ? formatIsoTime(inspection.lastTriggerAt) : runtime?.lastTriggerAt !== undefined ? formatIsoTime(runtime.lastTriggerAt) : null,
    cancelledAt: record.cancelledAt,
  };
}
