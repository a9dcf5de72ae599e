import fc from 'fast-check';
import { verifyRequestSignature } from '@eql/core';
import { describe, expect, it } from 'vitest';
import { createTransport, EqlClientError, fetchRetrying429, retryAfterMs, signatureHeaders } from '../src/index.js';

// The client's transport without a host: signatures the host's own verifier accepts, the table's rules
// applied before sending, `retry-after` in both of its forms, and retries counted on a fake fetch with
// a sleep that records instead of waiting.

const SECRET = 'transport-test-secret-0123456789';

describe('signatureHeaders', () => {
  it('signs what the host verifies, for any body and route of the table', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.constantFrom('/queries', '/queries/drafts', '/exchanges', '/webhook-secret/rotate'), fc.integer({ min: 1_700_000_000, max: 2_000_000_000 }), async (body, autoPath, seconds) => {
        const headers = await signatureHeaders({ method: 'POST', autoPath, query: '', body, contentType: 'text/plain', secret: SECRET, nowMs: seconds * 1000 + 999 });
        expect(headers['x-svc-timestamp']).toBe(String(seconds));
        const check = await verifyRequestSignature({ secret: SECRET, timestamp: headers['x-svc-timestamp'], signature: headers['x-svc-signature'], method: 'POST', path: autoPath, body, nowSeconds: seconds });
        expect(check).toEqual({ ok: true });
      }),
      { numRuns: 50 },
    );
  });

  it('signs the empty string where the table leaves the body out (cancel, delete)', async () => {
    const headers = await signatureHeaders({ method: 'POST', autoPath: '/queries/q-1/cancel', query: '', body: '{"ignored":true}', contentType: 'application/json', secret: SECRET, nowMs: 1_800_000_000_000 });
    expect(await verifyRequestSignature({ secret: SECRET, timestamp: headers['x-svc-timestamp'], signature: headers['x-svc-signature'], method: 'POST', path: '/queries/q-1/cancel', body: '', nowSeconds: 1_800_000_000 })).toEqual({ ok: true });
  });

  it('leaves routes outside the table unsigned, and refuses only what the host would refuse unsigned', async () => {
    const base = { method: 'POST', query: '', contentType: 'application/json', secret: undefined, nowMs: 0 } as const;
    expect(await signatureHeaders({ ...base, method: 'GET', autoPath: '/queries', body: undefined })).toEqual({});
    const notify = JSON.stringify({ query: { conditions: { AND: [] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'm' } }] } });
    expect(await signatureHeaders({ ...base, autoPath: '/queries', body: notify })).toEqual({});
    const trade = JSON.stringify({ query: { conditions: { AND: [] }, actions: [{ stepId: 'b', type: 'market_order', params: {} }] } });
    await expect(signatureHeaders({ ...base, autoPath: '/queries', body: trade })).rejects.toMatchObject({ code: 'signature_required' });
    await expect(signatureHeaders({ ...base, autoPath: '/exchanges', body: '{}' })).rejects.toBeInstanceOf(EqlClientError);
    // A stored query's flavour is the host's to know: sent, and the host decides.
    expect(await signatureHeaders({ ...base, autoPath: '/queries/q-1/cancel', body: undefined })).toEqual({});
    await expect(signatureHeaders({ ...base, autoPath: '/queries', body: notify, query: '?x=1', secret: SECRET })).rejects.toMatchObject({ code: 'signature_unsigned_query' });
  });
});

describe('retry-after', () => {
  it('reads delay seconds and HTTP dates', () => {
    expect(retryAfterMs('120', 0)).toBe(120_000);
    expect(retryAfterMs(new Date(61_000).toUTCString(), 1_000)).toBe(60_000);
    expect(retryAfterMs(new Date(0).toUTCString(), 5_000)).toBe(0);
    for (const unreadable of [undefined, null, '', 'soon', '-5', '1.5']) expect(retryAfterMs(unreadable, 0)).toBeUndefined();
  });

  it('sends again after the wait asked, at most maxRetries times, never sooner than a second, and gives back a wait too long', async () => {
    const waits: number[] = [];
    const answers = (statuses: Array<[number, string?]>) => {
      let index = 0;
      return () => {
        const [status, retryAfter] = statuses[Math.min(index, statuses.length - 1)]!;
        index += 1;
        return Promise.resolve(new Response(null, { status, headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter } }));
      };
    };
    const context = { policy: { maxRetries: 2 }, now: () => 0, sleep: (ms: number) => (waits.push(ms), Promise.resolve()) };
    expect((await fetchRetrying429(answers([[429, '2'], [429, '0'], [200]]), context)).status).toBe(200);
    expect(waits).toEqual([2_000, 1_000]);
    waits.length = 0;
    expect((await fetchRetrying429(answers([[429], [429], [429], [200]]), context)).status).toBe(429);
    expect(waits).toEqual([1_000, 2_000]);
    waits.length = 0;
    expect((await fetchRetrying429(answers([[429, '600'], [200]]), { ...context, policy: { maxDelayMs: 60_000 } })).status).toBe(429);
    expect(waits).toEqual([]);
  });

  it('signs each try afresh: a retried signed request carries a new timestamp', async () => {
    let clock = 1_800_000_000_000;
    const stamps: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      const request = new Request(input, init);
      stamps.push(request.headers.get('x-svc-timestamp') ?? '');
      return Promise.resolve(new Response('{}', { status: stamps.length === 1 ? 429 : 201, headers: { 'retry-after': '3' } }));
    };
    const transport = createTransport({ baseUrl: 'http://host.invalid/eql', apiKey: 'k', hmacSecret: SECRET, fetch, now: () => clock, sleep: (ms) => ((clock += ms), Promise.resolve()) });
    const response = await transport(new Request('http://host.invalid/eql/v2/auto/exchanges', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }));
    expect(response.status).toBe(201);
    expect(stamps).toEqual(['1800000000', '1800000003']);
  });
});
