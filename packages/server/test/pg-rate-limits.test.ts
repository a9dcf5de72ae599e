import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, expect, it } from 'vitest';
import { parseRecording } from '@eql/core';
import { createPaymentConfig, PaymentRateLimiter } from '@eql/x402';
import { buildServer, createApiKey, type Host, PgHostStore } from '../src/index.js';
import { PgRateCounter } from '../src/metering/pg-rate-counter.js';
import { removeDir } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { adminQuery, describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';
import { newPayer, signPayment } from '../../x402/test/support/x402-payer.js';

// Rate limits shared by the hosts of one PostgreSQL database (issue 14, point 4): two hosts on one schema
// count a key's requests, a client address's requests on the payment-model routes and its refused
// payment signatures together; a failure of PostgreSQL falls back to counting in the process, never to
// a 500. Windows are opened and ended by the database's clock: tests end one by moving its expiry, not by
// waiting.

const TINY_RECORDING = parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');
const PAY_TO = '0x1111111111111111111111111111111111111111';
const PATH = '/x402/v2/aggregations/trending-tokens';
const payments = createPaymentConfig({ payTo: PAY_TO });

const schemas: TestSchema[] = [];
const dirs: string[] = [];
const hosts: Host[] = [];
afterAll(async () => {
  for (const host of hosts) await host.close();
  for (const schema of schemas) await schema.drop();
  for (const dir of dirs) await removeDir(dir);
});

async function schema(label: string): Promise<TestSchema> {
  const made = await freshSchema(label);
  schemas.push(made);
  return made;
}

interface HostOptions {
  x402?: { requestsPerMinute?: number; badSignaturesPerPayer?: number; badSignaturesPerAddress?: number };
  ingestRequestsPerMinute?: number;
  /** Receives the host's log lines (warn and above). */
  logged?: string[];
}

/** A host on the database at `url` (its own pool, as another process would have). */
async function pgHost(url: string, options: HostOptions = {}): Promise<Host> {
  const dataDir = await mkdtemp(join(tmpdir(), 'eql-pg-rate-'));
  dirs.push(dataDir);
  const logged = options.logged;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged?.push(chunk.toString());
      done();
    },
  });
  const host = await buildServer({
    config: {
      dataDir,
      databaseUrl: url,
      secretKey: SECRET_KEY_HEX,
      marketSeed: false,
      ...(options.x402 ? { x402: { payTo: PAY_TO, agentSecrets: [], ...options.x402 } } : {}),
      ...(options.ingestRequestsPerMinute ? { ingestRequestsPerMinute: options.ingestRequestsPerMinute } : {}),
    },
    logger: logged ? { level: 'warn', stream } : false,
    engine: { sources: [], recording: TINY_RECORDING },
  });
  hosts.push(host);
  return host;
}

async function twoHosts(label: string, options: HostOptions = {}): Promise<{ url: string; one: Host; two: Host }> {
  const { url } = await schema(label);
  const one = await pgHost(url, options);
  const two = await pgHost(url, options);
  return { url, one, two };
}

const auto = (host: Host, key: string): Promise<LightMyRequestResponse> => host.app.inject({ method: 'GET', url: '/v2/auto/exchanges', headers: { 'x-svc-api-key': key } });
const paidRoute = (host: Host, remoteAddress: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> => host.app.inject({ method: 'GET', url: PATH, remoteAddress, headers });

function expectRateLimited(response: LightMyRequestResponse, message: string | RegExp): void {
  expect(response.statusCode, response.body).toBe(429);
  expect(response.json()).toEqual({ success: false, error: { code: 'rate_limited', message: (typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message)) as unknown } });
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
}

