import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USDC } from '../src/index.js';
import { AGENT_SECRETS, paidApp, type PaidApp } from './support/x402-app.js';
import { newNonce, newPayer, signPayment, type PaymentShape } from './support/x402-payer.js';

const NOW_MS = Date.UTC(2026, 0, 5, 12, 0, 0);
const NOW = Math.floor(NOW_MS / 1000);
const FAST = 45_000n;
const EXPERT = 162_000n;
const CODES = [
  'payment_missing',
  'payment_malformed',
  'payment_wrong_scheme',
  'payment_wrong_network',
  'payment_wrong_asset',
  'payment_wrong_recipient',
  'payment_wrong_amount',
  'payment_not_yet_valid',
  'payment_expired',
  'payment_invalid_signature',
  'payment_replayed',
];

let paid: PaidApp;
const payer = newPayer();

beforeAll(async () => {
  paid = await paidApp({ now: () => NOW_MS });
});
afterAll(() => paid.app.close());

function post(url: string, headers: Record<string, string> = {}, body: unknown = { speed: 'fast', message: 'hi' }): Promise<LightMyRequestResponse> {
  return paid.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
}

async function pay(shape: PaymentShape = {}, amount = FAST): Promise<Record<string, string>> {
  return (await signPayment(payer, paid.config, amount, NOW, shape)).headers;
}

/** A 402 with both protocol forms of the requirements and the given code. */
function expectRefused(response: LightMyRequestResponse, code: string): void {
  expect(response.statusCode, response.body).toBe(402);
  const body = response.json<Record<string, unknown>>();
  expect(body).toMatchObject({ success: false, x402Version: 1, error: code });
  expect(typeof body.message).toBe('string');
  const required = decodePaymentRequiredHeader(response.headers['payment-required'] as string);
  expect(required).toMatchObject({ x402Version: 2, error: code });
  expect(response.headers['access-control-expose-headers']).toBe('PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE');
}

describe('payment gate: what a client is asked to pay', () => {
  it('answers 402 with PAYMENT-REQUIRED (v2) and the v1 body when no payment is sent', async () => {
    const response = await post('/x402/v2/chat');
    expectRefused(response, 'payment_missing');
    expect(response.headers['cache-control']).toBe('no-store');
    const required = decodePaymentRequiredHeader(response.headers['payment-required'] as string);
    expect(required.resource).toEqual({ url: 'http://localhost:80/x402/v2/chat', description: 'AI chat reply', mimeType: 'application/json' });
    expect(required.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'eip155:84532',
        amount: '45000',
        asset: USDC['eip155:84532'].asset,
        payTo: paid.config.payTo,
        maxTimeoutSeconds: 60,
        extra: { name: 'USDC', version: '2' },
      },
    ]);
    expect(response.json<{ accepts: unknown[] }>().accepts).toEqual([
      {
        scheme: 'exact',
        network: 'base-sepolia',
        maxAmountRequired: '45000',
        resource: 'http://localhost:80/x402/v2/chat',
        description: 'AI chat reply',
        mimeType: 'application/json',
        payTo: paid.config.payTo,
        maxTimeoutSeconds: 60,
        asset: USDC['eip155:84532'].asset,
        extra: { name: 'USDC', version: '2' },
      },
    ]);
  });

  it('prices by the body: expert chat costs 18 credits, an unknown speed is a 400 before any payment', async () => {
    const expert = await post('/x402/v2/chat', {}, { speed: 'expert', message: 'hi' });
    expect(decodePaymentRequiredHeader(expert.headers['payment-required'] as string).accepts[0]?.amount).toBe(EXPERT.toString());
    const bad = await post('/x402/v2/chat', {}, { speed: 'turbo' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });
  });
});

