import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '@eql/core';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { call, type CallOptions, errorCode, ISO, json, testHost, type TestHost } from './support/host.js';

/**
 * docs/http-api.md: exchange connections (list, connect, disconnect; credentials verified, sealed,
 * never returned) and validate-symbol (spec 2.9: "true"/"false" as strings).
 */

const SECRET = 'S3cr3t-venue-secret-value-1234567890';
const API_KEY = 'good-venue-api-key-abcdef';

function fakeExchange(id: string, perpetuals: readonly string[]): Exchange {
  return {
    id,
    isPerpetual: (symbol) => perpetuals.includes(symbol),
    lastPrice: () => 100,
    availableBalanceUsd: () => 1_000,
    placeOrder: () => Promise.reject(new Error('not in these tests')),
  };
}

const connections: Array<{ exchange: string; credentialType: string; credentials: Record<string, string> }> = [];

let host: TestHost;
/** Every response of this file: none may contain a credential. */
const responses: LightMyRequestResponse[] = [];

beforeAll(async () => {
  host = await testHost({
    config: { exchanges: ['binance', 'okx'] },
    connectExchange: (exchange, credentialType, credentials) => {
      connections.push({ exchange, credentialType, credentials });
      // What the ccxt connector throws when the venue cannot be reached (ExchangeAdapterError EXCHANGE_UNAVAILABLE).
      if (credentials.apiKey?.startsWith('unreachable')) return Promise.reject(Object.assign(new Error(`connect ETIMEDOUT verifying ${credentials.apiKey}`), { code: 'EXCHANGE_UNAVAILABLE', retryable: true }));
      if (!credentials.apiKey?.startsWith('good')) return Promise.reject(new Error(`invalid api key ${credentials.apiKey ?? ''} with secret ${credentials.secret ?? ''}`));
      return Promise.resolve(fakeExchange(exchange, ['BTC/USDT:USDT', 'ONLY-CONNECTED']));
    },
    publicExchange: (exchange) => (exchange === 'okx' ? Promise.reject(new Error('connect ETIMEDOUT')) : Promise.resolve(fakeExchange(exchange, ['BTC/USDT:USDT', 'ETH/USDT:USDT']))),
  });
});
afterAll(async () => {
  for (const response of responses) {
    expect(response.body).not.toContain(SECRET);
    expect(response.body).not.toContain(API_KEY);
  }
  await host.close();
});

async function send(options: CallOptions): Promise<LightMyRequestResponse> {
  const response = await call(host.app, options);
  responses.push(response);
  return response;
}

const connect = (key: CreatedKey, body: unknown) => send({ method: 'POST', url: '/v2/auto/exchanges', key, body, signed: true });
const disconnect = (key: CreatedKey, exchange: string) => send({ method: 'DELETE', url: `/v2/auto/exchanges/${exchange}`, key, signed: true });
const binance = { exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: API_KEY, secret: SECRET } };

describe('GET /v2/auto/exchanges', () => {
  it('always lists paper, built in; available lists what can be connected', async () => {
    const key = await host.newKey();
    const response = await send({ url: '/v2/auto/exchanges', key });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({
      exchanges: [{ exchange: 'paper', credentialType: 'none', status: 'connected', connectedAt: null, builtIn: true }],
      available: ['paper', 'binance', 'okx'],
    });
  });
});

