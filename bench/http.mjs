// Benchmark: the HTTP host (packages/server, built) against a bare Fastify app serving the same JSON,
// in one run, and SSE fan-out to 10,000 streams.
//
//  1. Requests/s with autocannon 8 (in a child process, bench/support/load.mjs, so the load generator
//     does not share the servers' event loop; 32 connections, 1 s warm-up, 5 s measured):
//     (a) poll    GET /v2/auto/queries/:id  vs a bare route returning the identical poll JSON;
//     (b) validate POST /v2/auto/queries/validate with a realistic ~500-byte query vs a bare route that
//         only JSON-parses the body and returns the identical validation JSON.
//     Both bare routes have the host's response schemas (the same serializer work). Each run also
//     gives the servers' CPU time per answer, which does not depend on the load generator's share of
//     the two cores, and its user part (the JavaScript: the write per answer is system time, and costs
//     more when the load generator sleeps between answers).
//     The host runs in-process (buildServer from packages/server/dist, logger off, a PushSource feed),
//     with everything a request goes through: key lookup, quota counting (in memory, written once a second),
//     the rate limiter, the HMAC rules, the handler and the response schema.
//  2. SSE fan-out: 10,000 streams on /v2/auto/queries/stream (raw node:http, in a child process,
//     bench/support/sse-clients.mjs); one query fires per round (push a price, the engine stores the
//     notification, the hub writes it to every stream); time from the push until each stream has it
//     (p50/p99/max over 10,000 streams x rounds, from CLOCK_MONOTONIC in both processes), and the host's
//     RSS per stream.
//
// `node bench/http.mjs --profile` also samples the servers' CPU (node:inspector) during the last round's
// measured runs and prints where the time goes: by function, the microseconds an answer of the host and of
// bare Fastify side by side (what the host adds, largest first), and the inclusive time of the host's code.
// `--profile-out DIR` writes the profiles there too (one .cpuprofile a run, for Chrome's DevTools).
//
// Limits: Auto routes allow 120 requests a minute per key (pro), and pro keys 50,000 requests a day.
// A load test makes hundreds of thousands, so this process raises the pro plan's limits (PLANS is the
// host's plan table): the limiter and the quota counter still run on every request, they just never
// say no. Every measured answer must be a 2xx, or the run fails.
import { fork, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { PushSource } from '@eql/core';
import { S } from '../packages/server/dist/routes/schemas.js';
import { buildServer, createApiKey, PLANS } from '@eql/server';
import { selfTimePerAnswer, summarize } from './support/profile-summary.mjs';

const startLoad = loadavg();
const CONNECTIONS = 32;
const WARMUP_S = 1;
const DURATION_S = 2;
// `--rounds N`: rounds of the HTTP runs (7 by default). Each round runs both sides of a route back to back
// (the order alternating from round to round) and gives one ratio; an aim is the median of those ratios.
const ROUNDS_HTTP = process.argv.includes('--rounds') ? Number(process.argv[process.argv.indexOf('--rounds') + 1]) : 7;
if (!Number.isInteger(ROUNDS_HTTP) || ROUNDS_HTTP < 1) throw new Error('--rounds takes a whole number of at least 1');
const STREAMS = 10_000;
const ROUNDS = 5;
// Issue 17's aims (with the bare routes serialising through the same response schemas).
const AIMS = { poll: 0.9, validate: 0.8, sseRssKbPerStream: 15, sseP99Ms: 100 };
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

// ------------------------------------------------------------------ the two servers

for (const plan of Object.values(PLANS)) {
  plan.requestsPerMinute = 1e9;
  plan.dailyRequestLimit = 1e9;
  plan.monthlyRequestLimit = 1e9;
}

const dataDir = await mkdtemp(join(tmpdir(), 'eql-bench-http-'));
const push = new PushSource();
// The 10,000 SSE streams are one key's: the per-key bound (10 by default) is raised like the plan limits.
const host = await buildServer({ config: { dataDir, secretKey: 'ab'.repeat(32), sseMaxStreamsPerKey: 20_000 }, logger: false, engine: { sources: [push] } });
const hostUrl = await host.app.listen({ host: '127.0.0.1', port: 0 });
const { key } = await createApiKey(host.context.store, host.context.box, { name: 'bench', plan: 'pro' });

/** A realistic query request (~500 bytes): a price level and an RSI condition, a notification and a webhook. */
const queryRequest = {
  title: 'BTC breakout with momentum',
  query: {
    conditions: {
      AND: [
        { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 105000 },
        { source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '1h', period: 14 }, operator: '>', value: 60 },
      ],
    },
    actions: [
      { stepId: 'alert', type: 'notify', params: { message: 'BTC broke 105k with the 1h RSI above 60', priority: 'high' } },
      { stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/eql/btc' } },
    ],
    expiresIn: '24h',
  },
};
const validateBody = JSON.stringify(queryRequest);
const headers = { 'x-svc-api-key': key, 'content-type': 'application/json' };

async function hostCall(method, path, body) {
  const response = await fetch(`${hostUrl}${path}`, { method, headers: body === undefined ? { 'x-svc-api-key': key } : headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text;
}

const validationText = await hostCall('POST', '/v2/auto/queries/validate', validateBody);
const { queryId } = JSON.parse(await hostCall('POST', '/v2/auto/queries', validateBody));
const pollText = await hostCall('GET', `/v2/auto/queries/${queryId}`);
const pollJson = JSON.parse(pollText);
const validationJson = JSON.parse(validationText);

// The bare routes serialise with the host's own response schemas (a schema makes Fastify compile a
// serializer, faster than JSON.stringify): the same work for the same JSON, so the ratio is the host's
// auth, limiter, metering and handler alone.
const bare = Fastify({ logger: false });
bare.get('/v2/auto/queries/:queryId', { schema: { response: { 200: S.poll.response[200] } } }, () => pollJson);
bare.post('/v2/auto/queries/validate', { schema: { response: { 200: S.validate.response[200] } } }, () => validationJson);
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

// ------------------------------------------------------------------ requests per second

function load(options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [here('./support/load.mjs'), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited with ${code}`))));
  });
}

const PROFILE_OUT = process.argv.includes('--profile-out') ? process.argv[process.argv.indexOf('--profile-out') + 1] : undefined;
if (PROFILE_OUT !== undefined && (PROFILE_OUT === '' || PROFILE_OUT.startsWith('--'))) throw new Error('--profile-out takes a directory');
const PROFILE = process.argv.includes('--profile') || PROFILE_OUT !== undefined;
// How many functions each profile table lists (`--profile-lines N`).
const PROFILE_LINES = process.argv.includes('--profile-lines') ? Number(process.argv[process.argv.indexOf('--profile-lines') + 1]) : 20;
const session = PROFILE ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
}
const profiles = [];

/** One measured run (after a warm-up on the first); every answer must be a 2xx. */
async function measure(target, round, profile) {
  const options = { url: target.url, method: target.method, connections: CONNECTIONS, headers, ...(target.body === undefined ? {} : { body: target.body }) };
  if (round === 0) await load({ ...options, duration: WARMUP_S });
  if (profile && session) await session.post('Profiler.start');
  const cpuBefore = process.cpuUsage();
  const result = await load({ ...options, duration: DURATION_S });
  // The servers' CPU per answer (this process serves them; only one is under load at a time): with the
  // load generator on the same two cores, the one figure that does not depend on how busy it is.
  // User time is the servers' JavaScript (and V8's); system time is mostly the one write per answer, whose cost
  // on loopback grows when the load generator sleeps between answers (a slower server wakes it more often).
  const cpu = process.cpuUsage(cpuBefore);
  result.serverCpuUs = (cpu.user + cpu.system) / result.total;
  result.serverUserUs = cpu.user / result.total;
  if (profile && session) profiles.push({ name: target.name, answers: result.total, profile: (await session.post('Profiler.stop')).profile });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${target.name}: ${result.non2xx} non-2xx (${JSON.stringify(result.statuses)}), ${result.errors} errors, ${result.timeouts} timeouts: the measurement is not valid`);
  }
  return result;
}

// Bare and host of a route run back to back, ROUNDS_HTTP times (the order alternating), and each ratio is
// the median of the rounds' ratios: a machine shared with other work then shifts both sides of a ratio
// alike. (Its speed moves by 2x within minutes: the medians of each side apart moved a ratio as much.)
const targets = [
  { name: 'poll, bare Fastify', url: `${bareUrl}/v2/auto/queries/${queryId}`, method: 'GET' },
  { name: 'poll, EQL host', url: `${hostUrl}/v2/auto/queries/${queryId}`, method: 'GET', host: true },
  { name: 'validate, bare Fastify', url: `${bareUrl}/v2/auto/queries/validate`, method: 'POST', body: validateBody },
  { name: 'validate, EQL host', url: `${hostUrl}/v2/auto/queries/validate`, method: 'POST', body: validateBody, host: true },
];
const runs = new Map(targets.map((target) => [target.name, []]));
const pairs = [targets.slice(0, 2), targets.slice(2, 4)];
for (let round = 0; round < ROUNDS_HTTP; round += 1) {
  for (const pair of pairs) {
    for (const target of round % 2 === 0 ? pair : [...pair].reverse()) runs.get(target.name).push(await measure(target, round, round === ROUNDS_HTTP - 1));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** The rounds' ratios of host to bare req/s for a route, sorted. */
const roundRatios = (route) => runs.get(`${route}, EQL host`).map((run, round) => run.requestsPerSecond / runs.get(`${route}, bare Fastify`)[round].requestsPerSecond).sort((a, b) => a - b);
const results = targets.map(({ name }) => {
  const list = runs.get(name);
  return {
    name,
    requestsPerSecond: median(list.map((run) => run.requestsPerSecond)),
    all: list.map((run) => run.requestsPerSecond),
    latencyP50: median(list.map((run) => run.latencyP50)),
    latencyP99: median(list.map((run) => run.latencyP99)),
    serverCpuUs: median(list.map((run) => run.serverCpuUs)),
    serverUserUs: median(list.map((run) => run.serverUserUs)),
    total: list.reduce((sum, run) => sum + run.total, 0),
  };
});
await bare.close();

// ------------------------------------------------------------------ SSE fan-out

// Queries that fire on demand, one per round, each on its own symbol.
const symbols = ['BTC', 'ETH', 'SOL', 'AVAX', 'LINK', 'DOGE', 'XRP', 'ADA'].slice(0, ROUNDS);
for (const symbol of symbols) {
  const body = JSON.stringify({
    title: `${symbol} fan-out`,
    query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: `${symbol} fired` } }], expiresIn: '24h' },
  });
  await hostCall('POST', '/v2/auto/queries/validate', body);
  await hostCall('POST', '/v2/auto/queries', body);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
const memory = async () => {
  await settle();
  gc();
  return process.memoryUsage();
};
/**
 * Opens STREAMS streams from a client process on `url`'s port, then pushes ROUNDS notifications through
 * `fire(round)` and times each, push -> received by every stream. `stats` says when the server had
 * written the frame to every stream, and when those writes were handed to the sockets.
 */
async function fanOut(port, fire, stats) {
  const before = await memory();
  const clients = fork(here('./support/sse-clients.mjs'), [String(port), key, String(STREAMS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages = [];
  let wake;
  clients.on('message', (message) => {
    messages.push(message);
    wake?.();
  });
  const next = async (type) => {
    for (;;) {
      const index = messages.findIndex((message) => message.type === type || message.type === 'error');
      if (index >= 0) {
        const [message] = messages.splice(index, 1);
        if (message.type === 'error') throw new Error(`SSE clients: ${message.message}`);
        return message;
      }
      await new Promise((resolve) => (wake = resolve));
    }
  };
  const opened = await next('ready');
  if (opened.streams !== STREAMS) throw new Error(`${opened.streams} streams open, not ${STREAMS}`);
  const streaming = await memory();
  const latencies = [];
  const publishTimes = [];
  const flushTimes = [];
  for (let round = 0; round < ROUNDS; round++) {
    stats.published = undefined;
    stats.flushed = new Promise((resolve) => (stats.resolveFlushed = resolve));
    const pushedAt = process.hrtime.bigint();
    fire(round);
    const { at } = await next('arrivals');
    const flushed = await stats.flushed;
    publishTimes.push(Number(stats.published - pushedAt) / 1e6);
    flushTimes.push(Number(flushed - pushedAt) / 1e6);
    for (const time of at) latencies.push(Number(BigInt(time) - pushedAt) / 1e6);
    await settle();
  }
  clients.send('exit');
  await new Promise((resolve) => clients.once('exit', resolve));
  latencies.sort((a, b) => a - b);
  return { latencies, publishTimes, flushTimes, rssPerStreamKb: (streaming.rss - before.rss) / STREAMS / 1024, heapPerStreamKb: (streaming.heapUsed - before.heapUsed) / STREAMS / 1024 };
}

/** Marks the instant a server has written a round's frame to every stream, and the next turn (its writes handed to the sockets). */
function written(stats) {
  stats.published = process.hrtime.bigint();
  setImmediate(() => stats.resolveFlushed(process.hrtime.bigint()));
}

// The host: a price fires a query, the engine stores its notification, the hub writes it to every stream.
// The hub's listener runs first (build-server.ts): this one sees the frame written to every stream.
const hostStats = {};
host.context.runner.onNotification(() => written(hostStats));
const hostFanOut = await fanOut(new URL(hostUrl).port, (round) => push.push({ at: Date.now(), source: 'price', symbol: symbols[round], price: 10 }), hostStats);
if (host.context.hub.size !== 0) await settle();
await host.close();
await rm(dataDir, { recursive: true, force: true });

// The limit: a bare node:http server that writes one serialised frame and a count to every open stream,
// the same bytes the host sends, with no store, no engine and no authentication.
const bareStreams = new Set();
const bareSse = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
  response.write('retry: 3000\nevent: ready\ndata: {"lastEventId":0}\n\nevent: notification:count\ndata: {"unread":0}\n\n');
  const stream = { response, unread: 0 };
  bareStreams.add(stream);
  response.on('close', () => bareStreams.delete(stream));
});
await new Promise((resolve) => bareSse.listen(0, '127.0.0.1', resolve));
const bareStats = {};
let bareId = 0;
const bareFanOut = await fanOut(
  bareSse.address().port,
  (round) => {
    bareId += 1;
    const frame = `id: ${bareId}\nevent: notification:new\ndata: ${JSON.stringify({ id: bareId, type: 'athena_query_notify_only', category: 'alerts', title: 'fan-out', body: `${symbols[round]} fired`, data: { queryId: 'q', stepId: 'n', triggerIndex: 1 }, priority: 'high', createdAt: new Date().toISOString() })}\n\n`;
    for (const stream of bareStreams) {
      stream.unread += 1;
      stream.response.write(frame);
      stream.response.write(`event: notification:count\ndata: {"unread":${stream.unread}}\n\n`);
    }
    written(bareStats);
  },
  bareStats,
);
for (const stream of bareStreams) stream.response.destroy();
await new Promise((resolve) => bareSse.close(resolve));

// ------------------------------------------------------------------ report

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const ms = (n) => `${n.toFixed(1)} ms`;

console.log(`HTTP host vs bare Fastify: autocannon ${CONNECTIONS} connections, ${ROUNDS_HTTP} rounds of a run of ${DURATION_S} s on each side of a route, back to back (after ${WARMUP_S} s warm-up), medians; load generator in its own process; node ${process.version}`);
console.log(`  load average at start ${startLoad.map((n) => n.toFixed(2)).join(' ')}, at end ${loadavg().map((n) => n.toFixed(2)).join(' ')} (other processes on this machine skew the figures)`);
console.log(`  validate body: ${Buffer.byteLength(validateBody)} bytes; poll answer: ${Buffer.byteLength(pollText)} bytes; validate answer: ${Buffer.byteLength(validationText)} bytes`);
console.log('  limits: the pro plan\'s rate limit and quotas raised to 1e9 in this process (limiter and quota counter still run on every request)');
console.log('');
console.log(`  ${'route'.padEnd(24)} ${'req/s'.padStart(9)} ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'requests'.padStart(9)} ${'server CPU/answer'.padStart(18)} ${'of it user'.padStart(11)}  runs (req/s)`);
for (const result of results) {
  console.log(
    `  ${result.name.padEnd(24)} ${fmt(result.requestsPerSecond).padStart(9)} ${`${result.latencyP50} ms`.padStart(7)} ${`${result.latencyP99} ms`.padStart(7)} ${fmt(result.total).padStart(9)} ${`${result.serverCpuUs.toFixed(1)} µs`.padStart(18)} ${`${result.serverUserUs.toFixed(1)} µs`.padStart(11)}  ${result.all.map(fmt).join(' / ')}`,
  );
}
const pollRatios = roundRatios('poll');
const validateRatios = roundRatios('validate');
const pollRatio = median(pollRatios);
const validateRatio = median(validateRatios);
const spread = (ratios) => `rounds ${ratios[0].toFixed(2)} to ${ratios[ratios.length - 1].toFixed(2)}`;
console.log(`  ratio host/bare, median of the rounds' ratios: poll ${pollRatio.toFixed(2)} (${spread(pollRatios)}); validate ${validateRatio.toFixed(2)} (${spread(validateRatios)})`);
const cpuOf = Object.fromEntries(results.map((result) => [result.name, result.serverCpuUs]));
const userOf = Object.fromEntries(results.map((result) => [result.name, result.serverUserUs]));
const added = (of, route) => (of[`${route}, EQL host`] - of[`${route}, bare Fastify`]).toFixed(1);
console.log(`  server CPU an answer adds over bare Fastify: poll ${added(cpuOf, 'poll')} µs, validate ${added(cpuOf, 'validate')} µs`);
console.log(`  of it user time (the JavaScript, the steadier figure): poll ${added(userOf, 'poll')} µs, validate ${added(userOf, 'validate')} µs`);
console.log('');
console.log(`SSE fan-out: ${STREAMS.toLocaleString('en-US')} streams (one key), ${ROUNDS} notifications; clients in their own process`);
for (const [name, run] of [['EQL host', hostFanOut], ['bare node:http', bareFanOut]]) {
  console.log(`  ${name}:`);
  console.log(`    push -> written to every stream:          ${run.publishTimes.map((t) => ms(t)).join(', ')}`);
  console.log(`    push -> handed to every socket:           ${run.flushTimes.map((t) => ms(t)).join(', ')}`);
  console.log(`    push -> received (${run.latencies.length} deliveries):   p50 ${ms(percentile(run.latencies, 50))}, p99 ${ms(percentile(run.latencies, 99))}, max ${ms(run.latencies[run.latencies.length - 1])}`);
  // The bare server runs after the host closed, in the same process: its RSS moves with what the host freed.
  if (run === hostFanOut) console.log(`    memory per stream (after gc):             RSS ${run.rssPerStreamKb.toFixed(1)} KB, heap ${run.heapPerStreamKb.toFixed(1)} KB`);
  else console.log(`    memory per stream (after gc):             heap ${run.heapPerStreamKb.toFixed(1)} KB`);
}
console.log('');
console.log('AIMS');
const aim = (label, value, target) => console.log(`  ${label.padEnd(44)} ${value.toFixed(2)} (aim >= ${target.toFixed(2)}) ${value >= target ? 'MET' : 'NOT MET'}`);
aim('poll: host req/s / bare Fastify req/s', pollRatio, AIMS.poll);
aim('validate: host req/s / bare Fastify req/s', validateRatio, AIMS.validate);
const rssPerStream = hostFanOut.rssPerStreamKb;
const sseP99 = percentile(hostFanOut.latencies, 99);
const bareP99 = percentile(bareFanOut.latencies, 99);
console.log(`  ${'SSE: host RSS per stream'.padEnd(44)} ${rssPerStream.toFixed(1)} KB (aim <= ${AIMS.sseRssKbPerStream} KB, ${STREAMS.toLocaleString('en-US')} streams) ${rssPerStream <= AIMS.sseRssKbPerStream ? 'MET' : 'NOT MET'}`);
console.log(`  ${'SSE: push -> received by every stream, p99'.padEnd(44)} ${sseP99.toFixed(1)} ms (aim <= ${AIMS.sseP99Ms} ms; bare node:http ${bareP99.toFixed(1)} ms, ${(sseP99 / bareP99).toFixed(2)}x) ${sseP99 <= AIMS.sseP99Ms ? 'MET' : 'NOT MET'}`);
if (!PROFILE && (pollRatio < AIMS.poll || validateRatio < AIMS.validate)) console.log('  (where the host spends its time: node bench/http.mjs --profile)');

if (profiles.length > 0) {
  if (PROFILE_OUT !== undefined) {
    await mkdir(PROFILE_OUT, { recursive: true });
    // `answers` (not a field of V8's format, which its readers ignore): how many answers the run gave.
    for (const { name, answers, profile } of profiles) await writeFile(join(PROFILE_OUT, `${name.replace(/[^a-z]+/gi, '-')}.cpuprofile`), JSON.stringify({ ...profile, answers }));
  }
  const us = (value) => value.toFixed(2).padStart(7);
  console.log('');
  console.log("PROFILE (the servers' CPU in the last round's measured runs, microseconds an answer)");
  for (const route of ['poll', 'validate']) {
    const [host, bare] = [`${route}, EQL host`, `${route}, bare Fastify`].map((name) => {
      const run = profiles.find((entry) => entry.name === name);
      return selfTimePerAnswer(run.profile, run.answers);
    });
    console.log(`  ${route}: busy ${us(host.busy).trim()} µs an answer on the host, ${us(bare.busy).trim()} on bare Fastify (${us(host.busy - bare.busy).trim()} more); by function, what the host adds:`);
    console.log(`    ${'host'.padStart(7)} ${'bare'.padStart(7)} ${'added'.padStart(7)}`);
    const labels = new Set([...host.functions.keys(), ...bare.functions.keys()]);
    const rows = [...labels].map((label) => [label, host.functions.get(label) ?? 0, bare.functions.get(label) ?? 0]).sort((a, b) => b[1] - b[2] - (a[1] - a[2]));
    for (const [label, onHost, onBare] of rows.slice(0, PROFILE_LINES)) console.log(`    ${us(onHost)} ${us(onBare)} ${us(onHost - onBare)}  ${label}`);
    const ownCode = rows.filter(([label]) => label.includes('packages/')).reduce((sum, [, onHost]) => sum + onHost, 0);
    console.log(`    the host's own code (packages/*), self: ${us(ownCode).trim()} µs an answer`);
  }
  for (const { name, profile } of profiles.filter((entry) => entry.name.endsWith('EQL host'))) {
    const { inclusive } = summarize(profile);
    console.log(`  ${name}: inclusive time of host code (packages/*), % of samples`);
    for (const [label, share] of inclusive.filter(([label]) => label.includes('packages/')).slice(0, PROFILE_LINES)) console.log(`    ${(share * 100).toFixed(1).padStart(5)}%  ${label}`);
  }
}