describe('payment gate: paid requests', () => {
  it('serves a valid v2 payment and answers PAYMENT-RESPONSE; the nonce is recorded as settled locally', async () => {
    const signed = await signPayment(payer, paid.config, FAST, NOW);
    const response = await post('/x402/v2/chat', signed.headers);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ data: { creditsConsumed: 5, payer: payer.address, version: 2 } });
    expect(decodePaymentResponseHeader(response.headers['payment-response'] as string)).toEqual({ success: true, transaction: '', network: 'eip155:84532', payer: payer.address });
    expect(response.headers['x-payment-response']).toBeUndefined();
    expect(await paid.ledger.lookup({ network: 'eip155:84532', payer: payer.address, nonce: signed.nonce })).toMatchObject({ settlement: 'local', amount: '45000', route: 'POST /x402/v2/chat' });
  });

  it('serves a valid v1 payment (X-PAYMENT) and answers X-PAYMENT-RESPONSE with the v1 network name', async () => {
    const response = await post('/x402/v2/chat', await pay({ version: 1 }));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ data: { version: 1 } });
    expect(decodePaymentResponseHeader(response.headers['x-payment-response'] as string)).toMatchObject({ success: true, transaction: '', network: 'base-sepolia' });
    expect(response.headers['payment-response']).toBeUndefined();
  });

  it('charges the expert price exactly', async () => {
    expect((await post('/x402/v2/chat', await pay({}, EXPERT), { speed: 'expert' })).statusCode).toBe(200);
    expectRefused(await post('/x402/v2/chat', await pay({}, FAST), { speed: 'expert' }), 'payment_wrong_amount');
  });

  it('takes PAYMENT-SIGNATURE over X-PAYMENT when both are sent', async () => {
    const response = await post('/x402/v2/chat', { ...(await pay()), 'x-payment': 'not a payment' });
    expect(response.statusCode).toBe(200);
  });
});

