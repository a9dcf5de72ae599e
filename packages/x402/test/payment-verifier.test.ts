import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryPaymentLedger, PaymentVerifier, agentId } from '../src/index.js';
import { x402Payments } from '../src/fastify/index.js';
import { handleError } from './support/error-handler.js';
import { AGENT_SECRETS, testPaymentConfig } from './support/x402-app.js';
import { newPayer, signPayment } from './support/x402-payer.js';

const NOW_MS = Date.UTC(2026, 0, 5, 12, 0, 0);
const NOW = Math.floor(NOW_MS / 1000);
const FIVE_CREDITS = 45_000n;
const config = testPaymentConfig();
const payer = newPayer();

/**
 * A paid route on Node's own HTTP server, with no framework: what any server does with the verifier.
 * `?fail=1` makes the handler fail after the payment was accepted (the nonce must be freed).
 */
function plainServer(verifier: PaymentVerifier, served: string[]): Server {
  return createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const checked = await verifier.check({ headers: request.headers, credits: 5, resourceUrl: `http://localhost${request.url ?? ''}`, description: 'a report', route: 'GET /report' });
      if (!checked.ok) {
        response.writeHead(checked.response.status, checked.response.headers).end(checked.response.body);
        return;
      }
      if (request.url?.includes('fail=1')) {
        await verifier.release(checked.accepted);
        response.writeHead(500).end('{"error":"the report failed"}');
        return;
      }
      const settled = await verifier.settle(checked.accepted);
      if (!settled.ok) {
        const refusal = verifier.settlementFailed(checked.accepted, settled.failure);
        response.writeHead(refusal.status, refusal.headers).end(refusal.body);
        return;
      }
      served.push(checked.accepted.payment.payer);
      response.writeHead(200, { 'content-type': 'application/json', ...verifier.receiptHeader(checked.accepted, settled.value) }).end('{"report":"paid for"}');
    })();
  });
}

describe('PaymentVerifier on a plain node:http server (no framework)', () => {
  let server: Server;
  let base: string;
  const served: string[] = [];
  beforeAll(async () => {
    server = plainServer(new PaymentVerifier({ config, ledger: new MemoryPaymentLedger(), now: () => NOW_MS }), served);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers 402 with the requirements when unpaid, serves a valid payment once, and refuses its replay', async () => {
    const unpaid = await fetch(`${base}/report`);
    expect(unpaid.status).toBe(402);
    const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
    expect(required.accepts[0]?.amount).toBe(FIVE_CREDITS.toString());
    expect(await unpaid.json()).toMatchObject({ x402Version: 1, error: 'payment_missing' });

    const { headers } = await signPayment(payer, config, FIVE_CREDITS, NOW);
    const paid = await fetch(`${base}/report`, { headers });
    expect(paid.status).toBe(200);
    expect(decodePaymentResponseHeader(paid.headers.get('payment-response') ?? '')).toMatchObject({ success: true, payer: payer.address });
    expect(served).toEqual([payer.address]);

    const replay = await fetch(`${base}/report`, { headers });
    expect(replay.status).toBe(402);
    expect(decodePaymentRequiredHeader(replay.headers.get('payment-required') ?? '').error).toBe('payment_replayed');
  });

  it('frees the nonce of a request whose handler failed, so the same payment works afterwards', async () => {
    const { headers } = await signPayment(payer, config, FIVE_CREDITS, NOW);
    expect((await fetch(`${base}/report?fail=1`, { headers })).status).toBe(500);
    expect((await fetch(`${base}/report`, { headers })).status).toBe(200);
  });
});

describe('x402Payments, the Fastify plugin', () => {
  let app: FastifyInstance;
  const committed: string[] = [];
  beforeAll(async () => {
    app = Fastify({ logger: false });
    app.setErrorHandler(handleError);
    await app.register(x402Payments, { config, ledger: new MemoryPaymentLedger(), now: () => NOW_MS });
    app.get('/free', () => ({ free: true }));
    app.get('/report', { config: { x402: { credits: 5, description: 'a report' } } }, (request) => ({ payer: request.payment?.payer, credits: request.payment?.credits }));
    app.post('/agent/orders', { config: { x402: { agent: true, credits: 5, description: 'an order' } } }, async (request) => {
      await request.settlePayment();
      committed.push(request.agent?.id ?? '');
      return { agent: request.agent?.id };
    });
    app.post('/agent/status', { config: { x402: { agent: true } } }, (request) => ({ agent: request.agent?.id, paid: request.payment !== undefined }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('leaves unmarked routes alone and gates marked ones by their route config', async () => {
    expect((await app.inject({ method: 'GET', url: '/free' })).json()).toEqual({ free: true });
    const unpaid = await app.inject({ method: 'GET', url: '/report' });
    expect(unpaid.statusCode).toBe(402);
    const { headers } = await signPayment(payer, config, FIVE_CREDITS, NOW);
    const paid = await app.inject({ method: 'GET', url: '/report', headers });
    expect(paid.statusCode).toBe(200);
    expect(paid.json()).toEqual({ payer: payer.address, credits: 5 });
    expect(paid.headers['payment-response']).toBeTypeOf('string');
    expect(String(paid.headers['access-control-expose-headers'])).toContain('PAYMENT-RESPONSE');
  });

  it('checks the agent secret before the payment, and settles from the handler with request.settlePayment()', async () => {
    const { headers } = await signPayment(payer, config, FIVE_CREDITS, NOW);
    const noSecret = await app.inject({ method: 'POST', url: '/agent/orders', headers });
    expect(noSecret.statusCode).toBe(400);
    expect(noSecret.json()).toMatchObject({ error: { code: 'missing_agent_secret' } });
    const secret = AGENT_SECRETS[0] ?? '';
    const ordered = await app.inject({ method: 'POST', url: '/agent/orders', headers: { ...headers, 'x-svc-agent-secret': secret } });
    expect(ordered.statusCode).toBe(200);
    expect(ordered.json()).toEqual({ agent: agentId(secret) });
    expect(committed).toEqual([agentId(secret)]);
    const status = await app.inject({ method: 'POST', url: '/agent/status', headers: { 'x-svc-agent-secret': secret } });
    expect(status.json()).toEqual({ agent: agentId(secret), paid: false });
  });
});