describe('POST /v2/auto/exchanges (connect)', () => {
  it('verifies the credentials with the venue, then 201 {exchange, credentialType, status: "connected", connectedAt}', async () => {
    const key = await host.newKey();
    const before = connections.length;
    const response = await connect(key, binance);
    expect(response.statusCode).toBe(201);
    expect(json(response)).toMatchObject({ exchange: 'binance', credentialType: 'api_key', status: 'connected', connectedAt: expect.stringMatching(ISO) as string });
    expect(connections.slice(before)).toEqual([{ exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: API_KEY, secret: SECRET } }]);
    const listed = json(await send({ url: '/v2/auto/exchanges', key }));
    expect(listed.exchanges).toEqual([
      expect.objectContaining({ exchange: 'paper', builtIn: true }),
      { exchange: 'binance', credentialType: 'api_key', status: 'connected', connectedAt: json(response).connectedAt, builtIn: false },
    ]);
  });

  it('seals the credentials at rest: the exchanges table never holds them in clear', async () => {
    const key = await host.newKey();
    expect((await connect(key, binance)).statusCode).toBe(201);
    const rows = host.store.db.prepare('SELECT * FROM exchanges WHERE key_id = ?').all(key.record.id) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(API_KEY);
    const sealed = String(rows[0]?.credentials_sealed);
    expect(sealed.startsWith('v1:')).toBe(true);
    expect(JSON.parse(host.context.box.open(sealed))).toEqual({ apiKey: API_KEY, secret: SECRET });
  });

  it('credentials the venue refuses: 422 exchange_credentials_rejected, nothing stored, no credential echoed', async () => {
    const key = await host.newKey();
    const refused = { exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: `bad-${API_KEY}`, secret: SECRET } };
    const response = await connect(key, refused);
    expect(response.statusCode).toBe(422);
    expect(errorCode(response)).toBe('exchange_credentials_rejected');
    expect(response.body).not.toContain(SECRET);
    expect(response.body).not.toContain(`bad-${API_KEY}`);
    expect(host.store.exchangesOf(key.record.id)).toEqual([]);
  });

  it('a venue that cannot be reached: 502 venue_unreachable (as validate-symbol), not a refusal; nothing stored, no credential echoed', async () => {
    const key = await host.newKey();
    const response = await connect(key, { ...binance, credentials: { apiKey: `unreachable-${API_KEY}`, secret: SECRET } });
    expect(response.statusCode).toBe(502);
    expect(errorCode(response)).toBe('venue_unreachable');
    expect(response.body).not.toContain(`unreachable-${API_KEY}`);
    expect(response.body).not.toContain('refused');
    expect(host.store.exchangesOf(key.record.id)).toEqual([]);
  });

  it('400 for an exchange this host does not connect, a malformed id, missing or non-string credentials', async () => {
    const key = await host.newKey();
    for (const [body, code] of [
      [{ ...binance, exchange: 'kraken' }, 'exchange_not_supported'],
      [{ ...binance, exchange: 'Bin-ance' }, 'invalid_request'],
      [{ ...binance, exchange: 'b' }, 'invalid_request'],
      [{ exchange: 'binance', credentialType: 'api_key' }, 'invalid_request'],
      [{ exchange: 'binance', credentials: { apiKey: API_KEY, secret: SECRET } }, 'invalid_request'],
      [{ ...binance, credentials: 'apiKey=1' }, 'invalid_request'],
      [{ ...binance, credentials: { apiKey: API_KEY } }, 'invalid_credentials'],
      [{ ...binance, credentials: { apiKey: API_KEY, secret: 42 } }, 'invalid_credentials'],
      [{ ...binance, credentials: { apiKey: API_KEY, secret: '' } }, 'invalid_credentials'],
      [{ exchange: 'binance', credentialType: 'custom', credentials: {} }, 'invalid_credentials'],
      [{ exchange: 'binance', credentialType: 'wallet', credentials: { privateKey: SECRET } }, 'invalid_credentials'],
      [[binance], 'invalid_request'],
    ] as const) {
      const response = await connect(key, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorCode(response)).toBe(code);
    }
    expect(host.store.exchangesOf(key.record.id)).toEqual([]);
  });

  it('paper needs no credentials: connecting it answers 200 with the built-in connection', async () => {
    const key = await host.newKey();
    const response = await connect(key, { exchange: 'paper', credentialType: 'none', credentials: {} });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ exchange: 'paper', status: 'connected', builtIn: true });
  });

  it('reconnecting replaces the stored credentials', async () => {
    const key = await host.newKey();
    await connect(key, binance);
    const other = { ...binance, credentials: { apiKey: 'good-second-key', secret: 'second-secret-value' } };
    expect((await connect(key, other)).statusCode).toBe(201);
    const [record] = host.store.exchangesOf(key.record.id);
    expect(JSON.parse(host.context.box.open(record?.credentialsSealed ?? ''))).toEqual(other.credentials);
  });
});

