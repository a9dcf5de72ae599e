import { createHash } from 'node:crypto';
import { createHmac, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '@eql/core';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { ACTIONS, errorCode, json, notifyQuery, queryWith, testHost, type TestHost } from './support/host.js';

/**
 * Spec 5.2, every row of its HMAC table, against the host. Signatures are computed here with
 * node:crypto: HMAC-SHA256(secret, timestamp + METHOD + path + body), hex, where path is the path inside
 * /v2/auto without the query string and body the exact text sent ('' where the body is not signed).
 * The host's clock is fixed (the `now` option) so drift is exact.
 */

const NOW_MS = Math.floor(Date.now() / 1000) * 1000;
const NOW = NOW_MS / 1000;

let host: TestHost;
let key: CreatedKey;
let stranger: CreatedKey;

const venue: Exchange = { id: 'binance', isPerpetual: () => true, lastPrice: () => 1, availableBalanceUsd: () => 1, placeOrder: () => Promise.reject(new Error('no orders')) };

beforeAll(async () => {
  host = await testHost({ now: () => NOW_MS, config: { exchanges: ['binance'] }, connectExchange: () => Promise.resolve(venue) });
  key = await host.newKey();
  stranger = await host.newKey();
});
afterAll(() => host.close());

function hmacHex(secret: string, timestamp: string, method: string, path: string, body: string): string {
  return createHmac('sha256', secret).update(timestamp + method + path + body).digest('hex');
}

interface Send {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** The exact body text sent. */
  body?: string;
  as?: CreatedKey;
  /** Headers to add (x-svc-timestamp, x-svc-signature, ...). */
  headers?: Record<string, string>;
}

function send({ method, url, body, as = key, headers = {} }: Send): Promise<LightMyRequestResponse> {
  const all: Record<string, string> = { 'x-svc-api-key': as.key, ...headers };
  if (body !== undefined) all['content-type'] = 'application/json';
  return host.app.inject({ method, url, headers: all, ...(body === undefined ? {} : { payload: body }) });
}

/** The path a client signs: inside /v2/auto, without the query string. */
const signingPath = (url: string) => (url.split('?')[0] ?? '').slice('/v2/auto'.length);

/** Signatures made here: the host accepts a signature once, so a repeat of an identical request is signed a second earlier. */
const made = new Set<string>();

/** Signature headers as a correct client computes them. `signBody` false: the route signs '' (cancel, delete, convert, validate-symbol). */
function signatureHeaders(request: Send, options: { signBody?: boolean; timestamp?: string; secret?: string } = {}): Record<string, string> {
  const body = options.signBody === false ? '' : (request.body ?? '');
  const at = (timestamp: string) => hmacHex(options.secret ?? (request.as ?? key).hmacSecret, timestamp, request.method, signingPath(request.url), body);
  let timestamp = options.timestamp ?? String(NOW);
  while (options.timestamp === undefined && made.has(at(timestamp))) timestamp = String(Number(timestamp) - 1);
  made.add(at(timestamp));
  return { 'x-svc-timestamp': timestamp, 'x-svc-signature': at(timestamp) };
}

const signed = (request: Send, options: { signBody?: boolean; timestamp?: string; secret?: string } = {}) =>
  send({ ...request, headers: { ...request.headers, ...signatureHeaders(request, options) } });

const text = (value: unknown) => JSON.stringify(value);

function expect401(response: LightMyRequestResponse, code: string): void {
  expect(response.statusCode, response.body).toBe(401);
  expect(errorCode(response)).toBe(code);
}

/** Validates (and, for trade queries, does the exchange check) so create can succeed. */
async function prepare(body: string): Promise<void> {
  expect(json(await send({ method: 'POST', url: '/v2/auto/queries/validate', body })).valid).toBe(true);
  expect((await send({ method: 'GET', url: '/v2/auto/exchanges' })).statusCode).toBe(200);
}

async function createQuery(body: string, as: CreatedKey = key): Promise<string> {
  expect(json(await send({ method: 'POST', url: '/v2/auto/queries/validate', body, as })).valid).toBe(true);
  await send({ method: 'GET', url: '/v2/auto/exchanges', as });
  const response = await signed({ method: 'POST', url: '/v2/auto/queries', body, as });
  expect(response.statusCode, response.body).toBe(201);
  return json(response).queryId as string;
}

async function createDraft(body: string, as: CreatedKey = key): Promise<string> {
  const response = await signed({ method: 'POST', url: '/v2/auto/queries/drafts', body, as });
  expect(response.statusCode, response.body).toBe(200);
  return json(response).draftId as string;
}

const NOTIFICATION_BODIES = {
  notify: text(queryWith(ACTIONS.notify)),
  webhook: text(queryWith(ACTIONS.webhook)),
  messenger_bot: text(queryWith(ACTIONS.messengerBot)),
  'llm with a notify callback': text(queryWith(ACTIONS.llmNotify)),
  'llm without a callback': text(queryWith({ stepId: 'l', type: 'llm', params: { prompt: 'why?' } })),
};
const SIGNED_BODIES = {
  market_order: text(queryWith(ACTIONS.marketOrder())),
  limit_order: text(queryWith(ACTIONS.limitOrder())),
  'llm with a trade callback': text(queryWith(ACTIONS.llmTrade)),
  'a notify step and a market_order step': text({ ...queryWith(ACTIONS.notify), query: { ...(queryWith(ACTIONS.notify).query as Record<string, unknown>), actions: [ACTIONS.notify, ACTIONS.marketOrder()] } }),
  'an unknown action type': text(queryWith(ACTIONS.unknown)),
  'an llm callback of unknown type': text(queryWith({ stepId: 'l', type: 'llm', params: { callback: { action: { type: 'fax' } } } })),
};

describe('POST /v2/auto/exchanges: always', () => {
  const body = text({ exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: 'k-123', secret: 's-456' } });

  it('unsigned: 401', async () => {
    expect401(await send({ method: 'POST', url: '/v2/auto/exchanges', body }), 'signature_missing_headers');
  });

  it('signed over the exact body: 201; signed over the empty body instead: 401', async () => {
    expect401(await signed({ method: 'POST', url: '/v2/auto/exchanges', body }, { signBody: false }), 'signature_invalid_signature');
    expect((await signed({ method: 'POST', url: '/v2/auto/exchanges', body })).statusCode).toBe(201);
  });

  it('a mismatch says what the host signed (timestamp + METHOD + path + body), never the secret, so a client can diff its own string', async () => {
    const response = await signed({ method: 'POST', url: '/v2/auto/exchanges', body }, { signBody: false, timestamp: String(Math.floor(Date.now() / 1000)) });
    expect401(response, 'signature_invalid_signature');
    const details = (json(response).error as { details: { signed: string; parts: Record<string, unknown>; how: string } }).details;
    const timestamp = details.parts.timestamp as string;
    expect(details.signed).toBe(`${timestamp}POST/exchanges${body}`);
    expect(details.parts).toEqual({ timestamp, method: 'POST', path: '/exchanges', bodyBytes: Buffer.byteLength(body), bodySha256: createHash('sha256').update(body).digest('hex') });
    expect(response.body).not.toContain(key.hmacSecret);
    // Other failures say nothing of the kind.
    expect((json(await send({ method: 'POST', url: '/v2/auto/exchanges', body })).error as { details?: unknown }).details).toBeUndefined();
  });

  it('even an invalid body needs the signature first', async () => {
    expect401(await send({ method: 'POST', url: '/v2/auto/exchanges', body: '{}' }), 'signature_missing_headers');
    expect((await signed({ method: 'POST', url: '/v2/auto/exchanges', body: '{}' })).statusCode).toBe(400);
  });

  it('a percent-encoded spelling of the path cannot dodge the signature', async () => {
    for (const url of ['/v2/%61uto/exchanges', '/v2/auto/%65xchanges', '/v2/auto/exchange%73']) {
      expect401(await send({ method: 'POST', url, body }), 'signature_missing_headers');
    }
    // The client signs the path as it sent it, inside /v2/auto.
    expect((await send({ method: 'POST', url: '/v2/auto/%65xchanges', body, headers: { 'x-svc-timestamp': String(NOW), 'x-svc-signature': hmacHex(key.hmacSecret, String(NOW), 'POST', '/%65xchanges', body) } })).statusCode).toBe(201);
  });
});

