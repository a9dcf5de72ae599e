import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { configFromEnv, defaultConfig } from '../src/config.js';
import { TEXT_FORM_BODY_LIMIT, textFormBodyLimit } from '../src/http/text-form-body.js';
import { editDistanceCells } from '../../syntax/src/recover/spelling.js';
import { at, errorCode, json, testHost, type TestHost } from './support/host.js';
import { watchedBody } from './support/watched-body.js';

/**
 * The text form (`text/x-eql`) is the dearest body the host reads, so it is read only by the routes that
 * take a query, after their cheap checks, up to its own limit; everywhere else it is a 415 answered
 * before a byte of the body is read. Work is observed, never timed: the bytes the host pulled from the
 * body, and the alignment cells of the parser's spelling suggestions.
 */

const PAY_TO = '0x1111111111111111111111111111111111111111';
const AGENT = 'agent-secret-of-the-text-form-gate';
/** 250 KB that made the parser work for seconds: one word, with spelling suggestions sought for it. */
const ONE_WORD = 'w'.repeat(250_000);
const TEXT = 'when price of BTC > 1000000\nthen notify "BTC is above a million" as alert\nexpires in 24h\n';

let host: TestHost;
let key: CreatedKey;
let ingestKey: CreatedKey;
beforeAll(async () => {
  host = await testHost({ config: { x402: { payTo: PAY_TO, agentSecrets: [AGENT] } } });
  key = await host.newKey();
  ingestKey = await host.newKey({ scopes: ['ingest'] });
});
afterAll(async () => host.close());

/** Sends `text` as `text/x-eql`, streamed, and says how much of it the host read. */
async function sendText(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, text: string, headers: Record<string, string> = {}) {
  const body = watchedBody(text);
  const cellsBefore = editDistanceCells();
  const response = await host.app.inject({ method, url, headers: { 'content-type': 'text/x-eql', 'transfer-encoding': 'chunked', ...headers }, payload: body.stream });
  return { response, pulled: body.pulled(), cells: editDistanceCells() - cellsBefore };
}

describe('a text-form body where no route takes it', () => {
  const elsewhere: Array<[string, 'POST' | 'PUT' | 'PATCH' | 'DELETE', string, () => Record<string, string>]> = [
    ['a path no route serves', 'POST', '/nope', () => ({})],
    ['the readiness route', 'POST', '/ready', () => ({})],
    ['ping', 'POST', '/v2/ping', () => ({})],
    ['the payment-model chat', 'POST', '/x402/v2/chat', () => ({})],
    ['the payment-model validate (agents send JSON)', 'POST', '/x402/v2/auto/queries/validate', () => ({ 'x-svc-agent-secret': AGENT })],
    ['chat, with a key', 'POST', '/v2/chat', () => ({ 'x-svc-api-key': key.key })],
    ['ingest, with a key that may ingest', 'POST', '/v2/ingest', () => ({ 'x-svc-api-key': ingestKey.key })],
    ['a draft validate (it takes no body)', 'POST', '/v2/auto/queries/drafts/d-1/validate', () => ({ 'x-svc-api-key': key.key })],
    ['a query delete', 'DELETE', '/v2/auto/queries/q-1', () => ({ 'x-svc-api-key': key.key })],
  ];

  it.each(elsewhere)('is a 415 on %s, answered before a byte is read', async (_name, method, url, headers) => {
    const { response, pulled, cells } = await sendText(method, url, ONE_WORD, headers());
    expect(response.statusCode, response.body).toBe(415);
    expect(errorCode(response)).toBe('unsupported_media_type');
    expect(at(json(response), 'error', 'message')).toMatch(/does not take the text form/);
    expect(pulled).toBe(0);
    expect(cells).toBe(0);
  });

  it('is a 415 with a declared length too', async () => {
    const response = await host.app.inject({ method: 'POST', url: '/nope', headers: { 'content-type': 'text/x-eql; charset=utf-8' }, payload: ONE_WORD });
    expect(response.statusCode).toBe(415);
    expect(errorCode(response)).toBe('unsupported_media_type');
  });
});

