import { readFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEqlClient, EqlApiError, EqlClientError, type QueryRequest, type StreamEvent } from '../src/index.js';
import { type ChildHost, killChildren, serveChild } from '../../server/test/support/child-host.js';
import { freePort, removeDir } from '../../server/test/support/harness.js';

// @eql/client against a real host: `eql serve` as a child process over a loopback socket (the built
// CLI: `npx tsc -b` first). Every wait is for an event (an answer, an SSE frame, a line the child
// prints); reconnect delays are made short, never asserted.

const API_KEY = 'eql_client_test_key_0123456789abcdef';
const HMAC_SECRET = 'client-test-hmac-secret-0123456789';

let dir: string;
let host: ChildHost;
let env: Record<string, string>;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eql-client-'));
  const recording = join(dir, 'btc.jsonl');
  const lines = Array.from({ length: 60 }, (_, minute) => JSON.stringify({ at: new Date(Date.UTC(2026, 0, 5, 0, minute)).toISOString(), source: 'price', symbol: 'BTC', price: 100 }));
  await writeFile(recording, `${lines.join('\n')}\n`);
  const port = await freePort();
  env = { EQL_PORT: String(port), EQL_HOST: '127.0.0.1', EQL_DATA_DIR: join(dir, 'data'), EQL_API_KEY: API_KEY, EQL_HMAC_SECRET: HMAC_SECRET, EQL_RECORDING: recording, EQL_LOG_LEVEL: 'warn', EQL_SSE_MAX_STREAMS_PER_KEY: '2', EQL_X402_DEMO: '1' };
  host = await serveChild(env);
  base = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  killChildren();
  await removeDir(dir);
});

/** A notify query that fires at once on the flat BTC feed (the host hands a new query the latest price). */
const firesAtOnce = (title: string): QueryRequest => ({
  title,
  query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'tell', type: 'notify', params: { message: title } }], expiresIn: '1h' },
});

const paperTrade: QueryRequest = {
  title: 'Buy $100 of BTC above 1,000,000',
  query: {
    conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1_000_000 }] },
    actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', amountUsd: 100 } }],
    expiresIn: '1h',
  },
};

/** A fetch that counts what it sends and remembers the answers' statuses. */
function countingFetch() {
  const sent: Array<{ method: string; path: string; headers: Headers }> = [];
  const statuses: number[] = [];
  const listeners: Array<(status: number) => void> = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    sent.push({ method: request.method, path: new URL(request.url).pathname, headers: request.headers });
    const response = await globalThis.fetch(request);
    statuses.push(response.status);
    for (const listener of listeners) listener(response.status);
    return response;
  };
  return { fetch, sent, statuses, onStatus: (listener: (status: number) => void) => listeners.push(listener) };
}

/** Reads events of a stream until `done` says stop; returns them. */
async function collect(events: AsyncGenerator<StreamEvent>, done: (seen: StreamEvent[]) => boolean): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (done(seen)) break;
  }
  return seen;
}

const notificationsOf = (events: StreamEvent[]) => events.flatMap((event) => (event.event === 'notification:new' ? [event] : []));

describe('typed calls', () => {
  it('pings, reads the key, validates and creates in both forms, polls, lists and cancels', async () => {
    const eql = createEqlClient({ baseUrl: base, apiKey: API_KEY });
    expect(await eql.ping()).toMatchObject({ success: true });
    const status = await eql.keyStatus();
    expect(status.data?.key).toMatch(/^eql_clie/);
    expect(JSON.stringify(status)).not.toContain(API_KEY);

    const request = firesAtOnce('typed calls');
    expect(await eql.validateQuery(request)).toMatchObject({ valid: true });
    const created = await eql.createQuery(request);
    expect(created.status).toBe('active');
    const polled = await eql.getQuery(created.queryId);
    expect(polled.queryId).toBe(created.queryId);
    const page = await eql.listQueries({ limit: 50 });
    expect(JSON.stringify(page)).toContain(created.queryId);

    const text = 'title "Text form"\nwhen price of BTC > 10\nthen\n  notify "BTC above 10" as tell\nexpires in 1h\n';
    expect(await eql.validateQuery(text)).toMatchObject({ valid: true });
    const fromText = await eql.createQuery(text);
    expect(fromText.status).toBe('active');
    const cancelled = await eql.cancelQuery(fromText.queryId).catch((error: unknown) => error);
    // It may have fired and finished before the cancel: both answers are the host's, typed.
    if (cancelled instanceof EqlApiError) expect(cancelled.status).toBe(409);
    else expect(cancelled).toMatchObject({ id: fromText.queryId, status: 'cancelled' });
    expect(await eql.deleteQuery(fromText.queryId)).toMatchObject({ id: fromText.queryId, deletedAt: expect.any(String) as string });
  });

  it("turns the host's errors into EqlApiError with status, code and details", async () => {
    const stranger = createEqlClient({ baseUrl: base, apiKey: 'eql_not_a_key_0123456789abcdef0123' });
    const unknownKey = await stranger.listQueries().catch((error: unknown) => error);
    expect(unknownKey).toBeInstanceOf(EqlApiError);
    expect(unknownKey).toMatchObject({ status: 401 });

    const eql = createEqlClient({ baseUrl: base, apiKey: API_KEY });
    const syntax = await eql.validateQuery('when price of BTC is above\n').catch((error: unknown) => error);
    expect(syntax).toMatchObject({ status: 400, code: 'invalid_syntax' });
    const { errors } = (syntax as EqlApiError).details as { errors: Array<{ message: string; line: number; column: number }> };
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect([typeof error.message, typeof error.line, typeof error.column]).toEqual(['string', 'number', 'number']);
    const missing = await eql.getQuery('00000000-0000-4000-8000-000000000000').catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404 });
  });
});