describe('DELETE /v2/auto/exchanges/{exchange}: always, empty body', () => {
  it('unsigned: 401; signed over "": 404 when not connected, 200 when connected', async () => {
    const as = await host.newKey();
    expect401(await send({ method: 'DELETE', url: '/v2/auto/exchanges/binance', as }), 'signature_missing_headers');
    expect((await signed({ method: 'DELETE', url: '/v2/auto/exchanges/binance', as })).statusCode).toBe(404);
    const connectBody = text({ exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: 'k', secret: 's' } });
    expect((await signed({ method: 'POST', url: '/v2/auto/exchanges', body: connectBody, as })).statusCode).toBe(201);
    expect401(await send({ method: 'DELETE', url: '/v2/auto/exchanges/binance', as }), 'signature_missing_headers');
    expect401(await signed({ method: 'DELETE', url: '/v2/auto/exchanges/binance', as }, { secret: key.hmacSecret }), 'signature_invalid_signature');
    expect((await signed({ method: 'DELETE', url: '/v2/auto/exchanges/binance', as })).statusCode).toBe(200);
  });
});

describe('POST /v2/auto/queries: by the body\'s actions', () => {
  it.each(Object.entries(NOTIFICATION_BODIES))('%s: not required (unsigned 201), and a signature sent is accepted (201)', async (_name, body) => {
    await prepare(body);
    const unsigned = await send({ method: 'POST', url: '/v2/auto/queries', body });
    expect(unsigned.statusCode, unsigned.body).toBe(201);
    const withSignature = await signed({ method: 'POST', url: '/v2/auto/queries', body, headers: { 'idempotency-key': randomUUID() } });
    expect(withSignature.statusCode, withSignature.body).toBe(201);
  });

  it.each(Object.entries(SIGNED_BODIES))('%s: required (unsigned 401, signed gets past the check)', async (name, body) => {
    expect401(await send({ method: 'POST', url: '/v2/auto/queries', body }), 'signature_missing_headers');
    if (name.includes('unknown')) {
      // Past the signature, validation answers.
      const response = await signed({ method: 'POST', url: '/v2/auto/queries', body });
      expect(response.statusCode, response.body).toBe(400);
      expect(errorCode(response)).toBe('invalid_query');
    } else {
      await prepare(body);
      expect((await signed({ method: 'POST', url: '/v2/auto/queries', body })).statusCode).toBe(201);
    }
  });

  it('the signature covers the exact text sent, whitespace and key order included', async () => {
    const body = `{\n  "query": ${JSON.stringify((queryWith(ACTIONS.marketOrder()) as { query: unknown }).query, null, 3)},\n  "title" :  "spaced"\n}`;
    await prepare(body);
    const reserialized = text(JSON.parse(body) as unknown);
    const wrong = await send({ method: 'POST', url: '/v2/auto/queries', body, headers: { 'x-svc-timestamp': String(NOW), 'x-svc-signature': hmacHex(key.hmacSecret, String(NOW), 'POST', '/queries', reserialized) } });
    expect401(wrong, 'signature_invalid_signature');
    expect((await signed({ method: 'POST', url: '/v2/auto/queries', body })).statusCode).toBe(201);
  });
});