describe('DELETE /v2/auto/exchanges/{exchange} (disconnect)', () => {
  it('200 {exchange, disconnectedAt}; then 404; never connected 404', async () => {
    const key = await host.newKey();
    await connect(key, binance);
    const response = await disconnect(key, 'binance');
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ exchange: 'binance', disconnectedAt: expect.stringMatching(ISO) as string });
    expect(host.store.exchangesOf(key.record.id)).toEqual([]);
    expect((json(await send({ url: '/v2/auto/exchanges', key })).exchanges as unknown[]).length).toBe(1);
    for (const exchange of ['binance', 'okx']) {
      const gone = await disconnect(key, exchange);
      expect(gone.statusCode, exchange).toBe(404);
      expect(errorCode(gone)).toBe('not_found');
    }
  });

  it('paper, always listed as connected, cannot be disconnected: 409 exchange_built_in, and it stays listed', async () => {
    const key = await host.newKey();
    const response = await disconnect(key, 'paper');
    expect(response.statusCode).toBe(409);
    expect(errorCode(response)).toBe('exchange_built_in');
    expect(json(await send({ url: '/v2/auto/exchanges', key })).exchanges).toEqual([expect.objectContaining({ exchange: 'paper', status: 'connected', builtIn: true })]);
  });

    it('another key\'s connection is a 404 and stays', async () => {
    const [owner, stranger] = [await host.newKey(), await host.newKey()];
    await connect(owner, binance);
    expect((await disconnect(stranger, 'binance')).statusCode).toBe(404);
    expect(host.store.exchangesOf(owner.record.id)).toHaveLength(1);
  });
});

describe('GET /v2/auto/validate-symbol/{exchange}/{symbol} (spec 2.9)', () => {
  const check = (key: CreatedKey, exchange: string, symbol: string) => send({ url: `/v2/auto/validate-symbol/${exchange}/${encodeURIComponent(symbol)}`, key });

  it('answers {"supported": "true" | "false"} with STRINGS; paper takes perpetual forms of priced assets, not spot pairs', async () => {
    const key = await host.newKey();
    const yes = await check(key, 'paper', 'BTC');
    expect(yes.statusCode).toBe(200);
    expect(yes.body).toBe('{"supported":"true"}');
    expect(json(yes).supported).toBe('true');
    expect(yes.headers['x-svc-credits-used']).toBe('0');
    const spot = await check(key, 'paper', 'BTC/USDT');
    expect(spot.statusCode).toBe(200);
    expect(spot.body).toBe('{"supported":"false"}');
    expect(json(await check(key, 'paper', 'BTC/USDT:USDT')).supported).toBe('true');
  });

  it('a venue this host knows is asked through its public API', async () => {
    const key = await host.newKey();
    expect(json(await check(key, 'binance', 'ETH/USDT:USDT'))).toEqual({ supported: 'true' });
    expect(json(await check(key, 'binance', 'DOGE/USDT'))).toEqual({ supported: 'false' });
    expect(json(await check(key, 'binance', 'ONLY-CONNECTED'))).toEqual({ supported: 'false' });
  });

  it('a connected venue is asked through the key\'s connection', async () => {
    const key = await host.newKey();
    await connect(key, binance);
    expect(json(await check(key, 'binance', 'ONLY-CONNECTED'))).toEqual({ supported: 'true' });
  });

  it('400 invalid_exchange for a malformed exchange id, exchange_not_supported for an unknown one, invalid_request for an overlong symbol', async () => {
    const key = await host.newKey();
    for (const [exchange, symbol, code] of [
      ['Bin-ance', 'BTC', 'invalid_exchange'],
      ['b', 'BTC', 'invalid_exchange'],
      ['1inch', 'BTC', 'invalid_exchange'],
      ['kraken', 'BTC', 'exchange_not_supported'],
      ['paper', 'X'.repeat(65), 'invalid_request'],
      ['paper', ' ', 'invalid_symbol'],
    ] as const) {
      const response = await check(key, exchange, symbol);
      expect(response.statusCode, `${exchange}/${symbol}`).toBe(400);
      expect(errorCode(response)).toBe(code);
    }
  });

  it('502 venue_unreachable when the venue cannot be asked', async () => {
    const key = await host.newKey();
    const response = await check(key, 'okx', 'BTC/USDT:USDT');
    expect(response.statusCode).toBe(502);
    expect(errorCode(response)).toBe('venue_unreachable');
  });
});
