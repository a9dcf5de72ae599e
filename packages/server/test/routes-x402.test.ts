import type { AddressInfo } from 'node:net';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedMarketData, SqliteMarketData } from '@eql/market-data';
import { testHost, type TestHost } from './support/host.js';
import { DEMO_PATH } from '../../market-data/test/support/market-reference.js';
import { newPayer } from '../../x402/test/support/x402-payer.js';

const PAY_TO = '0x1111111111111111111111111111111111111111';
const AGENT = 'agent-secret-of-the-tests-0001';
const OTHER_AGENT = 'agent-secret-of-the-tests-0002';

let host: TestHost;
let market: SqliteMarketData;
let base: string;

beforeAll(async () => {
  market = new SqliteMarketData(':memory:');
  seedMarketData(market, DEMO_PATH, Date.now());
  host = await testHost({ market, config: { x402: { payTo: PAY_TO, agentSecrets: [AGENT, OTHER_AGENT] } } });
  await host.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await host.close();
  market.close();
});

const payingFetch = (account: PrivateKeyAccount = newPayer()) => wrapFetchWithPayment(fetch, new x402Client().register('eip155:*', new ExactEvmScheme(account)));
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const decode = (header: string | null) => JSON.parse(Buffer.from(header ?? '', 'base64').toString('utf8')) as { x402Version: number; accepts: Array<{ amount: string; payTo: string; network: string; asset: string }> };

function notifyQuery(extra: Record<string, unknown> = {}) {
  return { title: 'BTC above 1', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'tell', type: 'notify', params: { message: 'up' } }], expiresIn: '24h', ...extra } };
}

describe('the 402 answer', () => {
  it('prices each paid route in USDC atomic units (credits x 9000) with both protocol versions', async () => {
    for (const [method, path, body, amount] of [
      ['GET', '/x402/v2/account/smart-stats?username=chainwire_news', undefined, '9000'],
      ['GET', '/x402/v2/aggregations/trending-tokens', undefined, '9000'],
      ['GET', '/x402/v2/aggregations/trending-cas/twitter', undefined, '9000'],
      ['GET', '/x402/v2/aggregations/trending-cas/telegram', undefined, '9000'],
      ['POST', '/x402/v2/chat', { message: 'hi' }, '45000'],
      ['POST', '/x402/v2/chat', { message: 'hi', speed: 'expert' }, '162000'],
    ] as const) {
      const response = await fetch(`${base}${path}`, body ? json(body) : { method });
      expect(response.status, path).toBe(402);
      const required = decode(response.headers.get('payment-required'));
      expect(required.x402Version).toBe(2);
      expect(required.accepts[0]).toMatchObject({ amount, payTo: PAY_TO, network: 'eip155:84532' });
      expect(await response.json()).toMatchObject({ x402Version: 1, accepts: [{ maxAmountRequired: amount, network: 'base-sepolia' }] });
    }
  });

  it('refuses a bad request with a 400 before asking for any payment', async () => {
    expect((await fetch(`${base}/x402/v2/chat`, json({ analysisType: 'chat' }))).status).toBe(400);
    expect((await fetch(`${base}/x402/v2/chat`, json({ analysisType: 'tokenIntro' }))).status).toBe(400);
    expect((await fetch(`${base}/x402/v2/aggregations/trending-tokens?timeWindow=forever`)).status).toBe(400);
  });

  it('refuses a forged payment header with a 402, never a 500', async () => {
    const response = await fetch(`${base}/x402/v2/aggregations/trending-tokens`, { headers: { 'payment-signature': 'bm90IGpzb24=' } });
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({ success: false, error: 'payment_malformed' });
  });
});

