import type { FastifyInstance } from 'fastify';
import { PLANS } from '../config.js';
import { callerKey, dayOf } from '../auth/authenticate.js';
import type { HostContext } from '../context.js';
import { S } from './schemas.js';

/** Spec 4.1: ping (no auth) and key-status. */
export function systemRoutes(app: FastifyInstance, context: HostContext): void {
  app.get('/v2/ping', { schema: S.ping }, () => ({ success: true, data: { message: 'pong' } }));

  app.get('/v2/key-status', { schema: S.keyStatus }, async (request) => {
    const key = callerKey(request);
    const plan = PLANS[key.plan];
    const day = dayOf(context.now());
    const usage = await context.usage.usage(key.id, day);
    const credits = await context.store.creditsUsed(key.id, day);
    const expired = key.expiresAt !== null && Date.parse(key.expiresAt) <= context.now();
    return {
      success: true,
      data: {
        id: key.id,
        key: key.keyPrefix,
        name: key.name,
        status: key.status,
        dailyRequestLimit: plan.dailyRequestLimit,
        monthlyRequestLimit: plan.monthlyRequestLimit,
        // Spec 4.1 types these as strings: a key without one omits the field (never null).
        ...(key.expiresAt === null ? {} : { expiresAt: key.expiresAt }),
        createdAt: key.createdAt,
        updatedAt: key.updatedAt,
        requestsPerMinute: plan.requestsPerMinute,
        ...(key.email === null ? {} : { email: key.email }),
        ...(key.project === null ? {} : { project: key.project }),
        allowOverage: plan.allowOverage,
        maxOverage: plan.maxOverage,
        tier: plan.tier,
        usage: { monthly: usage.monthly, daily: usage.daily },
        limits: { monthly: plan.monthlyRequestLimit, daily: plan.dailyRequestLimit },
        isExpired: expired,
        remainingRequests: { monthly: Math.max(0, plan.monthlyRequestLimit - usage.monthly), daily: Math.max(0, plan.dailyRequestLimit - usage.daily) },
        autoEnabled: key.autoEnabled,
        creditsUsed: credits,
      },
    };
  });
}
