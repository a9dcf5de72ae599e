import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import type * as Viem from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryPaymentLedger, MemoryWindowCounter, PaymentRateLimiter } from '../src/index.js';
import { x402Payments } from '../src/fastify/index.js';
import { handleError } from './support/error-handler.js';
import { paidApp, testPaymentConfig, type PaidApp } from './support/x402-app.js';
import { newPayer, signPayment } from './support/x402-payer.js';

// Every signature recovery of the verifier goes through viem's verifyTypedData: count the calls.
const recoveries = vi.hoisted(() => ({ count: 0 }));
vi.mock('viem', async (importOriginal) => {
  const viem = await importOriginal<typeof Viem>();
  return {
    ...viem,
    verifyTypedData: (...args: Parameters<typeof viem.verifyTypedData>) => {
      recoveries.count += 1;
      return viem.verifyTypedData(...args);
    },
  };
});

const NOW_MS = Date.UTC(2026, 0, 5, 12, 0, 0);
const NOW = Math.floor(NOW_MS / 1000);
const FAST = 45_000n;
const PER_PAYER = 5;
const PER_ADDRESS = 12;

describe('PaymentRateLimiter', () => {
  it('counts checks per key in fixed windows; a valid signature gives its slot back; the window reopens', async () => {
    let clock = 0;
    const limiter = new PaymentRateLimiter({ perPayer: 2, perAddress: 0, windowMs: 10_000 }, () => clock);
    const first = await limiter.take('0xAB');
    const second = await limiter.take('0xab');
    expect([first.ok, second.ok]).toEqual([true, true]);
    expect(await limiter.take('0xab')).toEqual({ ok: false, limit: 'payer', max: 2, retryAfterSeconds: 10 });
    expect((await limiter.take('0xcd')).ok).toBe(true);
    if (first.ok) await first.done(true);
    const third = await limiter.take('0xab');
    expect(third.ok).toBe(true);
    if (third.ok) await third.done(false);
    clock = 9_001;
    expect(await limiter.take('0xab')).toMatchObject({ ok: false, retryAfterSeconds: 1 });
    clock = 10_000;
    expect((await limiter.take('0xab')).ok).toBe(true);
  });

  it('bounds each client address; the payer bound refuses only addresses that sent a refused signature', async () => {
    const limiter = new PaymentRateLimiter({ perPayer: 1, perAddress: 3 }, () => 0);
    // A forger at 10.0.0.1 spends the payer's bound...
    const forged = await limiter.take('0xvictim', '10.0.0.1');
    if (forged.ok) await forged.done(false);
    expect(await limiter.take('0xvictim', '10.0.0.1')).toMatchObject({ ok: false, limit: 'payer' });
    // ...but the payer, at a clean address, is still checked.
    const honest = await limiter.take('0xvictim', '10.0.0.2');
    expect(honest.ok).toBe(true);
    // The address bound holds whatever payers it claims.
    for (const payer of ['0x1', '0x2']) {
      const slot = await limiter.take(payer, '10.0.0.1');
      expect(slot.ok).toBe(true);
      if (slot.ok) await slot.done(false);
    }
    expect(await limiter.take('0x3', '10.0.0.1')).toMatchObject({ ok: false, limit: 'address', max: 3, retryAfterSeconds: 60 });
  });

  it('0 turns a bound off; invalid bounds are refused', async () => {
    const limiter = new PaymentRateLimiter({ perPayer: 0, perAddress: 0 });
    for (let index = 0; index < 100; index += 1) {
      const slot = await limiter.take('0xab', '10.0.0.1');
      expect(slot.ok).toBe(true);
      if (slot.ok) await slot.done(false);
    }
    expect(() => new PaymentRateLimiter({ perPayer: -1 })).toThrow(RangeError);
    expect(() => new PaymentRateLimiter({ perAddress: 1.5 })).toThrow(RangeError);
    expect(() => new PaymentRateLimiter({ windowMs: 0 })).toThrow(RangeError);
  });

  it('follows at most maxKeys keys, forgetting the oldest', async () => {
    const limiter = new PaymentRateLimiter({ perPayer: 1, perAddress: 0, maxKeys: 2 }, () => 0);
    for (const payer of ['0x1', '0x2', '0x3']) await limiter.take(payer);
    // 0x1 was forgotten (its window dropped), 0x3 is still counted.
    expect((await limiter.take('0x1')).ok).toBe(true);
    expect((await limiter.take('0x3')).ok).toBe(false);
  });

  it('limiters sharing one counter (the processes of a host on one database) share the bounds', async () => {
    const counter = new MemoryWindowCounter({ now: () => 0 });
    const [one, two] = [new PaymentRateLimiter({ perPayer: 2, perAddress: 3, counter }), new PaymentRateLimiter({ perPayer: 2, perAddress: 3, counter })];
    for (const limiter of [one, two]) {
      const slot = await limiter.take('0xab', '10.0.0.1');
      expect(slot.ok).toBe(true);
      if (slot.ok) await slot.done(false);
    }
    // Two refused signatures, one on each: the payer bound is reached on both.
    expect(await one.take('0xab', '10.0.0.1')).toMatchObject({ ok: false, limit: 'payer', max: 2 });
    expect(await two.take('0xAB', '10.0.0.1')).toMatchObject({ ok: false, limit: 'payer', max: 2 });
    // The address bound counts over both as well; a valid signature gives its slot back on the shared counter.
    const valid = await two.take('0xcd', '10.0.0.1');
    if (valid.ok) await valid.done(true);
    const third = await one.take('0xef', '10.0.0.1');
    expect(third.ok).toBe(true);
    expect(await two.take('0x12', '10.0.0.1')).toMatchObject({ ok: false, limit: 'address', max: 3 });
    expect(counter.peek('address:10.0.0.1')).toEqual({ count: 3, ttlMs: 60_000 });
  });
});

