import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import type * as Viem from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPaymentConfig, type PaymentFacilitator } from '@eql/x402';
import { configFromEnv, defaultConfig } from '../src/config.js';
import { buildServer } from '../src/build-server.js';
import { startServer } from '../src/start.js';
import { SecretBox } from '../src/secrets.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { SECRET_KEY_HEX, smallRecording, testHost, type TestHost } from './support/host.js';
import { newPayer, signPayment } from '../../x402/test/support/x402-payer.js';

// Every signature recovery of the payment verifier goes through viem's verifyTypedData: count the calls.
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

const PAY_TO = '0x1111111111111111111111111111111111111111';
const PATH = '/x402/v2/aggregations/trending-tokens';
const payments = createPaymentConfig({ payTo: PAY_TO });
const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const facilitator: PaymentFacilitator = {
  verify: () => Promise.resolve({ ok: true, value: {} }),
  settle: () => Promise.resolve({ ok: true, value: { transaction: '0x01', network: 'eip155:8453' } }),
};

describe('host configuration of the payment model', () => {
  it('Base mainnet without a facilitator does not start unless EQL_X402_OFFLINE is set', () => {
    expect(() => configFromEnv({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_NETWORK: 'eip155:8453' })).toThrow(/never settled.*EQL_X402_OFFLINE=1/);
    expect(() => configFromEnv({ EQL_X402_NETWORK: 'base' })).toThrow('EQL_X402_OFFLINE=1');
    expect(configFromEnv({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_NETWORK: 'base', EQL_X402_OFFLINE: '1' }).x402).toMatchObject({ network: 'base', offline: true });
    expect(configFromEnv({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_NETWORK: 'base', EQL_X402_FACILITATOR_URL: 'https://facilitator.example' }).x402.facilitatorUrl).toBe('https://facilitator.example');
    // Base Sepolia (test USDC) may run offline without saying so.
    expect(configFromEnv({ EQL_X402_PAY_TO: PAY_TO }).x402.offline).toBeUndefined();
  });

  it('refuses a facilitator without a payee, offline with a facilitator, an unknown network', () => {
    expect(() => configFromEnv({ EQL_X402_FACILITATOR_URL: 'https://facilitator.example' })).toThrow('EQL_X402_PAY_TO');
    expect(() => configFromEnv({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_FACILITATOR_URL: 'https://facilitator.example', EQL_X402_OFFLINE: 'yes' })).toThrow('choose one');
    expect(() => configFromEnv({ EQL_X402_NETWORK: 'eip155:1' })).toThrow('EQL_X402_NETWORK');
  });

  it('reads the limits, whole numbers only', () => {
    const config = configFromEnv({ EQL_X402_REQUESTS_PER_MINUTE: '600', EQL_X402_BAD_SIGNATURES_PER_PAYER: '0', EQL_X402_BAD_SIGNATURES_PER_ADDRESS: '30' });
    expect(config.x402).toMatchObject({ requestsPerMinute: 600, badSignaturesPerPayer: 0, badSignaturesPerAddress: 30 });
    expect(() => configFromEnv({ EQL_X402_REQUESTS_PER_MINUTE: '0' })).toThrow('EQL_X402_REQUESTS_PER_MINUTE must be a whole number of at least 1');
    expect(() => configFromEnv({ EQL_X402_BAD_SIGNATURES_PER_PAYER: '2.5' })).toThrow('EQL_X402_BAD_SIGNATURES_PER_PAYER');
    expect(() => configFromEnv({ EQL_X402_BAD_SIGNATURES_PER_ADDRESS: 'lots' })).toThrow('EQL_X402_BAD_SIGNATURES_PER_ADDRESS');
  });

  it('buildServer refuses Base mainnet without a facilitator, and builds with one given', async () => {
    const store = new SqliteStore(':memory:');
    const build = buildServer({ logger: false, store, box: SecretBox.fromKey(SECRET_KEY_HEX), engine: { sources: [], recording: smallRecording() }, config: { x402: { payTo: PAY_TO, network: 'eip155:8453', agentSecrets: [] } } });
    await expect(build).rejects.toThrow('EQL_X402_OFFLINE=1');
    store.close();
    const host = await testHost({ facilitator, config: { x402: { payTo: PAY_TO, network: 'eip155:8453', agentSecrets: [] } } });
    await host.close();
  });
});

