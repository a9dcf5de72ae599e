import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, signingPayload, signRequest, verifyRequestSignature } from '@eql/core';

const secret = 'hmac-secret-for-tests';
const now = 1_767_225_600;

/** The signature computed independently of the code under test. */
const reference = (timestamp: string, method: string, path: string, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}${method}${path}${body}`).digest('hex');

describe('HMAC signing (spec 5.2)', () => {
  it('signs timestamp + METHOD + path + body as lowercase hex HMAC-SHA256', async () => {
    const body = '{"query":{}}';
    expect(signingPayload({ timestamp: '1700000000', method: 'post', path: '/queries', body })).toBe(`1700000000POST/queries${body}`);
    await expect(signRequest(secret, { timestamp: '1700000000', method: 'POST', path: '/queries', body })).resolves.toBe(
      reference('1700000000', 'POST', '/queries', body),
    );
    await expect(signRequest(secret, { timestamp: '1', method: 'DELETE', path: '/exchanges/paper' })).resolves.toBe(
      reference('1', 'DELETE', '/exchanges/paper', ''),
    );
  });

  it('accepts a good signature within 30 s either way, in either hex case', async () => {
    const signature = reference(String(now - 30), 'POST', '/queries', '{}');
    const request = { secret, timestamp: String(now - 30), signature, method: 'POST', path: '/queries', body: '{}', nowSeconds: now };
    await expect(verifyRequestSignature(request)).resolves.toEqual({ ok: true });
    await expect(verifyRequestSignature({ ...request, signature: signature.toUpperCase() })).resolves.toEqual({ ok: true });
    const ahead = reference(String(now + 30), 'POST', '/queries', '{}');
    await expect(verifyRequestSignature({ ...request, timestamp: String(now + 30), signature: ahead })).resolves.toEqual({ ok: true });
  });

  it.each([
    ['no timestamp', { timestamp: undefined }, 'missing-headers'],
    ['no signature', { signature: undefined }, 'missing-headers'],
    ['an empty signature', { signature: '' }, 'missing-headers'],
    ['a timestamp in milliseconds form', { timestamp: '1767225600.5' }, 'invalid-timestamp'],
    ['a timestamp 31 s old', { timestamp: String(now - 31) }, 'timestamp-drift'],
    ['a timestamp 31 s ahead', { timestamp: String(now + 31) }, 'timestamp-drift'],
    ['a short signature', { signature: 'abcd' }, 'invalid-signature'],
    ['a non-hex signature', { signature: 'z'.repeat(64) }, 'invalid-signature'],
    ['an odd-length signature', { signature: 'a'.repeat(63) }, 'invalid-signature'],
  ])('refuses %s', async (_label, change, reason) => {
    const base = { secret, timestamp: String(now), signature: reference(String(now), 'POST', '/queries', '{}'), method: 'POST', path: '/queries', body: '{}', nowSeconds: now };
    await expect(verifyRequestSignature({ ...base, ...change })).resolves.toMatchObject({ ok: false, reason });
  });

  it('verify(sign(x)) holds, and changing any byte of timestamp, method, path, body or signature fails', async () => {
    const parts = fc.record({
      offset: fc.integer({ min: -30, max: 30 }),
      method: fc.constantFrom('POST', 'DELETE'),
      path: fc.stringMatching(/^\/[a-z0-9/_-]{0,40}$/),
      body: fc.string({ maxLength: 200 }),
    });
    await fc.assert(
      fc.asyncProperty(parts, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.constantFrom('timestamp', 'method', 'path', 'body', 'signature'), async (p, at, flip, field) => {
        const timestamp = String(now + p.offset);
        const signature = await signRequest(secret, { timestamp, method: p.method, path: p.path, body: p.body });
        const request = { secret, timestamp, signature, method: p.method, path: p.path, body: p.body, nowSeconds: now };
        expect(await verifyRequestSignature(request)).toEqual({ ok: true });

        const original = request[field];
        const index = at % Math.max(1, original.length);
        const changed =
          original.length === 0
            ? String.fromCharCode(flip)
            : original.slice(0, index) + String.fromCharCode(original.charCodeAt(index) ^ flip) + original.slice(index + 1);
        fc.pre(field !== 'method' || changed.toUpperCase() !== original.toUpperCase());
        fc.pre(field !== 'signature' || changed.toLowerCase() !== original.toLowerCase());
        const result = await verifyRequestSignature({ ...request, [field]: changed });
        expect(result.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('compares in constant time without throwing on different lengths', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });
});
