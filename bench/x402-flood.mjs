// Benchmark: a flood of x402 payments with bad signatures on a paid route, and what it does to everyone
// else (issue 13, finding 1: 8,271 invalid payments in 20 s moved /v2/ping p50 from 1.8 ms to 43.5 ms).
//
// The host runs in-process (buildServer from packages/server/dist, logger off, a PushSource feed, a
// payee configured, offline). Each forged payment is well formed, for the right amount, payee and
// validity window, with an unused nonce, and signed by another key than its `from`: everything cheap
// passes, so without a limit each one costs an EIP-712 signature recovery (about 3.5 ms of CPU).
//
//  - /v2/ping latency: one keep-alive connection, requests one after another (bench/support/ping.mjs,
//    in its own process), p50 and p99 from process.hrtime; first idle, then during the flood, on the
//    same host.
//  - The flood: autocannon 8 (bench/support/load.mjs, its own process) on
//    GET /x402/v2/aggregations/trending-tokens with the forged PAYMENT-SIGNATURE, from one client address.
//
// Scenarios, each on a fresh host (so no limit carries over):
//  (a) limits off (the per-address request limit of /x402/* raised to 1e9, the bad-signature bounds 0):
//      the finding, reproduced;
//  (b) the bad-signature bounds as shipped (20 per payer, 60 per address a minute), the request limit
//      raised: what the x402 bounds alone do;
//  (c) as shipped (also the 300 requests a minute per address of /x402/*);
//  (d) as shipped, the flood unthrottled (as fast as autocannon goes);
//  (e) for comparison, an unthrottled flood of requests to a route that does not exist (404): what any
//      flood does to the probe, payments or not.
// (a) to (c) flood at 414 requests a second, the finding's rate. Aim: /v2/ping p50 during the flood
// within 2x of idle for (b) and (c).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { PushSource } from '@eql/core';
import { buildServer } from '@eql/server';
import { createPaymentConfig, requirementsV2, TRANSFER_WITH_AUTHORIZATION_TYPES } from '@eql/x402';

const startLoad = loadavg();
const PING_S = 4;
const FLOOD_WARMUP_S = 1;
const RATE = 414;
const CONNECTIONS = 16;
const AIM = 2;
const PAY_TO = '0x1111111111111111111111111111111111111111';
const PATH = '/x402/v2/aggregations/trending-tokens';
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

