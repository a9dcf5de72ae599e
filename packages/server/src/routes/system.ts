import type { FastifyInstance } from 'fastify';
import { callerKey, dayOf } from '../auth/authenticate.js';
import type { HostContext } from '../context.js';
import { PgHostStore } from '../store/pg/pg-store.js';
import { S } from './schemas.js';
import { limitsOf } from '../settings/plans.js';

const READINESS = {
  type: 'object',
  required: ['status', 'store', 'queries'],
  properties: {
    status: { type: 'string', enum: ['ready', 'unavailable'] },
    reason: { type: 'string', description: 'Why the host is unavailable (with 503): it is shutting down, the store does not answer, its leases were not renewed within the TTL, the market bus is disconnected, or the feed has been silent longer than EQL_READY_MAX_FEED_AGE_MS while queries are active' },
    store: { type: 'object', required: ['kind', 'ok'], properties: { kind: { type: 'string', enum: ['sqlite', 'postgresql'] }, ok: { type: 'boolean' } } },
    queries: { type: 'integer', description: "Queries in this host's engine" },
    nodeId: { type: 'string', description: "This host's id (EQL_NODE_ID), on PostgreSQL" },
    partitions: {
      type: 'object',
      description: 'The partitions of queries this host holds, on PostgreSQL',
      properties: { owned: { type: 'array', items: { type: 'integer' } }, count: { type: 'integer' } },
    },
    feedLeader: { type: 'boolean', description: "Whether this host reads the cluster's feed into the market bus" },
    feed: {
      type: 'object',
      description: "What the host's engines take from the feed: the queries active in them, the age of the newest observation (absent before the first), and whether that is older than EQL_READY_MAX_FEED_AGE_MS while queries are active (then 503)",
      properties: { activeQueries: { type: 'integer' }, lastObservationAgeSeconds: { type: 'number' }, silent: { type: 'boolean' } },
    },
    bus: {
      type: 'object',
      description:
        'On the market bus (EQL_NATS_URL): its stream, whether this host is connected to it, and per partition held the last message handed to the engine, the last position saved, whether it is catching up on a backlog, and how many observations it judged and messages it skipped as no observation since this host took it; on the feed leader also the history recorder',
      properties: {
        stream: { type: 'string' },
        connected: { type: 'boolean', description: 'Whether this host is connected to the NATS server (false while it reconnects)' },
        positions: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: {
              handled: { type: 'integer' },
              saved: { type: 'integer' },
              catchingUp: { type: 'boolean' },
              behind: { type: 'integer', description: 'While catching up: stream sequences between the last message handed to the engine and the end the stream had when this host took the partition (0 once live)' },
              judged: { type: 'integer', description: 'Observations handed to the engine since this host took the partition' },
              malformed: { type: 'integer', description: 'Messages skipped as no observation the bus carries since this host took the partition' },
              reading: {
                type: 'string',
                enum: ['shared', 'own'],
                description: "'shared' when the partition reads in the host's one reading of the bus, 'own' while it catches up on a reading of its own (a partition taken over far behind)",
              },
            },
          },
        },
        history: {
          type: 'object',
          description: "While this host writes the cluster's price history (it leads the feed): the last message read, the position saved, the messages skipped as no observation and the ticks the database refused, since it started",
          properties: { handled: { type: 'integer' }, saved: { type: 'integer' }, malformed: { type: 'integer' }, dropped: { type: 'integer' } },
        },
      },
    },
  },
} as const;

/**
 * The feed as readiness sees it: the age of the newest observation the engines took (since the start
 * when none), and whether that is too old while queries wait on it (never with the check off, or no
 * active query: a host with nothing to judge needs no feed).
 */
function feedReadiness(context: HostContext): { activeQueries: number; lastObservationAgeSeconds?: number; silent: boolean; silentForSeconds?: number } {
  const stats = context.runner.stats();
  let newestAgeMs: number | undefined;
  for (const taken of stats.intake.values()) newestAgeMs = Math.min(newestAgeMs ?? taken.ageMs, taken.ageMs);
  const ageMs = newestAgeMs ?? context.now() - context.lifecycle.startedAt;
  const limit = context.config.readyMaxFeedAgeMs;
  const silent = limit > 0 && stats.activeQueries > 0 && ageMs > limit;
  const view = newestAgeMs === undefined ? { activeQueries: stats.activeQueries, silent } : { activeQueries: stats.activeQueries, lastObservationAgeSeconds: newestAgeMs / 1000, silent };
  return silent ? { ...view, silentForSeconds: Math.round(ageMs / 100) / 10 } : view;
}

/** `GET /ready`: 200 when the host can serve (its store answers), else 503; what it runs either way. */
const READY_SCHEMA = {
  summary: 'Readiness of this host',
  description: 'For load balancers: 200 when the host is not shutting down, the store answers, on PostgreSQL the host renewed its leases within the TTL, the market bus (when configured) is connected, and the feed gave an observation within EQL_READY_MAX_FEED_AGE_MS while queries are active; 503 with the reason when not. Says what the host runs; on PostgreSQL also its node id and the partitions of queries it holds (docs/scale-out.md).',
  tags: ['system'],
  security: [],
  response: { 200: READINESS, 503: READINESS },
} as const;

/** Spec 4.1: ping (no auth) and key-status; and the host's readiness (`GET /ready`, no auth). */
export function systemRoutes(app: FastifyInstance, context: HostContext): void {
  app.get('/v2/ping', { schema: S.ping }, () => ({ success: true, data: { message: 'pong' } }));

  // Readiness for load balancers and orchestrators (no auth): the store answers, and what this host runs.
  app.get('/ready', { schema: READY_SCHEMA }, async (_request, reply) => {
    const { unready, ...readiness } = context.runner.readiness();
    const store = context.store instanceof PgHostStore ? 'postgresql' : 'sqlite';
    const feed = feedReadiness(context);
    const unavailable = (reason: string, storeOk: boolean) => reply.status(503).send({ status: 'unavailable', reason, store: { kind: store, ok: storeOk }, ...readiness, feed });
    // Told to stop: load balancers go elsewhere while the host finishes what it serves.
    if (context.lifecycle.draining) return unavailable('the host is shutting down', true);
    try {
      await context.store.keyById(0);
    } catch {
      return unavailable('the store does not answer', false);
    }
    // A cluster host that has not renewed its leases within the TTL may have lost its partitions: no traffic until it renews.
    if (unready !== undefined) return unavailable(unready, true);
    if (readiness.bus !== undefined && !readiness.bus.connected) return unavailable('the market bus is disconnected (reconnecting)', true);
    if (feed.silent) return unavailable(`no observation from the feed for ${feed.silentForSeconds ?? 0} s while ${feed.activeQueries} quer${feed.activeQueries === 1 ? 'y waits' : 'ies wait'} (EQL_READY_MAX_FEED_AGE_MS is ${context.config.readyMaxFeedAgeMs})`, true);
    return { status: 'ready', store: { kind: store, ok: true }, ...readiness, feed };
  });

  app.get('/v2/key-status', { schema: S.keyStatus }, async (request) => {
    const key = callerKey(request);
    const plan = limitsOf(context.config.plans, key.plan);
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