describe('an offline host says so at every start', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'eql-x402-offline-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('start output: a warning that payments are verified and never settled; and a warning in the log', async () => {
    const config = defaultConfig({
      dataDir,
      port: 0,
      secretKey: SECRET_KEY_HEX,
      marketSeed: false,
      recordingPath: join(import.meta.dirname, '../../../fixtures/recordings/btc-1d.jsonl'),
      x402: { payTo: PAY_TO, network: 'eip155:8453', offline: true, agentSecrets: [] },
      logLevel: 'silent',
    });
    for (let start = 0; start < 2; start += 1) {
      const lines: string[] = [];
      const { host } = await startServer(config, (line) => lines.push(line));
      await host.close();
      expect(lines.filter((line) => line.startsWith('warning: x402 is offline'))).toEqual([
        'warning: x402 is offline (EQL_X402_OFFLINE): payments on eip155:8453 are verified locally and never settled on chain; set EQL_X402_FACILITATOR_URL to settle them',
      ]);
    }

    const logged: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    const host = await testHost({ logger: { level: 'warn', stream }, config: { x402: { payTo: PAY_TO, agentSecrets: [] } } });
    await host.close();
    expect(logged.map((line) => JSON.parse(line) as { level: number; msg: string })).toContainEqual(
      expect.objectContaining({ level: 40, msg: expect.stringContaining('never settled on chain') as unknown }),
    );
  });
});

describe('a flood of payments with bad signatures on a paid route of the host', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await testHost({ config: { x402: { payTo: PAY_TO, agentSecrets: [], badSignaturesPerPayer: 3, badSignaturesPerAddress: 6, requestsPerMinute: 1000 } } });
  });
  afterAll(() => host.close());
  beforeEach(() => {
    recoveries.count = 0;
  });

  const get = (headers: Record<string, string>, remoteAddress: string): Promise<LightMyRequestResponse> => host.app.inject({ method: 'GET', url: PATH, headers, remoteAddress });

  it('is answered 429 rate_limited past the bound, before any recovery; honest payments still pass', async () => {
    const victim = newPayer();
    const forged = await signPayment(victim, payments, 9000n, nowSeconds(), { signer: newPayer() });
    const statuses: number[] = [];
    let limited: LightMyRequestResponse | undefined;
    for (let index = 0; index < 25; index += 1) {
      const response = await get(forged.headers, '203.0.113.7');
      statuses.push(response.statusCode);
      if (response.statusCode === 429) limited = response;
    }
    expect(statuses).toEqual([...Array<number>(3).fill(402), ...Array<number>(22).fill(429)]);
    expect(recoveries.count).toBe(3);
    expect(limited?.json()).toEqual({ success: false, error: { code: 'rate_limited', message: expect.stringContaining(victim.address) as unknown } });
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);

    // New claimed payers from the same address: the address bound (6) stops them too.
    for (let index = 0; index < 10; index += 1) {
      const other = await signPayment(newPayer(), payments, 9000n, nowSeconds(), { signer: newPayer() });
      await get(other.headers, '203.0.113.7');
    }
    expect(recoveries.count).toBe(6);

    // An honest payer elsewhere pays, and so does the victim.
    for (const payer of [newPayer(), victim]) {
      const honest = await signPayment(payer, payments, 9000n, nowSeconds());
      const paid = await get(honest.headers, '198.51.100.1');
      expect(paid.statusCode, paid.body).toBe(200);
    }
  });

  it('the requests-a-minute bound of the payment-model routes is configurable too (EQL_X402_REQUESTS_PER_MINUTE)', async () => {
    const limitedHost = await testHost({ config: { x402: { payTo: PAY_TO, agentSecrets: [], requestsPerMinute: 4 } } });
    try {
      const statuses: number[] = [];
      for (let index = 0; index < 6; index += 1) statuses.push((await limitedHost.app.inject({ method: 'GET', url: PATH })).statusCode);
      expect(statuses).toEqual([402, 402, 402, 402, 429, 429]);
      const limited = await limitedHost.app.inject({ method: 'GET', url: PATH });
      expect(limited.json()).toEqual({ success: false, error: { code: 'rate_limited', message: expect.stringContaining('more than 4 requests a minute on payment-model routes') as unknown } });
      expect(limited.headers['retry-after']).toBeDefined();
    } finally {
      await limitedHost.close();
    }
  });
});