describe('cancel and delete: by the STORED query', () => {
  it('a stored trade query: cancel and delete need a signature over the empty body', async () => {
    const id = await createQuery(SIGNED_BODIES.market_order);
    expect401(await send({ method: 'POST', url: `/v2/auto/queries/${id}/cancel` }), 'signature_missing_headers');
    // A body sent on cancel is not part of the signature.
    expect401(await signed({ method: 'POST', url: `/v2/auto/queries/${id}/cancel`, body: '{"x":1}' }), 'signature_invalid_signature');
    expect((await signed({ method: 'POST', url: `/v2/auto/queries/${id}/cancel` })).statusCode).toBe(200);
    expect401(await send({ method: 'DELETE', url: `/v2/auto/queries/${id}` }), 'signature_missing_headers');
    expect((await signed({ method: 'DELETE', url: `/v2/auto/queries/${id}` })).statusCode).toBe(200);
  });

  it('a stored llm query with a trade callback is trade-flavoured too', async () => {
    const id = await createQuery(SIGNED_BODIES['llm with a trade callback']);
    expect401(await send({ method: 'POST', url: `/v2/auto/queries/${id}/cancel` }), 'signature_missing_headers');
  });

  it('a stored notification query: cancel and delete need none', async () => {
    const id = await createQuery(NOTIFICATION_BODIES.notify);
    expect((await send({ method: 'POST', url: `/v2/auto/queries/${id}/cancel` })).statusCode).toBe(200);
    expect((await send({ method: 'DELETE', url: `/v2/auto/queries/${id}` })).statusCode).toBe(200);
  });

  it('a stored notification query with a wrong signature sent: 401', async () => {
    const id = await createQuery(NOTIFICATION_BODIES.webhook);
    expect401(await signed({ method: 'POST', url: `/v2/auto/queries/${id}/cancel` }, { secret: stranger.hmacSecret }), 'signature_invalid_signature');
    expect((await signed({ method: 'POST', url: `/v2/auto/queries/${id}/cancel` })).statusCode).toBe(200);
  });

  it('an unknown query or another key\'s: required (the stored query cannot be looked up), then 404', async () => {
    const theirs = await createQuery(NOTIFICATION_BODIES.notify, stranger);
    for (const id of [randomUUID(), theirs, 'not-even-a-uuid']) {
      for (const [method, url] of [['POST', `/v2/auto/queries/${id}/cancel`], ['DELETE', `/v2/auto/queries/${id}`]] as const) {
        expect401(await send({ method, url }), 'signature_missing_headers');
        expect((await signed({ method, url })).statusCode).toBe(404);
      }
    }
  });
});

