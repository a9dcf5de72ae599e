import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv, type HostConfig } from '../src/config.js';
import { startServer } from '../src/start.js';
import { killChildren, serveChild } from './support/child-host.js';
import { removeDir } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';

/**
 * The keyless payment routes (`/x402/*`) exist only when configured: a real payee (EQL_X402_PAY_TO), or
 * the demo payee on purpose (EQL_X402_DEMO=1, `eql serve --x402-demo`, which `npm start` uses), printed
 * at start. The demo payee never settles, so it never serves what spends a real language model.
 */

const PAY_TO = '0x1111111111111111111111111111111111111111';
const RECORDING = join(import.meta.dirname, '../../../fixtures/recordings/btc-1d.jsonl');
const dirs: string[] = [];
afterAll(async () => {
  killChildren();
  for (const dir of dirs) await removeDir(dir);
});

/** A language model endpoint that counts the requests it gets (and answers none usefully). */
let model: Server;
let modelCalls = 0;
let modelUrl: string;
beforeAll(async () => {
  model = createServer((request, response) => {
    modelCalls += 1;
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => model.close(() => resolve())));

/** `eql serve`'s configuration from `env`, on a fresh data directory, with the start's printed lines. */
async function started(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'eql-payments-'));
  dirs.push(dataDir);
  const config: HostConfig = configFromEnv({ EQL_DATA_DIR: dataDir, EQL_PORT: '0', EQL_HOST: '127.0.0.1', EQL_SECRET_KEY: SECRET_KEY_HEX, EQL_MARKET_SEED: 'none', EQL_RECORDING: RECORDING, EQL_LOG_LEVEL: 'silent', ...env });
  const lines: string[] = [];
  const { host } = await startServer(config, (line) => lines.push(line));
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) => host.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
  return { host, lines, dataDir, post };
}

const query = (conditions: unknown[]) => ({ query: { conditions: { AND: conditions }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn: '24h' } });
const btcAbove = { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1_000_000_000 };
const sentiment = { source: 'llm', args: { query: 'Is crypto market sentiment bullish?', period: '4h', speed: 'fast' } };

