import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { hexToBigInt, numberToHex, verifyTypedData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSignatureForm, SECP256K1_N, TRANSFER_WITH_AUTHORIZATION_TYPES } from '../src/index.js';
import { paidApp, type PaidApp } from './support/x402-app.js';
import { newPayer, signPayment, type SignedPayment } from './support/x402-payer.js';

const NOW_MS = Date.UTC(2026, 0, 5, 12, 0, 0);
const NOW = Math.floor(NOW_MS / 1000);
const FAST = 45_000n;

let paid: PaidApp;
const payer = newPayer();

beforeAll(async () => {
  // No rate limits here: these tests send many refused signatures from one payer on purpose.
  paid = await paidApp({ now: () => NOW_MS, rateLimits: { perPayer: 0, perAddress: 0 } });
});
afterAll(() => paid.app.close());

const post = (headers: Record<string, string>): Promise<LightMyRequestResponse> =>
  paid.app.inject({ method: 'POST', url: '/x402/v2/chat', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ speed: 'fast', message: 'hi' }) });

/** The payment header of a (possibly edited) payload. */
const headerOf = (signed: SignedPayment, payload: Record<string, unknown>): Record<string, string> => ({
  [signed.payload.x402Version === 2 ? 'payment-signature' : 'x-payment']: Buffer.from(JSON.stringify(payload)).toString('base64'),
});

/** The same payment with another signature. */
function withSignature(signed: SignedPayment, signature: Hex): Record<string, string> {
  const payload = structuredClone(signed.payload) as { payload: { signature: string } };
  payload.payload.signature = signature;
  return headerOf(signed, payload);
}

/** The malleated twin of a signature: s' = n - s, v flipped (recovers the same address). */
function highS(signature: Hex): Hex {
  const r = signature.slice(2, 66);
  const s = hexToBigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130, 132), 16);
  return `0x${r}${numberToHex(SECP256K1_N - s, { size: 32 }).slice(2)}${(v === 27 ? 28 : 27).toString(16)}`;
}