describe('POST /v2/auto/queries/drafts: by the body\'s actions', () => {
  it.each(Object.entries(NOTIFICATION_BODIES))('%s: not required', async (_name, body) => {
    expect((await send({ method: 'POST', url: '/v2/auto/queries/drafts', body })).statusCode).toBe(200);
  });

  it.each(Object.entries(SIGNED_BODIES))('%s: required', async (_name, body) => {
    expect401(await send({ method: 'POST', url: '/v2/auto/queries/drafts', body }), 'signature_missing_headers');
    expect((await signed({ method: 'POST', url: '/v2/auto/queries/drafts', body })).statusCode).toBe(200);
  });

  it('replacing a notification draft by a trade draft needs it, with the draft id in the signed path', async () => {
    const draftId = await createDraft(NOTIFICATION_BODIES.notify);
    const url = `/v2/auto/queries/drafts?draftId=${draftId}`;
    expect401(await send({ method: 'POST', url, body: SIGNED_BODIES.market_order }), 'signature_missing_headers');
    // The query string is not covered by a signature: a signed request may not carry one, signed over it or not.
    expect401(await signed({ method: 'POST', url, body: SIGNED_BODIES.market_order }), 'signature_unsigned_query');
    const overQueryString = { 'x-svc-timestamp': String(NOW), 'x-svc-signature': hmacHex(key.hmacSecret, String(NOW), 'POST', `/queries/drafts?draftId=${draftId}`, SIGNED_BODIES.market_order) };
    expect401(await send({ method: 'POST', url, body: SIGNED_BODIES.market_order, headers: overQueryString }), 'signature_unsigned_query');
    // POST /v2/auto/queries/drafts/{draftId}: the id is in the path that is signed.
    expect401(await send({ method: 'POST', url: `/v2/auto/queries/drafts/${draftId}`, body: SIGNED_BODIES.market_order }), 'signature_missing_headers');
    const response = await signed({ method: 'POST', url: `/v2/auto/queries/drafts/${draftId}`, body: SIGNED_BODIES.market_order });
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toMatchObject({ draftId, created: false });
    // A notification body needs none there either (spec 5.2: by the body's actions).
    expect((await send({ method: 'POST', url: `/v2/auto/queries/drafts/${draftId}`, body: NOTIFICATION_BODIES.webhook })).statusCode).toBe(200);
  });

  it('a captured signed request cannot be pointed at another draft (issue 13)', async () => {
    const [mine, other] = [await createDraft(NOTIFICATION_BODIES.notify), await createDraft(NOTIFICATION_BODIES.webhook)];
    const draftRequest = async (id: string) => json(await send({ method: 'GET', url: `/v2/auto/queries/drafts/${id}` })).request;
    const otherBefore = await draftRequest(other);
    // The victim updates its draft; the attacker has a copy of that request (headers and body)...
    const captured: Send = { method: 'POST', url: `/v2/auto/queries/drafts/${mine}`, body: SIGNED_BODIES.limit_order };
    const headers = signatureHeaders(captured);
    // ...and sends it to another draft: by the path, before or after the victim's own request went through...
    expect401(await send({ ...captured, url: `/v2/auto/queries/drafts/${other}`, headers }), 'signature_invalid_signature');
    expect((await send({ ...captured, headers })).statusCode).toBe(200);
    expect401(await send({ ...captured, url: `/v2/auto/queries/drafts/${other}`, headers }), 'signature_invalid_signature');
    // ...or by a query string added to a signed create (which a signature does not cover).
    const create: Send = { method: 'POST', url: '/v2/auto/queries/drafts', body: SIGNED_BODIES.market_order };
    const createHeaders = signatureHeaders(create);
    expect401(await send({ ...create, url: `/v2/auto/queries/drafts?draftId=${other}`, headers: createHeaders }), 'signature_unsigned_query');
    expect(await draftRequest(other)).toEqual(otherBefore);
  });
});