describe('a flood of payments with bad signatures (paid routes)', () => {
  let paid: PaidApp;
  beforeAll(async () => {
    paid = await paidApp({ now: () => NOW_MS, rateLimits: new PaymentRateLimiter({ perPayer: PER_PAYER, perAddress: PER_ADDRESS }, () => NOW_MS) });
  });
  afterAll(() => paid.app.close());
  beforeEach(() => {
    recoveries.count = 0;
  });

  const post = (headers: Record<string, string>, remoteAddress: string, url = '/x402/v2/chat'): Promise<LightMyRequestResponse> =>
    paid.app.inject({ method: 'POST', url, remoteAddress, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ speed: 'fast', message: 'hi' }) });

  function expectRateLimited(response: LightMyRequestResponse): void {
    expect(response.statusCode, response.body).toBe(429);
    expect(response.json()).toEqual({ success: false, error: { code: 'rate_limited', message: expect.stringMatching(/retry in \d+ s/) as unknown } });
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    expect(response.headers['payment-required']).toBeUndefined();
  }

  it('from one claimed payer: 429 after the payer bound, and the signature was recovered only that often', async () => {
    const victim = newPayer();
    const forged = await signPayment(victim, paid.config, FAST, NOW, { signer: newPayer() });
    const before = paid.handled.get('chat') ?? 0;
    const answers: LightMyRequestResponse[] = [];
    for (let index = 0; index < 40; index += 1) answers.push(await post(forged.headers, '10.0.0.1'));
    for (const answer of answers.slice(0, PER_PAYER)) expect(answer.json()).toMatchObject({ error: 'payment_invalid_signature' });
    for (const answer of answers.slice(PER_PAYER)) expectRateLimited(answer);
    expect(answers[PER_PAYER]?.json<{ error: { message: string } }>().error.message).toContain(victim.address);
    expect(recoveries.count).toBe(PER_PAYER);
    expect(paid.handled.get('chat') ?? 0).toBe(before);

    // The victim itself, paying from its own address, is not locked out by the forgeries.
    const honest = await signPayment(victim, paid.config, FAST, NOW);
    expect((await post(honest.headers, '10.0.0.9')).statusCode).toBe(200);
  });

  it('from one client address claiming a new payer each time: 429 after the address bound', async () => {
    const forger = newPayer();
    let limited = 0;
    for (let index = 0; index < 30; index += 1) {
      const forged = await signPayment(newPayer(), paid.config, FAST, NOW, { signer: forger });
      const answer = await post(forged.headers, '10.0.0.2');
      if (answer.statusCode === 429) {
        expectRateLimited(answer);
        limited += 1;
      } else expect(answer.json()).toMatchObject({ error: 'payment_invalid_signature' });
    }
    expect(limited).toBe(30 - PER_ADDRESS);
    expect(recoveries.count).toBe(PER_ADDRESS);
    // Every paid route shares the bound.
    const elsewhere = await signPayment(newPayer(), paid.config, FAST, NOW, { signer: forger });
    expectRateLimited(await post(elsewhere.headers, '10.0.0.2', '/x402/v2/refuses'));
  });

  it('honest payers are never limited, however often they pay', async () => {
    const payer = newPayer();
    for (let index = 0; index < PER_ADDRESS + PER_PAYER + 3; index += 1) {
      const { headers } = await signPayment(payer, paid.config, FAST, NOW);
      expect((await post(headers, '10.0.0.3')).statusCode).toBe(200);
    }
    expect(recoveries.count).toBe(PER_ADDRESS + PER_PAYER + 3);
  });

  it('cheap refusals come before the recovery: a wrong amount, recipient, window, signature form or a used nonce recover nothing', async () => {
    const payer = newPayer();
    const used = await signPayment(payer, paid.config, FAST, NOW);
    expect((await post(used.headers, '10.0.0.4')).statusCode).toBe(200);
    recoveries.count = 0;
    const refusals: Array<[Record<string, string>, string]> = [
      [used.headers, 'payment_replayed'],
      [(await signPayment(payer, paid.config, FAST, NOW, { value: FAST + 1n })).headers, 'payment_wrong_amount'],
      [(await signPayment(payer, paid.config, FAST, NOW, { to: '0x2222222222222222222222222222222222222222' })).headers, 'payment_wrong_recipient'],
      [(await signPayment(payer, paid.config, FAST, NOW, { validBefore: BigInt(NOW + 1) })).headers, 'payment_expired'],
      [(await signPayment(payer, paid.config, FAST, NOW, { signature: `0x${'11'.repeat(64)}` })).headers, 'payment_invalid_signature'],
    ];
    for (let round = 0; round < 10; round += 1) {
      for (const [headers, code] of refusals) expect((await post(headers, '10.0.0.4')).json()).toMatchObject({ error: code });
    }
    expect(recoveries.count).toBe(0);
  });
});

describe('x402Payments: rate limits are options of the plugin', () => {
  let app: FastifyInstance;
  const config = testPaymentConfig();
  beforeAll(async () => {
    app = Fastify({ logger: false });
    app.setErrorHandler(handleError);
    await app.register(x402Payments, { config, ledger: new MemoryPaymentLedger(), now: () => NOW_MS, rateLimits: { perPayer: 2, perAddress: 0 } });
    app.get('/a', { config: { x402: { credits: 5 } } }, () => ({ a: true }));
    app.get('/b', { config: { x402: { credits: 5 } } }, () => ({ b: true }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('one limiter for all the routes of the plugin', async () => {
    recoveries.count = 0;
    const forged = await signPayment(newPayer(), config, 45_000n, NOW, { signer: newPayer() });
    const statuses: number[] = [];
    for (const url of ['/a', '/b', '/a', '/b', '/a']) statuses.push((await app.inject({ method: 'GET', url, headers: forged.headers })).statusCode);
    expect(statuses).toEqual([402, 402, 429, 429, 429]);
    expect(recoveries.count).toBe(2);
  });
});
