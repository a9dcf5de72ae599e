#!/usr/bin/env node
/**
 * A tiny receiver of EQL webhook actions (node:http and node:crypto only).
 *
 * The engine (and the host, `npm start`) POSTs a JSON body `{id, type: "eql.query.triggered",
 * timestamp, data: {queryId, title, triggerIndex, firedAt, stepId, conditionStates, analysis?,
 * payload?}}` with Standard Webhooks headers: `webhook-id` (`<queryId>:<triggerIndex>:<stepId>`, the
 * same on every retry), `webhook-timestamp` (seconds) and, when the owner has a secret (on the host:
 * the webhook signing secret of the API key that created the query, `whsec_…`, printed once when the
 * key is made or its webhook secret rotated; never its HMAC secret), `webhook-signature: v1,<base64
 * HMAC-SHA256 of "id.timestamp.body">` (space separated when several secrets sign, during the grace
 * period of a rotation). A `whsec_<base64>` secret is used as the bytes its base64 encodes (Standard
 * Webhooks); any other secret as it is (UTF-8). A 2xx answer is success; 429 and 5xx are retried with
 * the same webhook-id.
 *
 *   EQL_WEBHOOK_SECRET=<the key's webhook secret, whsec_…> node examples/webhook-receiver.mjs
 *
 * Settings: PORT (default 8788), HOST (default 127.0.0.1), EQL_WEBHOOK_SECRET (without it deliveries
 * are accepted unsigned, with a warning). See examples/README.md.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

/** How far a delivery's timestamp may be from the receiver's clock (Standard Webhooks suggests 5 minutes). */
export const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 1024 * 1024;

/** The HMAC key of a secret: the bytes of a Standard Webhooks `whsec_<base64>` secret, else the secret as it is. */
export function signingKey(secret) {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : secret;
}

/** The signature the sender computes: base64 HMAC-SHA256 of `id.timestamp.body` keyed by the secret. */
export function sign(secret, id, timestamp, body) {
  return createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/**
 * Checks one delivery: the headers are there, the timestamp is fresh, and one of the `v1,` signatures
 * of `webhook-signature` (space separated, for secret rotation) is ours. Returns `{ok: true}` or
 * `{ok: false, status, reason}`.
 */
export function verifyDelivery({ secret, headers, body, now = Date.now(), toleranceSeconds = TOLERANCE_SECONDS }) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string') return { ok: false, status: 400, reason: 'missing webhook-id or webhook-timestamp' };
  if (typeof signatures !== 'string') return { ok: false, status: 401, reason: 'missing webhook-signature' };
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - seconds) > toleranceSeconds) {
    return { ok: false, status: 401, reason: `webhook-timestamp ${timestamp} is not within ${toleranceSeconds} s of now` };
  }
  const expected = Buffer.from(sign(secret, id, timestamp, body));
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined) return false;
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { ok: true } : { ok: false, status: 401, reason: 'no valid v1 signature' };
}

/**
 * An http.Server that takes deliveries. `onDelivery(event, {id, signed})` is called once per webhook-id
 * (a retry of a delivery already taken is answered 200 and not passed on). `now` is the clock the
 * timestamps are checked against (a replay in virtual time passes its own).
 */
export function createWebhookReceiver({ secret, onDelivery, onRejected = () => {}, now = () => Date.now(), toleranceSeconds = TOLERANCE_SECONDS }) {
  const seen = new Set();
  const answer = (response, status, body) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  return createServer((request, response) => {
    if (request.method !== 'POST') return answer(response, 405, { error: 'POST only' });
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > MAX_BODY_BYTES) return answer(response, 413, { error: 'the body is larger than 1 MB' });
      const body = Buffer.concat(chunks).toString('utf8');
      if (secret) {
        const verdict = verifyDelivery({ secret, headers: request.headers, body, now: now(), toleranceSeconds });
        if (!verdict.ok) {
          onRejected(verdict.reason, request.headers);
          return answer(response, verdict.status, { error: verdict.reason });
        }
      }
      let event;
      try {
        event = JSON.parse(body);
      } catch {
        return answer(response, 400, { error: 'the body is not JSON' });
      }
      const id = String(request.headers['webhook-id'] ?? event.id);
      if (seen.has(id)) return answer(response, 200, { received: true, duplicate: true });
      seen.add(id);
      onDelivery(event, { id, signed: Boolean(secret) });
      answer(response, 200, { received: true });
    });
  });
}

/** One line per delivery: when it fired, which query and step, the title, and the step's payload. */
export function describeDelivery(event, { signed }) {
  const data = event.data ?? {};
  const payload = data.payload ? ` payload ${JSON.stringify(data.payload)}` : '';
  return `${data.firedAt} ${data.queryId} #${data.triggerIndex} ${data.stepId}: ${data.title ?? '(untitled)'} (${signed ? 'signature verified' : 'unsigned'})${payload}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.EQL_WEBHOOK_SECRET ?? '';
  const port = Number(process.env.PORT ?? 8788);
  const host = process.env.HOST ?? '127.0.0.1';
  if (!secret) console.warn('EQL_WEBHOOK_SECRET is not set: deliveries are accepted without checking their signature');
  const server = createWebhookReceiver({
    secret,
    onDelivery: (event, meta) => console.log(describeDelivery(event, meta)),
    onRejected: (reason, headers) => console.warn(`rejected ${headers['webhook-id'] ?? 'a delivery'}: ${reason}`),
  });
  server.listen(port, host, () => console.log(`listening for EQL webhooks on http://${host}:${server.address().port}/`));
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close());
}