describe('POST /v2/auto/queries/drafts/{id}/convert: by the STORED draft', () => {
  it('a stored trade draft: required (over the empty body)', async () => {
    const draftId = await createDraft(SIGNED_BODIES.limit_order);
    const url = `/v2/auto/queries/drafts/${draftId}/convert`;
    expect401(await send({ method: 'POST', url }), 'signature_missing_headers');
    expect((await signed({ method: 'POST', url })).statusCode).toBe(201);
  });

  it('a stored notification draft: not required', async () => {
    const draftId = await createDraft(NOTIFICATION_BODIES.messenger_bot);
    expect((await send({ method: 'POST', url: `/v2/auto/queries/drafts/${draftId}/convert` })).statusCode).toBe(201);
  });

  it('a missing draft or another key\'s (even a trade one): no signature needed, 404', async () => {
    const theirs = await createDraft(SIGNED_BODIES.market_order, stranger);
    for (const id of [randomUUID(), theirs]) {
      const response = await send({ method: 'POST', url: `/v2/auto/queries/drafts/${id}/convert` });
      expect(response.statusCode).toBe(404);
      expect(errorCode(response)).toBe('not_found');
    }
  });
});

describe('validate and validate-symbol: not required, but a sent signature is checked', () => {
  const body = NOTIFICATION_BODIES.notify;

  it('POST /v2/auto/queries/validate (body signed)', async () => {
    const url = '/v2/auto/queries/validate';
    expect((await send({ method: 'POST', url, body: SIGNED_BODIES.market_order })).statusCode).toBe(200);
    expect((await signed({ method: 'POST', url, body })).statusCode).toBe(200);
    expect401(await signed({ method: 'POST', url, body }, { secret: stranger.hmacSecret }), 'signature_invalid_signature');
    expect401(await signed({ method: 'POST', url, body }, { signBody: false }), 'signature_invalid_signature');
  });

  it('GET /v2/auto/validate-symbol/{exchange}/{symbol} (empty body)', async () => {
    const url = '/v2/auto/validate-symbol/paper/BTC';
    expect((await send({ method: 'GET', url })).statusCode).toBe(200);
    expect((await signed({ method: 'GET', url })).statusCode).toBe(200);
    expect401(await signed({ method: 'GET', url }, { secret: stranger.hmacSecret }), 'signature_invalid_signature');
    expect401(await send({ method: 'GET', url, headers: { 'x-svc-timestamp': String(NOW), 'x-svc-signature': hmacHex(key.hmacSecret, String(NOW), 'GET', '/validate-symbol/paper/ETH', '') } }), 'signature_invalid_signature');
  });

  it('routes outside the table (reads, previews, draft delete) need none, and also check one that is sent', async () => {
    const draftId = await createDraft(NOTIFICATION_BODIES.notify);
    for (const request of [
      { method: 'GET', url: '/v2/auto/queries' },
      { method: 'GET', url: '/v2/auto/exchanges' },
      { method: 'POST', url: '/v2/auto/queries/preview', body: text({ query: (notifyQuery().query as Record<string, unknown>) }) },
      { method: 'POST', url: `/v2/auto/queries/drafts/${draftId}/validate` },
    ] satisfies Send[]) {
      expect((await send(request)).statusCode, request.url).toBe(200);
      expect((await signed(request)).statusCode, request.url).toBe(200);
      expect401(await signed(request, { secret: stranger.hmacSecret }), 'signature_invalid_signature');
    }
    expect401(await signed({ method: 'DELETE', url: `/v2/auto/queries/drafts/${draftId}` }, { secret: stranger.hmacSecret }), 'signature_invalid_signature');
    expect((await send({ method: 'DELETE', url: `/v2/auto/queries/drafts/${draftId}` })).statusCode).toBe(200);
  });
});

