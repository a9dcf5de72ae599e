#!/usr/bin/env node
/**
 * A small service that embeds @eql/core: it reads queries (JSON or the text form), validates them
 * against what its feed serves, runs the valid ones in an Engine and logs what happens (triggers,
 * notifications, webhook deliveries). Webhook actions go to the receiver of examples/webhook-receiver.mjs,
 * run in-process with a secret made at start, which checks every signature.
 *
 *   node examples/embedding-service/index.mjs                     # demo: virtual time, exits by itself
 *   node examples/embedding-service/index.mjs --realtime --from 2026-01-06T15:58:00Z examples/price-alert.json
 *
 * Virtual time (the default): a ReplaySource plays the recording on an EpochVirtualScheduler, as fast
 * as the machine goes; the clock waits for webhook deliveries under way. Real time (--realtime): the
 * service pushes the recording into a PushSource on the real clock, a recorded minute per second
 * (--speed 60), as an embedder pushes its own feed. See examples/README.md.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  diagnosticText,
  Engine,
  EpochVirtualScheduler,
  parseRecording,
  pricedAssets,
  PushSource,
  RecordedLlmProvider,
  RecordingHistory,
  ReplaySource,
  validate,
} from '@eql/core';
import { loadDocument } from '@eql/syntax';
import { createWebhookReceiver, describeDelivery } from '../webhook-receiver.mjs';
import { LoopbackTransport } from './transport.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEFAULT_QUERIES = ['examples/price-alert.json', 'examples/sol-oversold.eql', 'examples/webhook.json'];
const DEFAULT_DATA = 'fixtures/recordings/market-3d.jsonl';
const ENDED = new Set(['expired', 'cancelled', 'failed']);

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    data: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    realtime: { type: 'boolean', default: false },
    speed: { type: 'string', default: '60' },
  },
});

const iso = (time) => new Date(time).toISOString();
/** Paths given on the command line are relative to the working directory; the defaults to the repository. */
const read = (path, given) => readFile(given ? path : `${ROOT}${path}`, 'utf8');
const rounded = (value) => (Number.isInteger(value) ? value : Number(value.toFixed(4)));
const describeState = (state) =>
  `${state.source}${state.method ? `.${state.method}` : ''} = ${state.value === undefined ? '?' : rounded(state.value)}` +
  (state.threshold === undefined ? '' : ` (threshold ${rounded(state.threshold)})`);
const timeFlag = (text, fallback) => {
  if (text === undefined) return fallback;
  const time = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (Number.isNaN(time)) throw new Error(`not a time: ${text} (ISO 8601 or epoch ms)`);
  return time;
};