await describeWithPostgres('rate limits shared by the hosts of a PostgreSQL database', () => {
  it("counts a key's requests a minute over both hosts: the 61st of a free key is a 429 on either", { timeout: 60_000 }, async () => {
    const { one, two } = await twoHosts('key_quota');
    expect(one.context.store).toBeInstanceOf(PgHostStore);
    const { key } = await createApiKey(one.context.store, one.context.box, { name: 'free', plan: 'free' });
    for (let index = 1; index <= 60; index += 1) {
      const response = await auto(index % 2 === 0 ? one : two, key);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('60');
      // What is left counts the requests of both hosts.
      expect(response.headers['x-ratelimit-remaining']).toBe(String(60 - index));
    }
    for (const host of [one, two]) {
      const refused = await auto(host, key);
      expectRateLimited(refused, 'more than 60 requests a minute on Auto routes');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    }
    // Per key: another key is not affected, on either host.
    const other = await createApiKey(two.context.store, two.context.box, { name: 'other', plan: 'free' });
    expect((await auto(one, other.key)).statusCode).toBe(200);
    expect((await auto(two, other.key)).statusCode).toBe(200);
  });

  it("counts a key's ingest requests a minute over both hosts", { timeout: 60_000 }, async () => {
    const { one, two } = await twoHosts('ingest_requests', { ingestRequestsPerMinute: 2 });
    const { key } = await createApiKey(one.context.store, one.context.box, { name: 'ingester', plan: 'pro', scopes: ['ingest'] });
    const ingest = (host: Host, id: string) =>
      host.app.inject({ method: 'POST', url: '/v2/ingest', headers: { 'x-svc-api-key': key }, payload: { items: [{ kind: 'post', tweetId: id, link: `https://x.com/u/status/${id}`, username: 'u', text: 'shared count', mentionedAt: Date.now() }] } });
    const answers = [await ingest(one, 'p-1'), await ingest(two, 'p-2'), await ingest(one, 'p-3'), await ingest(two, 'p-4')];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 429, 429]);
    expectRateLimited(answers[3]!, 'more than 2 ingest requests a minute for this key');
  });

  it('counts the requests of a client address on the payment-model routes over both hosts', { timeout: 60_000 }, async () => {
    const { one, two } = await twoHosts('x402_requests', { x402: { requestsPerMinute: 4 } });
    const statuses: number[] = [];
    for (const host of [one, two, one, two, one, two]) statuses.push((await paidRoute(host, '203.0.113.7')).statusCode);
    expect(statuses).toEqual([402, 402, 402, 402, 429, 429]);
    expectRateLimited(await paidRoute(one, '203.0.113.7'), 'more than 4 requests a minute on payment-model routes');
    // Another address has its own count.
    expect((await paidRoute(two, '203.0.113.8')).statusCode).toBe(402);
  });

  it('counts refused payment signatures over both hosts: the payer bound holds for the two together', { timeout: 60_000 }, async () => {
    const { one, two } = await twoHosts('x402_signatures', { x402: { badSignaturesPerPayer: 3, badSignaturesPerAddress: 6, requestsPerMinute: 1000 } });
    const victim = newPayer();
    const forged = await signPayment(victim, payments, 9000n, Math.floor(Date.now() / 1000), { signer: newPayer() });
    const answers: LightMyRequestResponse[] = [];
    for (const host of [one, two, one, two, one]) answers.push(await paidRoute(host, '203.0.113.9', forged.headers));
    expect(answers.map((answer) => answer.statusCode)).toEqual([402, 402, 402, 429, 429]);
    for (const answer of answers.slice(0, 3)) expect(answer.json()).toMatchObject({ error: 'payment_invalid_signature' });
    expectRateLimited(answers[3]!, victim.address);

    // The address bound (6) over both hosts too, whatever payer each forgery claims: 3 refused so far.
    const statuses: number[] = [];
    for (const host of [two, one, two, one]) {
      const other = await signPayment(newPayer(), payments, 9000n, Math.floor(Date.now() / 1000), { signer: newPayer() });
      statuses.push((await paidRoute(host, '203.0.113.9', other.headers)).statusCode);
    }
    expect(statuses).toEqual([402, 402, 402, 429]);
    // An honest payment from elsewhere is not limited.
    const honest = await signPayment(newPayer(), payments, 9000n, Math.floor(Date.now() / 1000));
    expect((await paidRoute(one, '198.51.100.1', honest.headers)).statusCode).toBe(200);
  });

  it('a failure of PostgreSQL is no 500: the host counts in its own memory meanwhile, and logs a warning', { timeout: 60_000 }, async () => {
    const logged: string[] = [];
    const made = await schema('fail_open');
    const one = await pgHost(made.url, { x402: { requestsPerMinute: 2 }, logged });
    const two = await pgHost(made.url, { x402: { requestsPerMinute: 2 } });
    const { key } = await createApiKey(one.context.store, one.context.box, { name: 'free', plan: 'free' });
    // The table of the counters goes away (a statement of the limiter fails; the rest of the store works).
    await adminQuery(`DROP TABLE ${made.name}.rate_limits`);

    const response = await auto(one, key);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-ratelimit-remaining']).toBe('59');
    const warnings = logged.map((line) => JSON.parse(line) as { level: number; msg: string; error?: string });
    expect(warnings).toContainEqual(expect.objectContaining({ level: 40, msg: expect.stringContaining('rate limits: PostgreSQL failed') as unknown, error: expect.stringContaining('rate_limits') as unknown }));

    // Per process meanwhile: each host counts the address on its own (2 each), and still refuses past it.
    const statuses: number[] = [];
    for (const host of [one, one, one, two, two, two]) statuses.push((await paidRoute(host, '203.0.113.10')).statusCode);
    expect(statuses).toEqual([402, 402, 429, 402, 402, 429]);
    // A single warning for the failures of a minute.
    expect(logged.filter((line) => line.includes('rate limits: PostgreSQL failed'))).toHaveLength(1);
  });
});