describe('how a signature fails (on POST /v2/auto/exchanges, which always needs one)', () => {
  const url = '/v2/auto/exchanges';
  const body = text({ exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: 'key-1', secret: 'secret-1' } });
  const request: Send = { method: 'POST', url, body };
  const good = () => signatureHeaders(request);

  it('missing headers: neither, only the timestamp, only the signature, empty values', async () => {
    const { 'x-svc-timestamp': timestamp = '', 'x-svc-signature': signature = '' } = good();
    const variants: Array<Record<string, string>> = [{}, { 'x-svc-timestamp': timestamp }, { 'x-svc-signature': signature }, { 'x-svc-timestamp': '', 'x-svc-signature': '' }];
    for (const headers of variants) {
      expect401(await send({ ...request, headers }), 'signature_missing_headers');
    }
  });

  it('a wrong signature: another secret, another body, another path, another method, a lowercase method', async () => {
    const timestamp = String(NOW);
    for (const signature of [
      hmacHex(stranger.hmacSecret, timestamp, 'POST', '/exchanges', body),
      hmacHex(key.hmacSecret, timestamp, 'POST', '/exchanges', `${body} `),
      hmacHex(key.hmacSecret, timestamp, 'POST', '/v2/auto/exchanges', body),
      hmacHex(key.hmacSecret, timestamp, 'DELETE', '/exchanges', body),
      hmacHex(key.hmacSecret, timestamp, 'post', '/exchanges', body),
      hmacHex(key.hmacSecret, String(NOW + 1), 'POST', '/exchanges', body),
    ]) {
      expect401(await send({ ...request, headers: { 'x-svc-timestamp': timestamp, 'x-svc-signature': signature } }), 'signature_invalid_signature');
    }
  });

  it('a signature of the wrong length or not hex', async () => {
    const { 'x-svc-timestamp': timestamp = '', 'x-svc-signature': signature = '' } = good();
    for (const wrong of [signature.slice(0, -2), `${signature}00`, signature.slice(0, -1), `${signature.slice(0, -2)}zz`, 'deadbeef', Buffer.from(signature, 'hex').toString('base64')]) {
      expect401(await send({ ...request, headers: { 'x-svc-timestamp': timestamp, 'x-svc-signature': wrong } }), 'signature_invalid_signature');
    }
  });

  it('a timestamp 31 s off either way is drift; 30 s off either way is accepted', async () => {
    for (const offset of [31, -31, 3_600, -86_400]) {
      expect401(await signed(request, { timestamp: String(NOW + offset) }), 'signature_timestamp_drift');
    }
    // Milliseconds instead of seconds: refused (too many digits for Unix seconds).
    expect401(await signed(request, { timestamp: String(NOW_MS) }), 'signature_invalid_timestamp');
    for (const offset of [30, -30, 0]) {
      const response = await signed(request, { timestamp: String(NOW + offset) });
      expect(response.statusCode, String(offset)).toBe(201);
    }
  });

  it('a timestamp that is not whole Unix seconds is invalid', async () => {
    for (const timestamp of ['abc', `${NOW}.5`, `-${NOW}`, '1e9', ` ${NOW}`, `0x${NOW.toString(16)}`]) {
      expect401(await signed(request, { timestamp }), 'signature_invalid_timestamp');
    }
  });

  it('uppercase hex is accepted', async () => {
    const headers = good();
    const response = await send({ ...request, headers: { ...headers, 'x-svc-signature': (headers['x-svc-signature'] ?? '').toUpperCase() } });
    expect(response.statusCode).toBe(201);
  });

  it('the signature is checked with the key that sent it, after the API key', async () => {
    expect401(await signed({ ...request, as: stranger }, { secret: key.hmacSecret }), 'signature_invalid_signature');
    const noKey = await host.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...good() }, payload: body });
    expect401(noKey, 'missing_api_key');
  });
});