describe('a text-form body on a route that takes a query', () => {
  const takers: Array<[string, string]> = [
    ['validate', '/v2/auto/queries/validate'],
    ['create', '/v2/auto/queries'],
    ['preview', '/v2/auto/queries/preview'],
    ['the draft upsert', '/v2/auto/queries/drafts'],
    ['the draft update', '/v2/auto/queries/drafts/d-1'],
  ];

  it.each(takers)('is read on %s', async (_name, url) => {
    const { response, pulled } = await sendText('POST', url, TEXT, { 'x-svc-api-key': key.key });
    expect(response.statusCode, response.body).not.toBe(415);
    expect(pulled).toBe(TEXT.length);
  });

  it('is read only after the key is checked', async () => {
    const anonymous = await sendText('POST', '/v2/auto/queries/validate', ONE_WORD);
    expect(anonymous.response.statusCode).toBe(401);
    expect(anonymous.pulled).toBe(0);
    const unknown = await sendText('POST', '/v2/auto/queries/validate', ONE_WORD, { 'x-svc-api-key': 'eql_not-a-key' });
    expect(unknown.response.statusCode).toBe(401);
    expect(unknown.pulled).toBe(0);
  });

  it(`is refused past its own limit (${TEXT_FORM_BODY_LIMIT} bytes by default): before reading when the length is declared, as soon as it is passed when not`, async () => {
    const declared = await host.app.inject({ method: 'POST', url: '/v2/auto/queries/validate', headers: { 'content-type': 'text/x-eql', 'x-svc-api-key': key.key }, payload: ONE_WORD });
    expect(declared.statusCode).toBe(413);
    expect(json(declared)).toMatchObject({ error: { code: 'body_too_large', details: { limit: TEXT_FORM_BODY_LIMIT } } });
    const megabyte = 'w'.repeat(1024 * 1024);
    const streamed = await sendText('POST', '/v2/auto/queries/validate', megabyte, { 'x-svc-api-key': key.key });
    expect(streamed.response.statusCode).toBe(413);
    expect(errorCode(streamed.response)).toBe('body_too_large');
    // The limit and what the streams had buffered ahead of it, not the megabyte.
    expect(streamed.pulled).toBeLessThan(2 * TEXT_FORM_BODY_LIMIT);
    expect(streamed.cells).toBe(0);
  });

  it('costs no spelling work for a one-word body within the limit', async () => {
    const word = 'w'.repeat(TEXT_FORM_BODY_LIMIT - 1);
    const { response, cells } = await sendText('POST', '/v2/auto/queries/validate', word, { 'x-svc-api-key': key.key });
    expect(response.statusCode).toBe(400);
    expect(errorCode(response)).toBe('invalid_syntax');
    expect(cells).toBe(0);
  });
});

describe('the text-form body limit', () => {
  it('is EQL_TEXT_FORM_BODY_LIMIT, else 64 KB capped by EQL_BODY_LIMIT', () => {
    expect(textFormBodyLimit(defaultConfig())).toBe(64 * 1024);
    expect(textFormBodyLimit(configFromEnv({ EQL_BODY_LIMIT: '16384' }))).toBe(16_384);
    expect(textFormBodyLimit(configFromEnv({ EQL_TEXT_FORM_BODY_LIMIT: '200000' }))).toBe(200_000);
    expect(() => configFromEnv({ EQL_TEXT_FORM_BODY_LIMIT: 'lots' })).toThrow('EQL_TEXT_FORM_BODY_LIMIT must be a whole number of at least 1');
  });

  it('is the one a host is configured with', async () => {
    const small = await testHost({ config: { textFormBodyLimit: 64 } });
    try {
      const newKey = await small.newKey();
      const refused = await small.app.inject({ method: 'POST', url: '/v2/auto/queries/validate', headers: { 'content-type': 'text/x-eql', 'x-svc-api-key': newKey.key }, payload: TEXT });
      expect(json(refused)).toMatchObject({ error: { code: 'body_too_large', details: { limit: 64 } } });
    } finally {
      await small.close();
    }
  });
});
