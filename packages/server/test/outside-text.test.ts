import { createServer } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Exchange, type LlmProvider, parseRecording, PushSource } from '@eql/core';
import { buildServer, type Host } from '../src/build-server.js';
import { createApiKey, type CreatedKey } from '../src/auth/api-keys.js';
import type { HostConfig } from '../src/config.js';
import type { StoredNotification } from '../src/store/records.js';
import { removeDir } from './support/harness.js';
import { call, eventually, json, SECRET_KEY_HEX } from './support/host.js';
import { describeWithPostgres, freshSchema } from './support/postgres.js';

// Issue 45: text that reaches the store from outside the request (a bot API's description, an exchange's
// error, a model's reply) may hold a NUL (U+0000). PostgreSQL's text refuses it, SQLite keeps it: the
// write of a failed execution failed on PostgreSQL and left it `running`. Both stores keep U+FFFD in its
// place (store/stored-text.ts), and a host on either answers the same. The same cases run on both.

const RECORDING = parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');
const NUL = '\u0000';
const KEPT = '\uFFFD';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A bot API on loopback refusing every message with a description that holds a NUL. */
async function refusingBotApi(): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"ok":false,"error_code":400,"description":"Bad Request: chat not found\\u0000 here"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A venue that refuses every order with an error whose message holds a NUL (as a ccxt error may). */
const refusingExchange: Exchange = {
  id: 'binance',
  isPerpetual: () => true,
  lastPrice: () => 100_000,
  availableBalanceUsd: () => 10_000,
  placeOrder: () => Promise.reject(new Error(`binance {"code":-2019,"msg":"Margin is insufficient.${NUL}"}`)),
};

/** A model whose analysis holds a NUL. */
const nulModel: LlmProvider = {
  judge: () => Promise.resolve({ confidence: 50 }),
  analyze: () => Promise.resolve({ response: `BTC broke out${NUL}, watch 100k`, trades: [] }),
};

interface Backend {
  name: string;
  /** What the host is configured with to use this store. */
  config(): Promise<Partial<HostConfig>>;
}

const sqlite: Backend = { name: 'SQLite', config: () => Promise.resolve({}) };

const postgres: Backend = {
  name: 'PostgreSQL',
  config: async () => {
    const schema = await freshSchema('outside_text');
    cleanups.unshift(() => schema.drop());
    return { databaseUrl: schema.url };
  },
};

const priceAbove1 = { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 };

