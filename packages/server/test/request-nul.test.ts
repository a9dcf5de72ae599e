import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRecording, PushSource } from '@eql/core';
import { buildServer, createApiKey, type Host } from '../src/index.js';
import { nulPath } from '../src/http/refuse-nul.js';
import { removeDir } from './support/harness.js';
import { SECRET_KEY_HEX, testHost } from './support/host.js';
import { describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';
import { OpenAiStub } from '../../llm/test/support/openai-stub.js';

/**
 * A NUL (U+0000) in any text of a request is a 400 `invalid_request` naming the field (issue 45,
 * finding 9): PostgreSQL's text columns, and its lookups by an id, refuse it (a 500 before), SQLite
 * keeps it. Every case is asked of a host on SQLite and of one on PostgreSQL, with the same answer.
 */

const X402 = { payTo: '0x3333333333333333333333333333333333333333', agentSecrets: ['agent-secret-of-the-nul-tests'] };

/** A language model for both hosts: what it writes is not the request's, and may hold a NUL. */
let stub: OpenAiStub;
beforeAll(async () => {
  stub = await OpenAiStub.start({ apiKey: 'sk-test-nul', models: ['fast-model', 'expert-model'] });
});
afterAll(() => stub.close());
const llm = () => ({ baseURL: stub.baseURL, apiKey: 'sk-test-nul', fastModel: 'fast-model', expertModel: 'expert-model', timeoutMs: 5_000, maxRetries: 0 });
const MUST_NOT = 'must not contain a NUL character (U+0000)';
const QUERY = { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ type: 'notify', params: { message: 'up' } }] };

interface Case {
  name: string;
  method: 'GET' | 'POST';
  url: string;
  body?: unknown;
  /** Where the answer says the NUL is. */
  field: string;
  path: string;
  /** A route of the payment model: refused before any payment is asked. */
  paid?: boolean;
}

const CASES: Case[] = [
  { name: 'a chat message', method: 'POST', url: '/v2/chat', body: { message: 'is BTC\u0000 up?' }, field: 'body/message', path: '/message' },
  { name: 'a builder message', method: 'POST', url: '/v2/auto/chat', body: { message: 'alert me when BTC is above 70k\u0000' }, field: 'body/message', path: '/message' },
  { name: 'a builder session id', method: 'POST', url: '/v2/auto/chat', body: { message: 'alert me when BTC is above 70k', sessionId: 'a\u0000b' }, field: 'body/sessionId', path: '/sessionId' },
  { name: 'a chat session id', method: 'POST', url: '/v2/chat', body: { message: 'hi', sessionId: '\u0000' }, field: 'body/sessionId', path: '/sessionId' },
  { name: 'a paid chat message', method: 'POST', url: '/x402/v2/chat', body: { message: 'hi\u0000' }, field: 'body/message', path: '/message', paid: true },
  { name: 'a paid builder message', method: 'POST', url: '/x402/v2/auto/chat', body: { message: 'alert me\u0000' }, field: 'body/message', path: '/message', paid: true },
  { name: 'a query id in the path', method: 'GET', url: '/v2/auto/queries/a%00b', field: 'path parameter "queryId"', path: '/queryId' },
  { name: 'a draft id in the path', method: 'GET', url: '/v2/auto/queries/drafts/a%00b', field: 'path parameter "draftId"', path: '/draftId' },
  { name: 'an execution id in the path', method: 'GET', url: '/v2/auto/executions/%00', field: 'path parameter "executionId"', path: '/executionId' },
  { name: 'a draft id in the query string', method: 'POST', url: '/v2/auto/queries/drafts?draftId=a%00b', body: { query: QUERY }, field: 'query parameter "draftId"', path: '/draftId' },
  { name: 'a draft title', method: 'POST', url: '/v2/auto/queries/drafts', body: { title: 'BTC\u0000', query: QUERY }, field: 'body/title', path: '/title' },
  {
    name: 'a notify message deep in a draft',
    method: 'POST',
    url: '/v2/auto/queries/drafts',
    body: { query: { ...QUERY, actions: [{ type: 'notify', params: { message: 'up\u0000' } }] } },
    field: 'body/query/actions/0/params/message',
    path: '/query/actions/0/params/message',
  },
  { name: 'a keyword of the market routes', method: 'GET', url: '/v2/data/keyword-mentions?keywords=btc%00', field: 'query parameter "keywords"', path: '/keywords' },
];

