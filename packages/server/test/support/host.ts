import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { type LlmProvider, parseRecording, PushSource, type Recording } from '@eql/core';
import { buildServer, type BuildOptions, type Host } from '../../src/build-server.js';
import { SqliteMarketData } from '@eql/market-data';
import { createApiKey, type CreatedKey } from '../../src/auth/api-keys.js';
import type { Plan } from '../../src/config.js';
import { SecretBox } from '../../src/secrets.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { KeyScope } from '../../src/store/records.js';

/**
 * Test hosts: an in-memory SQLite store, a fixed secret box, a PushSource the test feeds prices
 * through, and the small BTC recording for previews. Requests go through `app.inject`.
 */

export const SECRET_KEY_HEX = '0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0';

let recording: Recording | undefined;
/** The one-day BTC recording (parsed once per test file). */
export function smallRecording(): Recording {
  recording ??= parseRecording(readFileSync(new URL('../../../../fixtures/recordings/btc-1d.jsonl', import.meta.url), 'utf8'));
  return recording;
}

export interface TestHost extends Host {
  push: PushSource;
  store: SqliteStore;
  /** A new API key (pro unless told) with its HMAC secret. */
  newKey(options?: { plan?: Plan; name?: string; email?: string; project?: string; scopes?: KeyScope[] }): Promise<CreatedKey>;
}

export interface TestHostOptions extends Omit<BuildOptions, 'store' | 'box' | 'engine'> {
  llm?: LlmProvider;
  /** `push` (default): prices come only from `push`; `replay`: the host's own feed, the small recording replayed from now, with its past as history. */
  feed?: 'push' | 'replay';
}

export async function testHost(options: TestHostOptions = {}): Promise<TestHost> {
  const push = new PushSource();
  const box = SecretBox.fromKey(SECRET_KEY_HEX);
  // Secrets inside stored requests are sealed, as on a real host.
  const store = new SqliteStore(':memory:', { box });
  const { llm, feed, ...rest } = options;
  const ownMarket = options.market === undefined ? new SqliteMarketData(':memory:') : undefined;
  const market = options.market ?? ownMarket;
  const host = await buildServer({
    logger: false,
    ...rest,
    market,
    store,
    box,
    engine: { ...(feed === 'replay' ? {} : { sources: [push] }), recording: smallRecording(), ...(llm ? { llm } : {}) },
  });
  return {
    ...host,
    close: async () => {
      await host.close();
      ownMarket?.close();
    },
    push,
    store,
    newKey: (keyOptions = {}) => createApiKey(store, box, { name: keyOptions.name ?? 'test', plan: keyOptions.plan ?? 'pro', ...(keyOptions.email ? { email: keyOptions.email } : {}), ...(keyOptions.project ? { project: keyOptions.project } : {}), ...(keyOptions.scopes ? { scopes: keyOptions.scopes } : {}) }),
  };
}

/** HMAC-SHA256 hex of `timestamp + METHOD + path + body`, computed here with node:crypto (independent of the core's signer). */
export function sign(secret: string, timestamp: string, method: string, path: string, body: string): string {
  return createHmac('sha256', secret).update(timestamp + method.toUpperCase() + path + body).digest('hex');
}

export interface CallOptions {
  method?: InjectOptions['method'];
  url: string;
  /** The API key to send (x-svc-api-key). */
  key?: CreatedKey | string;
  /** A JSON body: serialized here, and this exact text is what gets signed. */
  body?: unknown;
  /** A raw body text (sent as is, content-type application/json unless headers say otherwise). */
  raw?: string;
  headers?: Record<string, string>;
  /** Sign the request with the key's HMAC secret (the body signed is the exact text sent, '' when none). */
  signed?: boolean | { timestamp?: string; secret?: string; bodyInSignature?: boolean };
  /** The clock for signing (seconds); the real clock by default. */
  nowSeconds?: number;
}

/** Signatures this process sent (the host accepts each once): a repeat of an identical request is signed with an earlier second. */
const sentSignatures = new Set<string>();

