import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { parseRecording, PushSource } from '@eql/core';
import { buildServer, createApiKey, type Host, PgHostStore } from '../src/index.js';
import { PgStreamSlots } from '../src/sse/pg-stream-slots.js';
import { killChildren, serveChild } from './support/child-host.js';
import { freePort, removeDir } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { adminQuery, describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';

// Issue 45, point 9: the cap on SSE streams per key (EQL_SSE_MAX_STREAMS_PER_KEY, 10 by default) holds for
// all the hosts of one PostgreSQL database together, not per process. Over real sockets; a slot is free
// again once the server has seen its client's socket close and the host has deleted its row (the test
// waits for those events), and the slots of a host killed with SIGKILL count no more once their expiry
// (the lease TTL, which the host renews) has passed: the test waits for the other host to accept again.

const TINY_RECORDING = parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');
const LIMIT = 10;

const schemas: TestSchema[] = [];
const dirs: string[] = [];
const pools: pg.Pool[] = [];
afterAll(async () => {
  killChildren();
  for (const pool of pools) await pool.end().catch(() => undefined);
  for (const schema of schemas) await schema.drop();
  for (const dir of dirs) await removeDir(dir);
});

async function schema(label: string): Promise<TestSchema> {
  const made = await freshSchema(label);
  schemas.push(made);
  return made;
}

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eql-pg-sse-limits-'));
  dirs.push(dir);
  return dir;
}

interface Member {
  host: Host;
  base: string;
  /** The server's side of every connection, by the client's port. */
  sockets: Map<number, Socket>;
}

/** A host of the database on 127.0.0.1. */
async function member(databaseUrl: string, nodeId: string): Promise<Member> {
  const host = await buildServer({
    config: { dataDir: await dataDir(), databaseUrl, secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId, partitions: 4 },
    logger: false,
    engine: { sources: [new PushSource()], recording: TINY_RECORDING },
  });
  const sockets = new Map<number, Socket>();
  host.app.server.on('connection', (socket: Socket) => {
    if (socket.remotePort !== undefined) sockets.set(socket.remotePort, socket);
  });
  await host.app.listen({ host: '127.0.0.1', port: 0 });
  return { host, base: `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`, sockets };
}

interface Opened {
  status: number;
  response: IncomingMessage;
  request: ClientRequest;
  port: number;
  text: () => string;
}

/** The all-queries stream on its own connection; resolves at the status line. */
function openStream(base: string, key: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    let text = '';
    const request = httpRequest(`${base}/v2/auto/queries/stream`, { agent: false, headers: { accept: 'text/event-stream', 'x-svc-api-key': key } }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('error', () => undefined);
      resolve({ status: response.statusCode ?? 0, response, request, port: request.socket?.localPort ?? 0, text: () => text });
    });
    request.on('error', reject);
    request.end();
  });
}

async function bodyOf(opened: Opened): Promise<unknown> {
  if (!opened.response.complete) await once(opened.response, 'end');
  return JSON.parse(opened.text()) as unknown;
}

/** Closes the client's side, waits until the server has seen it, then until the host has given the slot back in the database. */
async function hangUp(member: Member, opened: Opened): Promise<void> {
  const socket = member.sockets.get(opened.port);
  if (!socket) throw new Error(`no server socket for client port ${opened.port}`);
  const closed = socket.destroyed ? Promise.resolve() : once(socket, 'close');
  opened.request.destroy();
  await closed;
  await slotsOf(member).settled();
}

function slotsOf(member: Member): PgStreamSlots {
  return member.host.context.hub.slots as PgStreamSlots;
}

/** The refusal every host gives past the cap. */
const TOO_MANY = { success: false, error: { code: 'too_many_streams', message: expect.stringContaining(`${LIMIT} event streams`) as string, details: { limit: LIMIT } } };

