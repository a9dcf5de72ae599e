import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedMarketData, SqliteMarketData } from '@eql/market-data';
import { testHost, type TestHost } from './support/host.js';
import { DEMO_PATH } from '../../market-data/test/support/market-reference.js';
import { fuzzRuns } from './support/fuzz-runs.js';
import { DATA_ROUTES, fill, PAYMENT_ROUTES } from './support/routes.js';

/**
 * Whatever parameters, bodies and headers the market, chat, ingest and payment-model routes get, the
 * answer is a 2xx, a 4xx with the error envelope (a 402 with the x402 body), never a 500.
 */

const AGENT = 'agent-secret-for-the-fuzzer-000';
let host: TestHost;
let market: SqliteMarketData;
let key: string;

beforeAll(async () => {
  market = new SqliteMarketData(':memory:');
  seedMarketData(market, DEMO_PATH, Date.parse('2026-11-16T00:00:00Z'));
  host = await testHost({ market, now: () => Date.parse('2026-11-16T00:00:00Z'), config: { x402: { payTo: '0x2222222222222222222222222222222222222222', agentSecrets: [AGENT] } } });
  key = (await host.newKey({ scopes: ['ingest'] })).key;
});

afterAll(async () => {
  await host.close();
  market.close();
});

const NAMES = ['timeWindow', 'from', 'to', 'page', 'pageSize', 'limit', 'cursor', 'keywords', 'accountName', 'username', 'token', 'symbol', 'minMentions', 'chain', 'speed', '__proto__', 'x'];
const VALUES = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer().map(String),
  fc.constantFrom('', '24h', '0h', '99999d', '7d', '2026-11-10T00:00:00Z', '1700000000000', '-1', '1e400', 'NaN', '$BTC', '@chainwire_news', 'etf,,rate cut', '%', '0x6982508145454Ce325dDbE47a25d4ec3d2311933', 'solana', 'expert'),
);
const queryString = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 6 })), VALUES), { maxLength: 5 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')}`));
const chatBody = fc.record(
  {
    message: fc.oneof(fc.string({ maxLength: 50 }), fc.jsonValue()),
    analysisType: fc.oneof(fc.constantFrom('chat', 'macro', 'summary', 'tokenIntro', 'tokenAnalysis', 'accountAnalysis', 'nope'), fc.jsonValue()),
    speed: fc.oneof(fc.constantFrom('fast', 'expert', 'adaptive'), fc.jsonValue()),
    sessionId: fc.oneof(fc.uuid(), fc.string({ maxLength: 10 }), fc.jsonValue()),
    assetMetadata: fc.oneof(fc.record({ symbol: fc.oneof(fc.constantFrom('BTC', '$sol', '1INCH', ''), fc.string({ maxLength: 10 })), chain: fc.string({ maxLength: 8 }), contractAddress: fc.oneof(fc.constantFrom('0x6982508145454Ce325dDbE47a25d4ec3d2311933', 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263'), fc.string({ maxLength: 50 })), username: fc.string({ maxLength: 12 }) }, { requiredKeys: [] }), fc.jsonValue()),
  },
  { requiredKeys: [] },
);
const ingestBody = fc.oneof(
  fc.record({ items: fc.array(fc.oneof(fc.jsonValue(), fc.record({ kind: fc.constantFrom('post', 'news', 'telegram', 'account'), tweetId: fc.string(), id: fc.string(), username: fc.string({ maxLength: 8 }), text: fc.string(), link: fc.constantFrom('https://x.com/a/status/1', 'nope'), url: fc.webUrl(), title: fc.string(), channel: fc.string(), mentionedAt: fc.oneof(fc.integer(), fc.string()), publishedAt: fc.integer(), postedAt: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) }, { requiredKeys: ['kind'] })), { maxLength: 4 }) }, { requiredKeys: [] }),
  fc.jsonValue(),
);
const body = fc.oneof(chatBody, ingestBody, fc.jsonValue());

function check(status: number, payload: string, what: string): void {
  expect(status, what).toBeLessThan(500);
  if (status >= 400 && status !== 402) expect((JSON.parse(payload) as { error?: { code?: unknown } }).error?.code, what).toBeTypeOf('string');
}

describe('no 500 on the market, chat and payment routes', () => {
  it('API-key routes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...DATA_ROUTES), queryString, body, async (route, query, payload) => {
        const response = await host.app.inject({ method: route.method, url: `${fill(route.path)}${query}`, headers: { 'x-svc-api-key': key, 'content-type': 'application/json' }, ...(route.body ? { payload: JSON.stringify(payload) } : {}) });
        check(response.statusCode, response.body, `${route.method} ${route.path}${query} ${JSON.stringify(payload).slice(0, 200)}`);
      }),
      { numRuns: fuzzRuns(400) },
    );
  });

  it('payment-model routes, with and without the agent secret, with junk payment headers', async () => {
    const headerValue = fc.oneof(fc.string({ maxLength: 40 }), fc.base64String({ maxLength: 80 }), fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64')));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PAYMENT_ROUTES), queryString, body, fc.boolean(), fc.option(headerValue), fc.option(headerValue), async (route, query, payload, agent, signature, legacy) => {
        const headers: Record<string, string> = { 'content-type': 'application/json', ...(agent ? { 'x-svc-agent-secret': AGENT } : {}), ...(signature !== null ? { 'payment-signature': signature } : {}), ...(legacy !== null ? { 'x-payment': legacy } : {}) };
        const response = await host.app.inject({ method: route.method, url: `${fill(route.path)}${query}`, headers, ...(route.method === 'POST' ? { payload: JSON.stringify(payload) } : {}) });
        check(response.statusCode, response.body, `${route.method} ${route.path}${query}`);
      }),
      { numRuns: fuzzRuns(300) },
    );
  });
});