/** One request through `app.inject`, optionally signed like a client would. */
export async function call(app: Host['app'], options: CallOptions): Promise<LightMyRequestResponse> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined) headers['x-svc-api-key'] = typeof options.key === 'string' ? options.key : options.key.key;
  let payload: string | undefined;
  if (options.raw !== undefined) payload = options.raw;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  if (options.signed) {
    const signOptions = typeof options.signed === 'object' ? options.signed : {};
    const secret = signOptions.secret ?? (typeof options.key === 'object' ? options.key.hmacSecret : undefined);
    if (secret === undefined) throw new Error('signing needs a key object or a secret');
    let timestamp = signOptions.timestamp ?? String(options.nowSeconds ?? Math.floor(Date.now() / 1000));
    const path = (options.url.split('?')[0] ?? '').slice('/v2/auto'.length);
    const signedBody = signOptions.bodyInSignature === false ? '' : (payload ?? '');
    let signature = sign(secret, timestamp, method, path, signedBody);
    // Like a careful client: the same request twice in one second would be the same signature, a replay.
    while (signOptions.timestamp === undefined && sentSignatures.has(signature)) {
      timestamp = String(Number(timestamp) - 1);
      signature = sign(secret, timestamp, method, path, signedBody);
    }
    sentSignatures.add(signature);
    headers['x-svc-timestamp'] = timestamp;
    headers['x-svc-signature'] = signature;
  }
  return payload !== undefined ? app.inject({ method, url: options.url, headers, payload }) : app.inject({ method, url: options.url, headers });
}

/** The parsed JSON body of a response, as a plain record (tests index into it). */
export function json(response: LightMyRequestResponse): Record<string, unknown> {
  return response.json<Record<string, unknown>>();
}

/** Reads a nested field: `at(body, 'error', 'code')`. */
export function at(value: unknown, ...path: Array<string | number>): unknown {
  let current = value;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

/** The error code of an error response (and checks the error envelope). */
export function errorCode(response: LightMyRequestResponse): string {
  const body = json(response);
  if (body.success !== false || typeof at(body, 'error', 'code') !== 'string' || typeof at(body, 'error', 'message') !== 'string') {
    throw new Error(`not an error body (${response.statusCode}): ${response.body}`);
  }
  return at(body, 'error', 'code') as string;
}

/**
 * Waits until `check` returns something truthy (polling every 10 ms), or fails after `timeoutMs`: a safety
 * net for a check that never holds, not a budget (a loaded machine must not be taken for a fault).
 */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// ---------------------------------------------------------------- query requests

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const priceAbove = (value: number, symbol = 'BTC') => ({ source: 'price', method: 'current', args: { symbol }, operator: '>', value });

/** A notify query on `price.current > value` (fires at once when a price above it is pushed). */
export function notifyQuery(value = 1, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: `BTC above ${value}`,
    query: { conditions: { AND: [priceAbove(value)] }, actions: [{ stepId: 'notify-1', type: 'notify', params: { message: 'BTC moved' } }], expiresIn: '24h' },
    ...extra,
  };
}

/** A query with one action of the given shape. */
export function queryWith(action: Record<string, unknown>, value = 1_000_000): Record<string, unknown> {
  return { title: 'one action', query: { conditions: { AND: [priceAbove(value)] }, actions: [action], expiresIn: '24h' } };
}

export const ACTIONS = {
  notify: { stepId: 'n', type: 'notify', params: { message: 'hi' } },
  webhook: { stepId: 'w', type: 'webhook', params: { url: 'https://hooks.example.com/eql' } },
  messengerBot: { stepId: 'b', type: 'messenger_bot', params: { botToken: '123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0', chatId: '@eql_alerts', message: 'hi' } },
  llmNotify: { stepId: 'l', type: 'llm', params: { callback: { action: { type: 'notify' } } } },
  llmTrade: { stepId: 'l', type: 'llm', params: { callback: { action: { type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', amountUsd: 100 } } } } },
  marketOrder: (exchange = 'paper') => ({ stepId: 'm', type: 'market_order', params: { exchange, symbol: 'BTC', side: 'buy', amountUsd: 100 } }),
  limitOrder: (exchange = 'paper') => ({ stepId: 'o', type: 'limit_order', params: { exchange, symbol: 'BTC', side: 'buy', price: 50_000, size: 0.01 } }),
  unknown: { stepId: 'x', type: 'carrier_pigeon', params: {} },
} as const;