describe('signing (spec 5.2)', () => {
  it('refuses, before sending, a trading create without the HMAC secret', async () => {
    const counting = countingFetch();
    const eql = createEqlClient({ baseUrl: base, apiKey: API_KEY, fetch: counting.fetch });
    const refused = await eql.createQuery(paperTrade).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EqlClientError);
    expect(refused).toMatchObject({ code: 'signature_required' });
    expect(counting.sent).toEqual([]);
  });

  it('signs a trading create, and the host takes it (after the preflight); a cancel of that query is signed too', async () => {
    const counting = countingFetch();
    const eql = createEqlClient({ baseUrl: base, apiKey: API_KEY, hmacSecret: HMAC_SECRET, fetch: counting.fetch });
    await eql.listExchanges();
    await eql.validateQuery(paperTrade);
    const created = await eql.createQuery(paperTrade);
    expect(created.status).toBe('active');
    const create = counting.sent.find((request) => request.method === 'POST' && request.path === '/v2/auto/queries');
    expect(create?.headers.get('x-svc-signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(create?.headers.get('x-svc-timestamp')).toMatch(/^\d+$/);
    expect(await eql.cancelQuery(created.queryId)).toMatchObject({ id: created.queryId, status: 'cancelled' });
    expect(counting.sent.at(-1)?.headers.get('x-svc-signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a wrong secret gets the 401 with the string the host signed, which the client can compare with its own', async () => {
    await createEqlClient({ baseUrl: base, apiKey: API_KEY }).validateQuery(paperTrade);
    const eql = createEqlClient({ baseUrl: base, apiKey: API_KEY, hmacSecret: () => 'not-the-secret-0123456789abcdef' });
    const refused = await eql.createQuery(paperTrade).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 401, code: 'signature_invalid_signature' });
    const details = (refused as EqlApiError).details as { signed: string; parts: { path: string } };
    expect(details.parts.path).toBe('/queries');
    expect(details.signed).toContain(`POST/queries${JSON.stringify(paperTrade)}`);
    expect(JSON.stringify(details)).not.toContain(HMAC_SECRET);
  });
});

describe('notifications', () => {
  it('arrive as an async iterator; a new stream resumes after the last id seen, with nothing twice', async () => {
    const eql = createEqlClient({ baseUrl: base, apiKey: API_KEY });
    const stream = eql.notifications({ lastEventId: '0' });
    const first = collect(stream, (seen) => notificationsOf(seen).some((event) => event.data.title === 'resume one'));
    await eql.validateQuery(firesAtOnce('resume one'));
    await eql.createQuery(firesAtOnce('resume one'));
    const seen = notificationsOf(await first);
    const last = seen.at(-1)!;
    expect(last.data.data.queryId).toMatch(/[0-9a-f-]{36}/);

    // Two more fire while nobody listens; the next stream replays exactly those.
    for (const title of ['resume two', 'resume three']) {
      await eql.validateQuery(firesAtOnce(title));
      const { queryId } = await eql.createQuery(firesAtOnce(title));
      await collect(eql.notifications({ queryId }), (events) => events.some((event) => event.event === 'notification:new'));
    }
    const resumed = notificationsOf(await collect(eql.notifications({ lastEventId: last.id }), (events) => notificationsOf(events).some((event) => event.data.title === 'resume three')));
    expect(resumed.map((event) => event.data.title)).toEqual(['resume two', 'resume three']);
    expect(resumed.every((event) => Number(event.id) > Number(last.id))).toBe(true);
  });

  it('reconnect with Last-Event-ID when the host is killed and started again, and miss nothing', { timeout: 90_000 }, async () => {
    const eql = createEqlClient({ baseUrl: base, apiKey: API_KEY });
    const reconnects: Array<string | undefined> = [];
    const stream = eql.notifications({ reconnectDelayMs: 50, onReconnect: ({ lastEventId }) => reconnects.push(lastEventId) });
    const seen: StreamEvent[] = [];
    let ready!: () => void;
    const readyOnce = new Promise<void>((resolve) => (ready = resolve));
    const reading = (async () => {
      for await (const event of stream) {
        seen.push(event);
        if (event.event === 'ready') ready();
        // Both, in whichever order the restarted host fires them (the first may fire only once it is back).
        const titles = new Set(notificationsOf(seen).map((notification) => notification.data.title));
        if (titles.has('after restart') && titles.has('before kill')) break;
      }
    })();
    await readyOnce;
    await eql.validateQuery(firesAtOnce('before kill'));
    await eql.createQuery(firesAtOnce('before kill'));
    await host.kill9();
    host = await serveChild(env);
    await eql.validateQuery(firesAtOnce('after restart'));
    await eql.createQuery(firesAtOnce('after restart'));
    await reading;
    const titles = notificationsOf(seen).map((event) => event.data.title);
    expect(titles.filter((title) => title === 'before kill')).toHaveLength(1);
    expect(titles.filter((title) => title === 'after restart')).toHaveLength(1);
    expect(new Set(notificationsOf(seen).map((event) => event.id)).size).toBe(notificationsOf(seen).length);
    expect(reconnects.length).toBeGreaterThan(0);
    expect(seen.filter((event) => event.event === 'ready').length).toBeGreaterThanOrEqual(2);
  });
});

describe('429', () => {
  it('waits out a refused stream (too_many_streams, retry-after) and connects once a slot is free', { timeout: 60_000 }, async () => {
    const holder = createEqlClient({ baseUrl: base, apiKey: API_KEY });
    const open = [new AbortController(), new AbortController()];
    const held = open.map((controller) => {
      const events = holder.notifications({ signal: controller.signal });
      return events.next();
    });
    await Promise.all(held);
    const counting = countingFetch();
    // When the third stream is first refused, one of the two closes.
    counting.onStatus((status) => {
      if (status === 429) open[0]!.abort();
    });
    // Retried until the host has seen the first stream close (one retry on an idle machine, more on a loaded one).
    const eql = createEqlClient({ baseUrl: base, apiKey: API_KEY, fetch: counting.fetch, retry: { maxRetries: 30 } });
    const third = eql.notifications();
    const first = await third.next();
    expect(first.value).toMatchObject({ event: 'ready' });
    expect(counting.statuses.at(-1)).toBe(200);
    expect(counting.statuses.slice(0, -1).length).toBeGreaterThan(0);
    expect(counting.statuses.slice(0, -1).every((status) => status === 429)).toBe(true);
    await third.return(undefined);
    open[1]!.abort();
  });

  it('gives a rate limit that asks for longer than maxDelayMs back as EqlApiError with retryAfterSeconds', { timeout: 60_000 }, async () => {
    const eql = createEqlClient({ baseUrl: base, apiKey: API_KEY, retry: { maxDelayMs: 0 } });
    let refused: unknown;
    for (let request = 0; request < 200 && refused === undefined; request += 1) await eql.listExchanges().catch((error: unknown) => (refused = error));
    expect(refused).toBeInstanceOf(EqlApiError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((refused as EqlApiError).retryAfterSeconds).toBeGreaterThan(0);
  });
});

describe('the payment model (x402)', () => {
  it('validates, pays for and polls a query on /x402 with the official client and the agent secret; without a payment it is 402', async () => {
    const { agentSecret } = JSON.parse(await readFile(join(env.EQL_DATA_DIR!, 'x402-demo.json'), 'utf8')) as { agentSecret: string };
    const account = privateKeyToAccount(generatePrivateKey());
    const payment = new x402Client().register('eip155:*', new ExactEvmScheme(account));
    const eql = createEqlClient({ baseUrl: base, agentSecret, payment });
    const request = firesAtOnce('paid');
    expect(await eql.paid.validateQuery(request)).toMatchObject({ valid: true });
    const created = await eql.paid.createQuery(request);
    expect(created.status).toBe('active');
    expect(await eql.paid.getQuery(created.queryId)).toMatchObject({ queryId: created.queryId });

    const unpaid = createEqlClient({ baseUrl: base, agentSecret });
    await unpaid.paid.validateQuery(request);
    const refused = await unpaid.paid.createQuery(request).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 402, code: 'payment_missing' });
  });
});