function cases(backend: Backend): void {
  async function openHost(config: Partial<HostConfig> = {}): Promise<Host & { push: PushSource; key: CreatedKey }> {
    const dataDir = await mkdtemp(join(tmpdir(), 'eql-outside-text-'));
    cleanups.unshift(() => removeDir(dataDir));
    const push = new PushSource();
    const host = await buildServer({
      config: { dataDir, secretKey: SECRET_KEY_HEX, marketSeed: false, allowPrivateWebhooks: true, exchanges: ['binance'], ...(await backend.config()), ...config },
      logger: false,
      engine: { sources: [push], recording: RECORDING, llm: nulModel },
      connectExchange: () => Promise.resolve(refusingExchange),
      publicExchange: () => Promise.resolve(refusingExchange),
    });
    cleanups.push(() => host.close());
    const key = await createApiKey(host.context.store, host.context.box, { name: 'outside', plan: 'pro' });
    return { ...host, push, key };
  }

  /** Validates and creates a query (listing the exchanges first, as a trading query needs), fires it, and waits for it to end. */
  async function fired(host: Host & { push: PushSource; key: CreatedKey }, actions: unknown[]): Promise<{ queryId: string; status: unknown }> {
    const body = { title: 'outside text', query: { conditions: { AND: [priceAbove1] }, actions, expiresIn: '1h' } };
    const validated = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key: host.key, body });
    expect(json(validated).valid, validated.body).toBe(true);
    expect((await call(host.app, { url: '/v2/auto/exchanges', key: host.key })).statusCode).toBe(200);
    const created = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key: host.key, body, signed: true });
    expect(created.statusCode, created.body).toBe(201);
    const queryId = json(created).queryId as string;
    // The query runs on the host once it holds the query's partition (PostgreSQL): pushed until it fires.
    const status = await eventually(async () => {
      host.push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 100_000 });
      const current = json(await call(host.app, { url: `/v2/auto/queries/${queryId}`, key: host.key })).status;
      return current === 'active' ? undefined : current;
    }, 60_000);
    return { queryId, status };
  }

  const executionsOf = async (host: Host & { key: CreatedKey }, queryId: string) =>
    json(await call(host.app, { url: `/v2/auto/executions?queryId=${queryId}`, key: host.key })).executions as Array<Record<string, unknown>>;

  it('a bot API refusing with a description that holds a NUL: the failed execution is recorded, its message with U+FFFD', { timeout: 90_000 }, async () => {
    const host = await openHost({ messengerBaseUrl: await refusingBotApi() });
    const { queryId, status } = await fired(host, [{ stepId: 'bot', type: 'messenger_bot', params: { botToken: '123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0', chatId: '@eql_alerts', message: 'hi' } }]);
    expect(status).toBe('failed');
    expect(await executionsOf(host, queryId)).toEqual([
      expect.objectContaining({ status: 'failed', error: { code: 'MESSENGER_BOT_ERROR', message: `the bot API refused the message (400: Bad Request: chat not found${KEPT} here)` } }),
    ]);
  });

  it('an exchange error whose message holds a NUL: EXCHANGE_ERROR is recorded with U+FFFD', { timeout: 90_000 }, async () => {
    const host = await openHost();
    const connected = await call(host.app, {
      method: 'POST',
      url: '/v2/auto/exchanges',
      key: host.key,
      signed: true,
      body: { exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: 'venue-key-0123456789', secret: 'venue-secret-0123456789' } },
    });
    expect(connected.statusCode, connected.body).toBe(201);
    const { queryId, status } = await fired(host, [{ stepId: 'buy', type: 'market_order', params: { exchange: 'binance', symbol: 'BTC/USDT:USDT', side: 'buy', amountUsd: 100 } }]);
    expect(status).toBe('failed');
    expect(await executionsOf(host, queryId)).toEqual([
      expect.objectContaining({ status: 'failed', error: { code: 'EXCHANGE_ERROR', message: `binance: binance {"code":-2019,"msg":"Margin is insufficient.${KEPT}"}` } }),
    ]);
  });

  it('a model reply that holds a NUL: the session, the execution result and the notification (live and replayed) say U+FFFD', { timeout: 90_000 }, async () => {
    const host = await openHost();
    const live: StoredNotification[] = [];
    host.context.runner.onNotification((notification) => live.push(notification));
    const { queryId, status } = await fired(host, [{ stepId: 'think', type: 'llm', params: { prompt: 'why', callback: { action: { type: 'notify' } } } }]);
    expect(status).toBe('triggered');
    const analysis = `BTC broke out${KEPT}, watch 100k`;
    const executions = await executionsOf(host, queryId);
    expect(executions.find((execution) => execution.type === 'llm')).toMatchObject({ status: 'succeeded', result: { response: analysis } });
    const sessions = json(await call(host.app, { url: `/v2/auto/queries/${queryId}/sessions`, key: host.key })).sessions as Array<{ sessionId: string }>;
    expect(sessions).toHaveLength(1);
    const session = json(await call(host.app, { url: `/v2/auto/queries/${queryId}/sessions/${sessions[0]?.sessionId ?? ''}`, key: host.key }));
    expect(JSON.stringify(session)).toContain(JSON.stringify(analysis));
    expect(JSON.stringify(session)).not.toContain('\\u0000');
    const replayed = await host.context.store.notificationsAfter(host.key.record.id, 0, queryId);
    expect(replayed.map((notification) => notification.body)).toEqual([analysis]);
    expect(live).toEqual(replayed);
  });
}

describe('text from outside the request, on SQLite', () => cases(sqlite));

await describeWithPostgres('text from outside the request, on PostgreSQL', () => cases(postgres));