describe('the payment routes of a host started by eql serve', () => {
  it('are not served by default: 404, no demo payee made, nothing about x402 printed', async () => {
    const { host, lines, dataDir, post } = await started({});
    try {
      expect((await host.app.inject({ url: '/x402/v2/aggregations/trending-tokens' })).statusCode).toBe(404);
      expect((await post('/x402/v2/chat', { message: 'hi' })).statusCode).toBe(404);
      expect((await post('/x402/v2/auto/queries/validate', query([btcAbove]))).statusCode).toBe(404);
      expect(lines.filter((line) => /^x402|x402 is offline|agent secret/.test(line))).toEqual([]);
      expect(() => readFileSync(join(dataDir, 'x402-demo.json'))).toThrow();
    } finally {
      await host.close();
    }
  });

  it('with EQL_X402_DEMO=1: served to the demo payee, printed at start', async () => {
    const { host, lines, dataDir, post } = await started({ EQL_X402_DEMO: '1' });
    try {
      const demo = JSON.parse(readFileSync(join(dataDir, 'x402-demo.json'), 'utf8')) as { payTo: string; agentSecret: string };
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^x402 \\(demo\\): payments to ${demo.payTo} on eip155:84532, verified locally, never settled \\(EQL_X402_DEMO`)));
      const asked = await host.app.inject({ url: '/x402/v2/aggregations/trending-tokens' });
      expect(asked.statusCode).toBe(402);
      expect(asked.headers['payment-required']).toBeDefined();
      // No language model: the offline analyst answers chat, so chat is priced like any paid route.
      expect((await post('/x402/v2/chat', { message: 'hi' })).statusCode).toBe(402);
      expect((await post('/x402/v2/auto/queries/validate', query([btcAbove]), { 'x-svc-agent-secret': demo.agentSecret })).json()).toMatchObject({ valid: true });
    } finally {
      await host.close();
    }
  });

  it('with the demo payee and a language model configured: the routes that spend the model are refused, before any payment, and the model is never called', async () => {
    const { host, lines, dataDir, post } = await started({ EQL_X402_DEMO: '1', EQL_LLM_BASE_URL: modelUrl, EQL_LLM_API_KEY: 'sk-test-not-a-real-key', EQL_LLM_MAX_RETRIES: '0' });
    try {
      expect(lines).toContainEqual(expect.stringMatching(/^x402 \(demo\): .*language model.*refused.*EQL_X402_PAY_TO/));
      const agent = { 'x-svc-agent-secret': (JSON.parse(readFileSync(join(dataDir, 'x402-demo.json'), 'utf8')) as { agentSecret: string }).agentSecret };
      for (const [url, body, headers] of [
        ['/x402/v2/chat', { message: 'hi' }, {}],
        ['/x402/v2/chat', { message: 'hi', speed: 'expert' }, { 'payment-signature': 'bm90IGpzb24=' }],
        ['/x402/v2/auto/chat', { message: 'alert me when BTC is above 100k' }, {}],
        ['/x402/v2/auto/queries', query([btcAbove, sentiment]), agent],
      ] as const) {
        if (url === '/x402/v2/auto/queries') expect((await post('/x402/v2/auto/queries/validate', body, agent)).json()).toMatchObject({ valid: true });
        const refused = await post(url, body, headers);
        expect(refused.statusCode, url).toBe(403);
        expect(refused.json(), url).toMatchObject({ success: false, error: { code: 'x402_demo_payee', message: expect.stringContaining('EQL_X402_PAY_TO') as string } });
        expect(refused.headers['payment-required'], url).toBeUndefined();
      }
      // What spends no model is still served.
      expect((await host.app.inject({ url: '/x402/v2/aggregations/trending-tokens' })).statusCode).toBe(402);
      await post('/x402/v2/auto/queries/validate', query([btcAbove]), agent);
      expect((await post('/x402/v2/auto/queries', query([btcAbove]), agent)).statusCode).toBe(402);
      expect(modelCalls).toBe(0);
    } finally {
      await host.close();
    }
  });

  it('with a real payee (EQL_X402_PAY_TO): served as before, the model routes too, and the demo setting changes nothing', async () => {
    const { host, lines, dataDir, post } = await started({ EQL_X402_PAY_TO: PAY_TO, EQL_X402_DEMO: '1', EQL_AGENT_SECRET: 'agent-secret-of-the-tests-0001', EQL_LLM_BASE_URL: modelUrl, EQL_LLM_API_KEY: 'sk-test-not-a-real-key' });
    try {
      const asked = await post('/x402/v2/chat', { message: 'hi' });
      expect(asked.statusCode).toBe(402);
      expect(JSON.parse(Buffer.from(String(asked.headers['payment-required']), 'base64').toString('utf8'))).toMatchObject({ accepts: [{ payTo: PAY_TO }] });
      expect(lines.filter((line) => line.includes('(demo'))).toEqual([]);
      expect(() => readFileSync(join(dataDir, 'x402-demo.json'))).toThrow();
    } finally {
      await host.close();
    }
  });
});

describe('npm start', () => {
  it('serves the demo payee and prints it', { timeout: 120_000 }, async () => {
    const script = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const [, , command, ...args] = script.split(' ');
    expect(command).toBe('serve');
    const dataDir = await mkdtemp(join(tmpdir(), 'eql-npm-start-'));
    dirs.push(dataDir);
    const child = await serveChild({ EQL_DATA_DIR: dataDir, EQL_PORT: '0', EQL_HOST: '127.0.0.1', EQL_MARKET_SEED: 'none', EQL_LOG_LEVEL: 'warn' }, { args });
    expect(child.output()).toMatch(/^x402 \(demo\): payments to 0x[0-9a-f]{40} on eip155:84532, verified locally, never settled/m);
    const url = /listening on (http:\/\/\S+)/.exec(child.output())?.[1];
    expect((await fetch(`${url}/x402/v2/aggregations/trending-tokens`)).status).toBe(402);
    await child.kill9();
  });
});
