import type { AddressInfo } from 'node:net';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { createWalletClient, http, publicActions } from 'viem';
import { baseSepolia } from 'viem/chains';
import { decodeXPaymentResponse, wrapFetchWithPayment as wrapFetchWithLegacyPayment } from 'x402-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryPaymentLedger } from '../src/index.js';
import { paidApp, type PaidApp } from './support/x402-app.js';
import { newPayer } from './support/x402-payer.js';

/**
 * The official clients pay the gate over a real loopback socket, offline: they sign locally, the gate
 * verifies locally, no chain and no facilitator are involved.
 */

let paid: PaidApp;
let ledger: MemoryPaymentLedger;
let base: string;

beforeAll(async () => {
  ledger = new MemoryPaymentLedger();
  paid = await paidApp({ ledger });
  await paid.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(paid.app.server.address() as AddressInfo).port}`;
});
afterAll(() => paid.app.close());

const chat = (speed: 'fast' | 'expert'): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ speed, message: 'hi' }) });

describe('the official x402 v2 client (@x402/fetch + @x402/evm)', () => {
  it('pays a fast chat: 402, signs, retries with PAYMENT-SIGNATURE, gets 200 and a PAYMENT-RESPONSE', async () => {
    const account = newPayer();
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(account));
    const response = await wrapFetchWithPayment(fetch, client)(`${base}/x402/v2/chat`, chat('fast'));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, data: { creditsConsumed: 5, payer: account.address, version: 2 } });
    const receipt = decodePaymentResponseHeader(response.headers.get('payment-response') ?? '');
    expect(receipt).toEqual({ success: true, transaction: '', network: 'eip155:84532', payer: account.address });
    expect(ledger.size).toBeGreaterThan(0);
  });

  it('pays the expert price', async () => {
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(newPayer()));
    const response = await wrapFetchWithPayment(fetch, client)(`${base}/x402/v2/chat`, chat('expert'));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ data: { creditsConsumed: 18 } });
  });

  it('is not charged when the paid handler fails: the nonce is released, no receipt is sent', async () => {
    const account = newPayer();
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(account));
    const before = ledger.size;
    const response = await wrapFetchWithPayment(fetch, client)(`${base}/x402/v2/refuses`, chat('fast'));
    expect(response.status).toBe(422);
    expect(response.headers.get('payment-response')).toBeNull();
    expect(ledger.size).toBe(before);
  });
});

describe('the legacy x402 v1 client (x402-fetch 1.x)', () => {
  it('pays with a viem account: reads the v1 body, picks base-sepolia, sends X-PAYMENT, gets X-PAYMENT-RESPONSE', async () => {
    const account = newPayer();
    const response = await wrapFetchWithLegacyPayment(fetch, account)(`${base}/x402/v2/chat`, chat('fast'));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ data: { creditsConsumed: 5, payer: account.address, version: 1 } });
    expect(decodeXPaymentResponse(response.headers.get('x-payment-response') ?? '')).toEqual({ success: true, transaction: '', network: 'base-sepolia', payer: account.address });
  });

  it('pays with a wallet client on Base Sepolia (chain 84532 → "base-sepolia"), signing locally', async () => {
    const account = newPayer();
    // A transport to a closed loopback port: the client signs with the local key and never calls it.
    // x402 1.x types a "signer wallet" as a wallet client with the public actions over a generic chain,
    // which a client typed for one concrete chain does not satisfy: the cast is for the types only.
    const wallet = createWalletClient({ account, chain: baseSepolia, transport: http('http://127.0.0.1:9') }).extend(publicActions);
    const signer = wallet as unknown as Parameters<typeof wrapFetchWithLegacyPayment>[1];
    const response = await wrapFetchWithLegacyPayment(fetch, signer)(`${base}/x402/v2/chat`, chat('fast'));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ data: { payer: account.address, version: 1 } });
  });

  it('refuses, client-side, to pay more than its maxValue (0.1 USDC by default): expert chat needs maxValue', async () => {
    const account = newPayer();
    await expect(wrapFetchWithLegacyPayment(fetch, account)(`${base}/x402/v2/chat`, chat('expert'))).rejects.toThrow('Payment amount exceeds maximum allowed');
    const response = await wrapFetchWithLegacyPayment(fetch, account, 162_000n)(`${base}/x402/v2/chat`, chat('expert'));
    expect(response.status).toBe(200);
  });
});