function child(script, args) {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [here(script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    process_.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    process_.on('error', reject);
    process_.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${script} exited with ${code}`))));
  });
}
const ping = (base) => child('./support/ping.mjs', [`${base}/v2/ping`, String(PING_S)]);
const flood = (options) => child('./support/load.mjs', [JSON.stringify(options)]);
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A payment that passes every cheap check and fails the signature: `from` is not the signer. */
async function forgedPayment(config) {
  const now = Math.floor(Date.now() / 1000);
  const claimed = privateKeyToAccount(generatePrivateKey());
  const forger = privateKeyToAccount(generatePrivateKey());
  const authorization = { from: claimed.address, to: config.payTo, value: 9000n, validAfter: BigInt(now - 600), validBefore: BigInt(now + 3600), nonce: `0x${randomBytes(32).toString('hex')}` };
  const signature = await forger.signTypedData({
    domain: { name: config.assetName, version: config.assetVersion, chainId: config.chainId, verifyingContract: config.asset },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  const payload = {
    x402Version: 2,
    resource: { url: `http://127.0.0.1${PATH}`, mimeType: 'application/json' },
    accepted: requirementsV2(config, 9000n),
    payload: { signature, authorization: { ...authorization, value: '9000', validAfter: String(authorization.validAfter), validBefore: String(authorization.validBefore) } },
  };
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

async function scenario({ name, x402, rate, path = PATH, forged = true }) {
  const dataDir = await mkdtemp(join(tmpdir(), 'eql-bench-x402-'));
  const host = await buildServer({
    config: { dataDir, secretKey: 'ab'.repeat(32), marketSeed: false, x402: { payTo: PAY_TO, agentSecrets: [], ...x402 } },
    logger: false,
    engine: { sources: [new PushSource()] },
  });
  try {
    const base = await host.app.listen({ host: '127.0.0.1', port: 0 });
    const header = await forgedPayment(createPaymentConfig({ payTo: PAY_TO }));
    // The forged payment reaches the signature check: a 402 payment_invalid_signature, nothing cheaper.
    const probe = await fetch(`${base}${PATH}`, { headers: { 'payment-signature': header } });
    const refusal = await probe.json();
    if (probe.status !== 402 || refusal.error !== 'payment_invalid_signature') throw new Error(`${name}: the forged payment answered ${probe.status} ${JSON.stringify(refusal).slice(0, 200)}`);
    const idle = await ping(base);
    const flooding = flood({
      url: `${base}${path}`,
      method: 'GET',
      headers: forged ? { 'payment-signature': header } : {},
      connections: CONNECTIONS,
      duration: FLOOD_WARMUP_S + PING_S + 1,
      ...(rate ? { overallRate: rate } : {}),
    });
    await pause(FLOOD_WARMUP_S * 1000);
    const during = await ping(base);
    const load = await flooding;
    for (const [when, probe] of [['idle', idle], ['during the flood', during]]) {
      if (Object.keys(probe.statuses).some((status) => status !== '200')) throw new Error(`${name}: /v2/ping ${when} answered ${JSON.stringify(probe.statuses)}`);
    }
    return { name, idle, during, load, ratio: during.p50 / idle.p50 };
  } finally {
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const OFF = { requestsPerMinute: 1e9, badSignaturesPerPayer: 0, badSignaturesPerAddress: 0 };
const scenarios = [
  { name: '(a) no limits', x402: OFF, rate: RATE, aim: false },
  { name: '(b) bad-signature bounds', x402: { requestsPerMinute: 1e9 }, rate: RATE, aim: true },
  { name: '(c) as shipped', x402: {}, rate: RATE, aim: true },
  { name: '(d) as shipped, unthrottled', x402: {}, rate: undefined, aim: false },
  { name: '(e) unthrottled 404s', x402: {}, rate: undefined, path: '/no-such-route', forged: false, aim: false },
];
const results = [];
for (const each of scenarios) results.push({ ...(await scenario(each)), aim: each.aim });

console.log(`x402 flood: forged payments (valid shape, amount, payee, window, nonce; wrong signer) on GET ${PATH} from one address; /v2/ping probed one request at a time for ${PING_S} s, idle then during the flood; node ${process.version}`);
console.log(`  load average at start ${startLoad.map((n) => n.toFixed(2)).join(' ')}, at end ${loadavg().map((n) => n.toFixed(2)).join(' ')} (other processes on this machine skew the figures)`);
console.log('');
console.log(`  ${'scenario'.padEnd(30)} ${'flood'.padStart(12)}  ${'answers'.padEnd(22)} ${'ping p50 idle'.padStart(13)} ${'flood'.padStart(9)} ${'ratio'.padStart(6)}   ${'p99 idle'.padStart(8)} ${'flood'.padStart(9)}`);
for (const { name, idle, during, load, ratio } of results) {
  const answers = Object.entries(load.codes).map(([code, count]) => `${count} x ${code}`).join(', ');
  console.log(
    `  ${name.padEnd(30)} ${`${Math.round(load.requestsPerSecond)} req/s`.padStart(12)}  ${answers.padEnd(22)} ${`${idle.p50.toFixed(2)} ms`.padStart(13)} ${`${during.p50.toFixed(2)} ms`.padStart(9)} ${ratio.toFixed(2).padStart(6)}   ${`${idle.p99.toFixed(2)} ms`.padStart(8)} ${`${during.p99.toFixed(2)} ms`.padStart(9)}`,
  );
}
console.log('  (each 402 in the flood is one signature recovery; a 429 is refused before any; (e) floods a missing route, no payment)');
console.log('');
console.log('AIMS');
for (const { name, ratio } of results.filter((result) => result.aim)) {
  console.log(`  ${`${name}: ping p50 during / idle`.padEnd(52)} ${ratio.toFixed(2)} (aim <= ${AIM.toFixed(2)}) ${ratio <= AIM ? 'MET' : 'NOT MET'}`);
}
