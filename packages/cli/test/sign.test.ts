import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRequestSignature } from '@eql/core';
import { main, type CliIo } from '../src/index.js';
import { testHost, type TestHost } from '../../server/test/support/host.js';

// `eql sign`: the headers it prints are accepted by a host (spec 5.2), over the body exactly as given;
// it prints no key and no secret.

let host: TestHost;
beforeAll(async () => {
  host = await testHost();
});
afterAll(async () => {
  await host.close();
});

async function run(argv: string[], files: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(''),
    readFile: (path) => (files[path] === undefined ? Promise.reject(new Error('missing')) : Promise.resolve(files[path])),
    color: false,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('eql sign', () => {
  it('prints headers a host accepts for a signed route, and a curl line with the key left as $EQL_API_KEY', async () => {
    const key = await host.newKey();
    const body = JSON.stringify({ exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: 'k-1', secret: 's-1' } });
    const { code, stdout } = await run(['sign', 'POST', '/v2/auto/exchanges', '--body', '@creds.json', '--secret', key.hmacSecret, '--json'], { 'creds.json': body });
    expect(code).toBe(0);
    const signed = JSON.parse(stdout) as { headers: Record<string, string>; signed: string; curl: string };
    expect(signed.signed).toBe(`${signed.headers['x-svc-timestamp']}POST/exchanges${body}`);
    expect(signed.curl).toContain(`'http://localhost:8787/v2/auto/exchanges' -H "x-svc-api-key: $EQL_API_KEY"`);
    expect(signed.curl).toContain("--data-binary '@creds.json'");
    expect(stdout).not.toContain(key.hmacSecret);
    expect(stdout).not.toContain(key.key);
    // Past the signature check (this test host connects no real venue: the route then refuses binance).
    const answer = await host.app.inject({ method: 'POST', url: '/v2/auto/exchanges', headers: { 'x-svc-api-key': key.key, 'content-type': 'application/json', ...signed.headers }, payload: body });
    expect(answer.json<{ error: { code: string } }>().error.code).toBe('exchange_not_supported');
    // The same headers over another body: refused.
    const other = await host.app.inject({ method: 'POST', url: '/v2/auto/exchanges', headers: { 'x-svc-api-key': key.key, 'content-type': 'application/json', ...signed.headers }, payload: body.replace('k-1', 'k-2') });
    expect(other.statusCode).toBe(401);
  });

  it('signs a query a host validates (a signature is checked there when sent)', async () => {
    const key = await host.newKey();
    const body = JSON.stringify({ title: 't', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'm' } }], expiresIn: '1h' } });
    const signed = JSON.parse((await run(['sign', 'POST', '/v2/auto/queries/validate', '--body', body, '--secret', key.hmacSecret, '--json'])).stdout) as { headers: Record<string, string> };
    const answer = await host.app.inject({ method: 'POST', url: '/v2/auto/queries/validate', headers: { 'x-svc-api-key': key.key, 'content-type': 'application/json', ...signed.headers }, payload: body });
    expect(answer.statusCode, answer.body).toBe(200);
  });

  it('leaves the body out of the signature where spec 5.2 does (a cancel), and the core verifies it', async () => {
    const { stdout } = await run(['sign', 'post', '/v2/auto/queries/q-1/cancel', '--body', '{"ignored":true}', '--secret', 's3cret', '--timestamp', '1790000000', '--json']);
    const signed = JSON.parse(stdout) as { headers: Record<string, string>; signed: string };
    expect(signed.signed).toBe('1790000000POST/queries/q-1/cancel');
    const check = await verifyRequestSignature({ secret: 's3cret', timestamp: '1790000000', signature: signed.headers['x-svc-signature'], method: 'POST', path: '/queries/q-1/cancel', body: '', nowSeconds: 1790000000 });
    expect(check).toEqual({ ok: true });
  });

  it('refuses what it cannot sign: no secret, another API than /v2/auto, a query string (exit 2)', async () => {
    const env = process.env.EQL_HMAC_SECRET;
    delete process.env.EQL_HMAC_SECRET;
    try {
      expect((await run(['sign', 'POST', '/v2/auto/exchanges'])).stderr).toContain('no HMAC secret');
    } finally {
      if (env !== undefined) process.env.EQL_HMAC_SECRET = env;
    }
    expect((await run(['sign', 'GET', '/v2/ping', '--secret', 's'])).code).toBe(2);
    expect((await run(['sign', 'POST', '/v2/auto/queries?x=1', '--secret', 's'])).stderr).toContain('no query string');
  });
});