/** Polls `check` until it holds; the deadline only bounds a hang (the test's timeout does too). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A pool that fails every statement while `down` is set (PostgreSQL out of reach), else is `real`. */
function flakyPool(real: pg.Pool): { pool: pg.Pool; down: { value: boolean } } {
  const down = { value: false };
  const unreachable = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
  const pool = {
    connect: () => (down.value ? unreachable() : real.connect()),
    query: (...args: unknown[]) => (down.value ? unreachable() : (real.query as (...a: unknown[]) => Promise<unknown>)(...args)),
  } as unknown as pg.Pool;
  return { pool, down };
}

await describeWithPostgres('SSE streams per key across the hosts of one PostgreSQL database', () => {
  it(`the ${LIMIT + 1}th stream of a key is refused whichever host it asks; a closed stream frees its slot for any host`, { timeout: 120_000 }, async () => {
    const { url, name } = await schema('sse_cap');
    const a = await member(url, 'node-a');
    const b = await member(url, 'node-b');
    try {
      const store = a.host.context.store;
      const { key, record } = await createApiKey(store, a.host.context.box, { name: 'streams', plan: 'pro' });
      const open: Array<{ member: Member; stream: Opened }> = [];
      for (let index = 0; index < LIMIT; index += 1) {
        const at = index % 2 === 0 ? a : b;
        const stream = await openStream(at.base, key);
        expect(stream.status, `stream ${index + 1}`).toBe(200);
        open.push({ member: at, stream });
      }
      expect([a.host.context.hub.streamsOf(record.id), b.host.context.hub.streamsOf(record.id)]).toEqual([LIMIT / 2, LIMIT / 2]);
      for (const at of [a, b]) {
        const refused = await openStream(at.base, key);
        expect(refused.status).toBe(429);
        expect(refused.response.headers['retry-after']).toBe('1');
        expect(await bodyOf(refused)).toEqual(TOO_MANY);
      }
      // Another key has slots of its own.
      const other = await createApiKey(store, a.host.context.box, { name: 'other', plan: 'pro' });
      const theirs = await openStream(b.base, other.key);
      expect(theirs.status).toBe(200);

      // A stream on a closes: b may open one, and then the key is full again everywhere.
      const first = open.shift()!;
      expect(first.member).toBe(a);
      await hangUp(a, first.stream);
      const onB = await openStream(b.base, key);
      expect(onB.status).toBe(200);
      open.push({ member: b, stream: onB });
      expect((await openStream(a.base, key)).status).toBe(429);

      for (const { member: at, stream } of open) await hangUp(at, stream);
      await hangUp(b, theirs);
      expect(await adminQuery(`SELECT count(*)::int AS n FROM ${name}.sse_streams`)).toEqual([{ n: 0 }]);
    } finally {
      await a.host.close();
      await b.host.close();
    }
  });

  it('requests arriving together at both hosts cannot pass the cap together', { timeout: 120_000 }, async () => {
    const { url } = await schema('sse_burst');
    const a = await member(url, 'node-a');
    const b = await member(url, 'node-b');
    try {
      const { key } = await createApiKey(a.host.context.store, a.host.context.box, { name: 'burst', plan: 'pro' });
      const asked = Array.from({ length: LIMIT + 6 }, (_, index) => (index % 2 === 0 ? a : b));
      const opened = await Promise.all(asked.map((at) => openStream(at.base, key)));
      expect(opened.filter((stream) => stream.status === 200)).toHaveLength(LIMIT);
      expect(opened.filter((stream) => stream.status === 429)).toHaveLength(6);
      for (const [index, stream] of opened.entries()) {
        if (stream.status === 200) await hangUp(asked[index]!, stream);
        else await bodyOf(stream);
      }
    } finally {
      await a.host.close();
      await b.host.close();
    }
  });

  it('the slots of a host killed with SIGKILL are free once their expiry passes unrenewed', { timeout: 180_000 }, async () => {
    const { url, name } = await schema('sse_kill');
    const a = await member(url, 'node-a');
    try {
      const { key } = await createApiKey(a.host.context.store, a.host.context.box, { name: 'killed', plan: 'pro' });
      const port = await freePort();
      const dir = await dataDir();
      const recording = join(dir, 'flat.jsonl');
      await writeFile(recording, '{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');
      const child = await serveChild({
        EQL_HOST: '127.0.0.1',
        EQL_PORT: String(port),
        EQL_DATABASE_URL: url,
        EQL_SECRET_KEY: SECRET_KEY_HEX,
        EQL_DATA_DIR: join(dir, 'child'),
        EQL_RECORDING: recording,
        EQL_NODE_ID: 'node-child',
        EQL_LEASE_TTL_MS: '1000',
        EQL_PARTITIONS: '4',
        EQL_MARKET_SEED: 'none',
        EQL_LOG_LEVEL: 'warn',
      });
      const held: Opened[] = [];
      for (let index = 0; index < LIMIT; index += 1) {
        const stream = await openStream(`http://127.0.0.1:${port}`, key);
        expect(stream.status).toBe(200);
        held.push(stream);
      }
      const refused = await openStream(a.base, key);
      expect(refused.status).toBe(429);
      expect(await bodyOf(refused)).toEqual(TOO_MANY);

      await child.kill9();
      for (const stream of held) stream.request.destroy();
      // Nobody deletes the dead host's rows: they stop counting when their expiry passes.
      expect(await adminQuery(`SELECT count(*)::int AS n FROM ${name}.sse_streams WHERE node_id = 'node-child'`)).toEqual([{ n: LIMIT }]);
      let accepted: Opened | undefined;
      await eventually(async () => {
        const stream = await openStream(a.base, key);
        if (stream.status === 200) accepted = stream;
        else await bodyOf(stream);
        return accepted !== undefined;
      }, "a's first stream after the child's slots expired");
      await hangUp(a, accepted!);
    } finally {
      await a.host.close();
    }
  });

  it('while PostgreSQL fails, a host counts its own streams (the cap per host); once it answers, they are written for every host to count', { timeout: 60_000 }, async () => {
    const { url } = await schema('sse_down');
    // Migrated by a store; two hosts' slot counters on pools of their own, host a's failing at will.
    const store = await PgHostStore.open(url);
    const realA = new pg.Pool({ connectionString: url });
    const realB = new pg.Pool({ connectionString: url });
    pools.push(realA, realB);
    const flaky = flakyPool(realA);
    const warnings: string[] = [];
    const hostA = new PgStreamSlots(flaky.pool, { nodeId: 'node-a', ttlMs: 60_000, renewEveryMs: 60_000, warn: (message) => warnings.push(message) });
    const hostB = new PgStreamSlots(realB, { nodeId: 'node-b', ttlMs: 60_000, renewEveryMs: 60_000 });
    try {
      await hostA.settled();
      flaky.down.value = true;
      const slots = [await hostA.reserve(7, 2), await hostA.reserve(7, 2)];
      expect(slots.every((slot) => slot !== undefined)).toBe(true);
      expect(await hostA.reserve(7, 2)).toBeUndefined();
      expect(hostA.heldHere(7)).toBe(2);
      // Logged once (at most once a minute), without failing the requests.
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/the cap on streams per key holds per host/);
      // Host b does not see them yet.
      const early = await hostB.reserve(7, 3);
      expect(early).toBeDefined();
      early!.release();
      await hostB.settled();

      flaky.down.value = false;
      await hostA.renew();
      expect(await hostB.reserve(7, 2)).toBeUndefined();
      slots[0]!.release();
      await hostA.settled();
      const freed = await hostB.reserve(7, 2);
      expect(freed).toBeDefined();
      freed!.release();
      slots[1]!.release();
    } finally {
      await hostA.close();
      await hostB.close();
      await store.close();
    }
  });
});