/** Asks every case of a host and checks the one answer: 400 invalid_request naming the field; then a clean request still works. */
function refusesEveryNul(subject: () => { host: Host; key: string }): void {
  for (const example of CASES) {
    it(`${example.name}: 400 invalid_request naming ${example.field}`, async () => {
      const { host, key } = subject();
      const response = await host.app.inject({
        method: example.method,
        url: example.url,
        headers: example.paid ? {} : { 'x-svc-api-key': key },
        ...(example.body === undefined ? {} : { payload: example.body as Record<string, unknown> }),
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toEqual({ success: false, error: { code: 'invalid_request', message: `invalid request: ${example.field} ${MUST_NOT}`, details: [{ path: example.path, message: MUST_NOT }] } });
      if (!example.paid) expect(response.headers['x-svc-credits-used']).toBe('0');
    });
  }

  it('the same requests without the NUL are answered', async () => {
    const { host, key } = subject();
    const chat = await host.app.inject({ method: 'POST', url: '/v2/auto/chat', headers: { 'x-svc-api-key': key }, payload: { message: 'alert me when BTC is above 70k' } });
    expect(chat.statusCode, chat.body).toBe(200);
    const again = await host.app.inject({ method: 'POST', url: '/v2/auto/chat', headers: { 'x-svc-api-key': key }, payload: { message: 'make it 80k', sessionId: chat.json<{ data: { sessionId: string } }>().data.sessionId } });
    expect(again.statusCode, again.body).toBe(200);
    expect((await host.app.inject({ method: 'GET', url: '/v2/auto/queries/ab', headers: { 'x-svc-api-key': key } })).statusCode).toBe(404);
    expect((await host.app.inject({ method: 'POST', url: '/v2/auto/queries/drafts', headers: { 'x-svc-api-key': key }, payload: { title: 'BTC', query: QUERY } })).statusCode).toBe(200);
  });

  it('a NUL the model writes is answered and stored as U+FFFD, and the conversation goes on', async () => {
    const { host, key } = subject();
    const ask = (url: string, payload: Record<string, unknown>) => host.app.inject({ method: 'POST', url, headers: { 'x-svc-api-key': key }, payload });
    stub.enqueue({ content: 'BTC is\u0000 up.' });
    const chat = await ask('/v2/chat', { message: 'how is BTC?' });
    expect(chat.statusCode, chat.body).toBe(200);
    const answer = chat.json<{ data: { sessionId: string; message: string } }>().data;
    expect(answer.message).toContain('BTC is\uFFFD up.');
    stub.enqueue({ content: 'Still up.' });
    const next = await ask('/v2/chat', { message: 'and now?', sessionId: answer.sessionId });
    expect(next.statusCode, next.body).toBe(200);
    expect(stub.requests.at(-1)?.messages.map((message) => message.content)).toContain('BTC is\uFFFD up.');

    stub.enqueue({ content: 'On which\u0000 exchange should the order go?' });
    const built = await ask('/v2/auto/chat', { message: 'buy $100 of BTC when it is above 70k' });
    expect(built.statusCode, built.body).toBe(200);
    expect(built.json<{ data: { message: string } }>().data.message).toContain('On which\uFFFD exchange');
  });
}

describe('a NUL in a request, on SQLite', () => {
  let host: Host;
  let key: string;
  beforeAll(async () => {
    const made = await testHost({ config: { x402: X402, llm: llm() } });
    host = made;
    key = (await made.newKey()).key;
  });
  afterAll(() => host.close());
  refusesEveryNul(() => ({ host, key }));
});

await describeWithPostgres('a NUL in a request, on PostgreSQL', () => {
  let schema: TestSchema;
  let dataDir: string;
  let host: Host;
  let key: string;
  beforeAll(async () => {
    schema = await freshSchema('nul');
    dataDir = await mkdtemp(join(tmpdir(), 'eql-nul-'));
    host = await buildServer({
      config: { dataDir, databaseUrl: schema.url, secretKey: SECRET_KEY_HEX, marketSeed: false, x402: X402, llm: llm() },
      logger: false,
      engine: { sources: [new PushSource()], recording: parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n') },
    });
    key = (await createApiKey(host.context.store, host.context.box, { name: 'nul', plan: 'pro' })).key;
  }, 60_000);
  afterAll(async () => {
    await host.close();
    await schema.drop();
    await removeDir(dataDir);
  });
  refusesEveryNul(() => ({ host, key }));
});

describe('finding the NUL in a body', () => {
  it('names the first string or property name holding one, in document order, at any depth', () => {
    expect(nulPath({ a: 'x', b: ['y', { 'c/d': 'z\u0000' }], e: '\u0000' })).toBe('/b/1/c~1d');
    expect(nulPath({ 'k\u0000': 1 })).toBe('/k\\u0000');
    expect(nulPath('\u0000')).toBe('');
    expect(nulPath(undefined)).toBeUndefined();
    let deep: unknown = 'end\u0000';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(nulPath(deep)).toBe('/0'.repeat(100_000));
  });

  it('finds one wherever it is put in any JSON value, and none where there is none', () => {
    const holds = (value: unknown): boolean => {
      if (typeof value === 'string') return value.includes('\u0000');
      if (Array.isArray(value)) return value.some(holds);
      if (typeof value === 'object' && value !== null) return Object.entries(value).some(([name, child]) => name.includes('\u0000') || holds(child));
      return false;
    };
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: fc.constantFrom('a', '/', '~', ' ', '\u0000', 'é') }), (value) => {
        expect(nulPath(value) !== undefined).toBe(holds(value));
      }),
    );
  });
});
