import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MaybePromise } from '@eql/core';
import type { HostContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import type { ApiKeyRecord } from '../store/records.js';
import { findKey } from './api-keys.js';
import { matchedRoute } from '../http/matched-route.js';
import { limitsOf } from '../settings/plans.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's key, set by `authenticate`. */
    apiKey?: ApiKeyRecord;
    /** Credits this request charged (reported in `x-svc-credits-used`). */
    creditsUsed?: number;
  }
}

/**
 * Declares the request's caller slots (`apiKey`, `creditsUsed`), once when the app is built, so that every
 * request has one shape: a property added to a request later changes its hidden class on the hot path.
 */
export function registerCallerSlots(app: FastifyInstance): void {
  app.decorateRequest('apiKey', undefined);
  app.decorateRequest('creditsUsed', undefined);
}

/**
 * Whether a request is on an Auto route. Judged on the route Fastify matched (its pattern), not on the
 * raw URL: the router decodes percent-escapes, so `/v2/%61uto/exchanges` reaches `/v2/auto/exchanges`.
 */
export function isAutoRequest(request: FastifyRequest): boolean {
  const pattern = matchedRoute(request).url;
  return (pattern ?? request.url.split('?')[0] ?? '').startsWith('/v2/auto');
}

/**
 * The caller's key in a handler of an authenticated route; 401 when the request reached the handler
 * without going through `authenticate` (a non-canonical spelling of the path, such as `/%762/...`).
 */
export function callerKey(request: FastifyRequest): ApiKeyRecord {
  if (!request.apiKey) throw new ApiError('missing_api_key', 'this request was not authenticated: send x-svc-api-key to the route\'s canonical path');
  return request.apiKey;
}

let lastDay = { start: NaN, end: NaN, text: '' };

/** The UTC day of an instant, `YYYY-MM-DD` (remembered for the current day). */
export function dayOf(epochMs: number): string {
  if (epochMs >= lastDay.start && epochMs < lastDay.end) return lastDay.text;
  const start = Math.floor(epochMs / 86_400_000) * 86_400_000;
  lastDay = { start, end: start + 86_400_000, text: new Date(start).toISOString().slice(0, 10) };
  return lastDay.text;
}

/**
 * Spec 5.1: `x-svc-api-key` on every /v2 route but ping. Missing or unknown → 401; a disabled or
 * expired key → 401; a key without Auto on an /v2/auto route → 403. Each authenticated request counts
 * against the key's daily and monthly quotas (429 past them, unless the plan allows overage up to its
 * maximum). Answers synchronously when the store and the counts do (the common case), else a promise.
 */
export function authenticate(context: HostContext) {
  const limit = (key: ApiKeyRecord, usage: { daily: number; monthly: number }): void => {
    const plan = limitsOf(context.config.plans, key.plan);
    const overage = plan.allowOverage ? plan.maxOverage : 0;
    if (usage.daily > plan.dailyRequestLimit) {
      throw new ApiError('daily_quota_exceeded', `the daily request limit of ${plan.dailyRequestLimit} is used up`, undefined, { 'retry-after': String(secondsToTomorrow(context.now())) });
    }
    if (usage.monthly > plan.monthlyRequestLimit + overage) {
      throw new ApiError('monthly_quota_exceeded', `the monthly request limit of ${plan.monthlyRequestLimit}${overage > 0 ? ` (+${overage} overage)` : ''} is used up`);
    }
  };
  const admit = (request: FastifyRequest, key: ApiKeyRecord | undefined): MaybePromise<void> => {
    if (!key || key.status !== 'active') throw new ApiError('invalid_api_key', 'the API key is not valid');
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= context.now()) throw new ApiError('expired_api_key', 'the API key has expired');
    if (isAutoRequest(request) && !key.autoEnabled) throw new ApiError('auto_not_enabled', 'Auto is not enabled for this API key');
    request.apiKey = key;
    const day = dayOf(context.now());
    const counted = context.usage.countLoaded(key.id, day);
    if (counted) return limit(key, counted);
    return context.usage.count(key.id, day).then((usage) => limit(key, usage));
  };
  return (request: FastifyRequest): MaybePromise<void> => {
    const header = request.headers['x-svc-api-key'];
    const presented = Array.isArray(header) ? header[0] : header;
    if (presented === undefined || presented === '') throw new ApiError('missing_api_key', 'send your API key in the x-svc-api-key header');
    const found = findKey(context.store, presented);
    return found instanceof Promise ? found.then((key) => admit(request, key)) : admit(request, found);
  };
}

function secondsToTomorrow(now: number): number {
  const tomorrow = new Date(now);
  tomorrow.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((tomorrow.getTime() - now) / 1000));
}