describe('payment gate: refused payments', () => {
  const cases: Array<[string, PaymentShape, string]> = [
    ['v2 pays less', { value: FAST - 1n }, 'payment_wrong_amount'],
    ['v2 pays more (exact means exact)', { value: FAST + 1n }, 'payment_wrong_amount'],
    ['v1 pays less', { version: 1, value: FAST - 1n }, 'payment_wrong_amount'],
    ['expired', { validBefore: BigInt(NOW - 1) }, 'payment_expired'],
    ['expires in 5 s: too soon to settle', { validBefore: BigInt(NOW + 5) }, 'payment_expired'],
    ['not yet valid', { validAfter: BigInt(NOW + 1) }, 'payment_not_yet_valid'],
    ['v2 on Base mainnet', { network: 'eip155:8453' }, 'payment_wrong_network'],
    ['v1 on Base mainnet', { version: 1, network: 'base' }, 'payment_wrong_network'],
    ['paid to someone else', { to: '0x2222222222222222222222222222222222222222' }, 'payment_wrong_recipient'],
    ['v2 in another asset', { acceptedAsset: USDC['eip155:8453'].asset }, 'payment_wrong_asset'],
    ['another scheme', { scheme: 'upto' }, 'payment_wrong_scheme'],
    ['signed by another key', { signer: newPayer() }, 'payment_invalid_signature'],
    ['v1 signed for another token contract', { version: 1, domain: { verifyingContract: USDC['eip155:8453'].asset } }, 'payment_invalid_signature'],
    ['signed for another chain', { domain: { chainId: 8453 } }, 'payment_invalid_signature'],
    ['signed with another domain name', { domain: { name: 'USD Coin' } }, 'payment_invalid_signature'],
    ['a signature of zeros', { signature: `0x${'00'.repeat(65)}` }, 'payment_invalid_signature'],
    ['a signature too short to be one', { signature: '0x1234' }, 'payment_invalid_signature'],
  ];
  for (const [name, shape, code] of cases) {
    it(`${name} → 402 ${code}, the handler does not run`, async () => {
      const before = paid.handled.get('chat') ?? 0;
      expectRefused(await post('/x402/v2/chat', await pay(shape)), code);
      expect(paid.handled.get('chat') ?? 0).toBe(before);
    });
  }

  it('accepts the boundaries: validBefore exactly now + 6, validAfter exactly now, v1 paying more', async () => {
    expect((await post('/x402/v2/chat', await pay({ validBefore: BigInt(NOW + 6) }))).statusCode).toBe(200);
    expect((await post('/x402/v2/chat', await pay({ validAfter: BigInt(NOW) }))).statusCode).toBe(200);
    expect((await post('/x402/v2/chat', await pay({ version: 1, value: FAST + 1n }))).statusCode).toBe(200);
  });

  it('refuses a replayed nonce, in either protocol version', async () => {
    const nonce = newNonce();
    const first = await pay({ nonce });
    expect((await post('/x402/v2/chat', first)).statusCode).toBe(200);
    expectRefused(await post('/x402/v2/chat', first), 'payment_replayed');
    expectRefused(await post('/x402/v2/chat', await pay({ nonce, version: 1 })), 'payment_replayed');
    expectRefused(await post('/x402/v2/chat', await pay({ nonce: nonce.toUpperCase().replace('0X', '0x') as `0x${string}` })), 'payment_replayed');
  });

  const malformed: Array<[string, string]> = [
    ['not base64', '%%% not base64 %%%'],
    ['base64 of text', Buffer.from('hello').toString('base64')],
    ['base64 of a JSON array', Buffer.from('[1,2]').toString('base64')],
    ['unknown version', Buffer.from(JSON.stringify({ x402Version: 3 })).toString('base64')],
    ['v2 without payload', Buffer.from(JSON.stringify({ x402Version: 2, accepted: {} })).toString('base64')],
    ['v1 without authorization', Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { signature: '0x12' } })).toString('base64')],
    ['unpadded base64', Buffer.from('{"x402Version":1}').toString('base64').replace(/=+$/, '')],
    ['a very long header', 'A'.repeat(9000)],
  ];
  for (const [name, value] of malformed) {
    it(`${name} → 402 payment_malformed`, async () => {
      expectRefused(await post('/x402/v2/chat', { 'payment-signature': value }), 'payment_malformed');
      expectRefused(await post('/x402/v2/chat', { 'x-payment': value }), 'payment_malformed');
    });
  }

  it('refuses authorizations whose numbers or nonce are not what EIP-3009 signs', async () => {
    const signed = await signPayment(payer, paid.config, FAST, NOW);
    const bend = (patch: Record<string, unknown>): Record<string, string> => {
      const payload = structuredClone(signed.payload) as { payload: { authorization: Record<string, unknown> } };
      Object.assign(payload.payload.authorization, patch);
      return { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') };
    };
    for (const patch of [{ value: '1e5' }, { value: -1 }, { value: (1n << 256n).toString() }, { nonce: '0x1234' }, { from: 'alice' }, { validBefore: '' }]) {
      expectRefused(await post('/x402/v2/chat', bend(patch)), 'payment_malformed');
    }
  });
});

describe('payment gate: failing handlers do not charge', () => {
  it('releases the nonce when the handler refuses (422): the same payment then buys another request', async () => {
    const headers = await pay();
    const refused = await post('/x402/v2/refuses', headers);
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ success: false, error: { code: 'query_rejected' } });
    expect(refused.headers['payment-response']).toBeUndefined();
    expect((await post('/x402/v2/chat', headers)).statusCode).toBe(200);
    expectRefused(await post('/x402/v2/chat', headers), 'payment_replayed');
  });

  it('releases the nonce when the handler crashes (500)', async () => {
    const headers = await pay({ version: 1 });
    expect((await post('/x402/v2/crashes', headers)).statusCode).toBe(500);
    expect((await post('/x402/v2/chat', headers)).statusCode).toBe(200);
  });
});

