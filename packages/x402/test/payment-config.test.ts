import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { createPaymentConfig, formatUsd, MemoryPaymentLedger, PaymentVerifier, paymentConfigFromEnv, priceAtomic, settlementProblem, USDC, type PaymentFacilitator } from '../src/index.js';
import { x402Payments } from '../src/fastify/index.js';

const PAY_TO = '0x1111111111111111111111111111111111111111';

describe('payment configuration', () => {
  it('defaults to Base Sepolia USDC with its EIP-712 domain and a 60 s timeout', () => {
    const config = createPaymentConfig({ payTo: '0xabcdef0123456789abcdef0123456789abcdef01' });
    expect(config).toEqual({
      network: 'eip155:84532',
      v1Network: 'base-sepolia',
      chainId: 84532,
      payTo: '0xabCDeF0123456789AbcdEf0123456789aBCDEF01',
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      assetName: 'USDC',
      assetVersion: '2',
      maxTimeoutSeconds: 60,
      agentSecrets: [],
    });
  });

  it('derives Base mainnet USDC ("USD Coin", version 2) from the network, given as CAIP-2 or v1 name', () => {
    for (const network of ['eip155:8453', 'base']) {
      expect(createPaymentConfig({ payTo: PAY_TO, network })).toMatchObject({ network: 'eip155:8453', v1Network: 'base', chainId: 8453, asset: USDC['eip155:8453'].asset, assetName: 'USD Coin', assetVersion: '2' });
    }
  });

  it('reads EQL_X402_* and EQL_AGENT_SECRET; off without a payTo', () => {
    expect(paymentConfigFromEnv({})).toBeUndefined();
    expect(paymentConfigFromEnv({ EQL_X402_NETWORK: 'eip155:8453' })).toBeUndefined();
    const config = paymentConfigFromEnv({
      EQL_X402_PAY_TO: PAY_TO,
      EQL_X402_NETWORK: 'eip155:8453',
      EQL_X402_FACILITATOR_URL: 'http://127.0.0.1:4021/facilitator/',
      EQL_AGENT_SECRET: ' first-secret-0123456789 ,, second-secret-0123456789',
    });
    expect(config).toMatchObject({ network: 'eip155:8453', payTo: PAY_TO, facilitatorUrl: 'http://127.0.0.1:4021/facilitator', agentSecrets: ['first-secret-0123456789', 'second-secret-0123456789'] });
    expect(paymentConfigFromEnv({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_FACILITATOR_URL: '  ' })?.facilitatorUrl).toBeUndefined();
  });

  it('refuses bad values with a message naming them', () => {
    expect(() => createPaymentConfig({ payTo: '0x123' })).toThrow('payTo');
    expect(() => createPaymentConfig({ payTo: PAY_TO, network: 'eip155:1' })).toThrow('unsupported x402 network');
    expect(() => createPaymentConfig({ payTo: PAY_TO, facilitatorUrl: 'not a url' })).toThrow('facilitator URL');
    expect(() => createPaymentConfig({ payTo: PAY_TO, facilitatorUrl: 'ftp://example.org' })).toThrow('http or https');
    expect(() => createPaymentConfig({ payTo: PAY_TO, maxTimeoutSeconds: 6 })).toThrow('maxTimeoutSeconds');
    expect(() => createPaymentConfig({ payTo: PAY_TO, agentSecrets: ['short'] })).toThrow('16 characters');
  });
});

describe('real money needs a facilitator (or offline on purpose)', () => {
  const facilitator: PaymentFacilitator = {
    verify: () => Promise.resolve({ ok: true, value: {} }),
    settle: () => Promise.resolve({ ok: true, value: { transaction: '0x01', network: 'eip155:8453', payer: PAY_TO } }),
  };

  it('the USDC table says which networks are testnets', () => {
    expect(USDC['eip155:8453'].testnet).toBe(false);
    expect(USDC['eip155:84532'].testnet).toBe(true);
  });

  it('settlementProblem: mainnet without a facilitator is refused unless offline; offline with a facilitator is a contradiction', () => {
    const mainnet = createPaymentConfig({ payTo: PAY_TO, network: 'base' });
    expect(settlementProblem(mainnet, false)).toMatch(/EQL_X402_FACILITATOR_URL.*EQL_X402_OFFLINE=1/);
    expect(settlementProblem(mainnet, true)).toBeUndefined();
    expect(settlementProblem(createPaymentConfig({ payTo: PAY_TO, network: 'base', offline: true }), false)).toBeUndefined();
    expect(settlementProblem(createPaymentConfig({ payTo: PAY_TO, offline: true }), true)).toMatch(/choose one/);
    // A testnet may run offline without saying so.
    expect(settlementProblem(createPaymentConfig({ payTo: PAY_TO }), false)).toBeUndefined();
  });

  it('paymentConfigFromEnv: EQL_X402_OFFLINE', () => {
    expect(() => paymentConfigFromEnv({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_NETWORK: 'eip155:8453' })).toThrow('EQL_X402_OFFLINE=1');
    expect(paymentConfigFromEnv({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_NETWORK: 'eip155:8453', EQL_X402_OFFLINE: '1' })).toMatchObject({ network: 'eip155:8453', offline: true });
    expect(() => paymentConfigFromEnv({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_FACILITATOR_URL: 'https://x402.org/facilitator', EQL_X402_OFFLINE: 'true' })).toThrow('choose one');
    expect(paymentConfigFromEnv({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_OFFLINE: 'no' })).not.toHaveProperty('offline');
  });

  it('the verifier and the plugin refuse to run with real money and no facilitator', async () => {
    const ledger = new MemoryPaymentLedger();
    const mainnet = createPaymentConfig({ payTo: PAY_TO, network: 'eip155:8453' });
    expect(() => new PaymentVerifier({ config: mainnet, ledger })).toThrow('never settled');
    expect(new PaymentVerifier({ config: mainnet, ledger, facilitator }).settles).toBe(true);
    expect(new PaymentVerifier({ config: createPaymentConfig({ payTo: PAY_TO, network: 'eip155:8453', offline: true }), ledger }).settles).toBe(false);
    const app = Fastify({ logger: false });
    await expect(app.register(x402Payments, { config: mainnet, ledger }).ready()).rejects.toThrow('never settled');
    await app.close();
  });
});

describe('prices', () => {
  it('1 credit = 0.009 USD = 9000 atomic units, in integers', () => {
    expect(priceAtomic(0)).toBe(0n);
    expect(priceAtomic(1)).toBe(9_000n);
    expect(priceAtomic(5)).toBe(45_000n);
    expect(priceAtomic(18)).toBe(162_000n);
    expect(priceAtomic(1_000_000_000)).toBe(9_000_000_000_000n);
    expect(() => priceAtomic(1.5)).toThrow(RangeError);
    expect(() => priceAtomic(-1)).toThrow(RangeError);
  });

  it('formats atomic units as a $ price string', () => {
    expect(formatUsd(priceAtomic(5))).toBe('$0.045');
    expect(formatUsd(priceAtomic(18))).toBe('$0.162');
    expect(formatUsd(priceAtomic(1))).toBe('$0.009');
    expect(formatUsd(2_000_000n)).toBe('$2');
    expect(formatUsd(0n)).toBe('$0');
  });
});