async function main() {
  const dataPath = flags.data ?? DEFAULT_DATA;
  const recording = parseRecording(await read(dataPath, flags.data !== undefined));
  const from = timeFlag(flags.from, recording.start);
  const to = timeFlag(flags.to, recording.end);
  const speed = Number(flags.speed);
  if (!(speed > 0)) throw new Error(`--speed must be a positive number, got ${flags.speed}`);

  // 1. Read and validate: what the feed serves is the recording's assets, with its past as history.
  const served = { symbols: pricedAssets(recording.observations), history: true };
  const queries = [];
  let invalid = 0;
  for (const file of positionals.length > 0 ? positionals : DEFAULT_QUERIES) {
    const document = loadDocument(await read(file, positionals.length > 0));
    const place = (range) => (range ? `${file}:${range.start.line}:${range.start.column}` : file);
    if (document.errors.length > 0) {
      invalid += 1;
      for (const error of document.errors) console.log(`✗ ${place(error.range)} ${error.message}`);
      continue;
    }
    const result = validate(document.value, { now: from, served });
    const ranges = document.locate(result.diagnostics.map((diagnostic) => ({ pointer: diagnostic.path })));
    result.diagnostics.forEach((diagnostic, index) => {
      console.log(`${diagnostic.severity === 'error' ? '✗' : '!'} ${place(ranges[index])} ${diagnosticText(diagnostic)} [${diagnostic.code}]`);
    });
    if (!result.valid) {
      invalid += 1;
      continue;
    }
    const name = file.replace(/^.*\//, '').replace(/\.(eql\.json|json|eql)$/, '');
    let id = name;
    for (let copy = 2; queries.some((query) => query.queryId === id); copy += 1) id = `${name}-${copy}`;
    console.log(`✓ ${file} is valid: "${document.value.title ?? id}", ${result.estimatedCost?.credits ?? 0} credits, runs as ${id}`);
    queries.push({ queryId: id, request: document.value, createdAt: from, ownerId: 'demo' });
  }
  if (queries.length === 0) return 1;

  // 2. The webhook receiver, in-process, judging timestamps by the engine's clock.
  const secret = randomBytes(24).toString('base64url');
  let clock = () => Date.now();
  const deliveries = { verified: 0, rejected: 0 };
  const receiver = createWebhookReceiver({
    secret,
    now: () => clock(),
    onDelivery: (event, meta) => {
      deliveries.verified += 1;
      console.log(`  receiver: ${describeDelivery(event, meta)}`);
    },
    onRejected: (reason) => {
      deliveries.rejected += 1;
      console.log(`  receiver: rejected a delivery: ${reason}`);
    },
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const transport = new LoopbackTransport(`http://127.0.0.1:${receiver.address().port}/`);

  // 3. The engine: sources, history and recorded LLM verdicts, in virtual or real time.
  let scheduler;
  let feed;
  let observations = recording.observations;
  const start = Date.now();
  if (flags.realtime) {
    // Recorded time `from` is now; the recording plays `speed` times faster, its past as history.
    observations = observations.map((observation) => ({ ...observation, at: Math.round(start + (observation.at - from) / speed) }));
    feed = new PushSource();
    for (const query of queries) query.createdAt = start;
  } else {
    scheduler = new EpochVirtualScheduler(from);
    clock = () => scheduler.now();
  }
  const engine = new Engine({
    ...(scheduler ? { scheduler } : {}),
    sources: [feed ?? new ReplaySource(observations, { scheduler, latestOnSubscribe: false })],
    history: [new RecordingHistory(observations)],
    llm: new RecordedLlmProvider(observations),
    http: transport,
    // Called as a webhook is signed, before it is sent: the transport then knows one is coming.
    webhookSecret: () => {
      transport.expect();
      return secret;
    },
  });

  // 4. Log what happens.
  const counts = { triggers: 0, failures: 0 };
  const running = new Set(queries.map((query) => query.queryId));
  const executing = new Set();
  engine.events$.subscribe((event) => {
    const at = iso(event.at);
    if (event.type === 'execution-started') executing.add(event.execution.id);
    if (event.type === 'execution-succeeded' || event.type === 'execution-failed') executing.delete(event.execution.id);
    switch (event.type) {
      case 'trigger': {
        counts.triggers += 1;
        const states = event.conditionStates.map(describeState).join(', ');
        console.log(`${at} ${event.queryId} fires (trigger ${event.triggerIndex}${event.final ? ', final' : ''}): ${states}`);
        if (event.final) running.delete(event.queryId);
        return;
      }
      case 'notification':
        console.log(`  notify: ${event.notification.title}: ${event.notification.body}`);
        return;
      case 'execution-succeeded':
        if (event.execution.type !== 'notify') console.log(`  ${event.execution.stepId} (${event.execution.type}) succeeded (attempts: ${event.execution.attempts})`);
        return;
      case 'execution-failed':
        counts.failures += 1;
        console.log(`  ${event.execution.stepId} (${event.execution.type}) failed: ${event.execution.error?.message ?? 'unknown'}`);
        return;
      case 'status-changed':
        if (ENDED.has(event.status)) {
          running.delete(event.queryId);
          console.log(`${at} ${event.queryId} ${event.status}`);
        }
        return;
      case 'problem':
        console.log(`${at} ${event.queryId} problem ${event.code}: ${event.message}`);
        return;
      default:
        return;
    }
  });
  for (const query of queries) engine.add(query);

  // 5. Run until the recording (or --to) ends or every query is done.
  if (scheduler) {
    console.log(`replaying ${dataPath} in virtual time from ${iso(from)} to ${iso(to)}`);
    for (let time = from; time < to && (running.size > 0 || executing.size > 0); ) {
      time = Math.min(to, time + 60_000);
      scheduler.advanceTo(time);
      await settle(transport);
    }
  } else {
    const until = start + (to - from) / speed;
    console.log(`pushing ${dataPath} from ${iso(from)} in real time, ${speed}x (Ctrl-C stops)`);
    await pushInRealTime(feed, observations.filter((observation) => observation.at <= until), () => running.size === 0);
  }
  engine.dispose();
  await transport.idle();
  await new Promise((resolve) => receiver.close(resolve));
  console.log(`done: ${counts.triggers} triggers, ${deliveries.verified} webhook deliveries verified, ${deliveries.rejected} rejected, ${counts.failures} actions failed`);
  return invalid > 0 || deliveries.rejected > 0 || counts.failures > 0 ? 1 : 0;
}

/**
 * Lets the actions started at this instant finish before the virtual clock moves on: webhook requests
 * are real I/O, and signing them is asynchronous too. An action waiting to retry waits for virtual
 * time, which moves on once nothing is under way.
 */
async function settle(transport) {
  await new Promise((resolve) => setImmediate(resolve));
  await transport.idle();
}

/**
 * Pushes each observation (except LLM verdicts, which the RecordedLlmProvider answers) into the feed
 * when the clock reaches its time; resolves at the end of the data, when `done()`, or on Ctrl-C.
 */
function pushInRealTime(feed, observations, done) {
  const due = observations.filter((observation) => observation.source !== 'llm' && observation.at >= Date.now());
  return new Promise((resolve) => {
    let cursor = 0;
    let timer;
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    process.once('SIGINT', stop);
    const step = () => {
      while (cursor < due.length && due[cursor].at <= Date.now()) feed.push(due[cursor++]);
      if (cursor >= due.length || done()) return stop();
      timer = setTimeout(step, Math.max(0, due[cursor].at - Date.now()));
    };
    step();
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`embedding-service: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 2;
  },
);
