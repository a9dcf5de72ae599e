import type { AddressInfo } from 'node:net';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { validate } from '@eql/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedMarketData, SqliteMarketData } from '@eql/market-data';
import { testHost, type TestHost } from './support/host.js';
import { DEMO_PATH } from '../../market-data/test/support/market-reference.js';
import { OpenAiStub } from '../../llm/test/support/openai-stub.js';
import { newPayer } from '../../x402/test/support/x402-payer.js';

const AGENT = 'agent-secret-of-the-builder-tests';

/** The query of a builder reply: the ```json block of its Markdown. */
function jsonBlock(markdown: string): unknown {
  const match = /```json\n([\s\S]*?)\n```/.exec(markdown);
  return match ? (JSON.parse(match[1] ?? '') as unknown) : undefined;
}

interface Answer {
  success: boolean;
  data: { creditsConsumed: number; sessionId: string; message: string; query?: Record<string, unknown> };
}

describe('POST /v2/auto/chat (offline grammar)', () => {
  let host: TestHost;
  let key: string;

  beforeAll(async () => {
    host = await testHost();
    key = (await host.newKey()).key;
  });
  afterAll(() => host.close());

  const ask = async (body: Record<string, unknown>, apiKey = key) => {
    const response = await host.app.inject({ method: 'POST', url: '/v2/auto/chat', headers: { 'x-svc-api-key': apiKey }, payload: body });
    return { status: response.statusCode, headers: response.headers, body: response.json<Answer>() };
  };

  it('turns plain words into a valid query in a JSON code block, and charges 5 credits', async () => {
    const { status, headers, body } = await ask({ message: 'Notify me when BTC goes above 100k within 3 days' });
    expect(status).toBe(200);
    expect(headers['x-svc-credits-used']).toBe('5');
    const query = jsonBlock(body.data.message);
    expect(query).toEqual(body.data.query);
    expect(validate(query, { mode: 'api-key' }).valid).toBe(true);
    expect(body.data.query).toMatchObject({ query: { conditions: { AND: [{ source: 'price', args: { symbol: 'BTC' }, operator: '>', value: 100_000 }] }, actions: [{ type: 'notify' }], expiresIn: '3d' } });
    expect(body.data.creditsConsumed).toBe(5);
  });

  it('continues the session: a follow-up amends the query; expert costs 18', async () => {
    const first = await ask({ message: 'alert me if ETH drops below 3000' });
    const next = await ask({ message: 'also send it to my webhook https://example.com/hooks/eth', sessionId: first.body.data.sessionId, speed: 'expert' });
    expect(next.status).toBe(200);
    expect(next.body.data.sessionId).toBe(first.body.data.sessionId);
    expect(next.body.data.creditsConsumed).toBe(18);
    const actions = (next.body.data.query as { query: { actions: Array<{ type: string }>; conditions: unknown } }).query;
    expect(actions.actions.map((action) => action.type)).toEqual(expect.arrayContaining(['notify', 'webhook']));
    expect(JSON.stringify(actions.conditions)).toContain('3000');
  });

  it('sessions are the caller\'s own, and of the builder only', async () => {
    const mine = await ask({ message: 'notify me when SOL is above 250' });
    const other = (await host.newKey()).key;
    expect((await ask({ message: 'make it 260', sessionId: mine.body.data.sessionId }, other)).status).toBe(404);
    const chat = await host.app.inject({ method: 'POST', url: '/v2/chat', headers: { 'x-svc-api-key': key }, payload: { message: 'hi', sessionId: mine.body.data.sessionId } });
    expect(chat.statusCode).toBe(404);
  });

  it('asks instead of guessing, and refuses an empty message', async () => {
    const unclear = await ask({ message: 'blorp the frobnicator' });
    expect(unclear.status).toBe(200);
    expect(unclear.body.data.query).toBeUndefined();
    expect(jsonBlock(unclear.body.data.message)).toBeUndefined();
    expect((await ask({ message: '   ' })).status).toBe(400);
    expect((await ask({})).status).toBe(400);
  });
});