await describeWithPostgres('PgRateCounter', () => {
  let store: PgHostStore | undefined;
  afterAll(async () => {
    await store?.close();
  });

  it('counts hits atomically from several pools, opens a new window once the last ended, takes hits back, prunes ended windows', { timeout: 30_000 }, async () => {
    const made = await schema('counter');
    store = await PgHostStore.open(made.url);
    const other = await PgHostStore.open(made.url);
    try {
      const counters = [new PgRateCounter(store.pool, { prefix: 't:' }), new PgRateCounter(other.pool, { prefix: 't:' })];
      // 40 hits at once from two pools: each sees its own count, 1 to 40.
      const counts = await Promise.all(Array.from({ length: 40 }, (_, index) => counters[index % 2]!.hit('k', 60_000)));
      expect(counts.map((count) => count.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
      for (const { ttlMs } of counts) expect(ttlMs).toBeGreaterThan(0);
      for (const { ttlMs } of counts) expect(ttlMs).toBeLessThanOrEqual(60_000);
      expect((await counters[1]!.peek('k')).count).toBe(40);
      await counters[0]!.unhit('k');
      expect((await counters[1]!.peek('k')).count).toBe(39);
      // Prefixes keep counters apart.
      expect((await counters[0]!.withPrefix('u:').peek('k')).count).toBe(0);

      // The window ends (its expiry moved to the past): peek sees none, unhit does nothing, the next hit opens a new one.
      await adminQuery(`UPDATE ${made.name}.rate_limits SET expires_at = now() - interval '1 second' WHERE key = 't:k'`);
      expect(await counters[0]!.peek('k')).toEqual({ count: 0, ttlMs: 0 });
      await counters[0]!.unhit('k');
      expect((await counters[1]!.hit('k', 10_000)).count).toBe(1);

      await counters[0]!.hit('gone', 60_000);
      await adminQuery(`UPDATE ${made.name}.rate_limits SET expires_at = now() - interval '1 second' WHERE key = 't:gone'`);
      expect(await counters[0]!.prune()).toBe(1);
      expect(await adminQuery(`SELECT key FROM ${made.name}.rate_limits ORDER BY key`)).toEqual([{ key: 't:k' }]);
    } finally {
      await other.close();
    }
  });

  it('serves as the counter of PaymentRateLimiter: limiters of two hosts share its bounds', { timeout: 30_000 }, async () => {
    const made = await schema('limiter');
    const first = await PgHostStore.open(made.url);
    const second = await PgHostStore.open(made.url);
    try {
      const [one, two] = [first, second].map((host) => new PaymentRateLimiter({ perPayer: 0, perAddress: 2, counter: new PgRateCounter(host.pool, { prefix: 'x402:' }) }));
      for (const limiter of [one!, two!]) {
        const slot = await limiter.take('0xab', '10.0.0.1');
        expect(slot.ok).toBe(true);
        if (slot.ok) await slot.done(false);
      }
      expect(await one!.take('0xab', '10.0.0.1')).toMatchObject({ ok: false, limit: 'address', max: 2 });
      expect(await adminQuery(`SELECT key, count::int AS count FROM ${made.name}.rate_limits`)).toEqual([{ key: 'x402:address:10.0.0.1', count: 2 }]);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
