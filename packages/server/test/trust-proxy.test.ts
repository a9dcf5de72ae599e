import { afterEach, describe, expect, it } from 'vitest';
import { configFromEnv, type HostConfig } from '../src/index.js';
import { X402_REQUESTS_PER_MINUTE } from '../src/build-server.js';
import { parseTrustProxy } from '../src/config.js';
import { testHost, type TestHost } from './support/host.js';

/**
 * Issue 13, finding 4: EQL_TRUST_PROXY. `request.ip`, and with it the per-address rate limits, come from
 * X-Forwarded-For only when the request arrives from a trusted proxy; by default never.
 */

const hosts: TestHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

/** A host with a route that answers `request.ip`, and the payment model on (its routes are limited per address). */
async function hostTrusting(trustProxy?: HostConfig['trustProxy']): Promise<TestHost> {
  const host = await testHost({ config: { x402: { payTo: '0x0000000000000000000000000000000000000001', agentSecrets: [] }, ...(trustProxy === undefined ? {} : { trustProxy }) } });
  hosts.push(host);
  host.app.get('/test/ip', (request) => ({ ip: request.ip }));
  return host;
}

async function ipSeen(host: TestHost, from: string, forwardedFor?: string): Promise<string> {
  const response = await host.app.inject({ method: 'GET', url: '/test/ip', remoteAddress: from, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } });
  return response.json<{ ip: string }>().ip;
}

describe('EQL_TRUST_PROXY', () => {
  it('reads true/false, a hop count, or a comma list of addresses and CIDR ranges; default off', () => {
    expect(configFromEnv({}).trustProxy).toBe(false);
    for (const [text, expected] of [
      ['true', true],
      ['on', true],
      ['false', false],
      ['off', false],
      ['', false],
      ['0', false],
      ['1', 1],
      ['2', 2],
      ['10.0.0.1', ['10.0.0.1']],
      ['10.0.0.1, 192.168.0.0/16 ,::1,fd00::/8', ['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8']],
      ['Loopback,uniquelocal', ['loopback', 'uniquelocal']],
    ] as const) {
      expect(parseTrustProxy(text), text).toEqual(expected);
      expect(configFromEnv({ EQL_TRUST_PROXY: text }).trustProxy, text).toEqual(expected);
    }
    for (const wrong of ['yes please', '10.0.0.300', '10.0.0.0/33', '::1/129', 'proxy.example.com', '10.0.0.1/8/8', '-1']) {
      expect(() => configFromEnv({ EQL_TRUST_PROXY: wrong }), wrong).toThrow(/EQL_TRUST_PROXY/);
    }
  });

  it('off (the default): X-Forwarded-For is ignored, the address is the peer\'s', async () => {
    const host = await hostTrusting();
    expect(await ipSeen(host, '10.0.0.5', '203.0.113.7')).toBe('10.0.0.5');
    expect(await ipSeen(host, '10.0.0.5', '198.51.100.1, 203.0.113.7')).toBe('10.0.0.5');
  });

  it('a list of proxies: X-Forwarded-For counts only from them, read from the right up to the first untrusted address', async () => {
    const host = await hostTrusting(['10.0.0.5', '192.168.0.0/16']);
    expect(await ipSeen(host, '10.0.0.5', '203.0.113.7')).toBe('203.0.113.7');
    expect(await ipSeen(host, '192.168.7.9', '203.0.113.7')).toBe('203.0.113.7');
    // A client that is not a trusted proxy cannot choose its address by the header.
    expect(await ipSeen(host, '10.0.0.6', '203.0.113.7')).toBe('10.0.0.6');
    // Through two proxies, both trusted: the client; a forged entry left of an untrusted one is not believed.
    expect(await ipSeen(host, '10.0.0.5', '203.0.113.7, 192.168.1.1')).toBe('203.0.113.7');
    expect(await ipSeen(host, '10.0.0.5', '1.2.3.4, 203.0.113.7')).toBe('203.0.113.7');
    expect(await ipSeen(host, '10.0.0.5')).toBe('10.0.0.5');
  });

  it('true trusts every hop (the leftmost address); a hop count trusts that many nearest hops', async () => {
    const all = await hostTrusting(true);
    expect(await ipSeen(all, '10.0.0.6', '198.51.100.1, 203.0.113.7')).toBe('198.51.100.1');
    const one = await hostTrusting(1);
    expect(await ipSeen(one, '10.0.0.6', '198.51.100.1, 203.0.113.7')).toBe('203.0.113.7');
    const two = await hostTrusting(2);
    expect(await ipSeen(two, '10.0.0.6', '198.51.100.1, 203.0.113.7')).toBe('198.51.100.1');
  });

  it('the per-address rate limit of the payment routes counts the forwarded client behind a trusted proxy, and the peer otherwise', { timeout: 60_000 }, async () => {
    const url = '/x402/v2/aggregations/trending-tokens';
    const exhaust = async (host: TestHost, from: string, forwardedFor: string) => {
      for (let index = 0; index < X402_REQUESTS_PER_MINUTE; index += 1) {
        const response = await host.app.inject({ method: 'GET', url, remoteAddress: from, headers: { 'x-forwarded-for': forwardedFor } });
        expect(response.statusCode, response.body).not.toBe(429);
      }
      const refused = await host.app.inject({ method: 'GET', url, remoteAddress: from, headers: { 'x-forwarded-for': forwardedFor } });
      expect(refused.statusCode).toBe(429);
    };
    const behindProxy = await hostTrusting(['10.0.0.5']);
    await exhaust(behindProxy, '10.0.0.5', '203.0.113.7');
    // Another client behind the same proxy has its own count.
    expect((await behindProxy.app.inject({ method: 'GET', url, remoteAddress: '10.0.0.5', headers: { 'x-forwarded-for': '203.0.113.8' } })).statusCode).not.toBe(429);

    const direct = await hostTrusting();
    await exhaust(direct, '10.0.0.5', '203.0.113.7');
    // Untrusted: a new X-Forwarded-For does not buy a new count.
    expect((await direct.app.inject({ method: 'GET', url, remoteAddress: '10.0.0.5', headers: { 'x-forwarded-for': '203.0.113.8' } })).statusCode).toBe(429);
  });
});