describe('signatures USDC would refuse on chain are refused (402), before any settlement', () => {
  it('a high-s signature (s > n/2, EIP-2): viem recovers the payer from it, the host refuses it, the original still pays', async () => {
    const signed = await signPayment(payer, paid.config, FAST, NOW, { version: 2 });
    const signature = (signed.payload.payload as { signature: Hex }).signature;
    const malleated = highS(signature);
    expect(hexToBigInt(`0x${malleated.slice(66, 130)}`)).toBeGreaterThan(SECP256K1_N / 2n);
    // The finding: the malleated signature is a valid ECDSA signature by the payer...
    const authorization = signed.payload.payload as { authorization: Record<string, string> };
    const message = { ...authorization.authorization, value: FAST, validAfter: BigInt(authorization.authorization.validAfter ?? 0), validBefore: BigInt(authorization.authorization.validBefore ?? 0) };
    const domain = { name: paid.config.assetName, version: paid.config.assetVersion, chainId: paid.config.chainId, verifyingContract: paid.config.asset };
    expect(await verifyTypedData({ address: payer.address, domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization', message: message as never, signature: malleated })).toBe(true);
    // ...which USDC's ECRecover refuses, so the host refuses it too.
    const refused = await post(withSignature(signed, malleated));
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({ error: 'payment_invalid_signature', message: expect.stringContaining('EIP-2') as unknown });
    expect((await post(signed.headers)).statusCode).toBe(200);
  });

  it('in v1 too; and a v of 0 or 1 (USDC takes 27 or 28) is refused', async () => {
    const signed = await signPayment(payer, paid.config, FAST, NOW, { version: 1 });
    const signature = (signed.payload.payload as { signature: Hex }).signature;
    expect((await post(withSignature(signed, highS(signature)))).json()).toMatchObject({ error: 'payment_invalid_signature' });
    const v = Number.parseInt(signature.slice(130, 132), 16);
    const parity = `${signature.slice(0, 130)}0${v - 27}` as Hex;
    expect((await post(withSignature(signed, parity))).json()).toMatchObject({ error: 'payment_invalid_signature', message: expect.stringContaining('27 or 28') as unknown });
    expect((await post(signed.headers)).statusCode).toBe(200);
  });

  it('checkSignatureForm: 65 bytes, v 27 or 28, 0 < s <= n/2', () => {
    const r = '11'.repeat(32);
    const low = numberToHex(SECP256K1_N / 2n, { size: 32 }).slice(2);
    const high = numberToHex(SECP256K1_N / 2n + 1n, { size: 32 }).slice(2);
    expect(checkSignatureForm(`0x${r}${low}1b`).ok).toBe(true);
    expect(checkSignatureForm(`0x${r}${low}1c`).ok).toBe(true);
    expect(checkSignatureForm(`0x${r}${high}1b`).ok).toBe(false);
    expect(checkSignatureForm(`0x${r}${'00'.repeat(32)}1b`).ok).toBe(false);
    expect(checkSignatureForm(`0x${r}${low}01`).ok).toBe(false);
    expect(checkSignatureForm(`0x${r}${low}`).ok).toBe(false);
    expect(checkSignatureForm(`0x${r}${low}1b00`).ok).toBe(false);
  });
});

/** Edits of one signed field after signing, each to a value that differs from the signed one. */
type Edit = { field: 'from' | 'to' | 'value' | 'validAfter' | 'validBefore' | 'nonce' | 'network' | 'asset' | 'acceptedAmount' | 'acceptedPayTo'; up: boolean; delta: bigint; bytes: Uint8Array };

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

function edit(payload: Record<string, unknown>, version: 1 | 2, change: Edit): void {
  const authorization = (payload.payload as { authorization: Record<string, string> }).authorization;
  const accepted = payload.accepted as Record<string, string> | undefined;
  const shift = (value: string): string => (change.up ? BigInt(value) + change.delta : BigInt(value) - change.delta).toString();
  const address = `0x${hex(change.bytes.slice(0, 20))}`;
  switch (change.field) {
    case 'from':
    case 'to':
      authorization[change.field] = address;
      break;
    case 'value':
    case 'validAfter':
    case 'validBefore':
      authorization[change.field] = shift(authorization[change.field] ?? '0');
      break;
    case 'nonce':
      authorization.nonce = `0x${hex(change.bytes)}`;
      break;
    case 'network':
      if (version === 2 && accepted) accepted.network = change.up ? 'eip155:8453' : 'eip155:1';
      else payload.network = change.up ? 'base' : 'ethereum';
      break;
    case 'asset':
      // v1 names no asset: the signed domain binds it, so edit what is signed instead (the payee).
      if (version === 2 && accepted) accepted.asset = address;
      else authorization.to = address;
      break;
    case 'acceptedAmount':
      if (version === 2 && accepted) accepted.amount = shift(accepted.amount ?? '0');
      else authorization.value = shift(authorization.value ?? '0');
      break;
    case 'acceptedPayTo':
      if (version === 2 && accepted) accepted.payTo = address;
      else authorization.to = address;
      break;
  }
}

describe('a payment edited after signing is refused (402), and the edit burns nothing', () => {
  it('any one signed field changed: amount, payee, validity window, nonce, payer, network, asset', async () => {
    const edits = fc.record({
      field: fc.constantFrom('from', 'to', 'value', 'validAfter', 'validBefore', 'nonce', 'network', 'asset', 'acceptedAmount', 'acceptedPayTo'),
      up: fc.boolean(),
      delta: fc.bigInt({ min: 1n, max: 1n << 40n }),
      // A new nonce, or (its first 20 bytes) a new payer, payee or asset address.
      bytes: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<1 | 2>(1, 2), edits, async (version, change) => {
        const signed = await signPayment(payer, paid.config, FAST, NOW, { version });
        const payload = structuredClone(signed.payload);
        edit(payload, version, change);
        // Make sure the edit changed something (an address edit to the host's own payee, say, would not).
        fc.pre(JSON.stringify(payload).toLowerCase() !== JSON.stringify(signed.payload).toLowerCase());
        const before = paid.handled.get('chat') ?? 0;
        const refused = await post(headerOf(signed, payload));
        expect(refused.statusCode, `${change.field}: ${refused.body}`).toBe(402);
        expect(refused.json<{ error: string }>().error).toMatch(/^payment_/);
        expect(paid.handled.get('chat') ?? 0).toBe(before);
        // The original, untouched, still pays: the refusal claimed no nonce.
        expect((await post(signed.headers)).statusCode).toBe(200);
      }),
      { numRuns: 80 },
    );
  });
});