describe('payment gate: settling before a durable side effect', () => {
  it('settles once from the handler, then answers the receipt', async () => {
    const signed = await signPayment(payer, paid.config, FAST, NOW);
    const response = await post('/x402/v2/settles-first', signed.headers, {});
    expect(response.statusCode, response.body).toBe(200);
    expect(decodePaymentResponseHeader(response.headers['payment-response'] as string)).toMatchObject({ success: true, transaction: '' });
    expect(await paid.ledger.lookup({ network: 'eip155:84532', payer: payer.address, nonce: signed.nonce })).toMatchObject({ settlement: 'local' });
  });

  it('a handler failing after the settlement does not free the nonce: the payer has paid', async () => {
    const headers = await pay();
    const response = await post('/x402/v2/settles-first', headers, { fail: true });
    expect(response.statusCode).toBe(422);
    expect(decodePaymentResponseHeader(response.headers['payment-response'] as string)).toMatchObject({ success: true });
    expectRefused(await post('/x402/v2/chat', headers), 'payment_replayed');
  });
});

describe('agent routes', () => {
  it('a free agent route needs the agent secret but no payment', async () => {
    const missing = await post('/x402/v2/auto/queries/validate', {}, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ success: false, error: { code: 'missing_agent_secret' } });
    const wrong = await post('/x402/v2/auto/queries/validate', { 'x-svc-agent-secret': 'agent-secret-one-0123456788' }, {});
    expect(wrong.json()).toMatchObject({ success: false, error: { code: 'invalid_agent_secret' } });
    const ok = await post('/x402/v2/auto/queries/validate', { 'x-svc-agent-secret': AGENT_SECRETS[1] ?? '' }, {});
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ data: { valid: true, paid: false, agent: expect.stringMatching(/^agent_[0-9a-f]{24}$/) as unknown } });
    expect(ok.headers['payment-required']).toBeUndefined();
  });

  it('a paid agent route checks the secret before the payment, so a refused agent spends no nonce', async () => {
    const headers = await pay();
    expect((await post('/x402/v2/auto/queries', headers, {})).statusCode).toBe(400);
    const created = await post('/x402/v2/auto/queries', { ...headers, 'x-svc-agent-secret': AGENT_SECRETS[0] ?? '' }, {});
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toMatchObject({ data: { payer: payer.address } });
    expectRefused(await post('/x402/v2/auto/queries', { 'x-svc-agent-secret': AGENT_SECRETS[0] ?? '' }, {}), 'payment_missing');
  });
});

describe('payment gate: no input makes a 500', () => {
  it('random header strings in either payment header are a 402 with a known code', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), fc.boolean(), async (value, legacy) => {
        const response = await post('/x402/v2/chat', { [legacy ? 'x-payment' : 'payment-signature']: value });
        expect(response.statusCode).toBe(402);
        expect(CODES).toContain(response.json<{ error: string }>().error);
      }),
      { numRuns: 150 },
    );
  });

  it('random JSON, and a valid payment with a random value swapped in anywhere, never make a 500', async () => {
    const signed = await signPayment(payer, paid.config, FAST, NOW);
    const path = fc.constantFrom('x402Version', 'accepted', 'payload', 'resource', 'accepted.network', 'accepted.amount', 'accepted.payTo', 'payload.signature', 'payload.authorization', 'payload.authorization.value', 'payload.authorization.validBefore', 'payload.authorization.from', 'payload.authorization.nonce');
    const input = fc.oneof(
      fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue() }),
      fc.record({ kind: fc.constant('patch' as const), path, value: fc.jsonValue() }),
    );
    await fc.assert(
      fc.asyncProperty(input, async (generated) => {
        let document: unknown = generated.value;
        if (generated.kind === 'patch') {
          const copy = structuredClone(signed.payload);
          const steps = generated.path.split('.');
          let target = copy;
          for (const step of steps.slice(0, -1)) target = target[step] as Record<string, unknown>;
          target[steps.at(-1) ?? ''] = generated.value;
          document = copy;
        }
        const response = await post('/x402/v2/chat', { 'payment-signature': Buffer.from(JSON.stringify(document) ?? 'null').toString('base64') });
        // A swap that keeps the payment valid (x402Version: 2, say) is served once, then replayed.
        expect([200, 402]).toContain(response.statusCode);
        if (response.statusCode === 402) expect(CODES).toContain(response.json<{ error: string }>().error);
      }),
      { numRuns: 150 },
    );
  });
});
