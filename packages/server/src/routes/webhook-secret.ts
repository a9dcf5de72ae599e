import type { FastifyInstance } from 'fastify';
import { callerKey } from '../auth/authenticate.js';
import { DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS, MAX_WEBHOOK_SECRET_GRACE_SECONDS, rotateWebhookSecret } from '../auth/api-keys.js';
import type { HostContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { errorResponses as errors } from './error-schemas.js';

/** The route's schema (ours: the spec has no webhook secret). */
const rotateSchema = {
  tags: ['auto'],
  summary: 'Rotate the webhook signing secret of the calling key',
  description:
    'Ours. A new `whsec_…` secret signs every webhook of the key from now on; it is shown once. The body may be omitted. For `graceSeconds` (default 86400, at most 604800; 0 ends it at once) the previous secret signs too: deliveries carry both signatures. Always signed (spec 5.2 signing, path /webhook-secret/rotate, the body as sent).',
  body: {
    type: ['object', 'null'],
    properties: { graceSeconds: { type: 'integer', minimum: 0, maximum: MAX_WEBHOOK_SECRET_GRACE_SECONDS, default: DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS } },
    additionalProperties: false,
  },
  response: {
    200: {
      type: 'object',
      properties: { webhookSecret: { type: 'string', pattern: '^whsec_' }, rotatedAt: { type: 'string' }, previousValidUntil: { type: ['string', 'null'] } },
      required: ['webhookSecret', 'rotatedAt', 'previousValidUntil'],
    },
    ...errors(400, 401, 403, 429),
  },
} as const;

/**
 * `POST /v2/auto/webhook-secret/rotate` (ours): each key has a webhook signing secret of its own,
 * separate from the HMAC secret that signs its requests; this rotates it. A secret that signs every
 * webhook is worth a signature: the request must be signed (`always` in the core's HMAC_ROUTE_TABLE, so
 * the signing hook requires and verifies it; the handler refuses an unsigned request too, whatever the
 * table says).
 */
export function webhookSecretRoutes(app: FastifyInstance, context: HostContext): void {
  app.post('/v2/auto/webhook-secret/rotate', { schema: rotateSchema }, async (request) => {
    const key = callerKey(request);
    if (request.headers['x-svc-timestamp'] === undefined || request.headers['x-svc-signature'] === undefined) {
      throw new ApiError('signature_missing_headers', 'this request must be signed: send x-svc-timestamp and x-svc-signature');
    }
    const body = (request.body ?? {}) as { graceSeconds?: number };
    const rotated = await rotateWebhookSecret(context.store, context.box, key, { graceSeconds: body.graceSeconds ?? DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS, now: context.now() });
    context.runner.forgetSecret(key.id);
    return rotated;
  });
}
