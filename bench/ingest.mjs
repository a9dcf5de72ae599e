// Benchmark: how long `POST /v2/ingest` of 10,000 items keeps the host's event loop from turning (issue 13).
//
// The host runs in-process (buildServer from packages/server/dist, logger off, its own file-backed
// market.sqlite in a temporary data dir, seeded with the demo dataset as at a normal start). Each round
// sends 10,000 fresh items from the seeded generator (scripts/mentions-generator.mjs: accounts, posts,
// Telegram messages, news) through app.inject, while a setImmediate loop notes the longest gap between
// two of its turns (the last one ending when the answer arrives). Printed per round: the request's wall
// time, the longest stall, the five longest, and how many turns the loop made during the request (2: it
// never turned while the request ran). One warm-up round (1,000 items) first.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PushSource } from '@eql/core';
import { buildServer, createApiKey } from '@eql/server';
import { generateMentions } from '../scripts/mentions-generator.mjs';

const ITEMS = 10_000;
const ROUNDS = 3;

const dataDir = await mkdtemp(join(tmpdir(), 'eql-bench-ingest-'));
const host = await buildServer({ config: { dataDir, secretKey: 'ab'.repeat(32) }, logger: false, engine: { sources: [new PushSource()] } });
const { key } = await createApiKey(host.context.store, host.context.box, { name: 'bench', plan: 'pro', scopes: ['ingest'] });

/** `count` items of the generator, their ids made unique to the round so every round writes new rows. */
function itemsOf(round, count) {
  const items = [];
  for (const item of generateMentions({ seed: 7_000 + round, posts: count, telegram: Math.floor(count / 10), news: Math.floor(count / 50), accountCount: 200 })) {
    if (items.length === count) break;
    if (item.kind === 'post') items.push({ ...item, tweetId: `r${round}-${item.tweetId}`, link: `${item.link}r${round}` });
    else if (item.kind === 'account') items.push(item);
    else items.push({ ...item, id: `r${round}-${item.id}` });
  }
  return items;
}

async function round(index, count) {
  const payload = JSON.stringify({ items: itemsOf(index, count) });
  const gaps = [];
  let last = performance.now();
  let running = true;
  const turn = () => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
    if (running) setImmediate(turn);
  };
  const started = performance.now();
  setImmediate(turn);
  const response = await host.app.inject({ method: 'POST', url: '/v2/ingest', headers: { 'x-svc-api-key': key, 'content-type': 'application/json' }, payload });
  const wall = performance.now() - started;
  running = false;
  turn();
  if (response.statusCode !== 200) throw new Error(`ingest answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
  const longest = [...gaps].sort((a, b) => b - a);
  return { items: count, wallMs: Math.round(wall), longestStallMs: Math.round((longest[0] ?? 0) * 10) / 10, fiveLongestMs: longest.slice(0, 5).map(Math.round).join(', '), turns: gaps.length, data: response.json().data };
}

try {
  await round(0, 1_000);
  const results = [];
  for (let index = 1; index <= ROUNDS; index += 1) results.push(await round(index, ITEMS));
  console.table(results.map(({ data, ...rest }) => ({ ...rest, posts: data.posts })));
  const worst = Math.max(...results.map((result) => result.longestStallMs));
  console.log(`longest event-loop stall during a ${ITEMS.toLocaleString()}-item POST /v2/ingest: ${worst} ms (worst of ${ROUNDS})`);
} finally {
  await host.close();
  await rm(dataDir, { recursive: true, force: true });
}
