import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpFacilitator, requirementsV1, requirementsV2 } from '../src/index.js';
import { paidApp, testPaymentConfig, type PaidApp } from './support/x402-app.js';
import { startFacilitatorStub, type FacilitatorStub } from './support/x402-facilitator-stub.js';
import { newPayer, signPayment, type PaymentShape } from './support/x402-payer.js';

const NOW_MS = Date.UTC(2026, 0, 5, 12, 0, 0);
const NOW = Math.floor(NOW_MS / 1000);
const FAST = 45_000n;

let stub: FacilitatorStub;
let paid: PaidApp;
const payer = newPayer();

beforeAll(async () => {
  stub = await startFacilitatorStub();
  // A short timeout so that a facilitator that hangs fails the request quickly.
  paid = await paidApp({ config: testPaymentConfig({ facilitatorUrl: stub.url }), facilitator: new HttpFacilitator({ url: stub.url, timeoutMs: 400 }), now: () => NOW_MS });
});
afterAll(async () => {
  await paid.app.close();
  await stub.close();
});
beforeEach(() => {
  stub.calls.length = 0;
  stub.behaviour = { verify: 'ok', settle: 'ok' };
});

function post(url: string, headers: Record<string, string>): Promise<LightMyRequestResponse> {
  return paid.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: { speed: 'fast' } });
}

const sign = (shape: PaymentShape = {}) => signPayment(payer, paid.config, FAST, NOW, shape);

function expectRefused(response: LightMyRequestResponse, code: string): void {
  expect(response.statusCode, response.body).toBe(402);
  expect(response.json()).toMatchObject({ success: false, x402Version: 1, error: code });
  expect(decodePaymentRequiredHeader(response.headers['payment-required'] as string).error).toBe(code);
}

describe('with a facilitator', () => {
  it('verifies then settles a v2 payment, and returns the transaction hash in PAYMENT-RESPONSE', async () => {
    const signed = await sign();
    const response = await post('/x402/v2/chat', signed.headers);
    expect(response.statusCode, response.body).toBe(200);
    expect(stub.calls.map((call) => call.path)).toEqual(['/verify', '/settle']);
    for (const call of stub.calls) {
      expect(call.body).toEqual({ x402Version: 2, paymentPayload: signed.payload, paymentRequirements: requirementsV2(paid.config, FAST) });
    }
    expect(decodePaymentResponseHeader(response.headers['payment-response'] as string)).toEqual({ success: true, transaction: stub.transaction, network: 'eip155:84532', payer: payer.address });
    expect(await paid.ledger.lookup({ network: 'eip155:84532', payer: payer.address, nonce: signed.nonce })).toMatchObject({ settlement: stub.transaction });
  });

  it('sends a v1 payment with the v1 requirements, and answers X-PAYMENT-RESPONSE', async () => {
    const signed = await sign({ version: 1 });
    const response = await post('/x402/v2/chat', signed.headers);
    expect(response.statusCode, response.body).toBe(200);
    const charge = { amount: FAST, resourceUrl: 'http://localhost:80/x402/v2/chat', description: 'AI chat reply' };
    expect(stub.calls[1]?.body).toEqual({ x402Version: 1, paymentPayload: signed.payload, paymentRequirements: requirementsV1(paid.config, charge) });
    expect(decodePaymentResponseHeader(response.headers['x-payment-response'] as string)).toMatchObject({ success: true, transaction: stub.transaction, network: 'base-sepolia' });
  });

  it('does not call the facilitator for a payment the local check refuses', async () => {
    expectRefused(await post('/x402/v2/chat', (await sign({ signer: newPayer() })).headers), 'payment_invalid_signature');
    expect(stub.calls).toEqual([]);
  });

  it('refuses what the facilitator refuses, with its reason, and frees the nonce', async () => {
    stub.behaviour.verify = 'refuse';
    const signed = await sign();
    const before = paid.handled.get('chat') ?? 0;
    const response = await post('/x402/v2/chat', signed.headers);
    expectRefused(response, 'payment_rejected');
    expect(response.json<{ message: string }>().message).toContain('insufficient_funds');
    expect(paid.handled.get('chat') ?? 0).toBe(before);
    expect(stub.calls.map((call) => call.path)).toEqual(['/verify']);
    expect(await paid.ledger.lookup({ network: 'eip155:84532', payer: payer.address, nonce: signed.nonce })).toBeUndefined();
  });

  for (const behaviour of ['error', 'garbage', 'hang'] as const) {
    it(`a facilitator whose verify ${behaviour === 'hang' ? 'hangs' : `answers ${behaviour}`} → 402 payment_facilitator_unavailable, nonce freed`, async () => {
      stub.behaviour.verify = behaviour;
      const signed = await sign();
      const before = paid.handled.get('chat') ?? 0;
      expectRefused(await post('/x402/v2/chat', signed.headers), 'payment_facilitator_unavailable');
      expect(paid.handled.get('chat') ?? 0).toBe(before);
      expect(await paid.ledger.lookup({ network: 'eip155:84532', payer: payer.address, nonce: signed.nonce })).toBeUndefined();
    });
  }

  for (const behaviour of ['refuse', 'error', 'garbage', 'hang'] as const) {
    it(`a settlement that fails (${behaviour}) withholds the response: 402 payment_settlement_failed, nonce freed for a retry`, async () => {
      stub.behaviour.settle = behaviour;
      const signed = await sign();
      const response = await post('/x402/v2/chat', signed.headers);
      expectRefused(response, 'payment_settlement_failed');
      expect(response.body).not.toContain('the paid reply');
      expect(decodePaymentResponseHeader(response.headers['payment-response'] as string)).toMatchObject({ success: false, transaction: '', errorReason: 'payment_settlement_failed' });
      expect(await paid.ledger.lookup({ network: 'eip155:84532', payer: payer.address, nonce: signed.nonce })).toBeUndefined();
      stub.behaviour.settle = 'ok';
      expect((await post('/x402/v2/chat', signed.headers)).statusCode).toBe(200);
    });
  }

  it('a handler settling early: a failed settlement is the standard 402 and nothing is committed', async () => {
    stub.behaviour.settle = 'refuse';
    const signed = await sign();
    const before = paid.handled.get('committed') ?? 0;
    const response = await post('/x402/v2/settles-first', signed.headers);
    expectRefused(response, 'payment_settlement_failed');
    expect(decodePaymentResponseHeader(response.headers['payment-response'] as string)).toMatchObject({ success: false, errorReason: 'payment_settlement_failed' });
    expect(paid.handled.get('committed') ?? 0).toBe(before);
    expect(await paid.ledger.lookup({ network: 'eip155:84532', payer: payer.address, nonce: signed.nonce })).toBeUndefined();
    stub.behaviour.settle = 'ok';
    const retried = await post('/x402/v2/settles-first', signed.headers);
    expect(retried.statusCode).toBe(200);
    expect(paid.handled.get('committed') ?? 0).toBe(before + 1);
    expect(stub.calls.filter((call) => call.path === '/settle')).toHaveLength(2);
    expect(decodePaymentResponseHeader(retried.headers['payment-response'] as string)).toMatchObject({ success: true, transaction: stub.transaction });
  });

  it('does not settle when the handler fails', async () => {
    const signed = await sign();
    expect((await post('/x402/v2/refuses', signed.headers)).statusCode).toBe(422);
    expect(stub.calls.map((call) => call.path)).toEqual(['/verify']);
    expect(await paid.ledger.lookup({ network: 'eip155:84532', payer: payer.address, nonce: signed.nonce })).toBeUndefined();
  });
});