describe('the official client pays the host', () => {
  it('data routes answer with the shapes of 4.2 and a PAYMENT-RESPONSE', async () => {
    const pay = payingFetch();
    const stats = await pay(`${base}/x402/v2/account/smart-stats?username=chainwire_news`);
    expect(stats.status).toBe(200);
    expect(await stats.json()).toMatchObject({ success: true, data: { username: 'chainwire_news' } });
    expect(decodePaymentResponseHeader(stats.headers.get('payment-response') ?? '')).toMatchObject({ success: true, network: 'eip155:84532' });
    const trending = await pay(`${base}/x402/v2/aggregations/trending-tokens?timeWindow=24h`);
    expect(await trending.json()).toMatchObject({ success: true, page: 1, pageSize: 20 });
    for (const channel of ['twitter', 'telegram']) {
      const cas = await pay(`${base}/x402/v2/aggregations/trending-cas/${channel}?timeWindow=7d`);
      expect(cas.status).toBe(200);
      expect(((await cas.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    }
  });

  it('chat answers, and the same payer continues its session; another payer cannot', async () => {
    const payer = newPayer();
    const pay = payingFetch(payer);
    const first = await pay(`${base}/x402/v2/chat`, json({ analysisType: 'tokenAnalysis', assetMetadata: { symbol: '$sol' } }));
    expect(first.status).toBe(200);
    const answer = (await first.json()) as { data: { creditsConsumed: number; sessionId: string; message: string } };
    expect(answer.data.creditsConsumed).toBe(5);
    expect(answer.data.message).toContain('SOL');
    const again = await pay(`${base}/x402/v2/chat`, json({ message: 'and ETH?', sessionId: answer.data.sessionId, speed: 'expert' }));
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ data: { creditsConsumed: 18, sessionId: answer.data.sessionId } });
    const stranger = await payingFetch()(`${base}/x402/v2/chat`, json({ message: 'hi', sessionId: answer.data.sessionId }));
    expect(stranger.status).toBe(404);
    expect(stranger.headers.get('payment-response')).toBeNull();
  });
});

describe('agent routes', () => {
  it('need the agent secret', async () => {
    for (const path of ['/x402/v2/auto/queries', '/x402/v2/auto/queries/validate', '/x402/v2/auto/queries/00000000-0000-4000-8000-000000000000', '/x402/v2/auto/queries/00000000-0000-4000-8000-000000000000/cancel', '/x402/v2/auto/queries/00000000-0000-4000-8000-000000000000/sessions', '/x402/v2/auto/queries/00000000-0000-4000-8000-000000000000/sessions/x']) {
      const missing = await fetch(`${base}${path}`, json(notifyQuery()));
      expect(missing.status, path).toBe(400);
      expect(await missing.json()).toMatchObject({ error: { code: 'missing_agent_secret' } });
      const wrong = await fetch(`${base}${path}`, json(notifyQuery(), { 'x-svc-agent-secret': 'not-the-secret-at-all' }));
      expect(wrong.status, path).toBe(400);
    }
  });

  it('validate is free and reports in payment mode', async () => {
    const agent = { 'x-svc-agent-secret': AGENT };
    const good = await fetch(`${base}/x402/v2/auto/queries/validate`, json(notifyQuery(), agent));
    expect(await good.json()).toMatchObject({ valid: true, errors: [], estimatedCost: { credits: 5 } });
    const trade = notifyQuery();
    trade.query.actions = [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC-PERP', side: 'buy', amountUsd: 100 } } as never];
    const refused = await fetch(`${base}/x402/v2/auto/queries/validate`, json(trade, agent));
    const result = (await refused.json()) as { valid: boolean; errors: string[] };
    expect(result.valid).toBe(false);
    expect(result.errors.join(' ')).toContain('payment model');
  });

  it('on a replay feed, a symbol it does not serve is a finding of validate, and create refuses it before any payment', async () => {
    const replayHost = await testHost({ feed: 'replay', config: { x402: { payTo: PAY_TO, agentSecrets: [AGENT] } } });
    try {
      const agent = { 'x-svc-agent-secret': AGENT };
      const doge = notifyQuery({ conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'DOGE' }, operator: '>', value: 1 }] } });
      const inject = (url: string) => replayHost.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...agent }, payload: JSON.stringify(doge) });
      const unserved = (await inject('/x402/v2/auto/queries/validate')).json<{ valid: boolean; errors: string[] }>();
      expect(unserved).toMatchObject({ valid: false, errors: [expect.stringContaining('no feed of this host serves prices of DOGE') as string] });
      const create = await inject('/x402/v2/auto/queries');
      expect(create.statusCode).toBe(422);
      expect(create.headers['payment-required']).toBeUndefined();
    } finally {
      await replayHost.close();
    }
  });

  it('create is paid by the estimate, then poll, sessions and cancel are free and private to the agent', async () => {
    const agent = { 'x-svc-agent-secret': AGENT };
    // Spec 3: validate, then create (the agent's own validation of the same body).
    const validateFirst = (body: unknown) => fetch(`${base}/x402/v2/auto/queries/validate`, json(body, agent));
    await validateFirst(notifyQuery());
    const unpaid = await fetch(`${base}/x402/v2/auto/queries`, json(notifyQuery(), agent));
    expect(unpaid.status).toBe(402);
    expect(decode(unpaid.headers.get('payment-required')).accepts[0]?.amount).toBe('45000');
    const withLlm = notifyQuery();
    withLlm.query.conditions.AND.push({ source: 'llm', args: { query: 'Is crypto market sentiment bullish?', period: '4h', speed: 'fast' } } as never);
    await validateFirst(withLlm);
    const priced = await fetch(`${base}/x402/v2/auto/queries`, json(withLlm, agent));
    const credits = Number(decode(priced.headers.get('payment-required')).accepts[0]?.amount) / 9000;
    expect(credits).toBeGreaterThan(5);

    // Not satisfied at once (the host starts warm: BTC's last price is known), so it stays active for the poll and the cancel.
    const later = notifyQuery({ conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1_000_000_000 }] } });
    await validateFirst(later);
    const created = await payingFetch()(`${base}/x402/v2/auto/queries`, json(later, agent));
    expect(created.status).toBe(201);
    const { queryId, status } = (await created.json()) as { queryId: string; status: string };
    expect(status).toBe('active');
    expect(created.headers.get('payment-response')).not.toBeNull();

    const poll = await fetch(`${base}/x402/v2/auto/queries/${queryId}`, { method: 'POST', headers: agent });
    expect(poll.status).toBe(200);
    expect(await poll.json()).toMatchObject({ queryId, status: 'active' });
    const sessions = await fetch(`${base}/x402/v2/auto/queries/${queryId}/sessions`, { method: 'POST', headers: agent });
    expect(await sessions.json()).toEqual({ queryId, sessions: [] });
    expect((await fetch(`${base}/x402/v2/auto/queries/${queryId}/sessions/nope`, { method: 'POST', headers: agent })).status).toBe(404);
    const other = { 'x-svc-agent-secret': OTHER_AGENT };
    expect((await fetch(`${base}/x402/v2/auto/queries/${queryId}`, { method: 'POST', headers: other })).status).toBe(404);
    expect((await fetch(`${base}/x402/v2/auto/queries/${queryId}/cancel`, { method: 'POST', headers: other })).status).toBe(404);
    const cancel = await fetch(`${base}/x402/v2/auto/queries/${queryId}/cancel`, { method: 'POST', headers: agent });
    expect(await cancel.json()).toMatchObject({ id: queryId, status: 'cancelled' });
    expect((await fetch(`${base}/x402/v2/auto/queries/${queryId}/cancel`, { method: 'POST', headers: agent })).status).toBe(409);
  });

  it('create follows spec 3: an unvalidated body is a 409 validate_first before any payment; another agent\'s validation does not count', async () => {
    const body = notifyQuery({ expiresIn: '12h' });
    const other = await fetch(`${base}/x402/v2/auto/queries/validate`, json(body, { 'x-svc-agent-secret': OTHER_AGENT }));
    expect(await other.json()).toMatchObject({ valid: true });
    const refused = await fetch(`${base}/x402/v2/auto/queries`, json(body, { 'x-svc-agent-secret': AGENT }));
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'validate_first' } });
    expect(refused.headers.get('payment-required')).toBeNull();
    await fetch(`${base}/x402/v2/auto/queries/validate`, json(body, { 'x-svc-agent-secret': AGENT }));
    const asked = await fetch(`${base}/x402/v2/auto/queries`, json(body, { 'x-svc-agent-secret': AGENT }));
    expect(asked.status).toBe(402);
  });

  it('create refuses trade actions (422) and bad bodies (400) before any payment', async () => {
    const agent = { 'x-svc-agent-secret': AGENT };
    const trade = notifyQuery();
    trade.query.actions = [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC-PERP', side: 'buy', amountUsd: 100 } } as never];
    const refused = await fetch(`${base}/x402/v2/auto/queries`, json(trade, agent));
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ error: { code: 'action_not_allowed' } });
    const bad = await fetch(`${base}/x402/v2/auto/queries`, json({ query: { conditions: {} } }, agent));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_query' } });
  });
});