describe('POST /x402/v2/auto/chat (paid, payment mode)', () => {
  let host: TestHost;
  let base: string;

  beforeAll(async () => {
    host = await testHost({ config: { x402: { payTo: '0x3333333333333333333333333333333333333333', agentSecrets: [AGENT] } } });
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => host.close());

  it('the official client pays for a reply; trade requests get the non-trade version and an explanation', async () => {
    const pay = wrapFetchWithPayment(fetch, new x402Client().register('eip155:*', new ExactEvmScheme(newPayer())));
    const response = await pay(`${base}/x402/v2/auto/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'buy $500 of BTC when it drops below 90k', speed: 'fast' }) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Answer;
    expect(body.data.creditsConsumed).toBe(5);
    expect(body.data.message.toLowerCase()).toContain('api key');
    const query = jsonBlock(body.data.message);
    if (query !== undefined) {
      expect(validate(query, { mode: 'payment' }).valid).toBe(true);
      expect(JSON.stringify(query)).not.toContain('market_order');
    }
    expect((await fetch(`${base}/x402/v2/auto/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi', speed: 'expert' }) })).status).toBe(402);
  });
});

describe('a host with a language model (loopback OpenAI-compatible endpoint)', () => {
  let stub: OpenAiStub;
  let host: TestHost;
  let market: SqliteMarketData;
  let key: string;

  beforeAll(async () => {
    stub = await OpenAiStub.start({ apiKey: 'sk-test-builder', models: ['fast-model', 'expert-model'] });
    market = new SqliteMarketData(':memory:');
    seedMarketData(market, DEMO_PATH, Date.parse('2026-11-16T00:00:00Z'));
    host = await testHost({ market, now: () => Date.parse('2026-11-16T00:00:00Z'), config: { llm: { baseURL: stub.baseURL, apiKey: 'sk-test-builder', fastModel: 'fast-model', expertModel: 'expert-model', timeoutMs: 2_000, maxRetries: 0 } } });
    key = (await host.newKey()).key;
  });
  afterAll(async () => {
    await host.close();
    market.close();
    await stub.close();
  });

  it('chat answers from the model with the local facts in its prompt; the builder uses the model', async () => {
    stub.enqueue({ content: 'SOL is the most discussed token this week.' });
    const chat = await host.app.inject({ method: 'POST', url: '/v2/chat', headers: { 'x-svc-api-key': key }, payload: { analysisType: 'tokenAnalysis', assetMetadata: { symbol: 'SOL' }, speed: 'expert' } });
    expect(chat.statusCode, chat.body).toBe(200);
    expect(chat.json<Answer>().data).toMatchObject({ creditsConsumed: 18, message: expect.stringContaining('most discussed') as unknown });
    expect(stub.requests.at(-1)?.model).toBe('expert-model');
    expect(stub.promptText()).toContain('SOL');

    const drafted = { title: 'ETH above 4000', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'ETH' }, operator: '>', value: 4000 }] }, actions: [{ stepId: 'tell', type: 'notify', params: { message: 'ETH is above 4000' } }], expiresIn: '2d' } };
    stub.enqueue({ content: `Here it is:\n\`\`\`json\n${JSON.stringify(drafted)}\n\`\`\`` });
    const built = await host.app.inject({ method: 'POST', url: '/v2/auto/chat', headers: { 'x-svc-api-key': key }, payload: { message: 'tell me when ether passes 4k, for two days' } });
    expect(built.statusCode).toBe(200);
    expect(built.json<Answer>().data.query).toEqual(drafted);
  });

  it('a model that fails is a 502 with its code for chat, not a 500, and nothing is charged', async () => {
    stub.enqueue({ status: 500, body: { error: { message: 'upstream broke' } } });
    const response = await host.app.inject({ method: 'POST', url: '/v2/chat', headers: { 'x-svc-api-key': key }, payload: { message: 'what is trending?' } });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'llm_upstream_error' } });
    expect(response.headers['x-svc-credits-used']).toBe('0');
    expect(response.body).not.toContain('sk-test-builder');
  });
});
